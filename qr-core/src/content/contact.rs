//! Contact payloads: vCard 3.0 (RFC 2426) and 4.0 (RFC 6350), and the shorter MeCard (NTT DoCoMo) that phone cameras also read.

use std::fmt;

use super::ContentError;
use super::fields::{EmailAddress, PhoneNumber, WebUrl};
use super::text::{MECARD_SPECIALS, checked_text, escape_into, escape_text, folded_lines};

/// A person's name: family and given names, at least one of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersonName {
    family: String,
    given: String,
}

impl PersonName {
    /// The name `given family`; either part may be empty, not both, and neither holds a control
    /// character.
    pub fn new(given: &str, family: &str) -> Result<PersonName, ContentError> {
        if given.is_empty() && family.is_empty() {
            return Err(ContentError::Empty { field: "name" });
        }
        for (field, value) in [("given name", given), ("family name", family)] {
            if !value.is_empty() {
                checked_text(field, value, false)?;
            }
        }
        Ok(PersonName {
            family: family.to_owned(),
            given: given.to_owned(),
        })
    }

    /// The name as displayed: given name, a space, family name.
    pub fn formatted(&self) -> String {
        match (self.given.is_empty(), self.family.is_empty()) {
            (false, false) => format!("{} {}", self.given, self.family),
            (true, _) => self.family.clone(),
            (false, true) => self.given.clone(),
        }
    }
}

/// What a telephone number is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhoneKind {
    /// A mobile phone.
    Cell,
    /// A home phone.
    Home,
    /// A work phone.
    Work,
}

impl PhoneKind {
    fn type_parameter(self) -> &'static str {
        match self {
            PhoneKind::Cell => "cell",
            PhoneKind::Home => "home",
            PhoneKind::Work => "work",
        }
    }
}

/// A postal address: street, locality, region, postal code and country, each optional but not
/// all empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PostalAddress {
    /// Street and number.
    pub street: String,
    /// City or town.
    pub locality: String,
    /// State or province.
    pub region: String,
    /// Postal code.
    pub postal_code: String,
    /// Country name.
    pub country: String,
}

impl PostalAddress {
    fn parts(&self) -> [&str; 5] {
        [
            &self.street,
            &self.locality,
            &self.region,
            &self.postal_code,
            &self.country,
        ]
    }

    fn check(&self) -> Result<(), ContentError> {
        if self.parts().iter().all(|p| p.is_empty()) {
            return Err(ContentError::Empty { field: "address" });
        }
        for part in self.parts().into_iter().filter(|p| !p.is_empty()) {
            checked_text("address", part, false)?;
        }
        Ok(())
    }
}

/// The vCard version to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VCardVersion {
    /// vCard 3.0 (RFC 2426): read by every phone.
    V3,
    /// vCard 4.0 (RFC 6350): telephone numbers as `tel:` URIs.
    V4,
}

/// The fields both contact formats carry.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Contact {
    name: PersonName,
    organization: Option<String>,
    phones: Vec<(PhoneKind, PhoneNumber)>,
    emails: Vec<EmailAddress>,
    address: Option<PostalAddress>,
    url: Option<WebUrl>,
}

impl Contact {
    fn new(name: PersonName) -> Contact {
        Contact {
            name,
            organization: None,
            phones: Vec::new(),
            emails: Vec::new(),
            address: None,
            url: None,
        }
    }
}

/// Builder methods shared by [`VCard`] and [`MeCard`].
macro_rules! contact_builders {
    ($type:ident) => {
        impl $type {
            /// This contact with its organisation (no control characters).
            pub fn with_organization(mut self, organization: &str) -> Result<$type, ContentError> {
                self.contact.organization =
                    Some(checked_text("organization", organization, false)?);
                Ok(self)
            }

            /// This contact with one more telephone number.
            #[must_use]
            pub fn with_phone(mut self, kind: PhoneKind, number: PhoneNumber) -> $type {
                self.contact.phones.push((kind, number));
                self
            }

            /// This contact with one more e-mail address.
            #[must_use]
            pub fn with_email(mut self, email: EmailAddress) -> $type {
                self.contact.emails.push(email);
                self
            }

            /// This contact with a postal address (at least one part, no control characters).
            pub fn with_address(mut self, address: PostalAddress) -> Result<$type, ContentError> {
                address.check()?;
                self.contact.address = Some(address);
                Ok(self)
            }

            /// This contact with a web site.
            #[must_use]
            pub fn with_url(mut self, url: WebUrl) -> $type {
                self.contact.url = Some(url);
                self
            }

            /// The payload string.
            pub fn payload(&self) -> String {
                self.to_string()
            }
        }
    };
}

