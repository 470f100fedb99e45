//! The payload of a content type built from its fields with `qr_core::content`, every refusal named by the API's field.

use qr_core::content::{
    Bic, CalendarEvent, ContentError, EmailAddress, EpcAmount, EpcTransfer, GeoLocation, Iban,
    Latitude, Longitude, Mailto, MeCard, PersonName, PhoneKind, PhoneNumber, PostalAddress,
    Remittance, Sms, Telephone, UtcDateTime, VCard, VCardVersion, WebUrl, WifiNetwork,
    WifiSecurity,
};

use super::ContentType;
use crate::error::PayloadError;

/// Builds the payload of `kind` from its fields; `get` returns a field's value, `None` when
/// it is not given (an empty value counts as not given).
pub fn build<'a>(
    kind: &ContentType,
    get: impl Fn(&str) -> Option<&'a str>,
) -> Result<String, PayloadError> {
    let fields = Fields { kind, get: &get };
    match kind.name {
        "wifi" => wifi(&fields),
        "vcard" => {
            let version = match fields.get("version") {
                None | Some("3") => VCardVersion::V3,
                Some("4") => VCardVersion::V4,
                Some(_) => return Err(fields.invalid("version", "3 or 4")),
            };
            contact(&fields, VCard::new(version, name(&fields)?), VCARD_BUILDERS)
                .map(|c| c.payload())
        }
        "mecard" => {
            contact(&fields, MeCard::new(name(&fields)?), MECARD_BUILDERS).map(|c| c.payload())
        }
        "geo" => {
            let latitude = fields.number("latitude")?;
            let longitude = fields.number("longitude")?;
            let latitude = Latitude::new(latitude).map_err(content("latitude"))?;
            let longitude = Longitude::new(longitude).map_err(content("longitude"))?;
            Ok(GeoLocation::new(latitude, longitude).payload())
        }
        "email" => {
            let to = EmailAddress::new(fields.required("to")?).map_err(content("to"))?;
            let mut mail = Mailto::new(to);
            if let Some(subject) = fields.get("subject") {
                mail = mail.with_subject(subject).map_err(content("subject"))?;
            }
            if let Some(body) = fields.get("body") {
                mail = mail.with_body(body).map_err(content("body"))?;
            }
            Ok(mail.payload())
        }
        "sms" => {
            let mut sms = Sms::new(
                fields
                    .phone("phone")?
                    .ok_or_else(|| fields.missing("phone"))?,
            );
            if let Some(message) = fields.get("message") {
                sms = sms.with_message(message).map_err(content("message"))?;
            }
            Ok(sms.payload())
        }
        "tel" => {
            let number = fields
                .phone("phone")?
                .ok_or_else(|| fields.missing("phone"))?;
            Ok(Telephone::new(number).payload())
        }
        "event" => event(&fields),
        "epc" => epc(&fields),
        other => Err(PayloadError::ContentType(other.to_owned())),
    }
}

/// A type's fields as given.
struct Fields<'f, 'a> {
    kind: &'f ContentType,
    get: &'f dyn Fn(&str) -> Option<&'a str>,
}

impl<'a> Fields<'_, 'a> {
    fn get(&self, name: &str) -> Option<&'a str> {
        (self.get)(name).filter(|v| !v.is_empty())
    }

    fn missing(&self, field: &'static str) -> PayloadError {
        PayloadError::MissingField {
            field,
            content_type: self.kind.name,
        }
    }

    fn invalid(&self, field: &'static str, expected: &'static str) -> PayloadError {
        PayloadError::InvalidField { field, expected }
    }

    fn required(&self, field: &'static str) -> Result<&'a str, PayloadError> {
        self.get(field).ok_or_else(|| self.missing(field))
    }

    fn number(&self, field: &'static str) -> Result<f64, PayloadError> {
        let text = self.required(field)?;
        // Only plain decimals: f64's parser also takes `inf`, `NaN` and exponents.
        let plain = text
            .strip_prefix(['-', '+'])
            .unwrap_or(text)
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.');
        match text.parse::<f64>() {
            Ok(value) if plain => Ok(value),
            _ => Err(self.invalid(field, "a decimal number of degrees, like 48.8584")),
        }
    }

    fn phone(&self, field: &'static str) -> Result<Option<PhoneNumber>, PayloadError> {
        self.get(field)
            .map(|n| PhoneNumber::new(n).map_err(content(field)))
            .transpose()
    }

    fn date_time(&self, field: &'static str) -> Result<Option<UtcDateTime>, PayloadError> {
        let Some(text) = self.get(field) else {
            return Ok(None);
        };
        parse_date_time(text)
            .ok_or_else(|| self.invalid(field, "a UTC time like 2025-03-14T09:30:00Z"))?
            .map(Some)
            .map_err(content(field))
    }
}

