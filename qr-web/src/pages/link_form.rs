//! The link form of the create and edit pages: its fields (name, target, domain, design and the campaign settings) read from a submission into a [`Campaign`], the values and errors it shows, and the plan's gates.
//!
//! Every rule is the domain's: the setters check each value in the API's order, and the service
//! checks the plan. This module only reads text (a comma list into tags, a `datetime-local` into
//! a UTC instant, a whole number, rows into rules and variants), words each error for the page
//! by its field and rule, and puts it next to the field it names.

use std::collections::BTreeMap;

use chrono::{DateTime, Timelike, Utc};
use qr_domain::designs::design::Design;
use qr_domain::domains::domain::{Domain, DomainStatus};
use qr_domain::links::campaign::{FieldRule, UtmPart};
use qr_domain::links::link::LinkError;
use qr_domain::{Link, LinkFeature, LinkUpdate, PlanLimits};

use super::Failure;
use super::link_input::{Campaign, given};
use super::public::capitalised;
use crate::request::Fields;

/// Blank rule and variant rows under the filled ones: room for two more without JavaScript.
const BLANK_ROWS: usize = 2;

/// The devices a rule can name: (the API's value, the label).
pub(crate) const DEVICES: [(&str, &str); 3] = [
    ("mobile", "Phone"),
    ("tablet", "Tablet"),
    ("desktop", "Desktop"),
];

/// The operating systems a rule can name: (the API's value, the label).
pub(crate) const SYSTEMS: [(&str, &str); 6] = [
    ("ios", "iOS"),
    ("android", "Android"),
    ("windows", "Windows"),
    ("macos", "macOS"),
    ("linux", "Linux"),
    ("chromeos", "ChromeOS"),
];

/// The UTM members: (the form field and the field's path, the element id, the label), in the
/// order of [`UtmPart::ALL`].
pub(crate) const UTM: [(&str, &str, &str); 5] = [
    ("utm.source", "link-utm-source", "Source"),
    ("utm.medium", "link-utm-medium", "Medium"),
    ("utm.campaign", "link-utm-campaign", "Campaign"),
    ("utm.term", "link-utm-term", "Term"),
    ("utm.content", "link-utm-content", "Content"),
];

/// The members of a rule row and of a variant row, by their path inside the row.
const RULE_MEMBERS: [&str; 5] = [
    "when.device",
    "when.os",
    "when.country",
    "when.language",
    "targetUrl",
];
const VARIANT_MEMBERS: [&str; 2] = ["targetUrl", "weight"];

/// Fields whose errors have a place of their own on the form.
const PLACED: [&str; 13] = [
    "domain",
    "design",
    "shortCode",
    "tags",
    "validFrom",
    "validUntil",
    "maxScans",
    "expiredUrl",
    "disabled",
    "password",
    "forwardQuery",
    "rules",
    "variants",
];

/// A redirect rule as the form shows it (the API's values, as typed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RuleRow {
    pub(crate) i: usize,
    pub(crate) device: String,
    pub(crate) os: String,
    pub(crate) country: String,
    pub(crate) language: String,
    pub(crate) target: String,
}

/// An A/B variant as the form shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct VariantRow {
    pub(crate) i: usize,
    pub(crate) target: String,
    pub(crate) weight: String,
}

/// A domain the form offers for the link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DomainChoice {
    /// The ASCII name (the option's value).
    pub(crate) value: String,
    /// The Unicode name, with its status when it takes no new links.
    pub(crate) label: String,
}

/// A saved design the form offers for the link's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DesignChoice {
    /// The design's id (the option's value).
    pub(crate) value: String,
    /// Its name, marked when it is the account's default.
    pub(crate) label: String,
}

/// The plan needed for each gated group of fields, `None` where the account's plan has it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gates {
    pub(crate) short_code: Option<&'static str>,
    pub(crate) schedule: Option<&'static str>,
    pub(crate) password: Option<&'static str>,
    pub(crate) rules: Option<&'static str>,
    pub(crate) variants: Option<&'static str>,
}

impl Gates {
    fn of(limits: &PlanLimits) -> Self {
        let gate = |f: LinkFeature| (!limits.link_features.contains(&f)).then(|| f.plan().title());
        Self {
            short_code: gate(LinkFeature::ShortCode),
            schedule: gate(LinkFeature::Schedule),
            password: gate(LinkFeature::Password),
            rules: gate(LinkFeature::Rules),
            variants: gate(LinkFeature::Variants),
        }
    }
}

