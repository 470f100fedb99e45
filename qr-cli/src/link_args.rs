//! The campaign flags of `qr links create` and `qr links update`, defined once: read into the
//! values they give, then set on the domain's `LinkUpdate` through its typed setters, which check
//! each value in the order and with the rules of `POST /api/links`.

use std::io::Read;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use qr_domain::LinkUpdate;
use qr_domain::designs::service::parse_design_id;
use qr_domain::ids::DesignId;
use qr_domain::links::campaign::{FieldError, LinkField, UtmPart, rules};
use qr_domain::links::link::{LinkError, RuleInput, VariantInput};

use crate::error::usage;

/// Every campaign field of a link as flags; on `update`, only the fields given change.
#[derive(Debug, Default, Args)]
#[command(next_help_heading = "Campaign fields (plans: see docs/api.md)")]
pub struct CampaignArgs {
    /// Put the link on one of the account's verified domains (its short URL becomes
    /// https://NAME/CODE); see `qr domains`.
    #[arg(long, value_name = "NAME", conflicts_with = "no_domain")]
    domain: Option<String>,
    /// Put the link back on the service's own address (BASE_URL/r/CODE).
    #[arg(long)]
    no_domain: bool,
    /// Draw the link's code in one of the account's saved designs (an id; see `qr designs`).
    #[arg(long, value_name = "ID", conflicts_with = "no_design")]
    design: Option<String>,
    /// Draw the link's code in the account's default design.
    #[arg(long)]
    no_design: bool,
    /// A custom short code: 3 to 64 of A-Z a-z 0-9 - _ (Starter plan and up).
    #[arg(long, value_name = "CODE")]
    short_code: Option<String>,
    /// A tag (repeat for several); on update the tags given replace the link's tags.
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// Active from this UTC instant, ISO 8601 (e.g. 2025-03-01T00:00:00Z).
    #[arg(long, value_name = "TIME")]
    valid_from: Option<String>,
    /// Active until this UTC instant, ISO 8601.
    #[arg(long, value_name = "TIME")]
    valid_until: Option<String>,
    /// Expire after this many recorded scans (1 to 10^12).
    #[arg(long, value_name = "N")]
    max_scans: Option<u64>,
    /// Where visitors go once the link has expired (else a 410 "expired" page).
    #[arg(long, value_name = "URL")]
    expired_url: Option<String>,
    /// Pause the link: it answers a "paused" page and records nothing.
    #[arg(long, conflicts_with = "enable")]
    disable: bool,
    /// Unpause the link.
    #[arg(long)]
    enable: bool,
    /// Protect the link with the password on the first line of FILE (`-`: standard input).
    /// Never taken on the command line, where shell history and `ps` would show it.
    #[arg(long, value_name = "FILE")]
    password_file: Option<PathBuf>,
    /// A redirect rule `CONDITIONS=>URL`, CONDITIONS being `key=value` pairs joined by commas
    /// (device, os, country, language), e.g. `device=mobile,country=DE=>https://example.de/`;
    /// repeat in order of priority; on update the rules given replace the link's rules.
    #[arg(long = "rule", value_name = "RULE")]
    rules: Vec<String>,
    /// An A/B variant `URL=WEIGHT` (weight 1 to 1000); give 2 to 10; on update they replace the
    /// link's variants.
    #[arg(long = "variant", value_name = "URL=WEIGHT")]
    variants: Vec<String>,
    /// utm_source appended to the target.
    #[arg(long, value_name = "TEXT")]
    utm_source: Option<String>,
    /// utm_medium appended to the target.
    #[arg(long, value_name = "TEXT")]
    utm_medium: Option<String>,
    /// utm_campaign appended to the target.
    #[arg(long, value_name = "TEXT")]
    utm_campaign: Option<String>,
    /// utm_term appended to the target.
    #[arg(long, value_name = "TEXT")]
    utm_term: Option<String>,
    /// utm_content appended to the target.
    #[arg(long, value_name = "TEXT")]
    utm_content: Option<String>,
    /// Forward the scan URL's own query parameters to the target.
    #[arg(long, conflicts_with = "no_forward_query")]
    forward_query: bool,
    /// Stop forwarding the scan URL's query parameters.
    #[arg(long)]
    no_forward_query: bool,
    /// Remove a field (repeatable): tags, valid-from, valid-until, max-scans, expired-url,
    /// password, rules, variants, utm.
    #[arg(long, value_enum, value_name = "FIELD")]
    clear: Vec<Clearable>,
}

