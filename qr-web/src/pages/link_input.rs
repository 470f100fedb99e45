//! A link form's submission as the domain's typed input: the domain, design and campaign fields it sets ([`Campaign`]), set on a `LinkUpdate` through the domain's setters in the API's order, with the form's own readings of text (a `datetime-local`, a whole number, a blank condition).

use chrono::{DateTime, NaiveDateTime, Utc};
use qr_domain::LinkUpdate;
use qr_domain::designs::service::parse_design_id;
use qr_domain::links::campaign::{FieldError, FieldRule, LinkField, UtmPart, rules};
use qr_domain::links::link::{LinkError, RuleInput, VariantInput};

/// The campaign fields a submission sets, as typed: `None` leaves a field as it is, and for a
/// field that can be unset, `Some(None)` removes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Campaign {
    /// The domain's ASCII name, `Some(None)` for the service's own address.
    pub(super) domain: Option<Option<String>>,
    /// The design's id as posted, `Some(None)` for the account's default design.
    pub(super) design: Option<Option<String>>,
    pub(super) short_code: Option<String>,
    pub(super) tags: Option<Vec<String>>,
    pub(super) valid_from: Option<Option<String>>,
    pub(super) valid_until: Option<Option<String>>,
    pub(super) max_scans: Option<Option<String>>,
    pub(super) expired_url: Option<Option<String>>,
    pub(super) disabled: Option<bool>,
    pub(super) password: Option<Option<String>>,
    /// Rows of `RULE_MEMBERS`.
    pub(super) rules: Option<Vec<[String; 5]>>,
    /// Rows of `VARIANT_MEMBERS`.
    pub(super) variants: Option<Vec<[String; 2]>>,
    /// The parameters given (non-blank), in the order of [`UtmPart::ALL`].
    pub(super) utm: Option<Option<Vec<(UtmPart, String)>>>,
    pub(super) forward_query: Option<bool>,
}

impl Campaign {
    /// The validated update of a link's `name`, `target` and these fields, checked by the
    /// domain's setters in the API's order.
    pub(crate) fn update(&self, name: &str, target: &str) -> Result<LinkUpdate, LinkError> {
        let set = self;
        let mut u = LinkUpdate::parse(Some(name), Some(target))?;
        match &set.domain {
            Some(Some(domain)) => u.set_domain(domain)?,
            Some(None) => u.clear_domain(),
            None => {}
        }
        match &set.design {
            // A malformed id names no design: the domain's refusal, as for an unknown one.
            Some(Some(id)) => {
                u.set_design(parse_design_id(id).map_err(|_| LinkError::DesignNotFound)?)
            }
            Some(None) => u.clear_design(),
            None => {}
        }
        if let Some(code) = &set.short_code {
            u.set_short_code(code)?;
        }
        if let Some(tags) = &set.tags {
            u.set_tags(tags)?;
        }
        if let Some(raw) = &set.valid_from {
            u.set_valid_from(opt(raw, |t| instant(LinkField::ValidFrom, t))?);
        }
        if let Some(raw) = &set.valid_until {
            u.set_valid_until(opt(raw, |t| instant(LinkField::ValidUntil, t))?);
        }
        if let Some(raw) = &set.max_scans {
            let n = opt(raw, |n| {
                n.parse::<u64>()
                    .map_err(|_| FieldError::new(LinkField::MaxScans, FieldRule::MaxScans))
            })?;
            u.set_max_scans(n)?;
        }
        if let Some(raw) = &set.expired_url {
            u.set_expired_url(raw.as_deref())?;
        }
        if let Some(disabled) = set.disabled {
            u.set_disabled(disabled);
        }
        if let Some(password) = &set.password {
            u.set_password(password.as_deref())?;
        }
        if let Some(rows) = &set.rules {
            let rules: Vec<RuleInput<'_>> = rows
                .iter()
                .map(|[device, os, country, language, target]| RuleInput {
                    device: non_blank(device),
                    os: non_blank(os),
                    country: non_blank(country),
                    language: non_blank(language),
                    target_url: target,
                })
                .collect();
            u.set_rules(&rules)?;
        }
        if let Some(rows) = &set.variants {
            let variants: Vec<VariantInput<'_>> = rows
                .iter()
                .map(|[target, weight]| VariantInput {
                    target_url: target,
                    weight: weight.trim().parse().ok(),
                })
                .collect();
            u.set_variants(&variants)?;
        }
        if let Some(utm) = &set.utm {
            let given: Option<Vec<(UtmPart, &str)>> = utm
                .as_ref()
                .map(|u| u.iter().map(|(part, v)| (*part, v.as_str())).collect());
            u.set_utm(given.as_deref())?;
        }
        if let Some(forward) = set.forward_query {
            u.set_forward_query(forward);
        }
        Ok(u)
    }
}

/// A `datetime-local` value read as UTC; other text is read as an ISO 8601 instant, as the
/// API reads it (and refused with its rule).
fn instant(field: LinkField, raw: &str) -> Result<DateTime<Utc>, FieldError> {
    let local = [
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M:%S%.f",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(raw, f).ok());
    match local {
        Some(t) => Ok(t.and_utc()),
        None => rules::instant(raw).map_err(|rule| FieldError::new(field, rule)),
    }
}

/// A row's value when it is not blank (a blank condition is no condition).
fn non_blank(value: &str) -> Option<&str> {
    (!value.trim().is_empty()).then_some(value)
}

/// Empty text is `None` (remove the setting), other text is given.
pub(super) fn given(raw: &str) -> Option<String> {
    (!raw.is_empty()).then(|| raw.to_owned())
}

/// `f` of a given value, `None` for a removed one.
fn opt<T>(
    raw: &Option<String>,
    f: impl FnOnce(&str) -> Result<T, FieldError>,
) -> Result<Option<T>, FieldError> {
    raw.as_deref().map(f).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_times_are_utc_and_other_text_is_iso_8601() {
        assert_eq!(
            instant(LinkField::ValidFrom, "2025-06-01T09:30:15"),
            Ok("2025-06-01T09:30:15Z".parse().unwrap())
        );
        assert_eq!(
            instant(LinkField::ValidFrom, "tomorrow"),
            Err(FieldError::new(LinkField::ValidFrom, FieldRule::Timestamp))
        );
        assert_eq!(given(""), None);
        assert_eq!(non_blank(" "), None);
    }
}
