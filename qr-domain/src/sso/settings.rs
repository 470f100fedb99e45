//! A workspace's single sign-on settings: the provider's issuer URL, the client id and secret the provider issued, the e-mail domains whose people may sign in, and the role new members get; each field validated with a message naming it.

use std::collections::BTreeSet;
use std::fmt;
use std::net::IpAddr;

use thiserror::Error;
use url::{Host, Url};

use crate::accounts::permissions::MemberRole;
use crate::domains::name::{DomainName, DomainNameError};
use crate::public_address::NonPublic;

/// Longest issuer or redirect URL accepted, in characters (as links' and webhooks' URLs).
const MAX_URL_CHARS: usize = 2048;
/// Longest client id accepted: providers issue UUIDs (36), Google 72 characters; 255 leaves room.
const MAX_CLIENT_ID_CHARS: usize = 255;
/// Longest client secret accepted: Google's are 35 characters, Okta's 64, Entra ID's 40; 1024
/// bounds what is stored and sent.
const MAX_CLIENT_SECRET_CHARS: usize = 1024;
/// Most allowed e-mail domains: a company with more lists its main ones (or runs several
/// workspaces).
pub const MAX_EMAIL_DOMAINS: usize = 50;

/// Which issuer hosts settings accept, as [`crate::webhooks::webhook::EndpointAddresses`] does
/// for webhook endpoints: the same switch lets the adapter connect to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IssuerAddresses {
    /// Public addresses over HTTPS only (the default): a host written as a loopback, private,
    /// link-local, metadata or other non-public address, or `localhost`, is refused.
    #[default]
    PublicOnly,
    /// Any address: tests and private deployments, where the provider runs in the operator's own
    /// network. Plain `http` is still only accepted on a loopback host.
    Any,
}

/// The provider's issuer identifier (OpenID Connect Discovery 1.0 §2): an `https` URL without
/// query or fragment, kept exactly as typed (trimmed), since the provider's metadata and every
/// ID token must name it identically.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IssuerUrl(String);

impl IssuerUrl {
    /// Validates an issuer URL under `addresses`.
    pub fn parse(raw: &str, addresses: IssuerAddresses) -> Result<Self, SsoSettingsError> {
        let text = raw.trim();
        let bad = |why: &str| SsoSettingsError::Issuer(why.to_owned());
        if text.is_empty() {
            return Err(bad("it is required"));
        }
        if text.chars().count() > MAX_URL_CHARS {
            return Err(bad("it is longer than 2048 characters"));
        }
        let url = Url::parse(text).map_err(|_| bad("it is not an absolute URL"))?;
        if url.query().is_some() || url.fragment().is_some() {
            return Err(bad("an issuer has no query (?) or fragment (#)"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("an issuer has no user name or password"));
        }
        let literal = literal_non_public(&url);
        match url.scheme() {
            "https" => {}
            "http" if matches!(literal, Some(NonPublic::Loopback)) => {}
            "http" => {
                return Err(bad(
                    "it must use https (plain http only on a loopback host)",
                ));
            }
            _ => return Err(bad("it must be an https URL")),
        }
        if let (IssuerAddresses::PublicOnly, Some(reason)) = (addresses, literal) {
            return Err(SsoSettingsError::Issuer(format!(
                "{} is {reason}, which the server does not connect to",
                url.host_str().unwrap_or_default()
            )));
        }
        Ok(Self(text.to_owned()))
    }

    /// The issuer as typed.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Where the provider publishes its metadata: the issuer, without a final `/`, followed by
    /// `/.well-known/openid-configuration` (Discovery §4.1).
    pub fn discovery_url(&self) -> String {
        format!(
            "{}/.well-known/openid-configuration",
            self.0.trim_end_matches('/')
        )
    }

    /// Whether `other` names this issuer: identical, or differing only by one final `/` (Auth0's
    /// issuers end with one, most others not, and people type either).
    pub fn matches(&self, other: &str) -> bool {
        self.0 == other || self.0.trim_end_matches('/') == other.trim_end_matches('/')
    }
}

impl fmt::Display for IssuerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a URL's host, as written, is not public (IP literals, `localhost` and its subdomains,
/// which RFC 6761 reserves for loopback); `None` for public addresses and other names.
pub(crate) fn literal_non_public(url: &Url) -> Option<NonPublic> {
    match url.host()? {
        Host::Ipv4(ip) => NonPublic::of(IpAddr::V4(ip)),
        Host::Ipv6(ip) => NonPublic::of(IpAddr::V6(ip)),
        Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            (name == "localhost" || name.ends_with(".localhost")).then_some(NonPublic::Loopback)
        }
    }
}

