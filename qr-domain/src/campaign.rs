//! A link's campaign settings (schedule, scan cap, pause, password, redirect rules, A/B variants, UTM parameters, query forwarding) and tags: their bounds, their validation from the API's JSON, their stored form and the Link's JSON fields.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::error::StoreError;
use crate::password::PasswordHash;
use crate::scan::Device;

/// Most tags on one link.
pub const MAX_TAGS: usize = 20;
/// Longest tag, in characters after trimming.
pub const MAX_TAG_CHARS: usize = 50;
/// Most redirect rules on one link (each is checked per scan, in order).
pub const MAX_RULES: usize = 20;
/// Fewest and most A/B variants of a split.
pub const MIN_VARIANTS: usize = 2;
/// See [`MIN_VARIANTS`].
pub const MAX_VARIANTS: usize = 10;
/// Largest weight of a variant (weights are relative: 1 and 3 split 25 % / 75 %).
pub const MAX_WEIGHT: u32 = 1_000;
/// Longest UTM value, in characters.
pub const MAX_UTM_CHARS: usize = 200;
/// Largest `maxScans` (10^12: far beyond any code's life, and exact in every JSON parser).
pub const MAX_SCANS_LIMIT: u64 = 1_000_000_000_000;
/// Fewest and most characters of a link password (a word shared with a group on a poster, not
/// an account's credential, so shorter than the dashboard's minimum; guessing is throttled).
pub const MIN_LINK_PASSWORD_CHARS: usize = 4;
/// See [`MIN_LINK_PASSWORD_CHARS`].
pub const MAX_LINK_PASSWORD_CHARS: usize = 128;

/// A field that failed validation: the API answers `Invalid <field>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field's JSON path, such as `rules[0].when.device`.
    pub field: String,
    /// What is wrong and what is expected.
    pub message: String,
}

impl FieldError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A tag: 1 to 50 characters after trimming, no control characters; compared as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Tag(String);

impl Tag {
    /// Validates and trims a tag.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let s = raw.trim();
        let n = s.chars().count();
        if n == 0 || n > MAX_TAG_CHARS {
            return Err(format!(
                "a tag must have 1 to {MAX_TAG_CHARS} characters (got {n})"
            ));
        }
        if s.chars().any(char::is_control) {
            return Err("a tag must not contain control characters".to_owned());
        }
        Ok(Self(s.to_owned()))
    }

    /// The tag as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The operating systems a rule can name, from the scan's User-Agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OsFamily {
    /// iPhone and iPad.
    Ios,
    /// Android.
    Android,
    /// Windows (not Windows Phone).
    Windows,
    /// macOS.
    Macos,
    /// Linux desktops.
    Linux,
    /// ChromeOS.
    Chromeos,
}

impl OsFamily {
    const NAMES: &'static str = "ios, android, windows, macos, linux, chromeos";

    fn parse(s: &str) -> Option<Self> {
        Some(match s.to_ascii_lowercase().as_str() {
            "ios" => Self::Ios,
            "android" => Self::Android,
            "windows" => Self::Windows,
            "macos" => Self::Macos,
            "linux" => Self::Linux,
            "chromeos" => Self::Chromeos,
            _ => return None,
        })
    }

    /// The family of an operating system name as scans record it (`Windows 10`, `iOS`, ...).
    pub fn of(os: &str) -> Option<Self> {
        match os {
            "iOS" => Some(Self::Ios),
            "Android" => Some(Self::Android),
            "macOS" => Some(Self::Macos),
            "Linux" => Some(Self::Linux),
            "ChromeOS" => Some(Self::Chromeos),
            w if w.starts_with("Windows") && !w.starts_with("Windows Phone") => Some(Self::Windows),
            _ => None,
        }
    }
}

/// What a rule asks of a visit; every condition given must hold, and at least one is given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conditions {
    /// The device category (`mobile`, `desktop`, `tablet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<Device>,
    /// The operating system family.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<OsFamily>,
    /// The ISO 3166-1 alpha-2 country code of the visitor's address (upper case).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// The visitor's preferred language (`Accept-Language`): `de` matches `de` and `de-AT`,
    /// `de-AT` only `de-AT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// A redirect rule: the first rule whose conditions all hold decides the target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// The conditions.
    pub when: Conditions,
    /// Where the visit goes when they hold.
    pub target_url: crate::link::TargetUrl,
}

