//! The rules of a link's campaign fields, one function per value: text and numbers in, checked values (or the [`FieldRule`] broken) out. [`crate::links::link::LinkUpdate`]'s setters apply them; an adapter reading a format of its own (the API's JSON) calls them in its order.

use chrono::{DateTime, Utc};

use super::field::{FieldRule, UtmPart};
use super::target::RuleTarget;
use super::{
    Conditions, MAX_LINK_PASSWORD_CHARS, MAX_RULES, MAX_SCANS_LIMIT, MAX_TAGS, MAX_UTM_CHARS,
    MAX_VARIANTS, MAX_WEIGHT, MIN_LINK_PASSWORD_CHARS, MIN_VARIANTS, OsFamily, Tag, Utm,
};
use crate::links::link::TargetUrl;
use crate::scans::scan::Device;

type Checked<T> = Result<T, FieldRule>;

/// An ISO 8601 instant in UTC (`Z` or `+00:00`), to the microsecond the stores keep.
pub fn instant(raw: &str) -> Checked<DateTime<Utc>> {
    let t = DateTime::parse_from_rfc3339(raw.trim()).map_err(|_| FieldRule::Timestamp)?;
    if t.offset().local_minus_utc() != 0 {
        return Err(FieldRule::NotUtc);
    }
    DateTime::from_timestamp_micros(t.timestamp_micros()).ok_or(FieldRule::TimestampRange)
}

/// A scan cap, 1 to [`MAX_SCANS_LIMIT`].
pub fn max_scans(n: u64) -> Checked<u64> {
    if (1..=MAX_SCANS_LIMIT).contains(&n) {
        Ok(n)
    } else {
        Err(FieldRule::MaxScans)
    }
}

/// A URL other than the target (expired URL, a rule's or a variant's target), validated like it.
pub fn url(raw: &str) -> Checked<TargetUrl> {
    TargetUrl::parse(raw).map_err(FieldRule::Url)
}

/// A rule's target: a web URL like [`url()`]'s, or an app URL ([`RuleTarget`]); whether its
/// link's domain declares a custom scheme is checked where the link is stored.
pub fn rule_target(raw: &str) -> Checked<RuleTarget> {
    RuleTarget::parse(raw)
}

/// A new link password, as typed (hashed by the service).
pub fn password(raw: &str) -> Checked<&str> {
    let n = raw.chars().count();
    if !(MIN_LINK_PASSWORD_CHARS..=MAX_LINK_PASSWORD_CHARS).contains(&n) {
        return Err(FieldRule::PasswordLength(n));
    }
    if raw.chars().any(char::is_control) {
        return Err(FieldRule::ControlCharacter);
    }
    Ok(raw)
}

/// How many tags a link may have.
pub fn tag_count(n: usize) -> Checked<()> {
    if n > MAX_TAGS {
        return Err(FieldRule::TooManyTags(n));
    }
    Ok(())
}

/// How many rules a link may have.
pub fn rule_count(n: usize) -> Checked<()> {
    if n > MAX_RULES {
        return Err(FieldRule::TooManyRules(n));
    }
    Ok(())
}

/// How many variants a split has: none (no split) or [`MIN_VARIANTS`] to [`MAX_VARIANTS`].
pub fn variant_count(n: usize) -> Checked<()> {
    if n != 0 && !(MIN_VARIANTS..=MAX_VARIANTS).contains(&n) {
        return Err(FieldRule::VariantCount(n));
    }
    Ok(())
}

/// A variant's weight, 1 to [`MAX_WEIGHT`].
pub fn weight(n: u64) -> Checked<u32> {
    u32::try_from(n)
        .ok()
        .filter(|w| (1..=MAX_WEIGHT).contains(w))
        .ok_or(FieldRule::Weight)
}

/// A rule's device: mobile, desktop or tablet (any case).
pub fn device(raw: &str) -> Checked<Device> {
    match raw.to_ascii_lowercase().as_str() {
        "mobile" => Ok(Device::Mobile),
        "desktop" => Ok(Device::Desktop),
        "tablet" => Ok(Device::Tablet),
        _ => Err(FieldRule::Device),
    }
}

/// A rule's operating system family (any case).
pub fn os(raw: &str) -> Checked<OsFamily> {
    OsFamily::parse(raw).ok_or(FieldRule::Os)
}

