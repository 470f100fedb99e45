//! Which field of a link's input failed and the rule it broke: [`FieldError`] names the field by its path (`rules[0].when.device`) and its [`FieldRule`], whose `Display` is the rule's message.

use std::fmt;

use crate::domains::name::{DomainName, DomainNameError};
use crate::links::link::UrlError;
use crate::links::shortcode::ShortCodeError;

use super::target::AppUrlError;
use super::{
    MAX_LINK_PASSWORD_CHARS, MAX_RULES, MAX_SCANS_LIMIT, MAX_TAG_CHARS, MAX_TAGS, MAX_VARIANTS,
    MAX_WEIGHT, MIN_LINK_PASSWORD_CHARS, MIN_VARIANTS, OsFamily,
};

/// A field of a link's input, as the Link JSON names it; list entries carry their index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkField {
    /// The item as a whole (a bulk item, a creation without its name or target).
    Link,
    /// `shortCode`.
    ShortCode,
    /// `tags`.
    Tags,
    /// `tags[i]`.
    Tag(usize),
    /// `validFrom`.
    ValidFrom,
    /// `validUntil`.
    ValidUntil,
    /// `maxScans`.
    MaxScans,
    /// `expiredUrl`.
    ExpiredUrl,
    /// `disabled`.
    Disabled,
    /// `password`.
    Password,
    /// `rules`.
    Rules,
    /// A part of `rules[i]`.
    Rule(usize, RulePart),
    /// `variants`.
    Variants,
    /// A part of `variants[i]`.
    Variant(usize, VariantPart),
    /// `utm`.
    Utm,
    /// `utm.<member>`.
    UtmMember(UtmPart),
    /// `forwardQuery`.
    ForwardQuery,
    /// `domain`.
    Domain,
}

/// A part of a redirect rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RulePart {
    /// The rule itself (`rules[i]`).
    Whole,
    /// Its conditions (`rules[i].when`).
    When,
    /// `rules[i].when.device`.
    Device,
    /// `rules[i].when.os`.
    Os,
    /// `rules[i].when.country`.
    Country,
    /// `rules[i].when.language`.
    Language,
    /// `rules[i].targetUrl`.
    TargetUrl,
}

/// A part of an A/B variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VariantPart {
    /// The variant itself (`variants[i]`).
    Whole,
    /// `variants[i].targetUrl`.
    TargetUrl,
    /// `variants[i].weight`.
    Weight,
}

/// A UTM parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UtmPart {
    /// `utm_source`.
    Source,
    /// `utm_medium`.
    Medium,
    /// `utm_campaign`.
    Campaign,
    /// `utm_term`.
    Term,
    /// `utm_content`.
    Content,
}

impl UtmPart {
    /// Every parameter, in the order of the Link JSON.
    pub const ALL: [UtmPart; 5] = [
        UtmPart::Source,
        UtmPart::Medium,
        UtmPart::Campaign,
        UtmPart::Term,
        UtmPart::Content,
    ];

    /// The member's name in the Link JSON (`source`, …).
    pub fn name(self) -> &'static str {
        match self {
            UtmPart::Source => "source",
            UtmPart::Medium => "medium",
            UtmPart::Campaign => "campaign",
            UtmPart::Term => "term",
            UtmPart::Content => "content",
        }
    }
}

impl fmt::Display for LinkField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkField::Link => f.write_str("link"),
            LinkField::ShortCode => f.write_str("shortCode"),
            LinkField::Tags => f.write_str("tags"),
            LinkField::Tag(i) => write!(f, "tags[{i}]"),
            LinkField::ValidFrom => f.write_str("validFrom"),
            LinkField::ValidUntil => f.write_str("validUntil"),
            LinkField::MaxScans => f.write_str("maxScans"),
            LinkField::ExpiredUrl => f.write_str("expiredUrl"),
            LinkField::Disabled => f.write_str("disabled"),
            LinkField::Password => f.write_str("password"),
            LinkField::Rules => f.write_str("rules"),
            LinkField::Rule(i, part) => {
                write!(f, "rules[{i}]")?;
                f.write_str(match part {
                    RulePart::Whole => "",
                    RulePart::When => ".when",
                    RulePart::Device => ".when.device",
                    RulePart::Os => ".when.os",
                    RulePart::Country => ".when.country",
                    RulePart::Language => ".when.language",
                    RulePart::TargetUrl => ".targetUrl",
                })
            }
            LinkField::Variants => f.write_str("variants"),
            LinkField::Variant(i, part) => {
                write!(f, "variants[{i}]")?;
                f.write_str(match part {
                    VariantPart::Whole => "",
                    VariantPart::TargetUrl => ".targetUrl",
                    VariantPart::Weight => ".weight",
                })
            }
            LinkField::Utm => f.write_str("utm"),
            LinkField::UtmMember(part) => write!(f, "utm.{}", part.name()),
            LinkField::ForwardQuery => f.write_str("forwardQuery"),
            LinkField::Domain => f.write_str("domain"),
        }
    }
}

