//! Per-key access rules (allowed browser origins, IP allowlists, disabled endpoints) and the plan's features: who may make a request.

use std::collections::BTreeSet;
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use ipnet::IpNet;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::accounts::permissions::{NotPermitted, ScopeSet};
use crate::accounts::plan::{Feature, PerSecond, Plan, PlanLimits};

/// An allowed browser origin: `*`, or `[scheme://]host[:port]` where host may start with `*.`.
///
/// Without a scheme both http and https match; without a port only the scheme's
/// default port matches; `*.example.com` matches every subdomain of
/// example.com at any depth, but not example.com itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct OriginPattern {
    text: String,
    scheme: Option<String>,
    host: HostPattern,
    port: Option<u16>,
    any: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum HostPattern {
    Exact(String),
    Subdomains(String),
}

/// An allowed client address or network (IPv4 or IPv6), for example `203.0.113.7` or `2001:db8::/32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct IpRule(IpNet);

/// Why an origin pattern or IP rule was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AccessRuleError {
    /// The origin pattern is malformed.
    #[error(
        "invalid origin pattern {0:?}: expected *, a host, *.domain, or scheme://host[:port] with scheme http or https"
    )]
    Origin(String),
    /// The IP rule is neither an address nor a CIDR network.
    #[error(
        "invalid IP rule {0:?}: expected an IPv4/IPv6 address or a CIDR network such as 10.0.0.0/8"
    )]
    Ip(String),
}

/// An API endpoint group that a key may be barred from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Endpoint {
    /// `GET /api/generate`.
    Generate,
    /// `POST /api/batch`.
    Batch,
    /// `/api/links` in all its methods.
    Links,
    /// `GET /api/analytics`.
    Analytics,
    /// `GET /api/dashboard?action=usage`.
    Usage,
    /// `GET /api/health`.
    Health,
    /// `/api/webhooks` in all its methods.
    Webhooks,
    /// `GET /api/account/export`: the account's whole data as a ZIP.
    Export,
    /// `/api/domains` and its `check` and `visits`: the account's own domains.
    Domains,
    /// `/api/designs`: the account's saved designs.
    Designs,
}

/// Per-key restrictions. The default restricts nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KeySettings {
    /// Browser origins allowed to use the key; empty allows every origin.
    pub allowed_origins: Vec<OriginPattern>,
    /// Client addresses or networks allowed to use the key; empty allows every address.
    pub ip_allowlist: Vec<IpRule>,
    /// The key's own per-second rate; at most the plan's, `None` uses the plan's.
    pub rate_per_second: Option<PerSecond>,
    /// Endpoints the key may not call.
    pub disabled_endpoints: BTreeSet<Endpoint>,
    /// What the key may reach; `None` (every key made before scopes) is full access.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes: Option<ScopeSet>,
}

/// Settings that the account's plan does not allow.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SettingsError {
    /// The key's rate is above the plan's per-second rate.
    #[error("the key's rate of {requested}/s exceeds the plan's rate of {plan}/s")]
    RateAbovePlan {
        /// The rate asked for.
        requested: u32,
        /// The plan's rate.
        plan: u32,
    },
}

/// What a request looks like to the access rules.
#[derive(Debug, Clone, Copy, Default)]
pub struct AccessRequest<'a> {
    /// The client's address, if known.
    pub client_ip: Option<IpAddr>,
    /// The `Origin` header, if the request came from a browser.
    pub origin: Option<&'a str>,
    /// The plan features the request uses (a logo, for example).
    pub features: &'a [Feature],
}

/// Why a key may not make a request (HTTP 403).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AccessError {
    /// The key's scopes do not reach the operation (the spec's message, whatever the scope).
    #[error(transparent)]
    OutOfScope(#[from] NotPermitted),
    /// The key's settings disable this endpoint.
    #[error("API key not authorized for this endpoint")]
    EndpointDisabled(Endpoint),
    /// The client address is not in the key's IP allowlist (or is unknown while an allowlist is set).
    #[error("API key not authorized for this endpoint")]
    IpNotAllowed,
    /// The browser origin is not among the key's allowed origins.
    #[error("API key not authorized for this endpoint")]
    OriginNotAllowed,
    /// Batch generation on a plan below Pro.
    #[error("Batch generation requires Pro plan")]
    BatchRequiresPro,
    /// Bulk link creation on a plan without it; names the cheapest plan that has it.
    #[error("Bulk link creation requires {} plan", .0.title())]
    BulkRequiresPlan(Plan),
    /// The request uses a feature the plan does not include (a logo below Pro); the spec
    /// answers it like a disabled endpoint.
    #[error("API key not authorized for this endpoint")]
    FeatureNotInPlan(Feature),
}