/// One side of an A/B split.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    /// Where the visit goes.
    pub target_url: crate::link::TargetUrl,
    /// The relative share of visitors, 1 to [`MAX_WEIGHT`].
    pub weight: u32,
}

/// UTM parameters added to the target's query (those the target does not have already).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Utm {
    /// `utm_source`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `utm_medium`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium: Option<String>,
    /// `utm_campaign`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<String>,
    /// `utm_term`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub term: Option<String>,
    /// `utm_content`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

impl Utm {
    /// The parameters in order, as `(utm_name, value)`.
    pub fn pairs(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("utm_source", &self.source),
            ("utm_medium", &self.medium),
            ("utm_campaign", &self.campaign),
            ("utm_term", &self.term),
            ("utm_content", &self.content),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| (k, v)))
    }
}

/// The campaign settings of a link, every one optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkOptions {
    /// Before this instant the link is not active yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<DateTime<Utc>>,
    /// From this instant the link is expired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<DateTime<Utc>>,
    /// After this many recorded scans the link is expired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_scans: Option<u64>,
    /// Where an expired link sends visitors (else the expired page, 410).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expired_url: Option<crate::link::TargetUrl>,
    /// A paused link answers the paused page (404) and records nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub disabled: bool,
    /// The Argon2id hash of the link's password.
    #[serde(
        default,
        rename = "passwordHash",
        skip_serializing_if = "Option::is_none",
        with = "stored_hash"
    )]
    pub password: Option<PasswordHash>,
    /// Redirect rules, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Rule>,
    /// The A/B split.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    /// UTM parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utm: Option<Utm>,
    /// Whether the scan URL's query parameters are passed on to the target.
    #[serde(default, skip_serializing_if = "is_false")]
    pub forward_query: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

mod stored_hash {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::password::PasswordHash;

    pub(super) fn serialize<S: Serializer>(
        hash: &Option<PasswordHash>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match hash {
            Some(h) => s.serialize_some(h.as_str()),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<PasswordHash>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|s| PasswordHash::parse(&s).map_err(serde::de::Error::custom))
            .transpose()
    }
}

impl LinkOptions {
    /// Whether nothing is set (such a link is stored and redirected as one without settings).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The stored form: compact JSON of the fields that are set.
    pub fn to_stored(&self) -> String {
        // Serializing plain data to a string cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// Reads the stored form back.
    pub fn from_stored(stored: &str) -> Result<Self, StoreError> {
        serde_json::from_str(stored).map_err(|e| StoreError::Corrupt(format!("link options: {e}")))
    }
}

/// A link's campaign settings as the link carries them: nothing for a link without any (the
/// redirect's fast path copies a pointer, not the settings), else shared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options(Option<Arc<LinkOptions>>);

impl Options {
    /// Settings from what a store or an update holds; empty settings are none.
    pub fn new(options: LinkOptions) -> Self {
        Self((!options.is_empty()).then(|| Arc::new(options)))
    }

    /// The settings, if any is set.
    pub fn get(&self) -> Option<&LinkOptions> {
        self.0.as_deref()
    }

    /// The settings, or the defaults.
    pub fn or_default(&self) -> LinkOptions {
        self.get().cloned().unwrap_or_default()
    }

    /// The stored form, `None` when nothing is set.
    pub fn to_stored(&self) -> Option<String> {
        self.get().map(LinkOptions::to_stored)
    }

