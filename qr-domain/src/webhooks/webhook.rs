//! Webhooks: the endpoints an account registers (URL, events, signing secret), the events they
//! can receive, and why a registration is refused. What is written for them and sent is in
//! `outbox.rs`; `webhooks/service.rs` hands due outbox rows to a delivery worker and applies the
//! retry rules to its outcome.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use thiserror::Error;
use url::{Host, Url};
use uuid::Uuid;

use crate::error::StoreError;
use crate::ids::AccountId;
use crate::public_address::NonPublic;
use crate::random::{self, RandomError};
use crate::webhooks::outbox::timestamp;

/// Most webhooks one account may register: enough for a few systems and their staging copies,
/// while one account's fan-out per event stays small.
pub const MAX_WEBHOOKS_PER_ACCOUNT: usize = 10;
/// Longest endpoint URL, in characters (as for link targets).
pub const MAX_URL_CHARS: usize = 2048;
/// Most scans in one `scan.recorded` delivery.
pub const MAX_SCANS_PER_DELIVERY: usize = 1000;
/// Shortest and longest secret an account may choose (a generated one has 70 characters).
pub const SECRET_CHARS: std::ops::RangeInclusive<usize> = 16..=128;
/// Longest delivery error kept with an event, in characters.
pub const MAX_ERROR_CHARS: usize = 300;

/// An identifier shown as a prefix and 32 hex digits (`wh_…`, `evt_…`), a UUID inside.
macro_rules! uuid_like {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Uuid);

        impl $name {
            /// Draws a new random identifier.
            pub fn random() -> Self {
                Self(Uuid::new_v4())
            }

            /// Wraps a UUID read back from storage.
            pub fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }

            /// The UUID inside.
            pub fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{}", $prefix, self.0.simple())
            }
        }

        impl FromStr for $name {
            type Err = WebhookError;

            /// Parses the displayed form; anything else names no object ("not found").
            fn from_str(s: &str) -> Result<Self, WebhookError> {
                s.trim()
                    .strip_prefix($prefix)
                    .filter(|hex| hex.len() == 32)
                    .and_then(|hex| Uuid::try_parse(hex).ok())
                    .map(Self)
                    .ok_or(WebhookError::NotFound)
            }
        }
    };
}

uuid_like!(
    /// Identifier of a webhook endpoint.
    WebhookId,
    "wh_"
);
uuid_like!(
    /// Identifier of an event, the receiver's de-duplication key: every delivery of the event
    /// (to every endpoint, and every retry) carries the same id.
    EventId,
    "evt_"
);

/// The kinds of event an endpoint can subscribe to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    /// A link was created.
    LinkCreated,
    /// A link's name or target changed.
    LinkUpdated,
    /// A link was deleted.
    LinkDeleted,
    /// Scans were recorded (delivered in batches).
    ScanRecorded,
    /// The account used 80 % or 100 % of its monthly quota (once each per month).
    UsageThreshold,
}

impl EventKind {
    /// Every kind, in the order lists show them.
    pub const ALL: [EventKind; 5] = [
        EventKind::LinkCreated,
        EventKind::LinkUpdated,
        EventKind::LinkDeleted,
        EventKind::ScanRecorded,
        EventKind::UsageThreshold,
    ];

    /// The wire name (`link.created`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::LinkCreated => "link.created",
            EventKind::LinkUpdated => "link.updated",
            EventKind::LinkDeleted => "link.deleted",
            EventKind::ScanRecorded => "scan.recorded",
            EventKind::UsageThreshold => "usage.threshold",
        }
    }

    /// The kind of a wire name.
    pub fn parse(name: &str) -> Result<Self, WebhookError> {
        EventKind::ALL
            .into_iter()
            .find(|k| k.as_str() == name.trim())
            .ok_or_else(|| WebhookError::InvalidEvents(format!("unknown event {name:?}")))
    }

    /// The kind's bit in an [`EventSet`] (also its stored number).
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A non-empty set of event kinds, stored as a bit mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EventSet(u8);