/// The link form: what it shows, and the errors of the last submission.
#[derive(Debug, Clone)]
pub(crate) struct LinkForm {
    pub(crate) name: String,
    pub(crate) target: String,
    pub(crate) name_error: Option<String>,
    pub(crate) target_error: Option<String>,
    /// An error of the whole form (the plan's link limit).
    pub(crate) form_error: Option<String>,
    /// The ASCII name of the link's domain; empty for the service's own address.
    pub(crate) domain: String,
    /// The account's domains the form offers (none: the form has no domain field).
    pub(crate) domains: Vec<DomainChoice>,
    /// The id of the link's design; empty for the account's default.
    pub(crate) design: String,
    /// The account's designs the form offers (none: the form has no design field).
    pub(crate) designs: Vec<DesignChoice>,
    /// What a link without a design of its own is drawn in, for the first option.
    pub(crate) default_design: String,
    pub(crate) short_code: String,
    /// Comma-separated.
    pub(crate) tags: String,
    /// `datetime-local` values, in UTC.
    pub(crate) valid_from: String,
    pub(crate) valid_until: String,
    pub(crate) max_scans: String,
    pub(crate) expired_url: String,
    pub(crate) disabled: bool,
    /// Whether the link has a password now (the password itself is never shown).
    pub(crate) has_password: bool,
    pub(crate) remove_password: bool,
    /// Values of [`UTM`], in its order.
    pub(crate) utm: [String; 5],
    pub(crate) forward_query: bool,
    pub(crate) rules: Vec<RuleRow>,
    pub(crate) variants: Vec<VariantRow>,
    pub(crate) gates: Gates,
    /// The edit page's form (the create form has no password to remove).
    pub(crate) editing: bool,
    /// Errors by the field's path (`rules[1].when.country`); rows by their place on the form.
    errors: BTreeMap<String, String>,
}

impl LinkForm {
    /// The empty create form.
    pub(crate) fn new(limits: &PlanLimits) -> Self {
        let mut form = Self {
            name: String::new(),
            target: String::new(),
            name_error: None,
            target_error: None,
            form_error: None,
            domain: String::new(),
            domains: Vec::new(),
            design: String::new(),
            designs: Vec::new(),
            default_design: String::new(),
            short_code: String::new(),
            tags: String::new(),
            valid_from: String::new(),
            valid_until: String::new(),
            max_scans: String::new(),
            expired_url: String::new(),
            disabled: false,
            has_password: false,
            remove_password: false,
            utm: Default::default(),
            forward_query: false,
            rules: Vec::new(),
            variants: Vec::new(),
            gates: Gates::of(limits),
            editing: false,
            errors: BTreeMap::new(),
        };
        form.pad_rows();
        form
    }

    /// The edit form of `link`.
    pub(crate) fn of(link: &Link, limits: &PlanLimits) -> Self {
        let o = link.options.or_default();
        let utm = o.utm.clone().unwrap_or_default();
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        let mut form = Self {
            name: link.name.as_str().to_owned(),
            target: link.target_url.as_str().to_owned(),
            domain: link
                .domain
                .as_ref()
                .map(|d| d.as_str().to_owned())
                .unwrap_or_default(),
            design: link.design.map(|d| d.to_string()).unwrap_or_default(),
            short_code: link.short_code.to_string(),
            tags: link
                .tags
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            valid_from: o.valid_from.map(local).unwrap_or_default(),
            valid_until: o.valid_until.map(local).unwrap_or_default(),
            max_scans: o.max_scans.map(|n| n.to_string()).unwrap_or_default(),
            expired_url: o
                .expired_url
                .as_ref()
                .map(|u| u.as_str().to_owned())
                .unwrap_or_default(),
            disabled: o.disabled,
            has_password: o.password.is_some(),
            utm: [
                text(&utm.source),
                text(&utm.medium),
                text(&utm.campaign),
                text(&utm.term),
                text(&utm.content),
            ],
            forward_query: o.forward_query,
            rules: o
                .rules
                .iter()
                .enumerate()
                .map(|(i, r)| RuleRow {
                    i,
                    device: r
                        .when
                        .device
                        .map(|d| d.as_str().to_owned())
                        .unwrap_or_default(),
                    os: r
                        .when
                        .os
                        .map(|os| os.as_str().to_owned())
                        .unwrap_or_default(),
                    country: text(&r.when.country),
                    language: text(&r.when.language),
                    target: r.target_url.as_str().to_owned(),
                })
                .collect(),
            variants: o
                .variants
                .iter()
                .enumerate()
                .map(|(i, v)| VariantRow {
                    i,
                    target: v.target_url.as_str().to_owned(),
                    weight: v.weight.to_string(),
                })
                .collect(),
            editing: true,
            ..Self::new(limits)
        };
        form.pad_rows();
        form
    }

