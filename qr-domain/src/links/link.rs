//! Dynamic links: validation of names and target URLs, the link record, and the fields of a link creation or update with their typed setters (campaign fields included).

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;
use url::Url;

use crate::accounts::permissions::NotPermitted;
use crate::accounts::plan::{LinkFeature, Plan};
use crate::dashboard::password::HashError;
use crate::domains::name::DomainName;
use crate::error::StoreError;
use crate::ids::{AccountId, DesignId, LinkId};
use crate::links::campaign::{
    Conditions, FieldError, FieldRule, LinkField, Options, Rule, RulePart, Tag, Utm, UtmPart,
    Variant, VariantPart, rules,
};
use crate::links::shortcode::{self, ShortCode};
use crate::random::RandomError;

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
    /// The short code used in `/r/<shortCode>` (or `/<shortCode>` on its domain).
    pub short_code: ShortCode,
    /// The customer's domain the link lives on (`None`: the service's own address). Codes are
    /// unique per domain. Always in the JSON (`null`), like the campaign fields.
    pub domain: Option<DomainName>,
    /// The saved design its code is drawn in (`None`: the account's default design, else the
    /// plain code). Always in the JSON (`null`).
    pub design: Option<DesignId>,
    /// Where the short URL redirects.
    pub target_url: TargetUrl,
    /// Every counted scan ever; retention pruning never lowers it.
    pub scan_count: u64,
    /// When the link was created.
    pub created_at: DateTime<Utc>,
    /// When the link was last changed; equals `created_at` on creation (an imported link keeps
    /// its first creation elsewhere as `created_at`, and its import as `updated_at`).
    pub updated_at: DateTime<Utc>,
    /// Tags, in the order given (empty: none).
    pub tags: Vec<Tag>,
    /// Campaign settings (none for most links), as the API's fields.
    #[serde(flatten)]
    pub options: Options,
}

impl Link {
    /// The key that makes its code unique where it lives ([`shortcode::scoped_key`]).
    pub fn code_key(&self) -> String {
        shortcode::scoped_key(self.domain.as_ref(), &self.short_code)
    }

    /// The address its code encodes: `https://<domain>/<code>` on a customer's domain (served at
    /// the root, HTTPS through the operator's reverse proxy), `{base_url}/r/<code>` on the
    /// service's own address (`base_url` without a trailing slash).
    pub fn short_url(&self, base_url: &str) -> String {
        match &self.domain {
            Some(domain) => format!("https://{domain}/{}", self.short_code),
            None => format!("{base_url}/r/{}", self.short_code),
        }
    }

    /// Its code as stores keep it ([`shortcode::scoped_text`]).
    pub fn stored_code(&self) -> String {
        shortcode::scoped_text(self.domain.as_ref(), &self.short_code)
    }
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
    /// The customer's domain the link lives on, or `Some(None)` for the service's own address.
    pub domain: Option<Option<DomainName>>,
    /// The saved design its code is drawn in, or `Some(None)` for the account's default.
    pub design: Option<Option<DesignId>>,
    /// When the link was first created elsewhere (an import from another service); read only
    /// on creation, where it replaces the creation instant (never later than it).
    pub created_at: Option<DateTime<Utc>>,
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

/// A redirect rule as typed: its conditions as text (each optional, at least one given) and
/// its target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RuleInput<'a> {
    /// `mobile`, `desktop` or `tablet`.
    pub device: Option<&'a str>,
    /// An operating system family (`ios`, `android`, ...).
    pub os: Option<&'a str>,
    /// A two-letter country code.
    pub country: Option<&'a str>,
    /// A language tag (`de`, `de-AT`).
    pub language: Option<&'a str>,
    /// Where the visit goes when the conditions hold.
    pub target_url: &'a str,
}

/// An A/B variant as typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariantInput<'a> {
    /// Where the visit goes.
    pub target_url: &'a str,
    /// Its relative share, 1 to [`crate::links::campaign::MAX_WEIGHT`]; `None` when what was typed
    /// is no whole number (refused with the weight's rule, in the variant's turn).
    pub weight: Option<u64>,
}

impl RuleInput<'_> {
    /// The checked rule at index `i`: its conditions in order (device, os, country, language,
    /// at least one), then its target.
    pub fn check(&self, i: usize) -> Result<Rule, FieldError> {
        let at = |part: RulePart| move |r| FieldError::new(LinkField::Rule(i, part), r);
        let when = Conditions {
            device: self
                .device
                .map(rules::device)
                .transpose()
                .map_err(at(RulePart::Device))?,
            os: self
                .os
                .map(rules::os)
                .transpose()
                .map_err(at(RulePart::Os))?,
            country: self
                .country
                .map(rules::country)
                .transpose()
                .map_err(at(RulePart::Country))?,
            language: self
                .language
                .map(rules::language)
                .transpose()
                .map_err(at(RulePart::Language))?,
        };
        Ok(Rule {
            when: rules::conditions(when).map_err(at(RulePart::When))?,
            target_url: rules::rule_target(self.target_url).map_err(at(RulePart::TargetUrl))?,
        })
    }
}