impl EventSet {
    /// Parses wire names (at least one, each known; repeats are harmless).
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, WebhookError> {
        let mut set = EventSet(0);
        for name in names {
            set.0 |= EventKind::parse(name)?.bit();
        }
        if set.0 == 0 {
            return Err(WebhookError::InvalidEvents(
                "at least one event is required".into(),
            ));
        }
        Ok(set)
    }

    /// The set from its stored bit mask; unknown bits are corrupt data.
    pub fn from_bits(bits: i64) -> Result<Self, StoreError> {
        let all = EventKind::ALL.iter().fold(0, |m, k| m | i64::from(k.bit()));
        if bits == 0 || bits & !all != 0 {
            return Err(StoreError::Corrupt(format!("webhook event mask {bits}")));
        }
        Ok(EventSet(bits as u8))
    }

    /// The stored bit mask.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// Whether the set holds `kind`.
    pub fn contains(self, kind: EventKind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// The union of two sets.
    pub fn union(self, other: EventSet) -> EventSet {
        EventSet(self.0 | other.0)
    }

    /// The kinds held, in [`EventKind::ALL`]'s order.
    pub fn kinds(self) -> impl Iterator<Item = EventKind> {
        EventKind::ALL
            .into_iter()
            .filter(move |k| self.contains(*k))
    }
}

/// An endpoint URL: absolute http or https with a host, no credentials, at most 2,048 characters.
/// Whether its host is public is a separate rule ([`EndpointAddresses`]), checked at
/// registration for hosts written as addresses, and by the deliverer when it connects (what a
/// name resolves to may change after registration).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WebhookUrl(String);

impl WebhookUrl {
    /// Validates and normalises an endpoint URL.
    pub fn parse(raw: &str) -> Result<Self, WebhookError> {
        let bad = |why: &str| WebhookError::InvalidUrl(why.to_owned());
        let s = raw.trim();
        if s.is_empty() {
            return Err(bad("it is empty"));
        }
        if s.chars().count() > MAX_URL_CHARS {
            return Err(bad("it is longer than 2048 characters"));
        }
        let url = Url::parse(s).map_err(|e| bad(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("only http and https are allowed"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(bad("it has no host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("it must not contain credentials"));
        }
        if url.fragment().is_some() {
            return Err(bad("it must not contain a fragment"));
        }
        let normalised = String::from(url);
        if normalised.chars().count() > MAX_URL_CHARS {
            return Err(bad("it is longer than 2048 characters"));
        }
        Ok(Self(normalised))
    }

    /// A URL read back from storage.
    pub fn from_stored(s: String) -> Result<Self, StoreError> {
        Self::parse(&s).map_err(|e| StoreError::Corrupt(format!("webhook URL: {e}")))
    }

    /// The URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The host as written, and why it is not public, when that shows without resolving it: an
    /// IP address that is not public, or `localhost` and its subdomains (RFC 6761 reserves them
    /// for loopback). `None` for a public address or any other name.
    pub fn literal_non_public(&self) -> Option<(String, NonPublic)> {
        let url = Url::parse(&self.0).ok()?;
        let reason = match url.host()? {
            Host::Ipv4(ip) => NonPublic::of(IpAddr::V4(ip))?,
            Host::Ipv6(ip) => NonPublic::of(IpAddr::V6(ip))?,
            Host::Domain(name) => {
                let name = name.trim_end_matches('.');
                if name == "localhost" || name.ends_with(".localhost") {
                    NonPublic::Loopback
                } else {
                    return None;
                }
            }
        };
        Some((url.host_str()?.to_owned(), reason))
    }
}

/// Which endpoint hosts registration accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EndpointAddresses {
    /// Public addresses only (the default): a host written as a loopback, private, link-local,
    /// metadata or other non-public address ([`NonPublic`]), or `localhost`, is refused, since
    /// the deliverer would refuse every delivery to it.
    #[default]
    PublicOnly,
    /// Any address: tests and private deployments (the server's `--webhooks-allow-private`,
    /// which lets the deliverer connect to them too).
    Any,
}

impl EndpointAddresses {
    /// Refuses `url` when its host is, as written, an address this policy excludes.
    pub fn admit(self, url: &WebhookUrl) -> Result<(), WebhookError> {
        match (self, url.literal_non_public()) {
            (EndpointAddresses::PublicOnly, Some((host, reason))) => {
                Err(WebhookError::NonPublicHost { host, reason })
            }
            _ => Ok(()),
        }
    }
}

/// The secret an endpoint's deliveries are signed with. It has to be usable for HMAC, so it is
/// stored as given (docs/api.md says how it is protected); `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

impl WebhookSecret {
    /// A new secret: `whsec_` and 64 hex digits (256 random bits).
    pub fn generate() -> Result<Self, RandomError> {
        Ok(Self(format!("whsec_{}", random::hex_secret()?)))
    }

    /// A secret the account chose: 16 to 128 printable ASCII characters without spaces.
    pub fn parse(raw: &str) -> Result<Self, WebhookError> {
        let ok = SECRET_CHARS.contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_graphic());
        if ok {
            Ok(Self(raw.to_owned()))
        } else {
            Err(WebhookError::InvalidSecret)
        }
    }

    /// A secret read back from storage.
    pub fn from_stored(s: String) -> Self {
        Self(s)
    }

    /// The secret itself, for signing and for the one answer that shows it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(..)")
    }
}

/// A registered endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    /// The endpoint's id.
    pub id: WebhookId,
    /// The owning account.
    pub account_id: AccountId,
    /// Where deliveries go.
    pub url: WebhookUrl,
    /// The events wanted.
    pub events: EventSet,
    /// The signing secret.
    pub secret: WebhookSecret,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
}

/// The endpoint as lists show it: `{id, url, events, createdAt}`, never the secret.
impl serde::Serialize for Webhook {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Webhook", 4)?;
        s.serialize_field("id", &self.id.to_string())?;
        s.serialize_field("url", self.url.as_str())?;
        s.serialize_field(
            "events",
            &self
                .events
                .kinds()
                .map(EventKind::as_str)
                .collect::<Vec<_>>(),
        )?;
        s.serialize_field("createdAt", &timestamp(self.created_at))?;
        s.end()
    }
}