/// A vCard 3.0 or 4.0: name, organisation, telephone numbers, e-mail addresses, address and URL.
///
/// Text values are escaped (`\\`, `\;`, `\,`, `\n`), lines end with CRLF and are folded at 75
/// octets, as both RFCs require.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VCard {
    version: VCardVersion,
    contact: Contact,
}

impl VCard {
    /// A vCard of `version` for `name`; add the other fields with the `with_` methods.
    pub fn new(version: VCardVersion, name: PersonName) -> VCard {
        VCard {
            version,
            contact: Contact::new(name),
        }
    }
}

contact_builders!(VCard);

impl fmt::Display for VCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let contact = &self.contact;
        let v4 = self.version == VCardVersion::V4;
        let mut lines = vec![
            "BEGIN:VCARD".to_owned(),
            format!("VERSION:{}", if v4 { "4.0" } else { "3.0" }),
            format!(
                "N:{};{};;;",
                escape_text(&contact.name.family),
                escape_text(&contact.name.given)
            ),
            format!("FN:{}", escape_text(&contact.name.formatted())),
        ];
        if let Some(organization) = &contact.organization {
            lines.push(format!("ORG:{}", escape_text(organization)));
        }
        for (kind, number) in &contact.phones {
            lines.push(if v4 {
                // RFC 6350 section 6.4.1: the value is a URI by default.
                format!(
                    "TEL;VALUE=uri;TYPE={}:tel:{}",
                    kind.type_parameter(),
                    number.dialable()
                )
            } else {
                format!(
                    "TEL;TYPE={}:{}",
                    kind.type_parameter().to_ascii_uppercase(),
                    number
                )
            });
        }
        for email in &contact.emails {
            lines.push(if v4 {
                format!("EMAIL:{email}")
            } else {
                format!("EMAIL;TYPE=INTERNET:{email}")
            });
        }
        if let Some(address) = &contact.address {
            let parts: Vec<String> = address.parts().iter().map(|p| escape_text(p)).collect();
            // Post office box and extended address (the first two components) stay empty.
            lines.push(format!("ADR:;;{}", parts.join(";")));
        }
        if let Some(url) = &contact.url {
            lines.push(format!("URL:{url}"));
        }
        lines.push("END:VCARD".to_owned());
        f.write_str(&folded_lines(&lines))
    }
}

/// A MeCard: `MECARD:N:Family,Given;TEL:...;EMAIL:...;;`, shorter than a vCard for the same
/// contact, with `\`, `;`, `,`, `:` and `"` escaped by a backslash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeCard {
    contact: Contact,
}

impl MeCard {
    /// A MeCard for `name`; add the other fields with the `with_` methods.
    pub fn new(name: PersonName) -> MeCard {
        MeCard {
            contact: Contact::new(name),
        }
    }
}

contact_builders!(MeCard);