/// A [`ContentError`] about `field`.
fn content(field: &'static str) -> impl Fn(ContentError) -> PayloadError {
    move |error| PayloadError::Content { field, error }
}

fn wifi(fields: &Fields<'_, '_>) -> Result<String, PayloadError> {
    let ssid = fields.required("ssid")?;
    let password = fields.get("password");
    let encryption = fields
        .get("encryption")
        .map(str::to_ascii_uppercase)
        .unwrap_or_else(|| if password.is_some() { "WPA" } else { "NOPASS" }.to_owned());
    let security = match (encryption.as_str(), password) {
        ("WPA" | "WPA2" | "WPA3", Some(p)) => WifiSecurity::wpa(p).map_err(content("password"))?,
        ("WEP", Some(p)) => WifiSecurity::wep(p).map_err(content("password"))?,
        ("WPA" | "WPA2" | "WPA3" | "WEP", None) => return Err(fields.missing("password")),
        ("NOPASS" | "NONE", None) => WifiSecurity::Open,
        ("NOPASS" | "NONE", Some(_)) => {
            return Err(fields.invalid(
                "password",
                "no password for an open network (encryption=nopass); use encryption=WPA or WEP",
            ));
        }
        _ => return Err(fields.invalid("encryption", "WPA, WEP or nopass")),
    };
    let hidden = match fields.get("hidden") {
        None => false,
        Some(text) => crate::bounds::parse_flag(text)
            .map_err(|_| fields.invalid("hidden", "true or false"))?,
    };
    Ok(WifiNetwork::new(ssid, security)
        .map_err(content("ssid"))?
        .with_hidden(hidden)
        .payload())
}

fn name(fields: &Fields<'_, '_>) -> Result<PersonName, PayloadError> {
    let (given, family) = (fields.get("firstName"), fields.get("lastName"));
    if given.is_none() && family.is_none() {
        return Err(fields.missing("firstName or lastName"));
    }
    PersonName::new(given.unwrap_or(""), family.unwrap_or("")).map_err(|error| {
        let field = match &error {
            ContentError::InvalidCharacter {
                field: "family name",
                ..
            } => "lastName",
            _ => "firstName",
        };
        PayloadError::Content { field, error }
    })
}

/// The `with_` methods of one contact format, so one function fills both.
struct ContactBuilders<T> {
    organization: fn(T, &str) -> Result<T, ContentError>,
    phone: fn(T, PhoneKind, PhoneNumber) -> T,
    email: fn(T, EmailAddress) -> T,
    address: fn(T, PostalAddress) -> Result<T, ContentError>,
    url: fn(T, WebUrl) -> T,
}

const VCARD_BUILDERS: ContactBuilders<VCard> = ContactBuilders {
    organization: VCard::with_organization,
    phone: VCard::with_phone,
    email: VCard::with_email,
    address: VCard::with_address,
    url: VCard::with_url,
};

const MECARD_BUILDERS: ContactBuilders<MeCard> = ContactBuilders {
    organization: MeCard::with_organization,
    phone: MeCard::with_phone,
    email: MeCard::with_email,
    address: MeCard::with_address,
    url: MeCard::with_url,
};

fn contact<T>(
    fields: &Fields<'_, '_>,
    mut card: T,
    with: ContactBuilders<T>,
) -> Result<T, PayloadError> {
    if let Some(org) = fields.get("org") {
        card = (with.organization)(card, org).map_err(content("org"))?;
    }
    for (field, kind) in [("phone", PhoneKind::Cell), ("workPhone", PhoneKind::Work)] {
        if let Some(number) = fields.phone(field)? {
            card = (with.phone)(card, kind, number);
        }
    }
    if let Some(email) = fields.get("email") {
        card = (with.email)(card, EmailAddress::new(email).map_err(content("email"))?);
    }
    let part = |name| fields.get(name).unwrap_or("").to_owned();
    let address = PostalAddress {
        street: part("street"),
        locality: part("city"),
        region: part("region"),
        postal_code: part("postalCode"),
        country: part("country"),
    };
    if address != PostalAddress::default() {
        card = (with.address)(card, address).map_err(|error| {
            // The address's parts are checked together; name the first one given.
            let field = ["street", "city", "region", "postalCode", "country"]
                .into_iter()
                .find(|f| fields.get(f).is_some())
                .unwrap_or("street");
            PayloadError::Content { field, error }
        })?;
    }
    if let Some(url) = fields.get("url") {
        card = (with.url)(card, WebUrl::new(url).map_err(content("url"))?);
    }
    Ok(card)
}