impl VariantInput<'_> {
    /// The checked variant at index `i`: its weight, then its target.
    pub fn check(&self, i: usize) -> Result<Variant, FieldError> {
        let at = |part: VariantPart| move |r| FieldError::new(LinkField::Variant(i, part), r);
        let weight = self
            .weight
            .ok_or(FieldRule::Weight)
            .and_then(rules::weight)
            .map_err(at(VariantPart::Weight))?;
        Ok(Variant {
            target_url: rules::url(self.target_url).map_err(at(VariantPart::TargetUrl))?,
            weight,
        })
    }
}

/// An instant to the microsecond, as the stores keep it.
fn to_micros(at: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(at.timestamp_micros()).unwrap_or(at)
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

/// Why a target URL was rejected. Its `Display` names `targetUrl`; [`UrlError::about`] names
/// another subject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlError {
    /// Nothing but whitespace.
    Empty,
    /// Longer than 2,048 characters (before or after normalisation).
    TooLong(usize),
    /// Not an absolute URL.
    NotAbsolute,
    /// Unparseable for another reason (bad host, bad port, ...).
    Invalid(String),
    /// A scheme other than http or https.
    Scheme(String),
    /// No host.
    NoHost,
    /// A user name or password in the URL.
    Credentials,
}

impl UrlError {
    /// The message with `subject` as what must be a URL (`the URL`, `the target address`).
    pub fn about<'a>(&'a self, subject: &'a str) -> impl fmt::Display + 'a {
        UrlMessage {
            subject,
            error: self,
        }
    }
}

struct UrlMessage<'a> {
    subject: &'a str,
    error: &'a UrlError,
}

impl fmt::Display for UrlMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let subject = self.subject;
        match self.error {
            UrlError::Empty => write!(f, "{subject} must not be empty"),
            UrlError::TooLong(n) => {
                write!(
                    f,
                    "{subject} must be at most {MAX_URL_CHARS} characters (got {n})"
                )
            }
            UrlError::NotAbsolute => write!(
                f,
                "{subject} must be an absolute URL such as https://example.com/page"
            ),
            UrlError::Invalid(why) => write!(f, "{subject} is not a valid URL: {why}"),
            UrlError::Scheme(scheme) => {
                write!(f, "{subject} must use http or https, not {scheme}")
            }
            UrlError::NoHost => write!(f, "{subject} must have a host"),
            UrlError::Credentials => {
                write!(f, "{subject} must not contain a user name or password")
            }
        }
    }
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.about("targetUrl").fmt(f)
    }
}

impl std::error::Error for UrlError {}

