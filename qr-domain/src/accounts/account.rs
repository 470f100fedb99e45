//! Accounts (workspaces): who owns keys, links and usage, on which plan; the operator's roles for users; plan requests and the sign-up policy.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::accounts::plan::{EnterpriseOverrides, Plan, PlanLimits};
use crate::ids::AccountId;

/// An account: the billing unit, shown to people as a workspace. It holds the plan, quotas,
/// keys, links, domains, designs, webhooks and analytics; users belong to it through
/// memberships (`accounts::user`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    /// The account's id.
    pub id: AccountId,
    /// The workspace's address: its creator's login address, moved along when its owner changes
    /// that address; it stays when the workspace is handed over. Several may share one.
    pub email: Email,
    /// The current plan.
    pub plan: Plan,
    /// Operator-set limits; they only apply on the Enterprise plan.
    pub overrides: EnterpriseOverrides,
    /// When the account was created.
    pub created_at: DateTime<Utc>,
    /// Whether the account may be used and its keys work.
    pub status: AccountStatus,
}

/// Whether an account is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountStatus {
    /// Logs in, and its keys work.
    #[default]
    Active,
    /// Disabled by the operator or an admin: nobody opens it in the dashboard, its keys answer 401.
    Disabled,
}

/// What a user may do to the service itself, beyond their workspaces.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A customer: their workspaces only.
    #[default]
    Customer,
    /// An admin: the admin pages (accounts, plan requests, plans, disabling).
    Admin,
    /// The owner created on first start: an admin who also makes and unmakes admins.
    Owner,
}

/// A customer's wish for a plan they may not pick themselves; the owner or an admin decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanRequest {
    /// The account asking (one pending request per account).
    pub account_id: AccountId,
    /// The plan asked for.
    pub plan: Plan,
    /// When it was asked.
    pub created_at: DateTime<Utc>,
}

/// The operator's sign-up settings: whether sign-up is open, and which plans a customer may
/// pick without approval (Free always; another plan becomes a [`PlanRequest`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignupPolicy {
    open: bool,
    self_service: BTreeSet<PlanKey>,
}

/// Plans in their table order, for a sorted set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct PlanKey(usize);

impl Account {
    /// A new active account.
    pub fn new(id: AccountId, email: Email, plan: Plan, created_at: DateTime<Utc>) -> Self {
        Self {
            id,
            email,
            plan,
            overrides: EnterpriseOverrides::default(),
            created_at,
            status: AccountStatus::Active,
        }
    }

    /// The limits in force for this account.
    pub fn limits(&self) -> PlanLimits {
        self.plan.limits(&self.overrides)
    }

    /// Whether the account is in use.
    pub fn is_active(&self) -> bool {
        self.status == AccountStatus::Active
    }
}

impl AccountStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            AccountStatus::Active => "active",
            AccountStatus::Disabled => "disabled",
        }
    }
}

impl FromStr for AccountStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "active" => Ok(AccountStatus::Active),
            "disabled" => Ok(AccountStatus::Disabled),
            other => Err(format!("unknown account status {other:?}")),
        }
    }
}

impl Role {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Customer => "customer",
            Role::Admin => "admin",
            Role::Owner => "owner",
        }
    }
}

impl FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "customer" => Ok(Role::Customer),
            "admin" => Ok(Role::Admin),
            "owner" => Ok(Role::Owner),
            other => Err(format!(
                "unknown role {other:?}: expected customer, admin or owner"
            )),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for AccountStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl SignupPolicy {
    /// Sign-up open or closed, with these plans self-service (Free is always added).
    pub fn new(open: bool, self_service: impl IntoIterator<Item = Plan>) -> Self {
        let key = |p: Plan| PlanKey(Plan::ALL.iter().position(|x| *x == p).unwrap_or(0));
        let mut plans: BTreeSet<PlanKey> = self_service.into_iter().map(key).collect();
        plans.insert(key(Plan::Free));
        Self {
            open,
            self_service: plans,
        }
    }

    /// Whether new customers may sign up.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Whether a customer may pick `plan` without approval.
    pub fn is_self_service(&self, plan: Plan) -> bool {
        self.self_service_plans().contains(&plan)
    }

    /// The self-service plans, cheapest first.
    pub fn self_service_plans(&self) -> Vec<Plan> {
        self.self_service
            .iter()
            .filter_map(|k| Plan::ALL.get(k.0).copied())
            .collect()
    }
}

impl Default for SignupPolicy {
    /// Open, Free only.
    fn default() -> Self {
        Self::new(true, [Plan::Free])
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
    fn policies_always_include_free() {
        let p = SignupPolicy::new(false, [Plan::Pro]);
        assert!(!p.is_open());
        assert_eq!(p.self_service_plans(), vec![Plan::Free, Plan::Pro]);
        assert!(!p.is_self_service(Plan::Starter));
        assert_eq!(
            SignupPolicy::default().self_service_plans(),
            vec![Plan::Free]
        );
        assert!(Role::Owner > Role::Admin && Role::Admin > Role::Customer);
        assert_eq!("ADMIN".parse::<Role>(), Ok(Role::Admin));
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