/// Checks a request against the key's settings and the account's plan, in this order: the
/// endpoint, the client address, the origin, batch generation, bulk link creation, then the
/// features used.
///
/// A request without an `Origin` header is not a browser request and passes the
/// origin rule (CORS protects browsers; the IP allowlist restricts servers).
pub fn check_access(
    settings: &KeySettings,
    limits: &PlanLimits,
    endpoint: Endpoint,
    request: AccessRequest<'_>,
) -> Result<(), AccessError> {
    if settings.disabled_endpoints.contains(&endpoint) {
        return Err(AccessError::EndpointDisabled(endpoint));
    }
    if !settings.ip_allowlist.is_empty() {
        let allowed = request
            .client_ip
            .is_some_and(|ip| settings.ip_allowlist.iter().any(|rule| rule.contains(ip)));
        if !allowed {
            return Err(AccessError::IpNotAllowed);
        }
    }
    if let (false, Some(origin)) = (settings.allowed_origins.is_empty(), request.origin)
        && !settings.allowed_origins.iter().any(|p| p.matches(origin))
    {
        return Err(AccessError::OriginNotAllowed);
    }
    if endpoint == Endpoint::Batch && limits.batch.is_none() {
        return Err(AccessError::BatchRequiresPro);
    }
    if request.features.contains(&Feature::BulkLinks) && !limits.includes(Feature::BulkLinks) {
        return Err(AccessError::BulkRequiresPlan(Feature::BulkLinks.plan()));
    }
    if let Some(missing) = request.features.iter().find(|f| !limits.includes(**f)) {
        return Err(AccessError::FeatureNotInPlan(*missing));
    }
    Ok(())
}

impl Endpoint {
    /// All endpoint groups.
    pub const ALL: [Endpoint; 10] = [
        Endpoint::Generate,
        Endpoint::Batch,
        Endpoint::Links,
        Endpoint::Analytics,
        Endpoint::Usage,
        Endpoint::Health,
        Endpoint::Webhooks,
        Endpoint::Export,
        Endpoint::Domains,
        Endpoint::Designs,
    ];

    /// The endpoint's lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Endpoint::Generate => "generate",
            Endpoint::Batch => "batch",
            Endpoint::Links => "links",
            Endpoint::Analytics => "analytics",
            Endpoint::Usage => "usage",
            Endpoint::Health => "health",
            Endpoint::Webhooks => "webhooks",
            Endpoint::Export => "export",
            Endpoint::Domains => "domains",
            Endpoint::Designs => "designs",
        }
    }
}

impl FromStr for Endpoint {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Endpoint::ALL
            .into_iter()
            .find(|e| e.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                format!("unknown endpoint {s:?}: expected generate, batch, links, analytics, usage, health, webhooks, export or domains")
            })
    }
}

impl KeySettings {
    /// Checks the settings against the account's current limits.
    pub fn validate(&self, limits: &PlanLimits) -> Result<(), SettingsError> {
        match self.rate_per_second {
            Some(rate) if rate > limits.per_second => Err(SettingsError::RateAbovePlan {
                requested: rate.get(),
                plan: limits.per_second.get(),
            }),
            _ => Ok(()),
        }
    }

    /// The rate in force: the key's own rate, capped at the plan's (the plan may have been lowered since).
    pub fn effective_rate(&self, limits: &PlanLimits) -> PerSecond {
        self.rate_per_second
            .map_or(limits.per_second, |own| own.min(limits.per_second))
    }
}