fn event(fields: &Fields<'_, '_>) -> Result<String, PayloadError> {
    let summary = fields.required("summary")?;
    let start = fields
        .date_time("start")?
        .ok_or_else(|| fields.missing("start"))?;
    let mut event = CalendarEvent::new(summary, start).map_err(content("summary"))?;
    if let Some(end) = fields.date_time("end")? {
        event = event.with_end(end).map_err(content("end"))?;
    }
    if let Some(location) = fields.get("location") {
        event = event.with_location(location).map_err(content("location"))?;
    }
    if let Some(description) = fields.get("description") {
        event = event
            .with_description(description)
            .map_err(content("description"))?;
    }
    Ok(event.payload())
}

fn epc(fields: &Fields<'_, '_>) -> Result<String, PayloadError> {
    let name = fields.required("name")?;
    let iban = Iban::new(fields.required("iban")?).map_err(content("iban"))?;
    let bic = fields
        .get("bic")
        .map(|b| Bic::new(b).map_err(content("bic")))
        .transpose()?;
    let mut transfer = EpcTransfer::new(name, iban, bic).map_err(|error| {
        let field = match &error {
            ContentError::BicRequired { .. } => "bic",
            _ => "name",
        };
        PayloadError::Content { field, error }
    })?;
    if let Some(amount) = fields.get("amount") {
        let cents = parse_cents(amount)
            .ok_or_else(|| fields.invalid("amount", "euros with at most 2 decimals, like 12.30"))?;
        let amount = EpcAmount::from_cents(cents).map_err(content("amount"))?;
        transfer = transfer.with_amount(amount).map_err(content("amount"))?;
    }
    let remittance = match (fields.get("reference"), fields.get("message")) {
        (Some(_), Some(_)) => {
            return Err(fields.invalid("message", "a reference or a message, not both"));
        }
        (Some(r), None) => Some((
            "reference",
            Remittance::reference(r).map_err(content("reference"))?,
        )),
        (None, Some(m)) => Some(("message", Remittance::text(m).map_err(content("message"))?)),
        (None, None) => None,
    };
    if let Some((field, remittance)) = remittance {
        transfer = transfer
            .with_remittance(remittance)
            .map_err(content(field))?;
    }
    Ok(transfer.payload())
}

/// `12`, `12.3` or `12.30` euros in cents; `None` for anything else (signs, exponents, more
/// than 2 decimals, more than 12 integer digits).
fn parse_cents(text: &str) -> Option<u64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty()
        || whole.len() > 12
        || fraction.len() > 2
        || !digits(whole)
        || !digits(fraction)
    {
        return None;
    }
    if text.contains('.') && fraction.is_empty() {
        return None;
    }
    let cents = format!("{fraction:0<2}").parse::<u64>().ok()?;
    whole
        .parse::<u64>()
        .ok()?
        .checked_mul(100)?
        .checked_add(cents)
}

