//! Dynamic links: validation of names and target URLs, the link record, and the fields of a link update (campaign fields included).

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;
use url::Url;

use crate::campaign::{FieldError, Options, Rule, Tag, Utm, Variant, parse};
use crate::error::StoreError;
use crate::ids::{AccountId, LinkId};
use crate::password::HashError;
use crate::plan::{LinkFeature, Plan};
use crate::random::RandomError;
use crate::shortcode::{ShortCode, ShortCodeError};

/// Maximum length of a link name, in characters, after trimming.
pub const MAX_NAME_CHARS: usize = 200;
/// Maximum length of a target URL, in characters, before and after normalisation.
pub const MAX_URL_CHARS: usize = 2048;

/// A dynamic link, with the spec's fields, its tags and its campaign settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    /// The link's id.
    pub id: LinkId,
    /// The owning account (not part of the API's Link object).
    #[serde(skip_serializing)]
    pub account_id: AccountId,
    /// The friendly name.
    pub name: LinkName,
    /// The short code used in `/r/<shortCode>`.
    pub short_code: ShortCode,
    /// Where the short URL redirects.
    pub target_url: TargetUrl,
    /// Every counted scan ever; retention pruning never lowers it.
    pub scan_count: u64,
    /// When the link was created.
    pub created_at: DateTime<Utc>,
    /// When the link was last changed; equals `created_at` on creation.
    pub updated_at: DateTime<Utc>,
    /// Tags, in the order given (empty: none).
    pub tags: Vec<Tag>,
    /// Campaign settings (none for most links), as the API's fields.
    #[serde(flatten)]
    pub options: Options,
}

/// A link name: 1 to 200 characters after trimming, no control characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct LinkName(String);

/// A normalised absolute http or https URL with a host, no credentials, at most 2,048 characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TargetUrl(String);

/// The validated fields of a link creation or update; `None` leaves a field unchanged (or at
/// its default on creation), `Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkUpdate {
    /// A new name.
    pub name: Option<LinkName>,
    /// A new target URL.
    pub target_url: Option<TargetUrl>,
    /// A custom short code.
    pub short_code: Option<ShortCode>,
    /// New tags (replacing the old).
    pub tags: Option<Vec<Tag>>,
    /// Start of the validity.
    pub valid_from: Option<Option<DateTime<Utc>>>,
    /// End of the validity.
    pub valid_until: Option<Option<DateTime<Utc>>>,
    /// The scan cap.
    pub max_scans: Option<Option<u64>>,
    /// Where expired links send visitors.
    pub expired_url: Option<Option<TargetUrl>>,
    /// Paused or not.
    pub disabled: Option<bool>,
    /// A new password as typed (hashed by the service), or `Some(None)` to remove it.
    pub password: Option<Option<LinkPassword>>,
    /// New rules (`[]` removes them).
    pub rules: Option<Vec<Rule>>,
    /// A new split (`[]` removes it).
    pub variants: Option<Vec<Variant>>,
    /// New UTM parameters.
    pub utm: Option<Option<Utm>>,
    /// Whether to forward the scan's query.
    pub forward_query: Option<bool>,
}

/// A link password as typed, within its bounds. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct LinkPassword(String);

impl LinkPassword {
    /// The password as typed.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for LinkPassword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LinkPassword(…)")
    }
}

/// Why a link name was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NameError {
    /// Nothing but whitespace.
    #[error("name must not be empty")]
    Empty,
    /// Longer than 200 characters after trimming.
    #[error("name must be at most 200 characters (got {0})")]
    TooLong(usize),
    /// Contains a control character such as a newline.
    #[error("name must not contain control characters such as line breaks")]
    ControlCharacter,
}

/// Why a target URL was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UrlError {
    /// Nothing but whitespace.
    #[error("targetUrl must not be empty")]
    Empty,
    /// Longer than 2,048 characters (before or after normalisation).
    #[error("targetUrl must be at most 2048 characters (got {0})")]
    TooLong(usize),
    /// Not an absolute URL.
    #[error("targetUrl must be an absolute URL such as https://example.com/page")]
    NotAbsolute,
    /// Unparseable for another reason (bad host, bad port, ...).
    #[error("targetUrl is not a valid URL: {0}")]
    Invalid(String),
    /// A scheme other than http or https.
    #[error("targetUrl must use http or https, not {0}")]
    Scheme(String),
    /// No host.
    #[error("targetUrl must have a host")]
    NoHost,
    /// A user name or password in the URL.
    #[error("targetUrl must not contain a user name or password")]
    Credentials,
}

