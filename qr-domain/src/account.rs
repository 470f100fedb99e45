//! Accounts: who owns keys, links and usage, and on which plan.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ids::AccountId;
use crate::plan::{EnterpriseOverrides, Plan, PlanLimits};

/// An account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    /// The account's id.
    pub id: AccountId,
    /// The contact e-mail address.
    pub email: Email,
    /// The current plan.
    pub plan: Plan,
    /// Operator-set limits; they only apply on the Enterprise plan.
    pub overrides: EnterpriseOverrides,
    /// When the account was created.
    pub created_at: DateTime<Utc>,
}

impl Account {
    /// The limits in force for this account.
    pub fn limits(&self) -> PlanLimits {
        self.plan.limits(&self.overrides)
    }
}

/// A syntactically plausible e-mail address (trimmed, one `@`, non-empty parts, at most 254 characters).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Email(String);

/// Why an e-mail address was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EmailError {
    /// The address is empty after trimming.
    #[error("the e-mail address is empty")]
    Empty,
    /// The address is longer than 254 characters.
    #[error("the e-mail address is longer than 254 characters")]
    TooLong,
    /// The address is not of the form local@domain.
    #[error("the e-mail address must look like name@example.com")]
    Malformed,
}

impl Email {
    /// Validates and trims an e-mail address.
    pub fn parse(raw: &str) -> Result<Self, EmailError> {
        let s = raw.trim();
        if s.is_empty() {
            return Err(EmailError::Empty);
        }
        if s.chars().count() > 254 {
            return Err(EmailError::TooLong);
        }
        let (local, domain) = s.split_once('@').ok_or(EmailError::Malformed)?;
        let bad = |part: &str| {
            part.is_empty() || part.chars().any(|c| c.is_whitespace() || c.is_control())
        };
        if bad(local) || bad(domain) || domain.contains('@') || !domain.contains('.') {
            return Err(EmailError::Malformed);
        }
        Ok(Self(s.to_owned()))
    }

    /// The address as text, as it was given (trimmed).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form in which addresses are compared: ASCII letters in lower case, every other
    /// character as written. An address belongs to at most one account under this comparison
    /// (`Owner@Example.com` and `owner@example.com` are one address); the address keeps the
    /// spelling its owner gave.
    pub fn lookup_key(&self) -> String {
        self.0.to_ascii_lowercase()
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for Email {
    type Error = EmailError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<Email> for String {
    fn from(e: Email) -> String {
        e.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: Result<&str, EmailError>) {
        assert_eq!(
            Email::parse(input).as_ref().map(Email::as_str),
            expected.as_deref(),
            "{input:?}"
        );
    }

    #[test]
    fn addresses_compare_without_regard_to_ascii_case() {
        let key = |s: &str| Email::parse(s).unwrap().lookup_key();
        assert_eq!(key(" Owner@Example.COM"), key("owner@example.com"));
        assert_eq!(
            Email::parse("Owner@Example.COM").unwrap().as_str(),
            "Owner@Example.COM"
        );
        assert_ne!(key("ÉLODIE@example.com"), key("élodie@example.com"));
    }

    #[test]
    fn email_cases() {
        check(" a@example.com ", Ok("a@example.com"));
        check("", Err(EmailError::Empty));
        check("   ", Err(EmailError::Empty));
        check("no-at.example.com", Err(EmailError::Malformed));
        check("a@b@example.com", Err(EmailError::Malformed));
        check("@example.com", Err(EmailError::Malformed));
        check("a@localhost", Err(EmailError::Malformed));
        check("a b@example.com", Err(EmailError::Malformed));
        check(
            &format!("{}@example.com", "a".repeat(250)),
            Err(EmailError::TooLong),
        );
    }
}
