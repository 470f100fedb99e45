//! The campaign flags of `qr links create` and `qr links update`, defined once: they become the
//! API's JSON fields (`shortCode`, `tags`, `rules`, …), which the domain then reads with
//! `LinkUpdate::with_json`, so the command line is validated exactly as `POST /api/links` is.

use std::io::Read;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::{Map, Value, json};

use crate::error::usage;

/// Every campaign field of a link as flags; on `update`, only the fields given change.
#[derive(Debug, Default, Args)]
#[command(next_help_heading = "Campaign fields (plans: see docs/api.md)")]
pub struct CampaignArgs {
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
    /// The API's name of the field.
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

    /// What clears it in the API: `[]` for lists, `null` for the rest.
    fn cleared(self) -> Value {
        match self {
            Clearable::Tags | Clearable::Rules | Clearable::Variants => json!([]),
            _ => Value::Null,
        }
    }
}

impl CampaignArgs {
    /// The API's JSON fields of the flags given. A flag's syntax error (a rule without `=>`, a
    /// variant without `=WEIGHT`, a field both set and cleared, an unreadable password file)
    /// is a usage error; the values themselves are checked by the domain.
    pub fn to_fields(&self) -> anyhow::Result<Map<String, Value>> {
        let mut f = Map::new();
        let mut put = |name: &str, value: Value| f.insert(name.to_owned(), value);
        if let Some(code) = &self.short_code {
            put("shortCode", json!(code));
        }
        if !self.tags.is_empty() {
            put("tags", json!(self.tags));
        }
        if let Some(t) = &self.valid_from {
            put("validFrom", json!(t));
        }
        if let Some(t) = &self.valid_until {
            put("validUntil", json!(t));
        }
        if let Some(n) = self.max_scans {
            put("maxScans", json!(n));
        }
        if let Some(url) = &self.expired_url {
            put("expiredUrl", json!(url));
        }
        if self.disable || self.enable {
            put("disabled", json!(self.disable));
        }
        if let Some(path) = &self.password_file {
            put("password", json!(read_password(path)?));
        }
        if !self.rules.is_empty() {
            let rules = self
                .rules
                .iter()
                .map(|r| parse_rule(r))
                .collect::<Result<Vec<_>, _>>()?;
            put("rules", Value::Array(rules));
        }
        if !self.variants.is_empty() {
            let variants = self
                .variants
                .iter()
                .map(|v| parse_variant(v))
                .collect::<Result<Vec<_>, _>>()?;
            put("variants", Value::Array(variants));
        }
        let utm: Map<String, Value> = [
            ("source", &self.utm_source),
            ("medium", &self.utm_medium),
            ("campaign", &self.utm_campaign),
            ("term", &self.utm_term),
            ("content", &self.utm_content),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k.to_owned(), json!(v))))
        .collect();
        if !utm.is_empty() {
            put("utm", Value::Object(utm));
        }
        if self.forward_query || self.no_forward_query {
            put("forwardQuery", json!(self.forward_query));
        }
        for c in &self.clear {
            if f.contains_key(c.field()) {
                return Err(usage(format!(
                    "--clear {} conflicts with a flag setting {}",
                    c.to_possible_value()
                        .map_or_else(String::new, |v| v.get_name().to_owned()),
                    c.field()
                )));
            }
        }
        for c in &self.clear {
            f.insert(c.field().to_owned(), c.cleared());
        }
        Ok(f)
    }
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

/// `device=mobile,country=DE=>https://…` as `{"when": {…}, "targetUrl": …}`.
fn parse_rule(raw: &str) -> anyhow::Result<Value> {
    let bad = |why: &str| {
        usage(format!(
            "Invalid --rule {raw:?}: {why}; expected e.g. 'device=mobile,country=DE=>https://example.com/'"
        ))
    };
    let (conditions, target) = raw.split_once("=>").ok_or_else(|| bad("no =>"))?;
    let mut when = Map::new();
    for pair in conditions
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| bad(&format!("condition {pair:?} is not key=value")))?;
        if when
            .insert(key.trim().to_owned(), json!(value.trim()))
            .is_some()
        {
            return Err(bad(&format!("{} given twice", key.trim())));
        }
    }
    Ok(json!({"when": when, "targetUrl": target.trim()}))
}

/// `https://…=50` as `{"targetUrl": …, "weight": 50}` (the last `=` splits, as URLs hold `=`).
fn parse_variant(raw: &str) -> anyhow::Result<Value> {
    let (url, weight) = raw
        .rsplit_once('=')
        .and_then(|(u, w)| w.trim().parse::<u64>().ok().map(|w| (u, w)))
        .ok_or_else(|| {
            usage(format!(
                "Invalid --variant {raw:?}: expected URL=WEIGHT, e.g. https://example.com/b=50"
            ))
        })?;
    Ok(json!({"targetUrl": url.trim(), "weight": weight}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_variants_become_the_apis_objects() {
        assert_eq!(
            parse_rule("device=mobile, country=DE=>https://example.de/?a=b").unwrap(),
            json!({"when": {"device": "mobile", "country": "DE"}, "targetUrl": "https://example.de/?a=b"})
        );
        assert!(parse_rule("device=mobile https://x").is_err());
        assert!(parse_rule("device=>https://x").is_err());
        assert!(
            parse_rule("device=phone=>https://x").is_ok(),
            "the domain names the bad value"
        );
        assert!(parse_rule("os=ios,os=android=>https://x").is_err());
        assert_eq!(
            parse_variant("https://example.com/?v=b=25").unwrap(),
            json!({"targetUrl": "https://example.com/?v=b", "weight": 25})
        );
        assert!(parse_variant("https://example.com/").is_err());
    }
}