    /// A submitted form (`current`: the link being edited) as it shows again, and the campaign
    /// fields it sets. Only a form with the `campaign` marker sets them, so a client that posts
    /// only `name` and `targetUrl` changes only those; a field the form did not send (a
    /// disabled input) is left as it is.
    pub(crate) fn submitted(
        fields: &Fields,
        limits: &PlanLimits,
        current: Option<&Link>,
    ) -> (Self, Campaign) {
        let mut form = match current {
            Some(link) => Self::of(link, limits),
            None => Self::new(limits),
        };
        form.name = fields.text("name").to_owned();
        form.target = fields.text("targetUrl").to_owned();
        let mut set = Campaign::default();
        if let Some(raw) = fields.get("domain") {
            let raw = raw.trim();
            // The link's own domain again is no change (a failing one would be refused anew).
            if raw != form.domain {
                set.domain = Some(given(raw));
            }
            raw.clone_into(&mut form.domain);
        }
        if let Some(raw) = fields.get("design") {
            let raw = raw.trim();
            if raw != form.design {
                set.design = Some(given(raw));
            }
            raw.clone_into(&mut form.design);
        }
        if fields.get("campaign").is_none() {
            return (form, set);
        }
        if let Some(raw) = fields.get("shortCode") {
            form.short_code = raw.to_owned();
            let code = raw.trim();
            // Empty keeps the code (a generated one on creation); the same code is no change.
            if !code.is_empty() && current.is_none_or(|l| l.short_code.to_string() != code) {
                set.short_code = Some(code.to_owned());
            }
        }
        if let Some(raw) = fields.get("tags") {
            form.tags = raw.to_owned();
            let tags = raw.split(',').map(str::trim).filter(|t| !t.is_empty());
            set.tags = Some(tags.map(str::to_owned).collect());
        }
        for (key, slot, setting) in [
            ("validFrom", &mut form.valid_from, &mut set.valid_from),
            ("validUntil", &mut form.valid_until, &mut set.valid_until),
        ] {
            if let Some(raw) = fields.get(key) {
                let raw = raw.trim();
                // The value shown is the stored one to the second: unchanged, it is no change
                // (and keeps the microseconds an API client may have set).
                if raw != slot.as_str() {
                    *setting = Some(given(raw));
                }
                raw.clone_into(slot);
            }
        }
        if let Some(raw) = fields.get("maxScans") {
            form.max_scans = raw.to_owned();
            set.max_scans = Some(given(raw.trim()));
        }
        if let Some(raw) = fields.get("expiredUrl") {
            form.expired_url = raw.to_owned();
            set.expired_url = Some(given(raw.trim()));
        }
        form.disabled = fields.get("disabled").is_some();
        set.disabled = Some(form.disabled);
        form.forward_query = fields.get("forwardQuery").is_some();
        set.forward_query = Some(form.forward_query);
        form.remove_password = fields.get("removePassword").is_some();
        if form.remove_password {
            set.password = Some(None);
        } else if let Some(p) = fields.get("password").filter(|p| !p.is_empty()) {
            set.password = Some(Some(p.to_owned()));
        }
        if UTM.iter().any(|(name, ..)| fields.get(name).is_some()) {
            let mut utm = Vec::new();
            for (((name, ..), slot), part) in UTM.iter().zip(form.utm.iter_mut()).zip(UtmPart::ALL)
            {
                let value = fields.text(name);
                value.clone_into(slot);
                if !value.trim().is_empty() {
                    utm.push((part, value.to_owned()));
                }
            }
            set.utm = Some((!utm.is_empty()).then_some(utm));
        }
        if let Some(rows) = rows(fields, "rules", &RULE_MEMBERS) {
            form.rules = rows
                .iter()
                .enumerate()
                .map(|(i, [device, os, country, language, target])| RuleRow {
                    i,
                    device: device.clone(),
                    os: os.clone(),
                    country: country.clone(),
                    language: language.clone(),
                    target: target.clone(),
                })
                .collect();
            set.rules = Some(rows);
        }
        if let Some(rows) = rows(fields, "variants", &VARIANT_MEMBERS) {
            form.variants = rows
                .iter()
                .enumerate()
                .map(|(i, [target, weight])| VariantRow {
                    i,
                    target: target.clone(),
                    weight: weight.clone(),
                })
                .collect();
            set.variants = Some(rows);
        }
        form.pad_rows();
        (form, set)
    }

