//! A link's campaign settings (schedule, scan cap, pause, password, redirect rules, A/B variants, UTM parameters, query forwarding) and tags: their types and bounds, their stored form and the Link's JSON fields; `field` names what failed, `rules` checks each value, `target` is a rule's web or app target.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use crate::dashboard::password::PasswordHash;
use crate::error::StoreError;
use crate::scans::scan::Device;

mod field;
pub mod rules;
pub mod target;

pub use field::{DomainUnusable, FieldError, FieldRule, LinkField, RulePart, UtmPart, VariantPart};
pub use target::{AppScheme, AppUrl, RuleTarget};

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

/// A tag: 1 to 50 characters after trimming, no control characters; compared as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Tag(String);

impl Tag {
    /// Validates and trims a tag.
    pub fn parse(raw: &str) -> Result<Self, FieldRule> {
        let s = raw.trim();
        let n = s.chars().count();
        if n == 0 || n > MAX_TAG_CHARS {
            return Err(FieldRule::TagLength(n));
        }
        if s.chars().any(char::is_control) {
            return Err(FieldRule::TagControlCharacter);
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
    /// The API names of the families, for messages.
    pub const NAMES: &'static str = "ios, android, windows, macos, linux, chromeos";

    /// A family by its API name, in any case.
    pub fn parse(s: &str) -> Option<Self> {
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

    /// The family's API name (`ios`, `android`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ios => "ios",
            Self::Android => "android",
            Self::Windows => "windows",
            Self::Macos => "macos",
            Self::Linux => "linux",
            Self::Chromeos => "chromeos",
        }
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
    /// Where the visit goes when they hold: a web page or an app.
    pub target_url: RuleTarget,
}

/// One side of an A/B split.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    /// Where the visit goes.
    pub target_url: crate::links::link::TargetUrl,
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
    pub expired_url: Option<crate::links::link::TargetUrl>,
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

    use crate::dashboard::password::PasswordHash;

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
            rules: vec![Rule {
                when: Conditions {
                    device: Some(rules::device("mobile").unwrap()),
                    os: Some(rules::os("iOS").unwrap()),
                    ..Conditions::default()
                },
                target_url: rules::rule_target("https://a.example").unwrap(),
            }],
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
        let hash = PasswordHash::of(&crate::dashboard::password::Password::unchecked(
            "open sesame",
        ))
        .unwrap();
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

    #[test]
    fn os_families() {
        assert_eq!(OsFamily::of("Windows 10"), Some(OsFamily::Windows));
        assert_eq!(OsFamily::of("Windows Phone OS"), None);
        assert_eq!(OsFamily::of("iOS"), Some(OsFamily::Ios));
        assert_eq!(OsFamily::of("Unknown"), None);
    }
}
