//! Field types shared by several payloads: a telephone number, an e-mail address and a URL, each checked once when built.

use std::fmt;

use super::ContentError;

/// A telephone number: an optional leading `+`, then 3 to 15 digits (E.164 allows at most 15)
/// with optional spaces, `-`, `.`, `(` and `)` between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhoneNumber {
    written: String,
}

impl PhoneNumber {
    /// The number as written (kept for display in contacts), checked.
    pub fn new(number: &str) -> Result<PhoneNumber, ContentError> {
        const FIELD: &str = "phone number";
        let body = number.strip_prefix('+').unwrap_or(number);
        if body.is_empty() {
            return Err(ContentError::Empty { field: FIELD });
        }
        if let Some(character) = body
            .chars()
            .find(|c| !(c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')')))
        {
            return Err(ContentError::InvalidCharacter {
                field: FIELD,
                character,
            });
        }
        let digits = body.chars().filter(char::is_ascii_digit).count();
        if digits < 3 {
            return Err(ContentError::TooShort {
                field: FIELD,
                min: 3,
                length: digits,
                unit: "digits",
            });
        }
        if digits > 15 {
            return Err(ContentError::TooLong {
                field: FIELD,
                max: 15,
                length: digits,
                unit: "digits",
            });
        }
        Ok(PhoneNumber {
            written: number.to_owned(),
        })
    }

    /// The number as written.
    pub fn as_str(&self) -> &str {
        &self.written
    }

    /// The number as dialled: the `+` (if any) and the digits, no separators (the form of
    /// `tel:` URIs and `SMSTO:`).
    pub fn dialable(&self) -> String {
        self.written
            .chars()
            .filter(|&c| c == '+' || c.is_ascii_digit())
            .collect()
    }
}

impl fmt::Display for PhoneNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

/// An e-mail address `local@domain`: at most 254 bytes (RFC 5321), a local part of at most 64,
/// no spaces, quotes or other characters that would need quoting, and a dotted domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmailAddress(String);

impl EmailAddress {
    /// The address, checked.
    pub fn new(address: &str) -> Result<EmailAddress, ContentError> {
        const FIELD: &str = "e-mail address";
        const EXPECTED: &str = "an address like name@example.com";
        if address.is_empty() {
            return Err(ContentError::Empty { field: FIELD });
        }
        if address.len() > 254 {
            return Err(ContentError::TooLong {
                field: FIELD,
                max: 254,
                length: address.len(),
                unit: "bytes",
            });
        }
        if let Some(character) = address
            .chars()
            .find(|&c| c.is_whitespace() || c.is_control() || "\"(),:;<>[\\]?#%&=".contains(c))
        {
            return Err(ContentError::InvalidCharacter {
                field: FIELD,
                character,
            });
        }
        let invalid = ContentError::InvalidFormat {
            field: FIELD,
            expected: EXPECTED,
        };
        let Some((local, domain)) = address.split_once('@') else {
            return Err(invalid);
        };
        let dotted = |part: &str| {
            !part.is_empty()
                && !part.starts_with('.')
                && !part.ends_with('.')
                && !part.contains("..")
        };
        if !dotted(local) || local.len() > 64 || !dotted(domain) || domain.contains('@') {
            return Err(invalid);
        }
        Ok(EmailAddress(address.to_owned()))
    }

    /// The address.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An absolute URL: a scheme (a letter, then letters, digits, `+`, `-` or `.`), a colon and a
/// non-empty rest, with no spaces or control characters (RFC 3986 section 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebUrl(String);

impl WebUrl {
    /// The URL, checked.
    pub fn new(url: &str) -> Result<WebUrl, ContentError> {
        const FIELD: &str = "URL";
        if url.is_empty() {
            return Err(ContentError::Empty { field: FIELD });
        }
        if let Some(character) = url.chars().find(|c| c.is_whitespace() || c.is_control()) {
            return Err(ContentError::InvalidCharacter {
                field: FIELD,
                character,
            });
        }
        let scheme_ok = url.split_once(':').is_some_and(|(scheme, rest)| {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                && !rest.is_empty()
        });
        if !scheme_ok {
            return Err(ContentError::InvalidFormat {
                field: FIELD,
                expected: "an absolute URL such as https://example.com",
            });
        }
        Ok(WebUrl(url.to_owned()))
    }

    /// The URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phone_numbers_keep_their_form_and_dial_without_separators() {
        let number = PhoneNumber::new("+49 (30) 1234-567").expect("valid");
        assert_eq!(number.as_str(), "+49 (30) 1234-567");
        assert_eq!(number.dialable(), "+49301234567");
        assert!(matches!(
            PhoneNumber::new("+49 30 x"),
            Err(ContentError::InvalidCharacter { character: 'x', .. })
        ));
        assert!(matches!(
            PhoneNumber::new("+"),
            Err(ContentError::Empty { .. })
        ));
        assert!(matches!(
            PhoneNumber::new("12"),
            Err(ContentError::TooShort { .. })
        ));
        assert!(matches!(
            PhoneNumber::new("1234567890123456"),
            Err(ContentError::TooLong { max: 15, .. })
        ));
    }

    #[test]
    fn email_addresses_need_one_at_and_a_domain() {
        assert!(EmailAddress::new("jane.doe+qr@example.co.uk").is_ok());
        assert!(EmailAddress::new("jürgen@bücher.de").is_ok());
        for bad in [
            "jane",
            "@example.com",
            "jane@",
            "a@b@c",
            "jane..doe@x.org",
            "j@.x",
        ] {
            assert!(
                matches!(
                    EmailAddress::new(bad),
                    Err(ContentError::InvalidFormat { .. })
                ),
                "{bad}"
            );
        }
        assert_eq!(
            EmailAddress::new("jane doe@x.org")
                .expect_err("a space")
                .to_string(),
            "e-mail address contains ' ', which is not allowed there"
        );
    }

    #[test]
    fn urls_need_a_scheme() {
        assert!(WebUrl::new("https://example.com/a?b=c").is_ok());
        assert!(matches!(
            WebUrl::new("example.com"),
            Err(ContentError::InvalidFormat { .. })
        ));
        assert!(matches!(
            WebUrl::new("https://exa mple.com"),
            Err(ContentError::InvalidCharacter { character: ' ', .. })
        ));
    }
}
