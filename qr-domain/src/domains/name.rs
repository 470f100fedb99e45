//! A customer's domain name: an IDNA hostname stored in its ASCII form (A-labels, lower case) and shown in both forms, never an IP literal, a port, a single label, or the service's own host or one of its subdomains.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Most octets of a name in its ASCII form (RFC 1035 §2.3.4: 255 on the wire, 253 as text).
pub const MAX_DOMAIN_CHARS: usize = 253;
/// Most octets of one label (RFC 1035 §2.3.4).
const MAX_LABEL_CHARS: usize = 63;
/// Most characters of the text a customer may type (a Unicode name is longer than its
/// Punycode form only by its multi-byte characters, 4 bytes each at most).
const MAX_INPUT_CHARS: usize = 4 * MAX_DOMAIN_CHARS;

/// A validated domain name in its ASCII form: A-labels, lower case, no final dot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct DomainName(String);

/// Why a text is not a domain name a customer may add.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DomainNameError {
    /// Empty after trimming.
    #[error("a domain name is required")]
    Empty,
    /// Longer than a DNS name may be.
    #[error("a domain name has at most {MAX_DOMAIN_CHARS} characters in its ASCII form")]
    TooLong,
    /// A scheme, path, query, user or port was given.
    #[error("give the host name alone, without a scheme, port or path (for example go.brand.com)")]
    NotBareHost,
    /// An IPv4 or IPv6 address.
    #[error("an IP address is not a domain name")]
    IpLiteral,
    /// One label only (`localhost`, `com`).
    #[error("a domain name has at least two labels (for example go.brand.com)")]
    SingleLabel,
    /// IDNA processing refused it, or a label breaks the hostname rules.
    #[error(
        "{0:?} is not a valid host name: labels are letters, digits and hyphens (or Unicode letters), 1 to 63 characters, not starting or ending with a hyphen"
    )]
    Invalid(String),
    /// The service's own host or a name under it.
    #[error("the service's own host and its subdomains cannot be added")]
    ServiceHost,
}

impl DomainName {
    /// Parses a name as a customer types it (Unicode or Punycode, any case, one final dot
    /// allowed), refusing the service's own host `service_host` (ASCII, no port) and its
    /// subdomains.
    pub fn parse(input: &str, service_host: &str) -> Result<Self, DomainNameError> {
        let name = Self::parse_any(input)?;
        let own = service_host.trim_end_matches('.').to_ascii_lowercase();
        if !own.is_empty() && (name.0 == own || name.0.ends_with(&format!(".{own}"))) {
            return Err(DomainNameError::ServiceHost);
        }
        Ok(name)
    }

    /// Parses a name without the service-host rule: for names read back from storage, from a
    /// `Host` header, or from another service's export.
    pub fn parse_any(input: &str) -> Result<Self, DomainNameError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(DomainNameError::Empty);
        }
        if input.chars().count() > MAX_INPUT_CHARS {
            return Err(DomainNameError::TooLong);
        }
        if input.contains(['/', '\\', '?', '#', '@', ':']) || input.contains(char::is_whitespace) {
            if input.parse::<std::net::IpAddr>().is_ok()
                || input
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<std::net::Ipv6Addr>()
                    .is_ok()
            {
                return Err(DomainNameError::IpLiteral);
            }
            return Err(DomainNameError::NotBareHost);
        }
        let input = input.strip_suffix('.').unwrap_or(input);
        if input.is_ascii() && input.len() > MAX_DOMAIN_CHARS {
            return Err(DomainNameError::TooLong);
        }
        if input.parse::<std::net::Ipv4Addr>().is_ok() {
            return Err(DomainNameError::IpLiteral);
        }
        let ascii = idna::domain_to_ascii_strict(input)
            .map_err(|_| DomainNameError::Invalid(input.to_owned()))?;
        if ascii.len() > MAX_DOMAIN_CHARS {
            return Err(DomainNameError::TooLong);
        }
        let labels: Vec<&str> = ascii.split('.').collect();
        if labels.len() < 2 {
            return Err(DomainNameError::SingleLabel);
        }
        for label in &labels {
            let ldh = !label.is_empty()
                && label.len() <= MAX_LABEL_CHARS
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-');
            if !ldh {
                return Err(DomainNameError::Invalid(input.to_owned()));
            }
        }
        // A top-level label of digits alone makes the name read as an IPv4 address in some
        // parsers (WHATWG URL's "ends in a number" rule): `1.2.3.4.5` or `example.123`.
        if labels
            .last()
            .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(DomainNameError::IpLiteral);
        }
        Ok(Self(ascii))
    }

    /// The ASCII form (A-labels): what DNS, TLS and the `Host` header carry.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The Unicode form, as people read it (equal to the ASCII form for ASCII names).
    pub fn unicode(&self) -> String {
        let (unicode, result) = idna::domain_to_unicode(&self.0);
        match result {
            Ok(()) => unicode,
            Err(_) => self.0.clone(),
        }
    }

    /// The name of the TXT record that proves ownership: `_qr-verify.<domain>`.
    pub fn verification_name(&self) -> String {
        format!("{VERIFICATION_LABEL}.{}", self.0)
    }
}