/// The client id the provider issued to this service for the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClientId(String);

impl ClientId {
    /// A client id: 1 to 255 characters, no control characters, trimmed.
    pub fn parse(raw: &str) -> Result<Self, SsoSettingsError> {
        let text = raw.trim();
        if text.is_empty() {
            return Err(SsoSettingsError::ClientId("it is required"));
        }
        if text.chars().count() > MAX_CLIENT_ID_CHARS {
            return Err(SsoSettingsError::ClientId(
                "it is longer than 255 characters",
            ));
        }
        if text.chars().any(char::is_control) {
            return Err(SsoSettingsError::ClientId("it contains control characters"));
        }
        Ok(Self(text.to_owned()))
    }

    /// The client id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The client secret the provider issued. The service must present it to the provider on every
/// token request (`client_secret_basic` or `_post`), so it cannot be hashed as passwords and key
/// secrets are: it is stored as given, and kept out of every `Debug`, log line, export and page
/// (no `Display`, no `Serialize`; [`ClientSecret::reveal_to_provider`] is its one way out).
#[derive(Clone, PartialEq, Eq)]
pub struct ClientSecret(String);

impl ClientSecret {
    /// A client secret: 1 to 1024 characters, no control characters, trimmed (a pasted secret
    /// often carries a final newline).
    pub fn parse(raw: &str) -> Result<Self, SsoSettingsError> {
        let text = raw.trim();
        if text.is_empty() {
            return Err(SsoSettingsError::ClientSecret("it is required"));
        }
        if text.chars().count() > MAX_CLIENT_SECRET_CHARS {
            return Err(SsoSettingsError::ClientSecret(
                "it is longer than 1024 characters",
            ));
        }
        if text.chars().any(char::is_control) {
            return Err(SsoSettingsError::ClientSecret(
                "it contains control characters",
            ));
        }
        Ok(Self(text.to_owned()))
    }

    /// The secret, for the token request to the provider and for storage; nothing else.
    pub fn reveal_to_provider(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientSecret(<redacted>)")
    }
}

/// The e-mail domains whose people may sign in: at least one, each a host name in its ASCII
/// form (lower case, IDNA A-labels, no final dot), matched exactly (a subdomain is listed on
/// its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailDomains(BTreeSet<DomainName>);

impl EmailDomains {
    /// The domains of a list as a person types it: separated by commas, spaces or new lines,
    /// each optionally written with a leading `@`.
    pub fn parse_list(text: &str) -> Result<Self, SsoSettingsError> {
        Self::parse(text.split(|c: char| c == ',' || c.is_whitespace()))
    }

    /// The domains given one by one (empty entries skipped).
    pub fn parse<'a>(entries: impl IntoIterator<Item = &'a str>) -> Result<Self, SsoSettingsError> {
        let mut domains = BTreeSet::new();
        for entry in entries {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            if entry.contains('*') {
                return Err(SsoSettingsError::EmailDomain {
                    entry: entry.to_owned(),
                    reason: "wildcards are not accepted; list each domain".to_owned(),
                });
            }
            let name = entry.strip_prefix('@').unwrap_or(entry);
            let domain =
                DomainName::parse_any(name).map_err(|e| SsoSettingsError::EmailDomain {
                    entry: entry.to_owned(),
                    reason: domain_reason(&e),
                })?;
            domains.insert(domain);
            if domains.len() > MAX_EMAIL_DOMAINS {
                return Err(SsoSettingsError::TooManyEmailDomains);
            }
        }
        if domains.is_empty() {
            return Err(SsoSettingsError::NoEmailDomain);
        }
        Ok(Self(domains))
    }