/// Errors of link operations.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LinkError {
    /// A required field of a request body is absent (`name field required`).
    #[error("{0} field required")]
    Missing(&'static str),
    /// A field of a request body that must be a string is not one, `null` included.
    #[error("{0} must be a string")]
    NotString(&'static str),
    /// The name is invalid.
    #[error("invalid name: {0}")]
    Name(#[from] NameError),
    /// The target URL is invalid.
    #[error("invalid targetUrl: {0}")]
    TargetUrl(#[from] UrlError),
    /// The account already holds as many links as its plan allows.
    #[error(
        "link limit reached: the {plan} plan allows {limit} links; delete a link or upgrade the plan"
    )]
    LimitReached {
        /// The plan's name.
        plan: String,
        /// The plan's link limit.
        limit: u64,
    },
    /// A field other than the name and target is invalid (`Invalid <field>: <message>`).
    #[error("invalid {}: {}", .0.field, .0.message)]
    Field(FieldError),
    /// A field the account's plan does not include.
    #[error("{field} requires {} plan", .plan.title())]
    PlanRequired {
        /// The field's JSON name.
        field: &'static str,
        /// The cheapest plan that includes it.
        plan: Plan,
    },
    /// The custom short code is used by another link, or was used by a deleted one.
    #[error("shortCode {0} is already taken; choose another")]
    CodeTaken(String),
    /// No link with this id belongs to the account.
    #[error("link not found")]
    NotFound,
    /// No unused short code could be drawn (practically impossible with 40 random bits).
    #[error("could not allocate a unique short code; retry the request")]
    CodeSpace,
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// Hashing a link password failed.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The id of a link as a client presents it: a malformed id identifies no link, so it is
/// [`LinkError::NotFound`] like an unknown one or another account's.
pub fn parse_link_id(raw: &str) -> Result<LinkId, LinkError> {
    raw.parse().map_err(|_| LinkError::NotFound)
}

impl LinkUpdate {
    /// Validates the fields given, the name first.
    pub fn parse(name: Option<&str>, target_url: Option<&str>) -> Result<Self, LinkError> {
        Ok(Self {
            name: name.map(LinkName::parse).transpose()?,
            target_url: target_url.map(TargetUrl::parse).transpose()?,
            ..Self::default()
        })
    }

    /// The fields of a link creation from a JSON object, as `POST /api/links` and each item of
    /// a bulk request read them: `name` then `targetUrl` (each must be a string and is
    /// required), their validation, then the campaign fields of [`LinkUpdate::with_json`].
    pub fn for_creation(body: &Map<String, Value>) -> Result<Self, LinkError> {
        let required = |name: &'static str| match body.get(name) {
            None => Err(LinkError::Missing(name)),
            Some(Value::String(s)) => Ok(s.as_str()),
            Some(_) => Err(LinkError::NotString(name)),
        };
        let name = required("name")?;
        let target = required("targetUrl")?;
        Self::parse(Some(name), Some(target))?.with_json(body)
    }

    /// Adds the campaign fields present in a JSON request body (`shortCode`, `tags`,
    /// `validFrom`, `validUntil`, `maxScans`, `expiredUrl`, `disabled`, `password`, `rules`,
    /// `variants`, `utm`, `forwardQuery`), checked in that order. `null` clears a field that
    /// can be unset; other members of the body are not read here.
    pub fn with_json(mut self, body: &Map<String, Value>) -> Result<Self, LinkError> {
        let field = |name: &'static str| body.get(name);
        let bad = LinkError::Field;
        if let Some(v) = field("shortCode") {
            let raw = v
                .as_str()
                .ok_or_else(|| bad(FieldError::new("shortCode", "it must be a string")))?;
            self.short_code = Some(ShortCode::custom(raw).map_err(|e| {
                bad(FieldError::new(
                    "shortCode",
                    match e {
                        ShortCodeError::Reserved(_) => e.to_string(),
                        _ => ShortCodeError::Custom.to_string(),
                    },
                ))
            })?);
        }
        if let Some(v) = field("tags") {
            self.tags = Some(parse::tags("tags", v).map_err(bad)?);
        }
        if let Some(v) = field("validFrom") {
            self.valid_from =
                Some(parse::nullable(v, |v| parse::instant("validFrom", v)).map_err(bad)?);
        }
        if let Some(v) = field("validUntil") {
            self.valid_until =
                Some(parse::nullable(v, |v| parse::instant("validUntil", v)).map_err(bad)?);
        }
        if let Some(v) = field("maxScans") {
            self.max_scans =
                Some(parse::nullable(v, |v| parse::max_scans("maxScans", v)).map_err(bad)?);
        }
        if let Some(v) = field("expiredUrl") {
            self.expired_url =
                Some(parse::nullable(v, |v| parse::url("expiredUrl", v)).map_err(bad)?);
        }
        if let Some(v) = field("disabled") {
            self.disabled = Some(parse::boolean("disabled", v).map_err(bad)?);
        }
        if let Some(v) = field("password") {
            self.password = Some(
                parse::nullable(v, |v| parse::password("password", v).map(LinkPassword))
                    .map_err(bad)?,
            );
        }
        if let Some(v) = field("rules") {
            self.rules = Some(parse::rules("rules", v).map_err(bad)?);
        }
        if let Some(v) = field("variants") {
            self.variants = Some(parse::variants("variants", v).map_err(bad)?);
        }
        if let Some(v) = field("utm") {
            self.utm = Some(parse::nullable(v, |v| parse::utm("utm", v)).map_err(bad)?);
        }
        if let Some(v) = field("forwardQuery") {
            self.forward_query = Some(parse::boolean("forwardQuery", v).map_err(bad)?);
        }
        Ok(self)
    }

    /// Whether the update changes nothing.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The plan features the update sets (clearing a field needs none), with the field that
    /// uses each, in the order of the fields.
    pub fn features(&self) -> Vec<(&'static str, LinkFeature)> {
        let set = |on: bool, field, feature| on.then_some((field, feature));
        [
            set(
                self.short_code.is_some(),
                "shortCode",
                LinkFeature::ShortCode,
            ),
            set(
                matches!(self.valid_from, Some(Some(_))),
                "validFrom",
                LinkFeature::Schedule,
            ),
            set(
                matches!(self.valid_until, Some(Some(_))),
                "validUntil",
                LinkFeature::Schedule,
            ),
            set(
                matches!(self.max_scans, Some(Some(_))),
                "maxScans",
                LinkFeature::Schedule,
            ),
            set(
                matches!(self.expired_url, Some(Some(_))),
                "expiredUrl",
                LinkFeature::Schedule,
            ),
            set(
                matches!(self.password, Some(Some(_))),
                "password",
                LinkFeature::Password,
            ),
            set(
                self.rules.as_ref().is_some_and(|r| !r.is_empty()),
                "rules",
                LinkFeature::Rules,
            ),
            set(
                self.variants.as_ref().is_some_and(|v| !v.is_empty()),
                "variants",
                LinkFeature::Variants,
            ),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

impl LinkName {
    /// Validates and trims a name.
    pub fn parse(raw: &str) -> Result<Self, NameError> {
        let s = raw.trim();
        if s.is_empty() {
            return Err(NameError::Empty);
        }
        let n = s.chars().count();
        if n > MAX_NAME_CHARS {
            return Err(NameError::TooLong(n));
        }
        if s.chars().any(char::is_control) {
            return Err(NameError::ControlCharacter);
        }
        Ok(Self(s.to_owned()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TargetUrl {
    /// Validates and normalises a target URL (scheme and host lower-cased, IDN hosts in punycode,
    /// default port removed, empty path made `/`, unsafe characters percent-encoded).
    pub fn parse(raw: &str) -> Result<Self, UrlError> {
        let s = raw.trim();
        if s.is_empty() {
            return Err(UrlError::Empty);
        }
        let n = s.chars().count();
        if n > MAX_URL_CHARS {
            return Err(UrlError::TooLong(n));
        }
        let url = Url::parse(s).map_err(|e| match e {
            url::ParseError::RelativeUrlWithoutBase => UrlError::NotAbsolute,
            url::ParseError::EmptyHost => UrlError::NoHost,
            other => UrlError::Invalid(other.to_string()),
        })?;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(UrlError::Scheme(url.scheme().to_owned()));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(UrlError::NoHost);
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(UrlError::Credentials);
        }
        let normalised = String::from(url);
        let n = normalised.chars().count();
        if n > MAX_URL_CHARS {
            return Err(UrlError::TooLong(n));
        }
        Ok(Self(normalised))
    }

    /// The normalised URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

macro_rules! string_newtype {
    ($name:ident, $err:ty) => {
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl TryFrom<String> for $name {
            type Error = $err;

            fn try_from(s: String) -> Result<Self, Self::Error> {
                Self::parse(&s)
            }
        }

        impl From<$name> for String {
            fn from(v: $name) -> String {
                v.0
            }
        }
    };
}

string_newtype!(LinkName, NameError);
string_newtype!(TargetUrl, UrlError);

#[cfg(test)]
mod tests {
    use super::*;

    fn name(input: &str, expected: Result<&str, NameError>) {
        let got = LinkName::parse(input);
        assert_eq!(
            got.as_ref().map(LinkName::as_str),
            expected.as_ref().map(|s| *s),
            "{input:?}"
        );
    }

    fn url(input: &str, expected: Result<&str, UrlError>) {
        let got = TargetUrl::parse(input);
        assert_eq!(
            got.as_ref().map(TargetUrl::as_str),
            expected.as_ref().map(|s| *s),
            "{input:?}"
        );
    }

    #[test]
    fn presented_ids_and_updates() {
        let id = LinkId::random();
        assert_eq!(parse_link_id(&format!(" {id} ")), Ok(id));
        assert_eq!(parse_link_id("not-a-uuid"), Err(LinkError::NotFound));
        assert!(LinkUpdate::parse(None, None).unwrap().is_empty());
        let update = LinkUpdate::parse(Some(" New "), Some("https://example.com")).unwrap();
        assert_eq!(update.name.as_ref().map(LinkName::as_str), Some("New"));
        assert_eq!(
            update.target_url.as_ref().map(TargetUrl::as_str),
            Some("https://example.com/")
        );
        assert_eq!(
            LinkUpdate::parse(Some(""), Some("ftp://x")),
            Err(LinkError::Name(NameError::Empty)),
            "the name is checked first"
        );
    }

    #[test]
    fn name_cases() {
        name("  Spring flyer ", Ok("Spring flyer"));
        name("", Err(NameError::Empty));
        name(" \t\n ", Err(NameError::Empty));
        name(&"é".repeat(200), Ok(&"é".repeat(200)));
        name(&format!("  {}  ", "x".repeat(200)), Ok(&"x".repeat(200)));
        name(&"x".repeat(201), Err(NameError::TooLong(201)));
        name("a\nb", Err(NameError::ControlCharacter));
    }

    #[test]
    fn url_cases() {
        url("https://example.com", Ok("https://example.com/"));
        url(
            "  HTTPS://Example.COM:443/a b?q=1#f ",
            Ok("https://example.com/a%20b?q=1#f"),
        );
        url("http://example.com:8080/x", Ok("http://example.com:8080/x"));
        url(
            "https://bücher.example/",
            Ok("https://xn--bcher-kva.example/"),
        );
        url("", Err(UrlError::Empty));
        url("/relative/path", Err(UrlError::NotAbsolute));
        url("example.com/page", Err(UrlError::NotAbsolute));
        url(
            "ftp://example.com/file",
            Err(UrlError::Scheme("ftp".into())),
        );
        url(
            "javascript:alert(1)",
            Err(UrlError::Scheme("javascript".into())),
        );
        url(
            "mailto:a@example.com",
            Err(UrlError::Scheme("mailto".into())),
        );
        url("https://user:pw@example.com/", Err(UrlError::Credentials));
        url("https://user@example.com/", Err(UrlError::Credentials));
        url("https:///nohost", Ok("https://nohost/"));
        url("http://", Err(UrlError::NoHost));
        url(
            "https://exa mple.com/",
            Err(UrlError::Invalid(
                "invalid international domain name".into(),
            )),
        );
        url(
            "https://example.com:99999/",
            Err(UrlError::Invalid("invalid port number".into())),
        );
        let long = format!("https://example.com/{}", "a".repeat(2048 - 20));
        assert_eq!(long.len(), 2048);
        url(&long, Ok(&long));
        let too_long = format!("{long}a");
        url(&too_long, Err(UrlError::TooLong(2049)));
        let grows = format!("https://example.com/{}", "\"".repeat(1000));
        url(&grows, Err(UrlError::TooLong(20 + 3000)));
    }
}