/// `YYYY-MM-DDTHH:MM[:SS]Z` (`T` and `Z` in either case) as its parts, checked by
/// [`UtcDateTime::new`]; `None` when the text does not have that shape.
fn parse_date_time(text: &str) -> Option<Result<UtcDateTime, ContentError>> {
    let text = text.strip_suffix(['Z', 'z'])?.replacen(['t', ' '], "T", 1);
    let (date, time) = text.split_once('T')?;
    let number = |s: &str, width: usize| -> Option<u16> {
        (s.len() == width && s.chars().all(|c| c.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let date: Vec<&str> = date.split('-').collect();
    let time: Vec<&str> = time.split(':').collect();
    let [year, month, day] = date.as_slice() else {
        return None;
    };
    let (hour, minute, second) = match time.as_slice() {
        [h, m] => (*h, *m, "00"),
        [h, m, s] => (*h, *m, *s),
        _ => return None,
    };
    let narrow = |s: &str| number(s, 2).map(|n| n as u8);
    Some(UtcDateTime::new(
        number(year, 4)?,
        narrow(month)?,
        narrow(day)?,
        narrow(hour)?,
        narrow(minute)?,
        narrow(second)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{CONTENT_TYPES, content_type, field_names};

    fn payload(kind: &str, pairs: &[(&str, &str)]) -> Result<String, String> {
        let kind = content_type(kind).expect("a type");
        build(kind, |name| {
            pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
        })
        .map_err(|e| e.to_string())
    }

    #[test]
    fn every_type_builds_its_payload() {
        assert_eq!(
            payload(
                "wifi",
                &[("ssid", "Home; 5G"), ("password", "correct horse")]
            ),
            Ok(r"WIFI:T:WPA;S:Home\; 5G;P:correct horse;;".to_owned())
        );
        assert_eq!(
            payload("WIFI", &[("ssid", "Cafe"), ("hidden", "true")]),
            Ok("WIFI:T:nopass;S:Cafe;H:true;;".to_owned())
        );
        assert_eq!(
            payload("geo", &[("latitude", "48.8584"), ("longitude", "-2.2945")]),
            Ok("geo:48.8584,-2.2945".to_owned())
        );
        assert_eq!(
            payload(
                "mailto",
                &[("to", "a@example.com"), ("subject", "Hi there")]
            ),
            Ok("mailto:a@example.com?subject=Hi%20there".to_owned())
        );
        assert_eq!(
            payload("sms", &[("phone", "+1 555 0100"), ("message", "Hi")]),
            Ok("SMSTO:+15550100:Hi".to_owned())
        );
        assert_eq!(
            payload("tel", &[("phone", "+1 (555) 0100")]),
            Ok("tel:+15550100".to_owned())
        );
        assert_eq!(
            payload(
                "calendar",
                &[("summary", "Review"), ("start", "2025-03-14T09:30Z"), ("end", "2025-03-14t10:30:15z")]
            ),
            Ok("BEGIN:VEVENT\r\nSUMMARY:Review\r\nDTSTART:20250314T093000Z\r\nDTEND:20250314T103015Z\r\nEND:VEVENT\r\n".to_owned())
        );
        assert_eq!(
            payload(
                "epc",
                &[
                    ("name", "Red Cross"),
                    ("iban", "DE89 3704 0044 0532 0130 00"),
                    ("amount", "12.3"),
                    ("message", "Donation")
                ]
            ),
            Ok(
                "BCD\n002\n1\nSCT\n\nRed Cross\nDE89370400440532013000\nEUR12.30\n\n\nDonation"
                    .to_owned()
            )
        );
        let vcard = payload(
            "vcard",
            &[("lastName", "Doe"), ("version", "4"), ("city", "Paris")],
        )
        .unwrap();
        assert!(
            vcard.starts_with("BEGIN:VCARD\r\nVERSION:4.0\r\nN:Doe;;;;\r\n"),
            "{vcard}"
        );
        assert!(vcard.contains("ADR:;;;Paris;;;\r\n"), "{vcard}");
        assert_eq!(
            payload(
                "mecard",
                &[
                    ("firstName", "Jane"),
                    ("lastName", "Doe"),
                    ("phone", "555-0100-12")
                ]
            ),
            Ok("MECARD:N:Doe,Jane;TEL:555010012;;".to_owned())
        );
    }

    #[test]
    fn every_refusal_names_its_field() {
        // The type, its fields, and the message.
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
        let cases: &[Case<'_>] = &[
            ("wifi", &[], "ssid parameter required for type=wifi"),
            (
                "wifi",
                &[("ssid", "x"), ("encryption", "WPA")],
                "password parameter required for type=wifi",
            ),
            (
                "wifi",
                &[("ssid", "x"), ("password", "short")],
                "Invalid password: WPA passphrase is 5 characters long; at least 8 are needed",
            ),
            (
                "wifi",
                &[
                    ("ssid", "x"),
                    ("encryption", "nopass"),
                    ("password", "abcdefgh"),
                ],
                "Invalid password: expected no password for an open network (encryption=nopass); use encryption=WPA or WEP",
            ),
            (
                "wifi",
                &[("ssid", "x"), ("encryption", "WPA4")],
                "Invalid encryption: expected WPA, WEP or nopass",
            ),
            (
                "wifi",
                &[("ssid", "x"), ("hidden", "yes")],
                "Invalid hidden: expected true or false",
            ),
            (
                "wifi",
                &[("ssid", &"x".repeat(33))],
                "Invalid ssid: SSID is 33 bytes long; at most 32 are allowed",
            ),
            (
                "vcard",
                &[("org", "x")],
                "firstName or lastName parameter required for type=vcard",
            ),
            (
                "vcard",
                &[("lastName", "x"), ("version", "5")],
                "Invalid version: expected 3 or 4",
            ),
            (
                "vcard",
                &[("lastName", "x"), ("phone", "12")],
                "Invalid phone: phone number is 2 digits long; at least 3 are needed",
            ),
            (
                "mecard",
                &[("lastName", "x"), ("email", "nope")],
                "Invalid email: e-mail address is not valid: expected an address like name@example.com",
            ),
            (
                "mecard",
                &[("lastName", "x"), ("url", "example.com")],
                "Invalid url: URL is not valid: expected an absolute URL such as https://example.com",
            ),
            (
                "geo",
                &[("latitude", "91"), ("longitude", "0")],
                "Invalid latitude: latitude 91 is outside -90 to 90",
            ),
            (
                "geo",
                &[("latitude", "1e1"), ("longitude", "0")],
                "Invalid latitude: expected a decimal number of degrees, like 48.8584",
            ),
            (
                "geo",
                &[("latitude", "1")],
                "longitude parameter required for type=geo",
            ),
            ("email", &[], "to parameter required for type=email"),
            (
                "sms",
                &[("message", "x")],
                "phone parameter required for type=sms",
            ),
            (
                "tel",
                &[("phone", "abc")],
                "Invalid phone: phone number contains 'a', which is not allowed there",
            ),
            (
                "event",
                &[("summary", "x"), ("start", "2025-02-30T10:00Z")],
                "Invalid start: day 30 is outside 1 to 28",
            ),
            (
                "event",
                &[("summary", "x"), ("start", "tomorrow")],
                "Invalid start: expected a UTC time like 2025-03-14T09:30:00Z",
            ),
            (
                "event",
                &[
                    ("summary", "x"),
                    ("start", "2025-03-14T10:00Z"),
                    ("end", "2025-03-14T09:00Z"),
                ],
                "Invalid end: the event ends (20250314T090000Z) before it starts (20250314T100000Z)",
            ),
            (
                "epc",
                &[("name", "x"), ("iban", "DE89370400440532013001")],
                "Invalid iban: IBAN DE89370400440532013001 fails its mod-97 check: a character is probably mistyped",
            ),
            (
                "epc",
                &[("name", "x"), ("iban", "GB82 WEST 1234 5698 7654 32")],
                "Invalid bic: a BIC is required for an IBAN from GB, which is outside the EEA",
            ),
            (
                "epc",
                &[
                    ("name", "x"),
                    ("iban", "DE89370400440532013000"),
                    ("amount", "1.234"),
                ],
                "Invalid amount: expected euros with at most 2 decimals, like 12.30",
            ),
            (
                "epc",
                &[
                    ("name", "x"),
                    ("iban", "DE89370400440532013000"),
                    ("amount", "0"),
                ],
                "Invalid amount: amount EUR0.00 is outside EUR0.01 to EUR999999999.99",
            ),
            (
                "epc",
                &[
                    ("name", "x"),
                    ("iban", "DE89370400440532013000"),
                    ("reference", "a"),
                    ("message", "b"),
                ],
                "Invalid message: expected a reference or a message, not both",
            ),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter_map(|(kind, pairs, expected)| {
                let got = payload(kind, pairs).unwrap_err();
                (got != *expected).then(|| format!("{kind} {pairs:?}: {got}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn names_and_flags() {
        assert_eq!(content_type("Calendar").map(|t| t.name), Some("event"));
        assert!(content_type("fax").is_none());
        let postal = field_names()
            .into_iter()
            .find(|n| *n == "postalCode")
            .unwrap();
        let field = CONTENT_TYPES[1]
            .fields
            .iter()
            .find(|f| f.name == postal)
            .unwrap();
        assert_eq!(field.flag(), "postal-code");
        // Field names never take a generate parameter's name: they share one query string.
        for name in field_names() {
            assert!(!crate::params::PARAMETER_NAMES.contains(&name), "{name}");
            assert_ne!(name, "type");
            assert_ne!(name, "logo");
        }
        assert_eq!(parse_cents("999999999.99"), Some(99_999_999_999));
        assert_eq!(parse_cents("12."), None);
        assert_eq!(parse_cents("-1"), None);
    }
}