/// The label under which the ownership record is created.
pub const VERIFICATION_LABEL: &str = "_qr-verify";

impl fmt::Display for DomainName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for DomainName {
    type Error = DomainNameError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse_any(&value)
    }
}

impl From<DomainName> for String {
    fn from(value: DomainName) -> Self {
        value.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_lower_cased_and_kept_in_ascii() {
        let name = DomainName::parse("Go.Brand.COM.", "qr.example").unwrap();
        assert_eq!(name.as_str(), "go.brand.com");
        assert_eq!(name.unicode(), "go.brand.com");
    }

    #[test]
    fn unicode_names_are_stored_in_punycode_and_shown_in_both_forms() {
        let name = DomainName::parse("Bücher.example", "qr.example").unwrap();
        assert_eq!(name.as_str(), "xn--bcher-kva.example");
        assert_eq!(name.unicode(), "bücher.example");
        let again = DomainName::parse("xn--bcher-kva.example", "qr.example").unwrap();
        assert_eq!(again, name);
    }

    #[test]
    fn addresses_ports_paths_and_single_labels_are_refused() {
        for (input, error) in [
            ("", DomainNameError::Empty),
            ("   ", DomainNameError::Empty),
            ("127.0.0.1", DomainNameError::IpLiteral),
            ("[::1]", DomainNameError::IpLiteral),
            ("::1", DomainNameError::IpLiteral),
            ("1.2.3.4.5", DomainNameError::IpLiteral),
            ("go.brand.com:8443", DomainNameError::NotBareHost),
            ("https://go.brand.com", DomainNameError::NotBareHost),
            ("go.brand.com/path", DomainNameError::NotBareHost),
            ("user@go.brand.com", DomainNameError::NotBareHost),
            ("go brand.com", DomainNameError::NotBareHost),
            ("localhost", DomainNameError::SingleLabel),
        ] {
            assert_eq!(
                DomainName::parse(input, "qr.example"),
                Err(error),
                "{input:?}"
            );
        }
        for input in [
            "-go.brand.com",
            "go-.brand.com",
            "go..brand.com",
            "go_x.brand.com",
        ] {
            assert!(
                matches!(
                    DomainName::parse(input, "qr.example"),
                    Err(DomainNameError::Invalid(_))
                ),
                "{input:?}"
            );
        }
        let long = format!("{}.com", "a".repeat(64));
        assert!(DomainName::parse(&long, "qr.example").is_err());
        let too_long = vec!["abcdefghi"; 26].join(".");
        assert_eq!(
            DomainName::parse(&too_long, "qr.example"),
            Err(DomainNameError::TooLong)
        );
    }

    #[test]
    fn the_service_host_and_its_subdomains_are_refused() {
        for input in ["qr.example", "QR.Example.", "go.qr.example"] {
            assert_eq!(
                DomainName::parse(input, "qr.example"),
                Err(DomainNameError::ServiceHost),
                "{input:?}"
            );
        }
        assert!(DomainName::parse("notqr.example", "qr.example").is_ok());
    }

    #[test]
    fn the_verification_record_is_under_the_domain() {
        let name = DomainName::parse("go.brand.com", "qr.example").unwrap();
        assert_eq!(name.verification_name(), "_qr-verify.go.brand.com");
    }
}