/// A rule of a link's fields; its `Display` says what is wrong and what is expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldRule {
    /// A creation needs both its name and its target.
    NameAndTargetRequired,
    /// A custom short code outside its alphabet or length, or a reserved one.
    ShortCode(ShortCodeError),
    /// More than [`MAX_TAGS`] tags (the count given).
    TooManyTags(usize),
    /// A tag outside 1 to [`MAX_TAG_CHARS`] characters after trimming (its length).
    TagLength(usize),
    /// A tag with a control character.
    TagControlCharacter,
    /// Text that is not an ISO 8601 instant.
    Timestamp,
    /// An instant with an offset other than UTC's.
    NotUtc,
    /// An instant outside the years 1 to 9999.
    TimestampRange,
    /// The end of the validity at or before its start.
    UntilNotAfterFrom,
    /// A scan cap outside 1 to [`MAX_SCANS_LIMIT`].
    MaxScans,
    /// A URL other than a target URL's kind (the field is not `targetUrl`, so the message says
    /// "the URL").
    Url(UrlError),
    /// A rule's target that is no web URL and no app URL ([`AppUrlError`]).
    AppUrl(AppUrlError),
    /// A rule's target with a custom scheme the link's domain does not declare (`domain`
    /// `None`: a link on the service's own address, where no custom scheme is declared).
    SchemeNotDeclared {
        /// The scheme, lower case.
        scheme: String,
        /// The link's domain.
        domain: Option<DomainName>,
    },
    /// A password outside [`MIN_LINK_PASSWORD_CHARS`] to [`MAX_LINK_PASSWORD_CHARS`]
    /// characters (its length).
    PasswordLength(usize),
    /// Text with a control character.
    ControlCharacter,
    /// Text outside 1 to `max` characters after trimming.
    TextLength {
        /// The most characters.
        max: usize,
        /// The characters given.
        got: usize,
    },
    /// UTM settings without any parameter.
    NoUtmParameter,
    /// More than [`MAX_RULES`] rules (the count given).
    TooManyRules(usize),
    /// A device other than mobile, desktop and tablet.
    Device,
    /// An operating system other than [`OsFamily::NAMES`].
    Os,
    /// Not a two-letter country code.
    Country,
    /// Not a language tag.
    Language,
    /// A rule without any condition.
    NoCondition,
    /// A split of other than [`MIN_VARIANTS`] to [`MAX_VARIANTS`] variants (the count given).
    VariantCount(usize),
    /// A weight outside 1 to [`MAX_WEIGHT`].
    Weight,
    /// Not a domain name.
    DomainName(DomainNameError),
    /// A domain the account cannot put links on now.
    DomainUnusable(DomainUnusable),
}

/// Why a link cannot be put on a domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DomainUnusable {
    /// The account has no domain of this name.
    Unknown,
    /// Its TXT record was never found.
    Pending,
    /// Its record has been missing for longer than the grace period.
    Failing,
}