/// A rule's country: two letters, kept in upper case.
pub fn country(raw: &str) -> Checked<String> {
    let s = raw.trim();
    if s.len() != 2 || !s.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(FieldRule::Country);
    }
    Ok(s.to_ascii_uppercase())
}

/// A rule's language tag (`de`, `de-AT`), normalised.
pub fn language(raw: &str) -> Checked<String> {
    crate::links::routing::language_tag(raw).ok_or(FieldRule::Language)
}

/// A rule's conditions: at least one.
pub fn conditions(c: Conditions) -> Checked<Conditions> {
    if c == Conditions::default() {
        return Err(FieldRule::NoCondition);
    }
    Ok(c)
}

/// A UTM value: 1 to [`MAX_UTM_CHARS`] characters after trimming, no control characters.
pub fn utm_value(raw: &str) -> Checked<String> {
    let s = raw.trim();
    let n = s.chars().count();
    if n == 0 || n > MAX_UTM_CHARS {
        return Err(FieldRule::TextLength {
            max: MAX_UTM_CHARS,
            got: n,
        });
    }
    if s.chars().any(char::is_control) {
        return Err(FieldRule::ControlCharacter);
    }
    Ok(s.to_owned())
}

/// UTM settings: at least one parameter.
pub fn utm(u: Utm) -> Checked<Utm> {
    if u == Utm::default() {
        return Err(FieldRule::NoUtmParameter);
    }
    Ok(u)
}

/// A tag: 1 to 50 characters after trimming, no control characters.
pub fn tag(raw: &str) -> Checked<Tag> {
    Tag::parse(raw)
}

impl Utm {
    /// The parameter `part`'s slot.
    pub fn member_mut(&mut self, part: UtmPart) -> &mut Option<String> {
        match part {
            UtmPart::Source => &mut self.source,
            UtmPart::Medium => &mut self.medium,
            UtmPart::Campaign => &mut self.campaign,
            UtmPart::Term => &mut self.term,
            UtmPart::Content => &mut self.content,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_messages() {
        let rule = |r: FieldRule| r.to_string();
        assert_eq!(
            rule(tag_count(21).unwrap_err()),
            "at most 20 tags are allowed (got 21)"
        );
        assert_eq!(
            rule(tag(&"x".repeat(51)).unwrap_err()),
            "a tag must have 1 to 50 characters (got 51)"
        );
        assert_eq!(
            rule(device("phone").unwrap_err()),
            "it must be one of mobile, desktop, tablet"
        );
        assert_eq!(
            rule(conditions(Conditions::default()).unwrap_err()),
            "it must be an object with at least one of device, os, country, language"
        );
        assert_eq!(
            rule(url("javascript:alert(1)").unwrap_err()),
            "the URL must use http or https, not javascript"
        );
        assert_eq!(
            rule(rule_count(21).unwrap_err()),
            "at most 20 rules are allowed (got 21)"
        );
        assert_eq!(country("de").unwrap(), "DE");
        assert_eq!(
            rule(variant_count(1).unwrap_err()),
            "a split has 2 to 10 variants (got 1); [] removes it"
        );
        assert!(variant_count(0).is_ok());
        assert_eq!(
            rule(weight(0).unwrap_err()),
            "it must be an integer from 1 to 1000"
        );
        assert_eq!(
            rule(utm_value(&"x".repeat(201)).unwrap_err()),
            "it must have 1 to 200 characters (got 201)"
        );
        assert_eq!(
            rule(utm(Utm::default()).unwrap_err()),
            "it must be an object with at least one of source, medium, campaign, term, content (null removes it)"
        );
        assert_eq!(
            rule(instant("2025-01-01T00:00:00+02:00").unwrap_err()),
            "it must be in UTC (ending in Z)"
        );
        assert_eq!(
            instant("2025-01-01T00:00:00Z").unwrap(),
            "2025-01-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert_eq!(
            rule(max_scans(0).unwrap_err()),
            "it must be an integer from 1 to 1000000000000"
        );
        assert_eq!(
            rule(password("abc").unwrap_err()),
            "it must have 4 to 128 characters (got 3)"
        );
        assert_eq!(
            rule(url(&"x".repeat(3000)).unwrap_err()),
            "the URL must be at most 2048 characters (got 3000)"
        );
    }
}