/// Errors of link operations.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LinkError {
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
    /// A field other than the name and target is invalid.
    #[error(transparent)]
    Field(#[from] FieldError),
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
    /// The `design` field names no design of the account (a field error: 400).
    #[error("Design not found")]
    DesignNotFound,
    /// No unused short code could be drawn (practically impossible with 40 random bits).
    #[error("could not allocate a unique short code; retry the request")]
    CodeSpace,
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// Hashing a link password failed.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The caller may not change links (a viewer, a key without `links:write`).
    #[error(transparent)]
    NotPermitted(#[from] NotPermitted),
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

    /// A custom short code.
    pub fn set_short_code(&mut self, raw: &str) -> Result<(), FieldError> {
        let code = ShortCode::custom(raw)
            .map_err(|e| FieldError::new(LinkField::ShortCode, FieldRule::ShortCode(e)))?;
        self.short_code = Some(code);
        Ok(())
    }

    /// New tags, replacing the old (at most [`crate::links::campaign::MAX_TAGS`]); a repeated tag is
    /// kept once.
    pub fn set_tags<S: AsRef<str>>(&mut self, tags: &[S]) -> Result<(), FieldError> {
        rules::tag_count(tags.len()).map_err(|r| FieldError::new(LinkField::Tags, r))?;
        let mut out: Vec<Tag> = Vec::with_capacity(tags.len());
        for (i, raw) in tags.iter().enumerate() {
            let tag =
                Tag::parse(raw.as_ref()).map_err(|r| FieldError::new(LinkField::Tag(i), r))?;
            if !out.contains(&tag) {
                out.push(tag);
            }
        }
        self.tags = Some(out);
        Ok(())
    }

    /// The start of the validity (`None` removes it), kept to the microsecond.
    pub fn set_valid_from(&mut self, at: Option<DateTime<Utc>>) {
        self.valid_from = Some(at.map(to_micros));
    }

    /// The end of the validity (`None` removes it), kept to the microsecond.
    pub fn set_valid_until(&mut self, at: Option<DateTime<Utc>>) {
        self.valid_until = Some(at.map(to_micros));
    }

    /// The scan cap (`None` removes it).
    pub fn set_max_scans(&mut self, n: Option<u64>) -> Result<(), FieldError> {
        let n = n
            .map(rules::max_scans)
            .transpose()
            .map_err(|r| FieldError::new(LinkField::MaxScans, r))?;
        self.max_scans = Some(n);
        Ok(())
    }

    /// Where expired links send visitors (`None` removes it).
    pub fn set_expired_url(&mut self, raw: Option<&str>) -> Result<(), FieldError> {
        let url = raw
            .map(rules::url)
            .transpose()
            .map_err(|r| FieldError::new(LinkField::ExpiredUrl, r))?;
        self.expired_url = Some(url);
        Ok(())
    }

    /// Paused or not.
    pub fn set_disabled(&mut self, disabled: bool) {
        self.disabled = Some(disabled);
    }

    /// A new password as typed (`None` removes it).
    pub fn set_password(&mut self, raw: Option<&str>) -> Result<(), FieldError> {
        let password = raw
            .map(|p| rules::password(p).map(|p| LinkPassword(p.to_owned())))
            .transpose()
            .map_err(|r| FieldError::new(LinkField::Password, r))?;
        self.password = Some(password);
        Ok(())
    }

    /// New redirect rules in order of priority (`[]` removes them).
    pub fn set_rules(&mut self, inputs: &[RuleInput<'_>]) -> Result<(), FieldError> {
        rules::rule_count(inputs.len()).map_err(|r| FieldError::new(LinkField::Rules, r))?;
        let rules = inputs
            .iter()
            .enumerate()
            .map(|(i, input)| input.check(i))
            .collect::<Result<_, _>>()?;
        self.rules = Some(rules);
        Ok(())
    }

    /// A new A/B split (`[]` removes it).
    pub fn set_variants(&mut self, inputs: &[VariantInput<'_>]) -> Result<(), FieldError> {
        rules::variant_count(inputs.len()).map_err(|r| FieldError::new(LinkField::Variants, r))?;
        let variants = inputs
            .iter()
            .enumerate()
            .map(|(i, input)| input.check(i))
            .collect::<Result<_, _>>()?;
        self.variants = Some(variants);
        Ok(())
    }

    /// New UTM parameters, each given once (`None` removes them; at least one is needed).
    pub fn set_utm(&mut self, parameters: Option<&[(UtmPart, &str)]>) -> Result<(), FieldError> {
        let Some(parameters) = parameters else {
            self.utm = Some(None);
            return Ok(());
        };
        let mut utm = Utm::default();
        for (part, raw) in parameters {
            *utm.member_mut(*part) = Some(
                rules::utm_value(raw)
                    .map_err(|r| FieldError::new(LinkField::UtmMember(*part), r))?,
            );
        }
        let utm = rules::utm(utm).map_err(|r| FieldError::new(LinkField::Utm, r))?;
        self.utm = Some(Some(utm));
        Ok(())
    }

    /// Whether the scan's query is passed on to the target.
    pub fn set_forward_query(&mut self, forward: bool) {
        self.forward_query = Some(forward);
    }

    /// The customer's domain the link lives on (Unicode or ASCII, any case); whether the
    /// account may use it is checked when the change is stored.
    pub fn set_domain(&mut self, name: &str) -> Result<(), FieldError> {
        let name = DomainName::parse_any(name)
            .map_err(|e| FieldError::new(LinkField::Domain, FieldRule::DomainName(e)))?;
        self.domain = Some(Some(name));
        Ok(())
    }

    /// Puts the link on the service's own address.
    pub fn clear_domain(&mut self) {
        self.domain = Some(None);
    }

    /// The saved design the link's code is drawn in; whether it is the account's is checked
    /// when the change is stored (another account's is [`LinkError::DesignNotFound`]).
    pub fn set_design(&mut self, id: DesignId) {
        self.design = Some(Some(id));
    }

    /// Draws the link's code in the account's default design.
    pub fn clear_design(&mut self) {
        self.design = Some(None);
    }

    /// When the link was first created elsewhere, kept to the microsecond: an import keeps a
    /// link's history. Only creation reads it; a time after the creation instant is the
    /// creation instant (a link is never created in the future).
    pub fn set_created_at(&mut self, at: DateTime<Utc>) {
        self.created_at = Some(to_micros(at));
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