impl fmt::Display for FieldRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldRule::NameAndTargetRequired => f.write_str("name and targetUrl are required"),
            // A reserved code's own message names it; every other refusal states the alphabet.
            FieldRule::ShortCode(e @ ShortCodeError::Reserved(_)) => write!(f, "{e}"),
            FieldRule::ShortCode(_) => write!(f, "{}", ShortCodeError::Custom),
            FieldRule::TooManyTags(n) => {
                write!(f, "at most {MAX_TAGS} tags are allowed (got {n})")
            }
            FieldRule::TagLength(n) => {
                write!(f, "a tag must have 1 to {MAX_TAG_CHARS} characters (got {n})")
            }
            FieldRule::TagControlCharacter => {
                f.write_str("a tag must not contain control characters")
            }
            FieldRule::Timestamp => {
                f.write_str("it must be an ISO 8601 UTC timestamp such as 2025-06-01T00:00:00Z")
            }
            FieldRule::NotUtc => f.write_str("it must be in UTC (ending in Z)"),
            FieldRule::TimestampRange => {
                f.write_str("it must be a timestamp within the years 1 to 9999")
            }
            FieldRule::UntilNotAfterFrom => f.write_str("it must be after validFrom"),
            FieldRule::MaxScans => {
                write!(f, "it must be an integer from 1 to {MAX_SCANS_LIMIT}")
            }
            FieldRule::Url(e) => write!(f, "{}", e.about("the URL")),
            FieldRule::AppUrl(e) => write!(f, "{e}"),
            FieldRule::SchemeNotDeclared {
                scheme,
                domain: None,
            } => write!(
                f,
                "{scheme}: is an app scheme, which only a link on a custom domain may use once the domain lists it in its appSchemes (PUT /api/domains); tel:, mailto:, sms: and geo: work on every link"
            ),
            FieldRule::SchemeNotDeclared {
                scheme,
                domain: Some(domain),
            } => write!(
                f,
                "{scheme}: is not an app scheme of {domain}; add {scheme} to the domain's appSchemes (PUT /api/domains) first"
            ),
            FieldRule::PasswordLength(n) => write!(
                f,
                "it must have {MIN_LINK_PASSWORD_CHARS} to {MAX_LINK_PASSWORD_CHARS} characters (got {n})"
            ),
            FieldRule::ControlCharacter => {
                f.write_str("it must be text without control characters")
            }
            FieldRule::TextLength { max, got } => {
                write!(f, "it must have 1 to {max} characters (got {got})")
            }
            FieldRule::NoUtmParameter => f.write_str(
                "it must be an object with at least one of source, medium, campaign, term, content (null removes it)",
            ),
            FieldRule::TooManyRules(n) => {
                write!(f, "at most {MAX_RULES} rules are allowed (got {n})")
            }
            FieldRule::Device => f.write_str("it must be one of mobile, desktop, tablet"),
            FieldRule::Os => write!(f, "it must be one of {}", OsFamily::NAMES),
            FieldRule::Country => {
                f.write_str("it must be a two-letter ISO 3166-1 country code such as DE")
            }
            FieldRule::Language => f.write_str("it must be a language tag such as de or de-AT"),
            FieldRule::NoCondition => f.write_str(
                "it must be an object with at least one of device, os, country, language",
            ),
            FieldRule::VariantCount(n) => write!(
                f,
                "a split has {MIN_VARIANTS} to {MAX_VARIANTS} variants (got {n}); [] removes it"
            ),
            FieldRule::Weight => write!(f, "it must be an integer from 1 to {MAX_WEIGHT}"),
            FieldRule::DomainName(e) => write!(f, "{e}"),
            FieldRule::DomainUnusable(DomainUnusable::Unknown) => f.write_str(
                "the account has no domain of this name; add it with POST /api/domains (null uses the service's own address)",
            ),
            FieldRule::DomainUnusable(DomainUnusable::Pending) => f.write_str(
                "the domain is not verified yet; create its TXT record and check it (POST /api/domains/check)",
            ),
            FieldRule::DomainUnusable(DomainUnusable::Failing) => f.write_str(
                "the domain's TXT record has been missing for more than 7 days; restore it and check the domain again",
            ),
        }
    }
}

/// A field that broke a rule; its `Display` is `invalid <field>: <rule>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field.
    pub field: LinkField,
    /// The rule it broke.
    pub rule: FieldRule,
}

impl FieldError {
    /// `field` broke `rule`.
    pub fn new(field: LinkField, rule: FieldRule) -> Self {
        Self { field, rule }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {}: {}", self.field, self.rule)
    }
}

impl std::error::Error for FieldError {}