/// Why a webhook request was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WebhookError {
    /// The endpoint URL is not acceptable.
    #[error("Invalid url: {0}")]
    InvalidUrl(String),
    /// The events list is empty or names an unknown event.
    #[error(
        "Invalid events: {0}; the events are link.created, link.updated, link.deleted, scan.recorded and usage.threshold"
    )]
    InvalidEvents(String),
    /// The endpoint's host is written as a non-public address (or `localhost`), which
    /// deliveries would never reach.
    #[error("Invalid url: {host} is {reason}; webhooks are only delivered to public addresses")]
    NonPublicHost {
        /// The host as the URL writes it (`127.0.0.1`, `[::1]`, `localhost`).
        host: String,
        /// Why it is not public.
        reason: NonPublic,
    },
    /// A chosen secret is too short, too long or has spaces or non-ASCII characters.
    #[error("Invalid secret: it must be 16 to 128 printable ASCII characters without spaces")]
    InvalidSecret,
    /// The account already has the most webhooks allowed.
    #[error(
        "Webhook limit reached: an account may register at most {0} webhooks; delete one first"
    )]
    LimitReached(usize),
    /// Unknown, malformed or another account's webhook.
    #[error("Webhook not found")]
    NotFound,
    /// Drawing a secret failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The caller may not manage webhooks (members, viewers, a key without `webhooks`).
    #[error(transparent)]
    NotPermitted(#[from] crate::accounts::permissions::NotPermitted),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sets_and_ids_roundtrip() {
        let set = EventSet::parse(["link.created", " scan.recorded", "link.created"]).unwrap();
        assert_eq!(
            set.kinds().collect::<Vec<_>>(),
            [EventKind::LinkCreated, EventKind::ScanRecorded]
        );
        assert_eq!(EventSet::from_bits(i64::from(set.bits())).unwrap(), set);
        assert!(EventSet::from_bits(0).is_err() && EventSet::from_bits(64).is_err());
        assert!(matches!(
            EventSet::parse([]),
            Err(WebhookError::InvalidEvents(_))
        ));
        assert!(matches!(
            EventSet::parse(["link.exploded"]),
            Err(WebhookError::InvalidEvents(_))
        ));
        let id = WebhookId::random();
        assert_eq!(id.to_string().parse::<WebhookId>().unwrap(), id);
        assert!(id.to_string().starts_with("wh_") && id.to_string().len() == 35);
        assert_eq!(
            "wh_nothex".parse::<WebhookId>(),
            Err(WebhookError::NotFound)
        );
        assert_eq!(
            id.as_uuid().to_string().parse::<WebhookId>(),
            Err(WebhookError::NotFound)
        );
    }

    #[test]
    fn urls_and_secrets_are_validated() {
        assert_eq!(
            WebhookUrl::parse(" HTTPS://Example.COM/hook ")
                .unwrap()
                .as_str(),
            "https://example.com/hook"
        );
        for bad in [
            "",
            "ftp://example.com/",
            "https://user:pw@example.com/",
            "/relative",
            "https://example.com/#frag",
        ] {
            assert!(
                matches!(WebhookUrl::parse(bad), Err(WebhookError::InvalidUrl(_))),
                "{bad}"
            );
        }
        let long = format!("https://example.com/{}", "a".repeat(2100));
        assert!(WebhookUrl::parse(&long).is_err());
        let s = WebhookSecret::generate().unwrap();
        assert!(s.expose().starts_with("whsec_") && s.expose().len() == 70);
        assert_eq!(format!("{s:?}"), "WebhookSecret(..)");
        assert!(WebhookSecret::parse("short").is_err());
        assert!(WebhookSecret::parse("has a space in it here").is_err());
        assert!(WebhookSecret::parse("sixteen-chars-ok").is_ok());
    }

    #[test]
    fn hosts_written_as_non_public_addresses_are_refused_unless_any_is_allowed() {
        use NonPublic::*;
        for (url, host, reason) in [
            ("http://127.0.0.1:8080/hook", "127.0.0.1", Loopback),
            ("http://2130706433/hook", "127.0.0.1", Loopback),
            ("http://0x7f.1/hook", "127.0.0.1", Loopback),
            ("http://[::1]/hook", "[::1]", Loopback),
            (
                "http://[::ffff:127.0.0.1]/hook",
                "[::ffff:7f00:1]",
                Loopback,
            ),
            ("http://localhost:9/hook", "localhost", Loopback),
            ("http://api.LOCALHOST./hook", "api.localhost.", Loopback),
            ("http://0.0.0.0/", "0.0.0.0", Unspecified),
            ("https://10.1.2.3/hook", "10.1.2.3", Private),
            ("https://192.168.0.10/hook", "192.168.0.10", Private),
            ("https://[fd12:3456::1]/hook", "[fd12:3456::1]", Private),
            ("https://100.64.0.1/hook", "100.64.0.1", SharedAddressSpace),
            ("http://169.254.1.1/hook", "169.254.1.1", LinkLocal),
            ("http://[fe80::1]/hook", "[fe80::1]", LinkLocal),
            (
                "http://169.254.169.254/latest/hook",
                "169.254.169.254",
                CloudMetadata,
            ),
        ] {
            let parsed = WebhookUrl::parse(url).unwrap();
            assert_eq!(
                EndpointAddresses::PublicOnly.admit(&parsed),
                Err(WebhookError::NonPublicHost {
                    host: host.to_owned(),
                    reason
                }),
                "{url}"
            );
            assert_eq!(EndpointAddresses::Any.admit(&parsed), Ok(()), "{url}");
        }
        for public in [
            "https://hooks.example.com/in",
            "https://93.184.216.34/in",
            "https://[2606:4700::1111]/in",
            "https://localhost.example.com/in",
            "https://mylocalhost/in",
        ] {
            let parsed = WebhookUrl::parse(public).unwrap();
            assert_eq!(
                EndpointAddresses::PublicOnly.admit(&parsed),
                Ok(()),
                "{public}"
            );
        }
        let refusal = EndpointAddresses::PublicOnly
            .admit(&WebhookUrl::parse("http://169.254.169.254/latest/hook").unwrap())
            .unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "Invalid url: 169.254.169.254 is a cloud metadata address; webhooks are only delivered to public addresses"
        );
    }
}