/// A campaign field that `--clear` removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Clearable {
    Tags,
    ValidFrom,
    ValidUntil,
    MaxScans,
    ExpiredUrl,
    Password,
    Rules,
    Variants,
    Utm,
}

impl Clearable {
    /// The field's name, as the Link JSON and the messages name it.
    fn field(self) -> &'static str {
        match self {
            Clearable::Tags => "tags",
            Clearable::ValidFrom => "validFrom",
            Clearable::ValidUntil => "validUntil",
            Clearable::MaxScans => "maxScans",
            Clearable::ExpiredUrl => "expiredUrl",
            Clearable::Password => "password",
            Clearable::Rules => "rules",
            Clearable::Variants => "variants",
            Clearable::Utm => "utm",
        }
    }
}

/// A field the flags set (`Value`) or clear (`Cleared`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Setting<T> {
    Value(T),
    Cleared,
}

/// A `--rule`'s conditions and target, as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RuleText {
    device: Option<String>,
    os: Option<String>,
    country: Option<String>,
    language: Option<String>,
    target: String,
}

/// A `--variant`'s target and weight.
#[derive(Debug, Clone, PartialEq, Eq)]
struct VariantText {
    target: String,
    weight: u64,
}

/// The campaign fields the flags give, read but not yet checked.
#[derive(Debug, Default)]
pub struct Campaign {
    domain: Option<Setting<String>>,
    design: Option<Option<DesignId>>,
    short_code: Option<String>,
    tags: Option<Setting<Vec<String>>>,
    valid_from: Option<Setting<String>>,
    valid_until: Option<Setting<String>>,
    max_scans: Option<Setting<u64>>,
    expired_url: Option<Setting<String>>,
    disabled: Option<bool>,
    password: Option<Setting<String>>,
    rules: Option<Setting<Vec<RuleText>>>,
    variants: Option<Setting<Vec<VariantText>>>,
    utm: Option<Setting<Vec<(UtmPart, String)>>>,
    forward_query: Option<bool>,
}

impl CampaignArgs {
    /// The fields the flags give. A flag's syntax error (a rule without `=>`, a variant without
    /// `=WEIGHT`, a field both set and cleared, an unreadable password file) is a usage error;
    /// the values themselves are checked by the domain ([`Campaign::apply`]).
    pub fn read(&self) -> anyhow::Result<Campaign> {
        let value = |v: Option<&String>| v.cloned().map(Setting::Value);
        let domain = match (&self.domain, self.no_domain) {
            (Some(name), _) => Some(Setting::Value(name.clone())),
            (None, true) => Some(Setting::Cleared),
            (None, false) => None,
        };
        // A malformed id names no design: the domain's refusal, as for an unknown one.
        let design = match (&self.design, self.no_design) {
            (Some(id), _) => {
                Some(Some(parse_design_id(id).map_err(|_| {
                    anyhow::Error::new(LinkError::DesignNotFound)
                })?))
            }
            (None, true) => Some(None),
            (None, false) => None,
        };
        let mut c = Campaign {
            domain,
            design,
            short_code: self.short_code.clone(),
            tags: (!self.tags.is_empty()).then(|| Setting::Value(self.tags.clone())),
            valid_from: value(self.valid_from.as_ref()),
            valid_until: value(self.valid_until.as_ref()),
            max_scans: self.max_scans.map(Setting::Value),
            expired_url: value(self.expired_url.as_ref()),
            disabled: (self.disable || self.enable).then_some(self.disable),
            forward_query: (self.forward_query || self.no_forward_query)
                .then_some(self.forward_query),
            ..Campaign::default()
        };
        if let Some(path) = &self.password_file {
            c.password = Some(Setting::Value(read_password(path)?));
        }
        if !self.rules.is_empty() {
            let rules = self
                .rules
                .iter()
                .enumerate()
                .map(|(i, r)| parse_rule(i, r))
                .collect::<Result<Vec<_>, _>>()?;
            c.rules = Some(Setting::Value(rules));
        }
        if !self.variants.is_empty() {
            let variants = self
                .variants
                .iter()
                .map(|v| parse_variant(v))
                .collect::<Result<Vec<_>, _>>()?;
            c.variants = Some(Setting::Value(variants));
        }
        let utm: Vec<(UtmPart, String)> = UtmPart::ALL
            .into_iter()
            .zip([
                &self.utm_source,
                &self.utm_medium,
                &self.utm_campaign,
                &self.utm_term,
                &self.utm_content,
            ])
            .filter_map(|(part, v)| v.clone().map(|v| (part, v)))
            .collect();
        if !utm.is_empty() {
            c.utm = Some(Setting::Value(utm));
        }
        for clear in &self.clear {
            if c.sets(*clear) {
                return Err(usage(format!(
                    "--clear {} conflicts with a flag setting {}",
                    clear
                        .to_possible_value()
                        .map_or_else(String::new, |v| v.get_name().to_owned()),
                    clear.field()
                )));
            }
        }
        for clear in &self.clear {
            c.clear(*clear);
        }
        Ok(c)
    }
}