    /// Offers the account's `domains` that take new links at `now`, and the link's own domain
    /// whatever its state (so editing a link keeps it); labelled with their Unicode names.
    pub(crate) fn offer_domains(&mut self, domains: &[Domain], now: DateTime<Utc>) {
        self.domains = domains
            .iter()
            .filter(|d| d.accepts_links(now) || d.name.as_str() == self.domain)
            .map(|d| {
                let state = match d.status() {
                    _ if d.accepts_links(now) => "",
                    DomainStatus::Pending => " (pending)",
                    DomainStatus::Verified | DomainStatus::Failing => " (failing)",
                };
                DomainChoice {
                    value: d.name.as_str().to_owned(),
                    label: format!("{}{state}", d.name.unicode()),
                }
            })
            .collect();
    }

    /// Offers the account's `designs`, the default one marked.
    pub(crate) fn offer_designs(&mut self, designs: &[Design]) {
        self.default_design = match designs.iter().find(|d| d.is_default) {
            Some(d) => format!("The account's default ({})", d.name),
            None => "Plain (the account has no default design)".to_owned(),
        };
        self.designs = designs
            .iter()
            .map(|d| DesignChoice {
                value: d.id.to_string(),
                label: if d.is_default {
                    format!("{} (default)", d.name)
                } else {
                    d.name.to_string()
                },
            })
            .collect();
    }

    /// The validated update of the form's name, target and campaign fields `set`, checked by
    /// the domain's setters in the API's order.
    pub(crate) fn update(&self, set: &Campaign) -> Result<LinkUpdate, LinkError> {
        set.update(&self.name, &self.target)
    }

    /// Puts the error of a submission next to its field; errors that are no field's are
    /// failures of the page.
    pub(crate) fn show(&mut self, error: LinkError) -> Result<(), Failure> {
        match error {
            LinkError::Name(e) => self.name_error = Some(capitalised(&e.to_string())),
            LinkError::TargetUrl(e) => {
                self.target_error = Some(e.about("The target address").to_string());
            }
            e @ LinkError::LimitReached { .. } => {
                self.form_error = Some(capitalised(&e.to_string()));
            }
            LinkError::Field(e) => self.place(&e.field.to_string(), rule_sentence(&e.rule)),
            // The API's 403 message, as it is.
            e @ LinkError::PlanRequired { field, .. } => self.place(field, e.to_string()),
            e @ LinkError::DesignNotFound => self.place("design", e.to_string()),
            LinkError::CodeTaken(code) => self.place(
                "shortCode",
                format!("The code {code} is already taken; choose another"),
            ),
            LinkError::NotFound => return Err(Failure::NotFound),
            LinkError::NotPermitted(_) => return Err(Failure::Forbidden),
            LinkError::Store(e) => return Err(e.into()),
            e => return Err(Failure::Internal(e.to_string())),
        }
        Ok(())
    }

    /// Records `message` under the field's path: a tag's error under `tags`, a rule's `when`
    /// under its row; a path the form has no place for becomes the form's error.
    fn place(&mut self, field: &str, message: String) {
        let key = if field.starts_with("tags[") {
            "tags"
        } else {
            // `rules[N].when` (no condition given) is the row's.
            field.strip_suffix(".when").unwrap_or(field)
        };
        let known = PLACED.contains(&key)
            || UTM.iter().any(|(name, ..)| *name == key)
            || row_place(key, "rules", &RULE_MEMBERS)
            || row_place(key, "variants", &VARIANT_MEMBERS);
        if known {
            self.errors.insert(key.to_owned(), message);
        } else {
            self.form_error = Some(format!("Invalid {field}: {message}"));
        }
    }