    /// The domains, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(DomainName::as_str)
    }

    /// Whether an e-mail address's domain (the part after its last `@`) is one of these,
    /// compared in ASCII form so `Bücher.example` and `xn--bcher-kva.example` are the same.
    pub fn allows(&self, email: &str) -> bool {
        email
            .rsplit_once('@')
            .and_then(|(_, domain)| DomainName::parse_any(domain).ok())
            .is_some_and(|domain| self.0.contains(&domain))
    }
}

/// A domain-name refusal's words, for the e-mail domain message.
fn domain_reason(error: &DomainNameError) -> String {
    match error {
        DomainNameError::NotBareHost => "give the domain alone, as in example.com".to_owned(),
        other => other.to_string(),
    }
}

/// The role a person signing in for the first time gets: any but owner, since a workspace has
/// one owner and ownership is handed over, never granted by a login.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultRole(MemberRole);

impl DefaultRole {
    /// `role`, unless it is [`MemberRole::Owner`].
    pub fn new(role: MemberRole) -> Result<Self, SsoSettingsError> {
        match role {
            MemberRole::Owner => Err(SsoSettingsError::OwnerAsDefaultRole),
            role => Ok(Self(role)),
        }
    }

    /// The role.
    pub fn role(self) -> MemberRole {
        self.0
    }
}

/// Where the provider sends the browser back: this service's callback URL, absolute, `http` or
/// `https`, without a fragment. It is registered at the provider as is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectUri(String);

impl RedirectUri {
    /// Validates the service's callback URL.
    pub fn parse(raw: &str) -> Result<Self, SsoSettingsError> {
        let text = raw.trim();
        let bad = |why: &str| SsoSettingsError::RedirectUri(why.to_owned());
        if text.chars().count() > MAX_URL_CHARS {
            return Err(bad("it is longer than 2048 characters"));
        }
        let url = Url::parse(text).map_err(|_| bad("it is not an absolute URL"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("it must be an http or https URL"));
        }
        if url.fragment().is_some() {
            return Err(bad("a redirect URI has no fragment (#)"));
        }
        Ok(Self(text.to_owned()))
    }

    /// The URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A workspace's single sign-on configuration, every field validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsoSettings {
    /// The provider's issuer.
    pub issuer: IssuerUrl,
    /// The client id issued to this service.
    pub client_id: ClientId,
    /// The client secret issued with it (never shown by `Debug`).
    pub client_secret: ClientSecret,
    /// Whose e-mail addresses may sign in.
    pub allowed_domains: EmailDomains,
    /// The role of people who join by signing in.
    pub default_role: DefaultRole,
}

/// The settings' fields as a form or command line gives them, before validation.
#[derive(Clone, Copy)]
pub struct SsoSettingsInput<'a> {
    /// The issuer URL.
    pub issuer: &'a str,
    /// The client id.
    pub client_id: &'a str,
    /// The client secret.
    pub client_secret: &'a str,
    /// The allowed e-mail domains, separated by commas, spaces or new lines.
    pub allowed_domains: &'a str,
    /// The default role's name (`admin`, `member`, `viewer`).
    pub default_role: &'a str,
}

impl fmt::Debug for SsoSettingsInput<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SsoSettingsInput")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("allowed_domains", &self.allowed_domains)
            .field("default_role", &self.default_role)
            .finish()
    }
}

impl SsoSettings {
    /// Validates every field; the first refusal names its field.
    pub fn parse(
        input: SsoSettingsInput<'_>,
        addresses: IssuerAddresses,
    ) -> Result<Self, SsoSettingsError> {
        let role = input
            .default_role
            .trim()
            .parse::<MemberRole>()
            .map_err(|_| SsoSettingsError::UnknownRole(input.default_role.trim().to_owned()))?;
        Ok(Self {
            issuer: IssuerUrl::parse(input.issuer, addresses)?,
            client_id: ClientId::parse(input.client_id)?,
            client_secret: ClientSecret::parse(input.client_secret)?,
            allowed_domains: EmailDomains::parse_list(input.allowed_domains)?,
            default_role: DefaultRole::new(role)?,
        })
    }
}