impl Campaign {
    /// Whether a flag sets the field `clear` names.
    fn sets(&self, clear: Clearable) -> bool {
        match clear {
            Clearable::Tags => self.tags.is_some(),
            Clearable::ValidFrom => self.valid_from.is_some(),
            Clearable::ValidUntil => self.valid_until.is_some(),
            Clearable::MaxScans => self.max_scans.is_some(),
            Clearable::ExpiredUrl => self.expired_url.is_some(),
            Clearable::Password => self.password.is_some(),
            Clearable::Rules => self.rules.is_some(),
            Clearable::Variants => self.variants.is_some(),
            Clearable::Utm => self.utm.is_some(),
        }
    }

    fn clear(&mut self, clear: Clearable) {
        match clear {
            Clearable::Tags => self.tags = Some(Setting::Cleared),
            Clearable::ValidFrom => self.valid_from = Some(Setting::Cleared),
            Clearable::ValidUntil => self.valid_until = Some(Setting::Cleared),
            Clearable::MaxScans => self.max_scans = Some(Setting::Cleared),
            Clearable::ExpiredUrl => self.expired_url = Some(Setting::Cleared),
            Clearable::Password => self.password = Some(Setting::Cleared),
            Clearable::Rules => self.rules = Some(Setting::Cleared),
            Clearable::Variants => self.variants = Some(Setting::Cleared),
            Clearable::Utm => self.utm = Some(Setting::Cleared),
        }
    }

    /// Sets the fields on `update` through the domain's setters, in the API's order.
    pub fn apply(&self, update: &mut LinkUpdate) -> Result<(), FieldError> {
        match &self.domain {
            Some(Setting::Value(name)) => update.set_domain(name)?,
            Some(Setting::Cleared) => update.clear_domain(),
            None => {}
        }
        match self.design {
            Some(Some(id)) => update.set_design(id),
            Some(None) => update.clear_design(),
            None => {}
        }
        if let Some(code) = &self.short_code {
            update.set_short_code(code)?;
        }
        if let Some(tags) = &self.tags {
            update.set_tags(given(tags).map_or(&[][..], Vec::as_slice))?;
        }
        if let Some(at) = &self.valid_from {
            update.set_valid_from(instant(LinkField::ValidFrom, given(at))?);
        }
        if let Some(at) = &self.valid_until {
            update.set_valid_until(instant(LinkField::ValidUntil, given(at))?);
        }
        if let Some(n) = &self.max_scans {
            update.set_max_scans(given(n).copied())?;
        }
        if let Some(url) = &self.expired_url {
            update.set_expired_url(given(url).map(String::as_str))?;
        }
        if let Some(disabled) = self.disabled {
            update.set_disabled(disabled);
        }
        if let Some(password) = &self.password {
            update.set_password(given(password).map(String::as_str))?;
        }
        if let Some(rules) = &self.rules {
            let inputs: Vec<RuleInput<'_>> = given(rules)
                .into_iter()
                .flatten()
                .map(|r| RuleInput {
                    device: r.device.as_deref(),
                    os: r.os.as_deref(),
                    country: r.country.as_deref(),
                    language: r.language.as_deref(),
                    target_url: &r.target,
                })
                .collect();
            update.set_rules(&inputs)?;
        }
        if let Some(variants) = &self.variants {
            let inputs: Vec<VariantInput<'_>> = given(variants)
                .into_iter()
                .flatten()
                .map(|v| VariantInput {
                    target_url: &v.target,
                    weight: Some(v.weight),
                })
                .collect();
            update.set_variants(&inputs)?;
        }
        if let Some(utm) = &self.utm {
            let parameters: Option<Vec<(UtmPart, &str)>> =
                given(utm).map(|u| u.iter().map(|(p, v)| (*p, v.as_str())).collect());
            update.set_utm(parameters.as_deref())?;
        }
        if let Some(forward) = self.forward_query {
            update.set_forward_query(forward);
        }
        Ok(())
    }
}