    /// The error of a field, by its path.
    pub(crate) fn error(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }

    /// The error of row `i` of `group` (`rules`, `variants`): of its `member` (`when.os`,
    /// `targetUrl`), or of the row as a whole when `member` is empty. (`i` by reference: the
    /// templates pass their loop's values so.)
    pub(crate) fn row_error(&self, group: &str, i: &usize, member: &str) -> Option<&str> {
        let key = if member.is_empty() {
            format!("{group}[{i}]")
        } else {
            format!("{group}[{i}].{member}")
        };
        self.error(&key)
    }

    /// Whether the campaign section starts open: it has an error or a setting.
    pub(crate) fn open(&self) -> bool {
        let filled = |rows: usize| rows > BLANK_ROWS;
        !self.errors.is_empty()
            || !self.tags.trim().is_empty()
            || !self.valid_from.is_empty()
            || !self.valid_until.is_empty()
            || !self.max_scans.is_empty()
            || !self.expired_url.is_empty()
            || self.disabled
            || self.has_password
            || self.forward_query
            || self.utm.iter().any(|u| !u.is_empty())
            || filled(self.rules.len())
            || filled(self.variants.len())
            || (!self.editing && !self.short_code.is_empty())
    }

    /// The UTM fields: (form field, element id, label, value).
    pub(crate) fn utm_fields(&self) -> Vec<(&'static str, &'static str, &'static str, &str)> {
        UTM.iter()
            .zip(&self.utm)
            .map(|(&(name, id, label), value)| (name, id, label, value.as_str()))
            .collect()
    }

    /// Drops blank rows and adds [`BLANK_ROWS`] empty ones, numbering them in order.
    fn pad_rows(&mut self) {
        self.rules.retain(|r| {
            *r != RuleRow {
                i: r.i,
                ..RuleRow::default()
            }
        });
        self.variants.retain(|v| {
            *v != VariantRow {
                i: v.i,
                ..VariantRow::default()
            }
        });
        self.rules
            .extend((0..BLANK_ROWS).map(|_| RuleRow::default()));
        self.variants
            .extend((0..BLANK_ROWS).map(|_| VariantRow::default()));
        for (i, r) in self.rules.iter_mut().enumerate() {
            r.i = i;
        }
        for (i, v) in self.variants.iter_mut().enumerate() {
            v.i = i;
        }
    }
}

/// A UTC instant as a `datetime-local` value: to the minute, or to the second when it has
/// seconds.
fn local(at: DateTime<Utc>) -> String {
    let format = if at.second() == 0 && at.nanosecond() == 0 {
        "%Y-%m-%dT%H:%M"
    } else {
        "%Y-%m-%dT%H:%M:%S"
    };
    at.format(format).to_string()
}

/// A rule's message as the page says it: a sentence, and "the start" for `validFrom`.
fn rule_sentence(rule: &FieldRule) -> String {
    match rule {
        FieldRule::UntilNotAfterFrom => "It must be after the start".to_owned(),
        rule => capitalised(&rule.to_string()),
    }
}

/// The non-blank rows `group[N].<member>` of the form in the order of `N`, or `None` when the
/// form has no such field. Each row's values are in the order of `members`.
fn rows<const M: usize>(
    fields: &Fields,
    group: &str,
    members: &[&str; M],
) -> Option<Vec<[String; M]>> {
    let mut rows: BTreeMap<usize, [String; M]> = BTreeMap::new();
    for (key, value) in fields.pairs() {
        let Some((i, member)) = row_key(key, group) else {
            continue;
        };
        if let Some(slot) = members.iter().position(|m| *m == member) {
            let row = rows
                .entry(i)
                .or_insert_with(|| std::array::from_fn(|_| String::new()));
            // The first value of a name wins, as everywhere in the form.
            if row[slot].is_empty() {
                value.clone_into(&mut row[slot]);
            }
        }
    }
    if rows.is_empty() {
        return None;
    }
    Some(
        rows.into_values()
            .filter(|row| row.iter().any(|v| !v.trim().is_empty()))
            .collect(),
    )
}