    /// Reads a stored form (`None`: nothing set).
    pub fn from_stored(stored: Option<&str>) -> Result<Self, StoreError> {
        stored
            .map(LinkOptions::from_stored)
            .transpose()
            .map(|o| Self::new(o.unwrap_or_default()))
    }
}

/// The Link's campaign fields as the API returns them: every field, `null`, `false` or `[]` when
/// unset; the password only as `hasPassword`.
impl Serialize for Options {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let none = LinkOptions::default();
        let o = self.get().unwrap_or(&none);
        let mut s = serializer.serialize_struct("Options", 10)?;
        s.serialize_field("validFrom", &o.valid_from)?;
        s.serialize_field("validUntil", &o.valid_until)?;
        s.serialize_field("maxScans", &o.max_scans)?;
        s.serialize_field("expiredUrl", &o.expired_url)?;
        s.serialize_field("disabled", &o.disabled)?;
        s.serialize_field("hasPassword", &o.password.is_some())?;
        s.serialize_field("rules", &o.rules)?;
        s.serialize_field("variants", &o.variants)?;
        s.serialize_field("utm", &o.utm)?;
        s.serialize_field("forwardQuery", &o.forward_query)?;
        s.end()
    }
}

/// Reads the JSON fields of the campaign settings; each function names the field in its errors.
pub(crate) mod parse {
    use super::*;
    use crate::link::TargetUrl;

    type R<T> = Result<T, FieldError>;

    fn must(field: &str, what: &str) -> FieldError {
        FieldError::new(field, format!("it must be {what}"))
    }

    /// A JSON string of at most `max` characters, trimmed, not empty, no control characters.
    fn text(field: &str, v: &Value, max: usize) -> R<String> {
        let s = v.as_str().ok_or_else(|| must(field, "a string"))?.trim();
        let n = s.chars().count();
        if n == 0 || n > max {
            return Err(FieldError::new(
                field,
                format!("it must have 1 to {max} characters (got {n})"),
            ));
        }
        if s.chars().any(char::is_control) {
            return Err(must(field, "text without control characters"));
        }
        Ok(s.to_owned())
    }

    /// A URL validated like `targetUrl`.
    pub(crate) fn url(field: &str, v: &Value) -> R<TargetUrl> {
        let s = v.as_str().ok_or_else(|| must(field, "a string"))?;
        TargetUrl::parse(s).map_err(|e| {
            // The URL messages name `targetUrl`; name this field instead.
            FieldError::new(field, e.to_string().replacen("targetUrl", "the URL", 1))
        })
    }

    /// `null` (clear) or a value.
    pub(crate) fn nullable<T>(v: &Value, f: impl FnOnce(&Value) -> R<T>) -> R<Option<T>> {
        if v.is_null() {
            Ok(None)
        } else {
            f(v).map(Some)
        }
    }

    pub(crate) fn boolean(field: &str, v: &Value) -> R<bool> {
        v.as_bool().ok_or_else(|| must(field, "true or false"))
    }

    /// An ISO 8601 instant in UTC (`Z` or `+00:00`).
    pub(crate) fn instant(field: &str, v: &Value) -> R<DateTime<Utc>> {
        let s = v.as_str().ok_or_else(|| {
            must(
                field,
                "an ISO 8601 UTC timestamp such as 2025-06-01T00:00:00Z",
            )
        })?;
        let t = DateTime::parse_from_rfc3339(s.trim()).map_err(|_| {
            must(
                field,
                "an ISO 8601 UTC timestamp such as 2025-06-01T00:00:00Z",
            )
        })?;
        if t.offset().local_minus_utc() != 0 {
            return Err(must(field, "in UTC (ending in Z)"));
        }
        // The stores keep microseconds.
        let micros = t.timestamp_micros();
        DateTime::from_timestamp_micros(micros)
            .ok_or_else(|| must(field, "a timestamp within the years 1 to 9999"))
    }

    pub(crate) fn max_scans(field: &str, v: &Value) -> R<u64> {
        v.as_u64()
            .filter(|n| (1..=MAX_SCANS_LIMIT).contains(n))
            .ok_or_else(|| must(field, &format!("an integer from 1 to {MAX_SCANS_LIMIT}")))
    }