/// Why single sign-on settings were refused; `Display` names the field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SsoSettingsError {
    /// The issuer URL.
    #[error("Issuer URL: {0}")]
    Issuer(String),
    /// The client id.
    #[error("Client ID: {0}")]
    ClientId(&'static str),
    /// The client secret (the message never quotes it).
    #[error("Client secret: {0}")]
    ClientSecret(&'static str),
    /// One allowed e-mail domain.
    #[error("Allowed e-mail domains: {entry:?}: {reason}")]
    EmailDomain {
        /// The entry as typed.
        entry: String,
        /// Why it is no domain.
        reason: String,
    },
    /// None was given.
    #[error("Allowed e-mail domains: give at least one (for example example.com)")]
    NoEmailDomain,
    /// More than [`MAX_EMAIL_DOMAINS`].
    #[error("Allowed e-mail domains: at most {MAX_EMAIL_DOMAINS}")]
    TooManyEmailDomains,
    /// No such role.
    #[error("Default role: {0:?} is not a role (admin, member or viewer)")]
    UnknownRole(String),
    /// Owner was asked for.
    #[error("Default role: new members cannot be owners (choose admin, member or viewer)")]
    OwnerAsDefaultRole,
    /// The service's callback URL (a configuration error of the service, not the workspace).
    #[error("Redirect URI: {0}")]
    RedirectUri(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> SsoSettingsInput<'static> {
        SsoSettingsInput {
            issuer: " https://login.example.com/tenant ",
            client_id: "qr-platform",
            client_secret: "s3cret-value\n",
            allowed_domains: "Example.com, @sub.example.com\nBücher.example",
            default_role: "member",
        }
    }

    #[test]
    fn valid_settings_are_normalised() {
        let settings = SsoSettings::parse(input(), IssuerAddresses::PublicOnly).unwrap();
        assert_eq!(settings.issuer.as_str(), "https://login.example.com/tenant");
        assert_eq!(
            settings.issuer.discovery_url(),
            "https://login.example.com/tenant/.well-known/openid-configuration"
        );
        assert_eq!(settings.client_secret.reveal_to_provider(), "s3cret-value");
        assert_eq!(
            settings.allowed_domains.iter().collect::<Vec<_>>(),
            ["example.com", "sub.example.com", "xn--bcher-kva.example"]
        );
        assert_eq!(settings.default_role.role(), MemberRole::Member);
    }

    #[test]
    fn the_secret_never_shows_in_debug() {
        let settings = SsoSettings::parse(input(), IssuerAddresses::PublicOnly).unwrap();
        let shown = format!("{settings:?} {:?}", input());
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("<redacted>"));
    }

    #[test]
    fn issuers_must_be_https_and_public() {
        let refused = |raw: &str, addresses| IssuerUrl::parse(raw, addresses).unwrap_err();
        let public = IssuerAddresses::PublicOnly;
        assert!(refused("", public).to_string().contains("required"));
        assert!(
            refused("login.example.com", public)
                .to_string()
                .contains("absolute")
        );
        assert!(
            refused("http://login.example.com", public)
                .to_string()
                .contains("https")
        );
        assert!(
            refused("ftp://login.example.com", public)
                .to_string()
                .contains("https")
        );
        assert!(
            refused("https://login.example.com/?a=1", public)
                .to_string()
                .contains("query")
        );
        assert!(
            refused("https://u:p@login.example.com", public)
                .to_string()
                .contains("user")
        );
        for host in [
            "https://127.0.0.1:8443",
            "https://10.0.0.5",
            "https://localhost",
            "https://169.254.169.254",
        ] {
            assert!(
                refused(host, public)
                    .to_string()
                    .contains("does not connect"),
                "{host}"
            );
        }
        // Tests and private deployments: any address, http on loopback only.
        let any = IssuerAddresses::Any;
        assert!(IssuerUrl::parse("http://127.0.0.1:8080", any).is_ok());
        assert!(IssuerUrl::parse("http://localhost:8080", any).is_ok());
        assert!(IssuerUrl::parse("https://10.0.0.5/realms/x", any).is_ok());
        assert!(
            refused("http://10.0.0.5", any)
                .to_string()
                .contains("loopback")
        );
    }

    #[test]
    fn issuers_match_with_or_without_a_final_slash() {
        let issuer =
            IssuerUrl::parse("https://tenant.auth0.com/", IssuerAddresses::PublicOnly).unwrap();
        assert!(issuer.matches("https://tenant.auth0.com/"));
        assert!(issuer.matches("https://tenant.auth0.com"));
        assert!(!issuer.matches("https://tenant.auth0.com/other"));
        assert!(!issuer.matches("https://evil.example/"));
        assert_eq!(
            issuer.discovery_url(),
            "https://tenant.auth0.com/.well-known/openid-configuration"
        );
    }

    #[test]
    fn client_fields_are_bounded() {
        assert!(ClientId::parse(" ").is_err());
        assert!(ClientId::parse(&"a".repeat(256)).is_err());
        assert!(ClientId::parse("a\u{0}b").is_err());
        assert!(ClientSecret::parse("").is_err());
        assert!(ClientSecret::parse(&"s".repeat(1025)).is_err());
        assert_eq!(ClientId::parse(" id ").unwrap().as_str(), "id");
    }

    #[test]
    fn email_domains_are_required_exact_and_without_wildcards() {
        assert_eq!(
            EmailDomains::parse_list(" , ").unwrap_err(),
            SsoSettingsError::NoEmailDomain
        );
        assert!(
            EmailDomains::parse_list("*.example.com")
                .unwrap_err()
                .to_string()
                .contains("wildcards")
        );
        assert!(EmailDomains::parse_list("localhost").is_err());
        assert!(EmailDomains::parse_list("https://example.com").is_err());
        let many: Vec<String> = (0..=MAX_EMAIL_DOMAINS)
            .map(|i| format!("d{i}.example"))
            .collect();
        assert_eq!(
            EmailDomains::parse(many.iter().map(String::as_str)).unwrap_err(),
            SsoSettingsError::TooManyEmailDomains
        );
        let domains = EmailDomains::parse_list("example.com bücher.example").unwrap();
        assert!(domains.allows("Ann@EXAMPLE.com"));
        assert!(domains.allows("jo@xn--bcher-kva.example"));
        assert!(domains.allows("jo@Bücher.example"));
        assert!(!domains.allows("ann@sub.example.com"));
        assert!(!domains.allows("ann@example.com.evil.test"));
        assert!(!domains.allows("ann@notexample.com"));
        assert!(!domains.allows("no-at-sign"));
    }

    #[test]
    fn the_default_role_is_never_owner() {
        let owner = SsoSettingsInput {
            default_role: "owner",
            ..input()
        };
        assert_eq!(
            SsoSettings::parse(owner, IssuerAddresses::PublicOnly).unwrap_err(),
            SsoSettingsError::OwnerAsDefaultRole
        );
        let unknown = SsoSettingsInput {
            default_role: "boss",
            ..input()
        };
        assert!(
            SsoSettings::parse(unknown, IssuerAddresses::PublicOnly)
                .unwrap_err()
                .to_string()
                .contains("boss")
        );
        for role in [MemberRole::Admin, MemberRole::Member, MemberRole::Viewer] {
            assert_eq!(DefaultRole::new(role).unwrap().role(), role);
        }
    }

    #[test]
    fn redirect_uris_are_absolute_without_fragment() {
        assert!(RedirectUri::parse("https://qr.example/dashboard/sso/callback").is_ok());
        assert!(RedirectUri::parse("/dashboard/sso/callback").is_err());
        assert!(RedirectUri::parse("https://qr.example/cb#x").is_err());
        assert!(RedirectUri::parse("javascript:alert(1)").is_err());
    }
}