impl fmt::Display for MeCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let contact = &self.contact;
        let mut out = String::from("MECARD:N:");
        escape_into(&mut out, &contact.name.family, &MECARD_SPECIALS);
        if !contact.name.given.is_empty() {
            out.push(',');
            escape_into(&mut out, &contact.name.given, &MECARD_SPECIALS);
        }
        out.push(';');
        let mut field = |name: &str, value: &str| {
            out.push_str(name);
            out.push(':');
            escape_into(&mut out, value, &MECARD_SPECIALS);
            out.push(';');
        };
        if let Some(organization) = &contact.organization {
            field("ORG", organization);
        }
        for (_, number) in &contact.phones {
            field("TEL", &number.dialable());
        }
        for email in &contact.emails {
            field("EMAIL", email.as_str());
        }
        if let Some(address) = &contact.address {
            // MeCard's ADR is one comma-separated value; its commas are separators, so the
            // parts' own are escaped.
            let mut value = String::new();
            for part in address.parts().iter().filter(|p| !p.is_empty()) {
                if !value.is_empty() {
                    value.push(',');
                }
                escape_into(&mut value, part, &MECARD_SPECIALS);
            }
            out.push_str("ADR:");
            out.push_str(&value);
            out.push(';');
        }
        if let Some(url) = &contact.url {
            out.push_str("URL:");
            escape_into(&mut out, url.as_str(), &MECARD_SPECIALS);
            out.push(';');
        }
        out.push(';');
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full<T>(
        new: impl FnOnce(PersonName) -> T,
        org: impl FnOnce(T, &str) -> Result<T, ContentError>,
    ) -> T {
        let name = PersonName::new("Jane", "Doe; Smith").expect("valid");
        org(new(name), "ACME, Inc.").expect("valid")
    }

    #[test]
    fn vcard_3_matches_rfc_2426() {
        let card = full(
            |n| VCard::new(VCardVersion::V3, n),
            VCard::with_organization,
        )
        .with_phone(
            PhoneKind::Cell,
            PhoneNumber::new("+1 555 0100").expect("valid"),
        )
        .with_email(EmailAddress::new("jane@example.com").expect("valid"))
        .with_address(PostalAddress {
            street: "1 Main St".into(),
            locality: "Springfield".into(),
            country: "USA".into(),
            ..PostalAddress::default()
        })
        .expect("valid")
        .with_url(WebUrl::new("https://example.com").expect("valid"));
        assert_eq!(
            card.payload(),
            "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe\\; Smith;Jane;;;\r\nFN:Jane Doe\\; Smith\r\n\
             ORG:ACME\\, Inc.\r\nTEL;TYPE=CELL:+1 555 0100\r\nEMAIL;TYPE=INTERNET:jane@example.com\r\n\
             ADR:;;1 Main St;Springfield;;;USA\r\nURL:https://example.com\r\nEND:VCARD\r\n"
        );
    }

    #[test]
    fn vcard_4_writes_tel_uris() {
        let card = VCard::new(VCardVersion::V4, PersonName::new("", "Doe").expect("valid"))
            .with_phone(
                PhoneKind::Work,
                PhoneNumber::new("+1 (555) 0100").expect("valid"),
            )
            .with_email(EmailAddress::new("doe@example.com").expect("valid"));
        assert_eq!(
            card.payload(),
            "BEGIN:VCARD\r\nVERSION:4.0\r\nN:Doe;;;;\r\nFN:Doe\r\n\
             TEL;VALUE=uri;TYPE=work:tel:+15550100\r\nEMAIL:doe@example.com\r\nEND:VCARD\r\n"
        );
    }

    #[test]
    fn long_vcard_lines_are_folded() {
        let organization = "Organisation ".repeat(8);
        let card = VCard::new(VCardVersion::V4, PersonName::new("A", "B").expect("valid"))
            .with_organization(organization.trim_end())
            .expect("valid");
        let payload = card.payload();
        assert!(payload.split("\r\n").all(|line| line.len() <= 75));
        assert!(
            payload
                .replace("\r\n ", "")
                .contains(&format!("ORG:{}\r\n", organization.trim_end()))
        );
    }

    #[test]
    fn mecard_matches_the_docomo_format() {
        let card = full(MeCard::new, MeCard::with_organization)
            .with_phone(
                PhoneKind::Home,
                PhoneNumber::new("03-1234-5678").expect("valid"),
            )
            .with_email(EmailAddress::new("jane@example.com").expect("valid"))
            .with_url(WebUrl::new("https://example.com").expect("valid"));
        assert_eq!(
            card.payload(),
            r"MECARD:N:Doe\; Smith,Jane;ORG:ACME\, Inc.;TEL:0312345678;EMAIL:jane@example.com;URL:https\://example.com;;"
        );
    }

    #[test]
    fn names_and_addresses_are_checked() {
        assert!(matches!(
            PersonName::new("", ""),
            Err(ContentError::Empty { field: "name" })
        ));
        assert!(matches!(
            PersonName::new("Jane\n", "Doe"),
            Err(ContentError::InvalidCharacter {
                field: "given name",
                ..
            })
        ));
        let card = MeCard::new(PersonName::new("J", "D").expect("valid"));
        assert!(matches!(
            card.with_address(PostalAddress::default()),
            Err(ContentError::Empty { field: "address" })
        ));
    }
}