impl OriginPattern {
    /// Parses a pattern.
    pub fn parse(raw: &str) -> Result<Self, AccessRuleError> {
        let err = || AccessRuleError::Origin(raw.to_owned());
        let text = raw.trim().to_ascii_lowercase();
        if text == "*" {
            return Ok(Self {
                text,
                scheme: None,
                host: HostPattern::Exact(String::new()),
                port: None,
                any: true,
            });
        }
        let (scheme, rest) = match text.split_once("://") {
            Some((s, rest)) if s == "http" || s == "https" => (Some(s.to_owned()), rest),
            Some(_) => return Err(err()),
            None => (None, text.as_str()),
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (host, port) = split_host_port(rest).ok_or_else(err)?;
        let host = match host.strip_prefix("*.") {
            Some(domain) if valid_host(domain) => HostPattern::Subdomains(domain.to_owned()),
            Some(_) => return Err(err()),
            None if valid_host(host) => HostPattern::Exact(host.to_owned()),
            None => return Err(err()),
        };
        Ok(Self {
            text: text.clone(),
            scheme,
            host,
            port,
            any: false,
        })
    }

    /// Whether an `Origin` header value matches this pattern.
    pub fn matches(&self, origin: &str) -> bool {
        if self.any {
            return true;
        }
        let origin = origin.trim().to_ascii_lowercase();
        let Some((scheme, rest)) = origin.split_once("://") else {
            return false;
        };
        if scheme != "http" && scheme != "https" {
            return false;
        }
        if self.scheme.as_deref().is_some_and(|s| s != scheme) {
            return false;
        }
        let Some((host, port)) = split_host_port(rest) else {
            return false;
        };
        if port != self.port {
            return false;
        }
        match &self.host {
            HostPattern::Exact(h) => h == host,
            HostPattern::Subdomains(domain) => host
                .strip_suffix(domain.as_str())
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
        }
    }
}

fn split_host_port(s: &str) -> Option<(&str, Option<u16>)> {
    if s.is_empty() || s.contains('/') || s.contains('@') {
        return None;
    }
    if let Some(inner) = s.strip_prefix('[') {
        let (host, after) = inner.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p.parse().ok()?),
            None if after.is_empty() => None,
            None => return None,
        };
        return Some((host, port));
    }
    match s.rsplit_once(':') {
        Some((host, port)) => Some((host, Some(port.parse().ok()?))),
        None => Some((s, None)),
    }
}

fn valid_host(host: &str) -> bool {
    !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b':')
        && !host.starts_with('.')
        && !host.ends_with('.')
}