/// The value a setting gives, `None` when cleared.
fn given<T>(setting: &Setting<T>) -> Option<&T> {
    match setting {
        Setting::Value(v) => Some(v),
        Setting::Cleared => None,
    }
}

/// An ISO 8601 UTC instant as the domain reads it.
fn instant(
    field: LinkField,
    text: Option<&String>,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, FieldError> {
    text.map(|t| rules::instant(t).map_err(|rule| FieldError::new(field, rule)))
        .transpose()
}

/// The first line of `path` (`-`: standard input), without its line end.
fn read_password(path: &PathBuf) -> anyhow::Result<String> {
    let mut text = String::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text)
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text))
    };
    read.map_err(|e| {
        usage(format!(
            "cannot read --password-file {}: {e}",
            path.display()
        ))
    })?;
    Ok(text.lines().next().unwrap_or("").to_owned())
}

/// The conditions a `--rule` can name.
const CONDITIONS: [&str; 4] = ["device", "os", "country", "language"];

/// `device=mobile,country=DE=>https://…`, the `index`th `--rule`, as its conditions and target.
/// A condition other than [`CONDITIONS`] is refused as the API refuses an unknown member.
fn parse_rule(index: usize, raw: &str) -> anyhow::Result<RuleText> {
    let bad = |why: &str| {
        usage(format!(
            "Invalid --rule {raw:?}: {why}; expected e.g. 'device=mobile,country=DE=>https://example.com/'"
        ))
    };
    let (conditions, target) = raw.split_once("=>").ok_or_else(|| bad("no =>"))?;
    let mut rule = RuleText {
        target: target.trim().to_owned(),
        ..RuleText::default()
    };
    let mut unknown = None;
    for pair in conditions
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| bad(&format!("condition {pair:?} is not key=value")))?;
        let key = key.trim();
        let slot = match key {
            "device" => &mut rule.device,
            "os" => &mut rule.os,
            "country" => &mut rule.country,
            "language" => &mut rule.language,
            other => {
                unknown.get_or_insert_with(|| other.to_owned());
                continue;
            }
        };
        if slot.replace(value.trim().to_owned()).is_some() {
            return Err(bad(&format!("{key} given twice")));
        }
    }
    if let Some(key) = unknown {
        anyhow::bail!(
            "invalid rules[{index}].when: unknown member {key:?}; expected {}",
            CONDITIONS.join(", ")
        );
    }
    Ok(rule)
}

/// `https://…=50` as its target and weight (the last `=` splits, as URLs hold `=`).
fn parse_variant(raw: &str) -> anyhow::Result<VariantText> {
    let (url, weight) = raw
        .rsplit_once('=')
        .and_then(|(u, w)| w.trim().parse::<u64>().ok().map(|w| (u, w)))
        .ok_or_else(|| {
            usage(format!(
                "Invalid --variant {raw:?}: expected URL=WEIGHT, e.g. https://example.com/b=50"
            ))
        })?;
    Ok(VariantText {
        target: url.trim().to_owned(),
        weight,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_variants_are_read_as_typed() {
        assert_eq!(
            parse_rule(0, "device=mobile, country=DE=>https://example.de/?a=b").unwrap(),
            RuleText {
                device: Some("mobile".into()),
                country: Some("DE".into()),
                target: "https://example.de/?a=b".into(),
                ..RuleText::default()
            }
        );
        assert!(parse_rule(0, "device=mobile https://x").is_err());
        assert!(parse_rule(0, "device=>https://x").is_err());
        assert!(
            parse_rule(0, "device=phone=>https://x").is_ok(),
            "the domain names the bad value"
        );
        assert!(parse_rule(0, "os=ios,os=android=>https://x").is_err());
        assert_eq!(
            parse_rule(2, "cuntry=DE=>https://x")
                .unwrap_err()
                .to_string(),
            "invalid rules[2].when: unknown member \"cuntry\"; expected device, os, country, language"
        );
        assert_eq!(
            parse_variant("https://example.com/?v=b=25").unwrap(),
            VariantText {
                target: "https://example.com/?v=b".into(),
                weight: 25
            }
        );
        assert!(parse_variant("https://example.com/").is_err());
    }
}