    pub(crate) fn tags(field: &str, v: &Value) -> R<Vec<Tag>> {
        let items = v
            .as_array()
            .ok_or_else(|| must(field, "an array of strings"))?;
        if items.len() > MAX_TAGS {
            return Err(FieldError::new(
                field,
                format!("at most {MAX_TAGS} tags are allowed (got {})", items.len()),
            ));
        }
        let mut out: Vec<Tag> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let f = format!("{field}[{i}]");
            let s = item.as_str().ok_or_else(|| must(&f, "a string"))?;
            let tag = Tag::parse(s).map_err(|m| FieldError::new(&f, m))?;
            // A repeated tag is kept once.
            if !out.contains(&tag) {
                out.push(tag);
            }
        }
        Ok(out)
    }

    fn object<'v>(field: &str, v: &'v Value) -> R<&'v serde_json::Map<String, Value>> {
        v.as_object().ok_or_else(|| must(field, "an object"))
    }

    /// Refuses members other than `known`, so a typo is never silently ignored.
    fn only(field: &str, o: &serde_json::Map<String, Value>, known: &[&str]) -> R<()> {
        match o.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(FieldError::new(
                field,
                format!("unknown member {k:?}; expected {}", known.join(", ")),
            )),
            None => Ok(()),
        }
    }

    fn conditions(field: &str, v: &Value) -> R<Conditions> {
        let o = object(field, v)?;
        only(field, o, &["device", "os", "country", "language"])?;
        let member = |name: &str| o.get(name).filter(|v| !v.is_null());
        let mut c = Conditions::default();
        if let Some(v) = member("device") {
            let f = format!("{field}.device");
            let s = v.as_str().ok_or_else(|| must(&f, "a string"))?;
            c.device = match s.to_ascii_lowercase().as_str() {
                "mobile" => Some(Device::Mobile),
                "desktop" => Some(Device::Desktop),
                "tablet" => Some(Device::Tablet),
                _ => return Err(must(&f, "one of mobile, desktop, tablet")),
            };
        }
        if let Some(v) = member("os") {
            let f = format!("{field}.os");
            let s = v.as_str().ok_or_else(|| must(&f, "a string"))?;
            c.os = Some(
                OsFamily::parse(s)
                    .ok_or_else(|| must(&f, &format!("one of {}", OsFamily::NAMES)))?,
            );
        }
        if let Some(v) = member("country") {
            let f = format!("{field}.country");
            let s = v.as_str().ok_or_else(|| must(&f, "a string"))?.trim();
            if s.len() != 2 || !s.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(must(&f, "a two-letter ISO 3166-1 country code such as DE"));
            }
            c.country = Some(s.to_ascii_uppercase());
        }
        if let Some(v) = member("language") {
            let f = format!("{field}.language");
            let s = v.as_str().ok_or_else(|| must(&f, "a string"))?;
            c.language = Some(
                crate::routing::language_tag(s)
                    .ok_or_else(|| must(&f, "a language tag such as de or de-AT"))?,
            );
        }
        if c == Conditions::default() {
            return Err(must(
                field,
                "an object with at least one of device, os, country, language",
            ));
        }
        Ok(c)
    }

    pub(crate) fn rules(field: &str, v: &Value) -> R<Vec<Rule>> {
        let items = v
            .as_array()
            .ok_or_else(|| must(field, "an array of rules"))?;
        if items.len() > MAX_RULES {
            return Err(FieldError::new(
                field,
                format!(
                    "at most {MAX_RULES} rules are allowed (got {})",
                    items.len()
                ),
            ));
        }
        objects(field, items, ["when", "targetUrl"], |f, [when, target]| {
            Ok(Rule {
                when: conditions(&format!("{f}.when"), when)?,
                target_url: url(&format!("{f}.targetUrl"), target)?,
            })
        })
    }

    pub(crate) fn variants(field: &str, v: &Value) -> R<Vec<Variant>> {
        let items = v
            .as_array()
            .ok_or_else(|| must(field, "an array of variants"))?;
        if !items.is_empty() && !(MIN_VARIANTS..=MAX_VARIANTS).contains(&items.len()) {
            return Err(FieldError::new(
                field,
                format!(
                    "a split has {MIN_VARIANTS} to {MAX_VARIANTS} variants (got {}); [] removes it",
                    items.len()
                ),
            ));
        }
        objects(
            field,
            items,
            ["targetUrl", "weight"],
            |f, [target, weight]| {
                let wf = format!("{f}.weight");
                let weight = weight
                    .as_u64()
                    .filter(|w| (1..=u64::from(MAX_WEIGHT)).contains(w))
                    .and_then(|w| u32::try_from(w).ok())
                    .ok_or_else(|| must(&wf, &format!("an integer from 1 to {MAX_WEIGHT}")))?;
                Ok(Variant {
                    target_url: url(&format!("{f}.targetUrl"), target)?,
                    weight,
                })
            },
        )
    }

    /// Each item read as an object with only the `known` members, every one required, by
    /// `read(path, the members' values in order)`.
    fn objects<T, const N: usize>(
        field: &str,
        items: &[Value],
        known: [&str; N],
        read: impl Fn(&str, [&Value; N]) -> R<T>,
    ) -> R<Vec<T>> {
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let f = format!("{field}[{i}]");
                let o = object(&f, item)?;
                only(&f, o, &known)?;
                let mut values = [&Value::Null; N];
                for (slot, name) in values.iter_mut().zip(known) {
                    *slot = o
                        .get(name)
                        .ok_or_else(|| FieldError::new(&f, format!("{name} is required")))?;
                }
                read(&f, values)
            })
            .collect()
    }

    pub(crate) fn utm(field: &str, v: &Value) -> R<Utm> {
        let o = object(field, v)?;
        only(
            field,
            o,
            &["source", "medium", "campaign", "term", "content"],
        )?;
        let get = |name: &str| {
            o.get(name)
                .filter(|v| !v.is_null())
                .map(|v| text(&format!("{field}.{name}"), v, MAX_UTM_CHARS))
                .transpose()
        };
        let utm = Utm {
            source: get("source")?,
            medium: get("medium")?,
            campaign: get("campaign")?,
            term: get("term")?,
            content: get("content")?,
        };
        if utm == Utm::default() {
            return Err(must(
                field,
                "an object with at least one of source, medium, campaign, term, content (null removes it)",
            ));
        }
        Ok(utm)
    }

    /// A new link password, as typed (hashed by the service).
    pub(crate) fn password(field: &str, v: &Value) -> R<String> {
        let s = v.as_str().ok_or_else(|| must(field, "a string"))?;
        let n = s.chars().count();
        if !(MIN_LINK_PASSWORD_CHARS..=MAX_LINK_PASSWORD_CHARS).contains(&n) {
            return Err(FieldError::new(
                field,
                format!(
                    "it must have {MIN_LINK_PASSWORD_CHARS} to {MAX_LINK_PASSWORD_CHARS} characters (got {n})"
                ),
            ));
        }
        if s.chars().any(char::is_control) {
            return Err(must(field, "text without control characters"));
        }
        Ok(s.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stored_form_roundtrips_and_leaves_unset_fields_out() {
        assert_eq!(LinkOptions::default().to_stored(), "{}");
        let o = LinkOptions {
            max_scans: Some(3),
            disabled: true,
            utm: Some(Utm {
                source: Some("poster".into()),
                ..Utm::default()
            }),
            rules: parse::rules(
                "rules",
                &json!([{"when": {"device": "mobile", "os": "iOS"}, "targetUrl": "https://a.example"}]),
            )
            .unwrap(),
            ..LinkOptions::default()
        };
        let stored = o.to_stored();
        assert_eq!(
            stored,
            r#"{"maxScans":3,"disabled":true,"rules":[{"when":{"device":"mobile","os":"ios"},"targetUrl":"https://a.example/"}],"utm":{"source":"poster"}}"#
        );
        assert_eq!(LinkOptions::from_stored(&stored).unwrap(), o);
        assert!(Options::new(LinkOptions::default()).get().is_none());
        assert!(LinkOptions::from_stored("{").is_err());
    }

    #[test]
    fn api_form_has_every_field_and_hides_the_password() {
        let hash = PasswordHash::of(&crate::password::Password::unchecked("open sesame")).unwrap();
        let o = Options::new(LinkOptions {
            password: Some(hash),
            ..LinkOptions::default()
        });
        let v = serde_json::to_value(&o).unwrap();
        assert_eq!(
            v,
            json!({"validFrom": null, "validUntil": null, "maxScans": null, "expiredUrl": null,
                   "disabled": false, "hasPassword": true, "rules": [], "variants": [],
                   "utm": null, "forwardQuery": false})
        );
    }

    fn err<T: std::fmt::Debug>(r: Result<T, FieldError>) -> String {
        let e = r.unwrap_err();
        format!("{}: {}", e.field, e.message)
    }

    #[test]
    fn bounds_and_messages() {
        let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
        assert_eq!(
            err(parse::tags("tags", &json!(many))),
            "tags: at most 20 tags are allowed (got 21)"
        );
        assert_eq!(
            err(parse::tags("tags", &json!(["x".repeat(51)]))),
            "tags[0]: a tag must have 1 to 50 characters (got 51)"
        );
        assert_eq!(
            parse::tags("tags", &json!([" a ", "a", "b"])).unwrap(),
            vec![Tag("a".into()), Tag("b".into())]
        );
        assert_eq!(
            err(parse::rules(
                "rules",
                &json!([{"when": {"device": "phone"}, "targetUrl": "https://a.example"}])
            )),
            "rules[0].when.device: it must be one of mobile, desktop, tablet"
        );
        assert_eq!(
            err(parse::rules(
                "rules",
                &json!([{"when": {}, "targetUrl": "https://a.example"}])
            )),
            "rules[0].when: it must be an object with at least one of device, os, country, language"
        );
        assert_eq!(
            err(parse::rules(
                "rules",
                &json!([{"when": {"country": "DE"}, "targetUrl": "javascript:alert(1)"}])
            )),
            "rules[0].targetUrl: the URL must use http or https, not javascript"
        );
        assert_eq!(
            err(parse::rules(
                "rules",
                &json!([{"when": {"cuntry": "DE"}, "targetUrl": "https://a.example"}])
            )),
            "rules[0].when: unknown member \"cuntry\"; expected device, os, country, language"
        );
        let rule = json!({"when": {"country": "de"}, "targetUrl": "https://a.example"});
        assert_eq!(
            err(parse::rules("rules", &json!(vec![rule.clone(); 21]))),
            "rules: at most 20 rules are allowed (got 21)"
        );
        assert_eq!(
            parse::rules("rules", &json!([rule])).unwrap()[0]
                .when
                .country
                .as_deref(),
            Some("DE")
        );
        assert_eq!(
            err(parse::variants(
                "variants",
                &json!([{"targetUrl": "https://a.example", "weight": 1}])
            )),
            "variants: a split has 2 to 10 variants (got 1); [] removes it"
        );
        assert_eq!(
            err(parse::variants(
                "variants",
                &json!([{"targetUrl": "https://a.example", "weight": 0}, {"targetUrl": "https://b.example", "weight": 1}])
            )),
            "variants[0].weight: it must be an integer from 1 to 1000"
        );
        assert!(parse::variants("variants", &json!([])).unwrap().is_empty());
        assert_eq!(
            err(parse::utm("utm", &json!({"source": "x".repeat(201)}))),
            "utm.source: it must have 1 to 200 characters (got 201)"
        );
        assert_eq!(
            err(parse::utm("utm", &json!({}))),
            "utm: it must be an object with at least one of source, medium, campaign, term, content (null removes it)"
        );
        assert_eq!(
            err(parse::instant(
                "validFrom",
                &json!("2025-01-01T00:00:00+02:00")
            )),
            "validFrom: it must be in UTC (ending in Z)"
        );
        assert_eq!(
            parse::instant("validFrom", &json!("2025-01-01T00:00:00Z")).unwrap(),
            "2025-01-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert_eq!(
            err(parse::max_scans("maxScans", &json!(0))),
            "maxScans: it must be an integer from 1 to 1000000000000"
        );
        assert_eq!(
            err(parse::password("password", &json!("abc"))),
            "password: it must have 4 to 128 characters (got 3)"
        );
        assert_eq!(
            err(parse::url("expiredUrl", &json!("x".repeat(3000)))),
            "expiredUrl: the URL must be at most 2048 characters (got 3000)"
        );
    }

    #[test]
    fn os_families() {
        assert_eq!(OsFamily::of("Windows 10"), Some(OsFamily::Windows));
        assert_eq!(OsFamily::of("Windows Phone OS"), None);
        assert_eq!(OsFamily::of("iOS"), Some(OsFamily::Ios));
        assert_eq!(OsFamily::of("Unknown"), None);
    }
}