impl fmt::Display for OriginPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for OriginPattern {
    type Err = AccessRuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for OriginPattern {
    type Error = AccessRuleError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<OriginPattern> for String {
    fn from(p: OriginPattern) -> String {
        p.text
    }
}

impl IpRule {
    /// Parses an address (a single-host network) or a CIDR network.
    pub fn parse(raw: &str) -> Result<Self, AccessRuleError> {
        let s = raw.trim();
        if let Ok(net) = s.parse::<IpNet>() {
            return Ok(Self(net.trunc()));
        }
        s.parse::<IpAddr>()
            .map(|ip| Self(IpNet::from(canonical(ip))))
            .map_err(|_| AccessRuleError::Ip(raw.to_owned()))
    }

    /// Whether `ip` lies in this network (IPv4-mapped IPv6 addresses count as IPv4).
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.contains(&canonical(ip))
    }
}

/// Maps an IPv4-mapped IPv6 address to its IPv4 form.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

impl fmt::Display for IpRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for IpRule {
    type Err = AccessRuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for IpRule {
    type Error = AccessRuleError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<IpRule> for String {
    fn from(r: IpRule) -> String {
        r.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::plan::Plan;

    fn check(pattern: &str, origin: &str, expected: bool) {
        let p = OriginPattern::parse(pattern).unwrap();
        assert_eq!(p.matches(origin), expected, "{pattern} vs {origin}");
    }

    #[test]
    fn origin_matching() {
        check("*", "https://anything.test", true);
        check("https://app.example.com", "https://app.example.com", true);
        check("https://app.example.com", "HTTPS://APP.EXAMPLE.COM", true);
        check("https://app.example.com", "http://app.example.com", false);
        check(
            "https://app.example.com",
            "https://app.example.com:8443",
            false,
        );
        check(
            "https://app.example.com:8443",
            "https://app.example.com:8443",
            true,
        );
        check("app.example.com", "http://app.example.com", true);
        check("*.example.com", "https://a.example.com", true);
        check("*.example.com", "https://a.b.example.com", true);
        check("*.example.com", "https://example.com", false);
        check("*.example.com", "https://badexample.com", false);
        check("*.example.com", "https://example.com.evil.test", false);
        check("https://*.example.com", "http://a.example.com", false);
        check("http://localhost:3000", "http://localhost:3000", true);
        check("http://[::1]:3000", "http://[::1]:3000", true);
        check("https://app.example.com", "null", false);
        check("https://app.example.com", "file://app.example.com", false);
    }

    #[test]
    fn invalid_origin_patterns() {
        for bad in [
            "",
            "ftp://x.com",
            "https://",
            "*.",
            "a/b",
            "https://x.com:99999",
            "*.*.com",
            "u@x.com",
        ] {
            assert!(OriginPattern::parse(bad).is_err(), "{bad:?}");
        }
    }

    fn ip(rule: &str, addr: &str, expected: bool) {
        let r = IpRule::parse(rule).unwrap();
        assert_eq!(
            r.contains(addr.parse().unwrap()),
            expected,
            "{rule} vs {addr}"
        );
    }

    #[test]
    fn ip_rules() {
        ip("203.0.113.7", "203.0.113.7", true);
        ip("203.0.113.7", "203.0.113.8", false);
        ip("10.0.0.0/8", "10.200.3.4", true);
        ip("10.1.2.3/8", "10.200.3.4", true);
        ip("10.0.0.0/8", "11.0.0.1", false);
        ip("2001:db8::/32", "2001:db8:1::5", true);
        ip("2001:db8::/32", "2001:db9::5", false);
        ip("192.0.2.1", "::ffff:192.0.2.1", true);
        ip("::1", "::1", true);
        assert!(IpRule::parse("10.0.0.0/33").is_err());
        assert!(IpRule::parse("not an ip").is_err());
    }

    #[test]
    fn key_rate_is_capped_by_the_plan() {
        let limits = Plan::Free.limits(&Default::default());
        let mut s = KeySettings::default();
        assert_eq!(s.effective_rate(&limits).get(), 2);
        s.rate_per_second = Some(PerSecond::new(1).unwrap());
        assert!(s.validate(&limits).is_ok());
        assert_eq!(s.effective_rate(&limits).get(), 1);
        s.rate_per_second = Some(PerSecond::new(5).unwrap());
        assert!(matches!(
            s.validate(&limits),
            Err(SettingsError::RateAbovePlan {
                requested: 5,
                plan: 2
            })
        ));
        assert_eq!(s.effective_rate(&limits).get(), 2);
    }

    #[test]
    fn access_checks() {
        let free = Plan::Free.limits(&Default::default());
        let pro = Plan::Pro.limits(&Default::default());
        let mut s = KeySettings::default();
        let req = AccessRequest {
            client_ip: Some("198.51.100.1".parse().unwrap()),
            origin: Some("https://shop.example.com"),
            features: &[],
        };
        assert_eq!(check_access(&s, &pro, Endpoint::Batch, req), Ok(()));
        assert_eq!(
            check_access(&s, &free, Endpoint::Batch, req),
            Err(AccessError::BatchRequiresPro)
        );
        let logo = AccessRequest {
            features: &[Feature::Logo],
            ..req
        };
        assert_eq!(check_access(&s, &pro, Endpoint::Generate, logo), Ok(()));
        assert_eq!(
            check_access(&s, &free, Endpoint::Generate, logo),
            Err(AccessError::FeatureNotInPlan(Feature::Logo))
        );
        assert_eq!(
            AccessError::FeatureNotInPlan(Feature::Logo).to_string(),
            "API key not authorized for this endpoint"
        );
        s.disabled_endpoints.insert(Endpoint::Links);
        assert_eq!(
            check_access(&s, &pro, Endpoint::Links, req),
            Err(AccessError::EndpointDisabled(Endpoint::Links))
        );
        s.ip_allowlist
            .push(IpRule::parse("198.51.100.0/24").unwrap());
        assert_eq!(check_access(&s, &pro, Endpoint::Generate, req), Ok(()));
        let elsewhere = AccessRequest {
            client_ip: Some("192.0.2.1".parse().unwrap()),
            ..req
        };
        assert_eq!(
            check_access(&s, &pro, Endpoint::Generate, elsewhere),
            Err(AccessError::IpNotAllowed)
        );
        let unknown = AccessRequest {
            client_ip: None,
            ..req
        };
        assert_eq!(
            check_access(&s, &pro, Endpoint::Generate, unknown),
            Err(AccessError::IpNotAllowed)
        );
        s.allowed_origins
            .push(OriginPattern::parse("*.example.org").unwrap());
        assert_eq!(
            check_access(&s, &pro, Endpoint::Generate, req),
            Err(AccessError::OriginNotAllowed)
        );
        let server = AccessRequest {
            origin: None,
            ..req
        };
        assert_eq!(check_access(&s, &pro, Endpoint::Generate, server), Ok(()));
    }
}