/// `(N, member)` of a field named `group[N].member` (member empty for `group[N]`).
fn row_key<'k>(key: &'k str, group: &str) -> Option<(usize, &'k str)> {
    let rest = key.strip_prefix(group)?.strip_prefix('[')?;
    let (index, member) = rest.split_once(']')?;
    let member = match member {
        "" => "",
        m => m.strip_prefix('.')?,
    };
    Some((index.parse().ok()?, member))
}

/// Whether `key` is a row of `group` or one of its `members`.
fn row_place(key: &str, group: &str, members: &[&str]) -> bool {
    row_key(key, group).is_some_and(|(_, m)| m.is_empty() || members.contains(&m))
}

#[cfg(test)]
mod tests {
    use qr_domain::Plan;
    use qr_domain::links::campaign::{FieldError, LinkField, RulePart};

    use super::*;

    fn form(pairs: &[(&str, &str)]) -> Fields {
        Fields::from_pairs(pairs)
    }

    fn pro() -> PlanLimits {
        Plan::Pro.limits(&Default::default())
    }

    #[test]
    fn without_the_marker_only_name_and_target_are_read() {
        let (f, set) = LinkForm::submitted(
            &form(&[
                ("name", "A"),
                ("targetUrl", "https://a.example"),
                ("tags", "x"),
            ]),
            &pro(),
            None,
        );
        assert_eq!(set, Campaign::default());
        assert_eq!(
            (f.name.as_str(), f.target.as_str()),
            ("A", "https://a.example")
        );
    }

    #[test]
    fn fields_become_the_typed_update() {
        let (f, set) = LinkForm::submitted(
            &form(&[
                ("name", "A"),
                ("targetUrl", "https://a.example"),
                ("campaign", "1"),
                ("shortCode", " spring-25 "),
                ("tags", "print, , spring ,"),
                ("validFrom", "2025-06-01T09:30"),
                ("validUntil", ""),
                ("maxScans", "12"),
                ("expiredUrl", "https://over.example"),
                ("password", " open sesame "),
                ("utm.source", "poster"),
                ("utm.medium", ""),
                ("rules[0].when.device", ""),
                ("rules[0].targetUrl", ""),
                ("rules[1].when.os", "ios"),
                ("rules[1].when.country", "de"),
                ("rules[1].targetUrl", "https://ios.example"),
                ("variants[0].targetUrl", "https://a.example"),
                ("variants[0].weight", "1"),
                ("variants[1].targetUrl", "https://b.example"),
                ("variants[1].weight", "3"),
                ("forwardQuery", "true"),
            ]),
            &pro(),
            None,
        );
        let u = f.update(&set).unwrap();
        assert_eq!(u.short_code.unwrap().as_str(), "spring-25");
        let tags: Vec<_> = u.tags.iter().flatten().map(|t| t.as_str()).collect();
        assert_eq!(tags, ["print", "spring"]);
        assert_eq!(
            u.valid_from,
            Some(Some("2025-06-01T09:30:00Z".parse().unwrap()))
        );
        assert_eq!(u.valid_until, None, "an unchanged empty field is no change");
        assert_eq!(u.max_scans, Some(Some(12)));
        assert_eq!(u.password.unwrap().unwrap().expose(), " open sesame ");
        assert_eq!(u.utm.unwrap().unwrap().source.as_deref(), Some("poster"));
        let rules = u.rules.unwrap();
        assert_eq!(rules.len(), 1, "the blank row is left out");
        assert_eq!(rules[0].when.country.as_deref(), Some("DE"));
        assert_eq!(
            u.variants
                .unwrap()
                .iter()
                .map(|v| v.weight)
                .collect::<Vec<_>>(),
            [1, 3]
        );
        assert_eq!((u.disabled, u.forward_query), (Some(false), Some(true)));
        // What is not a whole number breaks the weight's rule, in its variant's turn.
        let (f, set) = LinkForm::submitted(
            &form(&[
                ("name", "A"),
                ("targetUrl", "https://a.example"),
                ("campaign", "1"),
                ("variants[0].targetUrl", "https://a.example"),
                ("variants[0].weight", "x"),
                ("variants[1].targetUrl", "https://b.example"),
                ("variants[1].weight", "1"),
            ]),
            &pro(),
            None,
        );
        assert_eq!(
            f.update(&set).unwrap_err().to_string(),
            "invalid variants[0].weight: it must be an integer from 1 to 1000"
        );
    }

