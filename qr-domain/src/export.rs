//! Account export for data-protection requests: what an export holds, as records handed to a
//! writer ([`ExportSink`]) one section at a time, so that scans stream in pages and memory stays
//! bounded however many an account has. Secrets and their hashes are never part of it.

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use thiserror::Error;

use crate::accounts::access::KeySettings;
use crate::accounts::account::{Account, Role};
use crate::accounts::key::{ApiKey, KeyMode};
use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::{Plan, Retention};
use crate::dashboard::session::Session;
use crate::error::StoreError;
use crate::ids::{AccountId, KeyId};
use crate::links::link::Link;
use crate::scans::analytics::DayCount;
use crate::scans::scan::ScanRecord;

/// Scans read per page: 1,000 records of about 200 bytes each, so a page is about 200 KB.
pub const SCAN_PAGE: u32 = 1_000;

/// What the export says about the account: every stored field but the password's hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportHeader {
    /// When the export was made.
    pub exported_at: DateTime<Utc>,
    /// The account, with its owner's verification time and role as the export showed them
    /// when an account was one person.
    pub account: ExportedAccount,
    /// Whether the owner has a dashboard password (the hash itself is never exported).
    pub has_password: bool,
    /// The workspace's members: address, role, and when they joined.
    pub members: Vec<ExportedMember>,
    /// A pending request for another plan.
    pub plan_request: Option<ExportedPlanRequest>,
    /// Days of scans kept by the plan, `null` when unlimited.
    pub retention_days: Option<u32>,
}

/// The account as exported: its fields, and its owner's verification time and service role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedAccount {
    /// The account's own fields.
    #[serde(flatten)]
    pub account: Account,
    /// When the owner proved their address.
    pub email_verified_at: Option<DateTime<Utc>>,
    /// The owner's role on the service.
    pub role: Role,
}

/// A member of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedMember {
    /// Their login address.
    pub email: String,
    /// Their role in the workspace.
    pub role: MemberRole,
    /// When they joined.
    pub joined_at: DateTime<Utc>,
}

/// A pending plan request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedPlanRequest {
    /// The plan asked for.
    pub plan: Plan,
    /// When it was asked for.
    pub requested_at: DateTime<Utc>,
}

/// An API key's metadata: never its secret or the secret's hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedKey {
    /// The key's id.
    pub id: KeyId,
    /// Its name.
    pub name: String,
    /// Live or test.
    pub mode: KeyMode,
    /// The prefix and the secret's first four characters, as the dashboard shows them.
    pub display_prefix: String,
    /// The secret's last four characters.
    pub last_four: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last passed authentication.
    pub last_used_at: Option<DateTime<Utc>>,
    /// Its restrictions.
    pub settings: KeySettings,
}

/// A dashboard session: never its secret or hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedSession {
    /// The browser's User-Agent as stored.
    pub user_agent: String,
    /// When it was opened (the login).
    pub created_at: DateTime<Utc>,
    /// When it was last used.
    pub last_seen_at: DateTime<Utc>,
}

/// One link's retained analytics: scans and unique visitors per day, and the totals by
/// country, device and browser from the daily rollups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkAnalytics {
    /// First retained day.
    pub first: NaiveDate,
    /// Last day (today).
    pub last: NaiveDate,
    /// Every day of `first..=last` with scans, in order.
    pub days: Vec<DayCount>,
    /// Scans per country, most first.
    pub countries: Vec<(String, u64)>,
    /// Scans per device, most first.
    pub devices: Vec<(String, u64)>,
    /// Scans per browser, most first.
    pub browsers: Vec<(String, u64)>,
}

/// Receives an export in this order: the header, keys, sessions, API requests per day, the
/// links, then for each link its analytics and its retained scans (newest first, in pages,
/// between `begin_scans` and `end_scans`), and `finish`.
pub trait ExportSink {
    /// The account.
    fn header(&mut self, header: &ExportHeader) -> std::io::Result<()>;
    /// The keys' metadata, oldest first.
    fn keys(&mut self, keys: &[ExportedKey]) -> std::io::Result<()>;
    /// The dashboard sessions, oldest first.
    fn sessions(&mut self, sessions: &[ExportedSession]) -> std::io::Result<()>;
    /// Counted API requests per UTC day since the account was created, days without any left out.
    fn usage(&mut self, days: &[(NaiveDate, u64)]) -> std::io::Result<()>;
    /// The links, oldest first.
    fn links(&mut self, links: &[Link]) -> std::io::Result<()>;
    /// A link's retained analytics (`None` when nothing is retained).
    fn link_analytics(
        &mut self,
        link: &Link,
        analytics: Option<&LinkAnalytics>,
    ) -> std::io::Result<()>;
    /// The scans of `link` follow.
    fn begin_scans(&mut self, link: &Link) -> std::io::Result<()>;
    /// A page of at most [`SCAN_PAGE`] scans, newest first, continuing the previous page.
    fn scans(&mut self, page: &[ScanRecord]) -> std::io::Result<()>;
    /// The scans of the link are complete.
    fn end_scans(&mut self) -> std::io::Result<()>;
    /// Everything was handed over.
    fn finish(&mut self) -> std::io::Result<()>;
}

/// Why an export failed.
#[derive(Debug, Error)]
pub enum ExportError {
    /// No such account.
    #[error("account {0} not found")]
    AccountNotFound(AccountId),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The writer failed (disk full, client gone).
    #[error("cannot write the export: {0}")]
    Write(#[from] std::io::Error),
}

impl ExportedKey {
    /// The metadata of `key`.
    pub fn of(key: &ApiKey) -> Self {
        Self {
            id: key.id,
            name: key.name.clone(),
            mode: key.mode,
            display_prefix: key.display_prefix.clone(),
            last_four: key.last_four.clone(),
            created_at: key.created_at,
            last_used_at: key.last_used_at,
            settings: key.settings.clone(),
        }
    }
}

impl ExportedSession {
    /// The metadata of `session`.
    pub fn of(session: &Session) -> Self {
        Self {
            user_agent: session.user_agent.clone(),
            created_at: session.created_at,
            last_seen_at: session.last_seen_at,
        }
    }
}

/// Days of retention as the export states them.
pub(crate) fn retention_days(retention: Retention) -> Option<u32> {
    match retention {
        Retention::Unlimited => None,
        Retention::Days(n) => Some(n),
    }
}