    #[test]
    fn the_domain_is_set_changed_or_cleared_and_the_same_one_is_no_change() {
        let pick = |domain: &str, current: Option<&Link>| {
            let fields = form(&[
                ("name", "A"),
                ("targetUrl", "https://a.example"),
                ("domain", domain),
            ]);
            LinkForm::submitted(&fields, &pro(), current).1.domain
        };
        assert_eq!(
            pick("go.brand.test", None),
            Some(Some("go.brand.test".to_owned()))
        );
        assert_eq!(pick("", None), None, "the service's address is the default");
        let (f, set) = LinkForm::submitted(
            &form(&[
                ("name", "A"),
                ("targetUrl", "https://a.example"),
                ("domain", "Bücher.example"),
            ]),
            &pro(),
            None,
        );
        assert_eq!(
            f.update(&set).unwrap().domain,
            Some(Some(
                qr_domain::domains::name::DomainName::parse_any("xn--bcher-kva.example").unwrap()
            ))
        );
        let (f, set) = LinkForm::submitted(
            &form(&[
                ("name", "A"),
                ("targetUrl", "https://a.example"),
                ("domain", "not a host"),
            ]),
            &pro(),
            None,
        );
        let mut f2 = f.clone();
        f2.show(f.update(&set).unwrap_err()).unwrap();
        assert!(f2.error("domain").is_some(), "the error sits by the select");
    }

    #[test]
    fn removing_the_password_wins_and_unsent_fields_stay() {
        let (f, set) = LinkForm::submitted(
            &form(&[
                ("campaign", "1"),
                ("password", "new one"),
                ("removePassword", "1"),
            ]),
            &Plan::Free.limits(&Default::default()),
            None,
        );
        assert_eq!(
            set,
            Campaign {
                disabled: Some(false),
                forward_query: Some(false),
                password: Some(None),
                ..Campaign::default()
            }
        );
        assert_eq!(f.gates.password, Some("Pro"));
        assert_eq!(f.gates.short_code, Some("Starter"));
        assert_eq!((f.rules.len(), f.variants.len()), (2, 2));
    }

    #[test]
    fn errors_find_their_rows() {
        let mut f = LinkForm::new(&pro());
        let country = FieldRule::Country;
        let sentence = "It must be a two-letter ISO 3166-1 country code such as DE";
        f.show(field_error(LinkField::Rule(1, RulePart::Country), &country))
            .unwrap();
        assert_eq!(f.row_error("rules", &1, "when.country"), Some(sentence));
        f.show(field_error(LinkField::Rule(0, RulePart::When), &country))
            .unwrap();
        assert_eq!(f.row_error("rules", &0, ""), Some(sentence));
        f.show(field_error(LinkField::Tag(3), &country)).unwrap();
        assert_eq!(f.error("tags"), Some(sentence));
        f.show(field_error(LinkField::Link, &country)).unwrap();
        assert_eq!(
            f.form_error.as_deref(),
            Some(format!("Invalid link: {sentence}").as_str())
        );
        f.show(field_error(
            LinkField::ValidUntil,
            &FieldRule::UntilNotAfterFrom,
        ))
        .unwrap();
        assert_eq!(f.error("validUntil"), Some("It must be after the start"));
        f.show(LinkError::CodeTaken("TAKEN-1".to_owned())).unwrap();
        assert_eq!(
            f.error("shortCode"),
            Some("The code TAKEN-1 is already taken; choose another")
        );
        assert!(f.open());
    }

    fn field_error(field: LinkField, rule: &FieldRule) -> LinkError {
        LinkError::Field(FieldError::new(field, rule.clone()))
    }

    #[test]
    fn row_keys() {
        assert_eq!(row_key("rules[12].when.os", "rules"), Some((12, "when.os")));
        assert_eq!(row_key("rules[2]", "rules"), Some((2, "")));
        assert_eq!(row_key("rules", "rules"), None);
        assert_eq!(row_key("rules[x].targetUrl", "rules"), None);
        assert_eq!(row_key("rulesx[1]", "rules"), None);
        assert_eq!(
            local("2025-06-01T09:30:00Z".parse().unwrap()),
            "2025-06-01T09:30"
        );
        assert_eq!(
            local("2025-06-01T09:30:05Z".parse().unwrap()),
            "2025-06-01T09:30:05"
        );
    }
}
