//! Who may do what in a workspace: the operations, the members' roles, the API keys' scopes, and the one table that decides for both.
//!
//! A workspace is an account (the billing unit: plan, quotas, keys, links, domains, designs,
//! webhooks, analytics). People act in it as members with a [`MemberRole`]; programs act in it
//! with an API key, whose access is full (keys made before scopes) or limited to its
//! [`Scope`]s. Every check of either goes through [`Grant::allows`], so one table answers
//! "may this caller do this" for the dashboard, the API and the CLI alike.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Something a caller may do in a workspace. Reads and writes of an area are separate, so a
/// viewer and a `links:read` key can be told apart from those who change things.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operation {
    /// List and read links, and download their codes.
    ReadLinks,
    /// Create, change and delete links (one by one, in bulk, or by import).
    WriteLinks,
    /// Read scan analytics and export scans.
    ReadAnalytics,
    /// Render codes of any data (`GET /api/generate`, the designer).
    Generate,
    /// Render many codes at once (`POST /api/batch`, label sheets).
    Batch,
    /// List and read saved designs.
    ReadDesigns,
    /// Create, change, delete designs and choose the default one.
    WriteDesigns,
    /// List the workspace's own domains (to place a link on one).
    ReadDomains,
    /// Add, check, configure and remove domains.
    WriteDomains,
    /// List webhooks.
    ReadWebhooks,
    /// Register and remove webhooks.
    WriteWebhooks,
    /// Read this month's usage and the plan's limits.
    ReadUsage,
    /// Download the workspace's whole data (`GET /api/account/export`).
    Export,
    /// See the API keys.
    ReadKeys,
    /// Create, restrict, regenerate and revoke API keys.
    WriteKeys,
    /// See who belongs to the workspace and the pending invitations.
    ReadMembers,
    /// Invite, remove members and change their roles (never to or from owner).
    WriteMembers,
    /// Read the audit log.
    ReadAudit,
    /// Change the workspace's settings: its name, required two-factor login, single sign-on.
    WriteSettings,
    /// Change the plan, or ask the operator for one.
    ChangePlan,
    /// Delete the workspace with everything in it.
    DeleteWorkspace,
    /// Hand the workspace to another member.
    TransferOwnership,
}

/// A member's role in a workspace, most powerful first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemberRole {
    /// Everything: the plan, deleting the workspace, transferring ownership. One per workspace.
    Owner,
    /// Everything but the plan, deleting the workspace and transferring ownership.
    Admin,
    /// Links, designs, codes and analytics; no keys, webhooks, domains or members.
    Member,
    /// Reads only.
    Viewer,
}

/// What an API key may reach: one area, or every read. A key without scopes (every key made
/// before scopes) has full access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Scope {
    /// Every read a key can make: links, analytics, designs, domains, webhooks.
    ReadOnly,
    /// Read links and download their codes.
    LinksRead,
    /// Create, change and delete links; reading them is included.
    LinksWrite,
    /// Read analytics and export scans.
    AnalyticsRead,
    /// `GET /api/generate`.
    Generate,
    /// `POST /api/batch` and label sheets.
    Batch,
    /// Read and manage domains.
    Domains,
    /// Read and manage designs.
    Designs,
    /// Read and manage webhooks.
    Webhooks,
}

/// What a caller has been granted in a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// A member with this role (the dashboard, or the CLI acting for a user).
    Member(MemberRole),
    /// An API key without scopes: everything a key can do.
    FullKey,
    /// An API key limited to these scopes (never empty).
    ScopedKey(ScopeSet),
}

/// A non-empty set of scopes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "Vec<Scope>", into = "Vec<Scope>")]
pub struct ScopeSet(BTreeSet<Scope>);

/// Why a list of scopes was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ScopeError {
    /// A name that is no scope.
    #[error(
        "unknown scope {0:?}: expected read-only, links:read, links:write, analytics:read, generate, batch, domains, designs or webhooks"
    )]
    Unknown(String),
    /// An empty list: a key that may do nothing is a mistake (leave scopes out for full access).
    #[error("a key needs at least one scope; leave the scopes out for full access")]
    Empty,
}

/// A caller was refused an operation. Its message is the spec's 403 answer for keys; the
/// dashboard words it by the variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("API key not authorized for this endpoint")]
pub struct NotPermitted {
    /// What was refused.
    pub operation: Operation,
}

impl Operation {
    /// Every operation, in table order.
    pub const ALL: [Operation; 22] = [
        Operation::ReadLinks,
        Operation::WriteLinks,
        Operation::ReadAnalytics,
        Operation::Generate,
        Operation::Batch,
        Operation::ReadDesigns,
        Operation::WriteDesigns,
        Operation::ReadDomains,
        Operation::WriteDomains,
        Operation::ReadWebhooks,
        Operation::WriteWebhooks,
        Operation::ReadUsage,
        Operation::Export,
        Operation::ReadKeys,
        Operation::WriteKeys,
        Operation::ReadMembers,
        Operation::WriteMembers,
        Operation::ReadAudit,
        Operation::WriteSettings,
        Operation::ChangePlan,
        Operation::DeleteWorkspace,
        Operation::TransferOwnership,
    ];

    /// Whether the operation only reads.
    pub fn is_read(self) -> bool {
        matches!(
            self,
            Operation::ReadLinks
                | Operation::ReadAnalytics
                | Operation::ReadDesigns
                | Operation::ReadDomains
                | Operation::ReadWebhooks
                | Operation::ReadUsage
                | Operation::ReadKeys
                | Operation::ReadMembers
                | Operation::ReadAudit
        )
    }
}

impl MemberRole {
    /// Every role, most powerful first.
    pub const ALL: [MemberRole; 4] = [
        MemberRole::Owner,
        MemberRole::Admin,
        MemberRole::Member,
        MemberRole::Viewer,
    ];

    /// The role's table row: whether a member with it may do `op`.
    pub fn allows(self, op: Operation) -> bool {
        use Operation as O;
        match self {
            MemberRole::Owner => true,
            MemberRole::Admin => !matches!(
                op,
                O::ChangePlan | O::DeleteWorkspace | O::TransferOwnership
            ),
            MemberRole::Member => matches!(
                op,
                O::ReadLinks
                    | O::WriteLinks
                    | O::ReadAnalytics
                    | O::Generate
                    | O::Batch
                    | O::ReadDesigns
                    | O::WriteDesigns
                    | O::ReadDomains
                    | O::ReadUsage
            ),
            MemberRole::Viewer => matches!(
                op,
                O::ReadLinks | O::ReadAnalytics | O::ReadDesigns | O::ReadDomains | O::ReadUsage
            ),
        }
    }

    /// The stored and API name.
    pub fn as_str(self) -> &'static str {
        match self {
            MemberRole::Owner => "owner",
            MemberRole::Admin => "admin",
            MemberRole::Member => "member",
            MemberRole::Viewer => "viewer",
        }
    }

    /// What the dashboard calls the role.
    pub fn title(self) -> &'static str {
        match self {
            MemberRole::Owner => "Owner",
            MemberRole::Admin => "Admin",
            MemberRole::Member => "Member",
            MemberRole::Viewer => "Viewer",
        }
    }
}

impl FromStr for MemberRole {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        MemberRole::ALL
            .into_iter()
            .find(|r| r.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown role {s:?}: expected owner, admin, member or viewer"))
    }
}

impl fmt::Display for MemberRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Scope {
    /// Every scope, in the order the dashboard lists them.
    pub const ALL: [Scope; 9] = [
        Scope::ReadOnly,
        Scope::LinksRead,
        Scope::LinksWrite,
        Scope::AnalyticsRead,
        Scope::Generate,
        Scope::Batch,
        Scope::Domains,
        Scope::Designs,
        Scope::Webhooks,
    ];

    /// The scope's name in the API, the CLI and the dashboard.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::ReadOnly => "read-only",
            Scope::LinksRead => "links:read",
            Scope::LinksWrite => "links:write",
            Scope::AnalyticsRead => "analytics:read",
            Scope::Generate => "generate",
            Scope::Batch => "batch",
            Scope::Domains => "domains",
            Scope::Designs => "designs",
            Scope::Webhooks => "webhooks",
        }
    }

    /// What the scope reaches, in one line for the dashboard's checkboxes and the CLI's help.
    pub fn describe(self) -> &'static str {
        match self {
            Scope::ReadOnly => {
                "Read links, analytics, designs, domains and webhooks; change nothing"
            }
            Scope::LinksRead => "List and read links, and download their codes",
            Scope::LinksWrite => "Create, change and delete links (reading them included)",
            Scope::AnalyticsRead => "Read scan analytics and export scans",
            Scope::Generate => "Render codes of any data (GET /api/generate)",
            Scope::Batch => {
                "Render many codes at once and label sheets (POST /api/batch, /api/print)"
            }
            Scope::Domains => "Read and manage domains",
            Scope::Designs => "Read and manage saved designs",
            Scope::Webhooks => "Read and manage webhooks",
        }
    }

    /// The scope's table row: whether it reaches `op`.
    pub fn allows(self, op: Operation) -> bool {
        use Operation as O;
        match self {
            Scope::ReadOnly => matches!(
                op,
                O::ReadLinks | O::ReadAnalytics | O::ReadDesigns | O::ReadDomains | O::ReadWebhooks
            ),
            Scope::LinksRead => op == O::ReadLinks,
            Scope::LinksWrite => matches!(op, O::ReadLinks | O::WriteLinks),
            Scope::AnalyticsRead => op == O::ReadAnalytics,
            Scope::Generate => op == O::Generate,
            Scope::Batch => op == O::Batch,
            Scope::Domains => matches!(op, O::ReadDomains | O::WriteDomains),
            Scope::Designs => matches!(op, O::ReadDesigns | O::WriteDesigns),
            Scope::Webhooks => matches!(op, O::ReadWebhooks | O::WriteWebhooks),
        }
    }
}

impl FromStr for Scope {
    type Err = ScopeError;

    fn from_str(s: &str) -> Result<Self, ScopeError> {
        Scope::ALL
            .into_iter()
            .find(|scope| scope.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ScopeError::Unknown(s.to_owned()))
    }
}

impl TryFrom<String> for Scope {
    type Error = ScopeError;

    fn try_from(s: String) -> Result<Self, ScopeError> {
        s.parse()
    }
}

impl From<Scope> for String {
    fn from(scope: Scope) -> String {
        scope.as_str().to_owned()
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ScopeSet {
    /// A set of at least one scope.
    pub fn new(scopes: impl IntoIterator<Item = Scope>) -> Result<Self, ScopeError> {
        let set: BTreeSet<Scope> = scopes.into_iter().collect();
        if set.is_empty() {
            return Err(ScopeError::Empty);
        }
        Ok(Self(set))
    }

    /// Scopes by name (`links:read`, ...), as typed in a form, a flag or a request.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, ScopeError> {
        let scopes = names
            .into_iter()
            .map(str::parse)
            .collect::<Result<Vec<Scope>, _>>()?;
        Self::new(scopes)
    }

    /// Whether one of the scopes reaches `op`.
    pub fn allows(&self, op: Operation) -> bool {
        self.0.iter().any(|scope| scope.allows(op))
    }

    /// Whether the set holds `scope`.
    pub fn contains(&self, scope: Scope) -> bool {
        self.0.contains(&scope)
    }

    /// The scopes in their listing order.
    pub fn iter(&self) -> impl Iterator<Item = Scope> + '_ {
        self.0.iter().copied()
    }
}

impl TryFrom<Vec<Scope>> for ScopeSet {
    type Error = ScopeError;

    fn try_from(scopes: Vec<Scope>) -> Result<Self, ScopeError> {
        Self::new(scopes)
    }
}

impl From<ScopeSet> for Vec<Scope> {
    fn from(set: ScopeSet) -> Vec<Scope> {
        set.0.into_iter().collect()
    }
}

impl Grant {
    /// The one decision: whether this caller may do `op`. A key never manages keys, members,
    /// the audit log, settings, the plan or the workspace itself (those are the dashboard's and
    /// the CLI's); a full-access key may export the workspace and read its usage; any key may
    /// read its usage.
    pub fn allows(&self, op: Operation) -> bool {
        match self {
            Grant::Member(role) => role.allows(op),
            Grant::FullKey => key_reachable(op),
            Grant::ScopedKey(scopes) => op == Operation::ReadUsage || scopes.allows(op),
        }
    }

    /// [`Grant::allows`] as a result, for `?`.
    pub fn require(&self, op: Operation) -> Result<(), NotPermitted> {
        if self.allows(op) {
            Ok(())
        } else {
            Err(NotPermitted { operation: op })
        }
    }
}

/// What an API key can reach at all: the areas of the API. Keys, members, the audit log,
/// settings, the plan and the workspace are managed by people.
fn key_reachable(op: Operation) -> bool {
    use Operation as O;
    !matches!(
        op,
        O::ReadKeys
            | O::WriteKeys
            | O::ReadMembers
            | O::WriteMembers
            | O::ReadAudit
            | O::WriteSettings
            | O::ChangePlan
            | O::DeleteWorkspace
            | O::TransferOwnership
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemberRole::{Admin, Member, Owner, Viewer};
    use Operation as O;

    /// The role table written out cell by cell, so a change to the rules above must be made
    /// here too (O = owner, A = admin, M = member, V = viewer).
    const ROLE_TABLE: [(Operation, &str); 22] = [
        (O::ReadLinks, "OAMV"),
        (O::WriteLinks, "OAM"),
        (O::ReadAnalytics, "OAMV"),
        (O::Generate, "OAM"),
        (O::Batch, "OAM"),
        (O::ReadDesigns, "OAMV"),
        (O::WriteDesigns, "OAM"),
        (O::ReadDomains, "OAMV"),
        (O::WriteDomains, "OA"),
        (O::ReadWebhooks, "OA"),
        (O::WriteWebhooks, "OA"),
        (O::ReadUsage, "OAMV"),
        (O::Export, "OA"),
        (O::ReadKeys, "OA"),
        (O::WriteKeys, "OA"),
        (O::ReadMembers, "OA"),
        (O::WriteMembers, "OA"),
        (O::ReadAudit, "OA"),
        (O::WriteSettings, "OA"),
        (O::ChangePlan, "O"),
        (O::DeleteWorkspace, "O"),
        (O::TransferOwnership, "O"),
    ];

    fn letter(role: MemberRole) -> char {
        match role {
            Owner => 'O',
            Admin => 'A',
            Member => 'M',
            Viewer => 'V',
        }
    }

    #[test]
    fn every_role_and_operation_is_as_the_table_says() {
        assert_eq!(
            ROLE_TABLE.map(|(op, _)| op),
            Operation::ALL,
            "the table lists every operation once, in order"
        );
        for (op, allowed) in ROLE_TABLE {
            for role in MemberRole::ALL {
                assert_eq!(
                    Grant::Member(role).allows(op),
                    allowed.contains(letter(role)),
                    "{role} × {op:?}"
                );
            }
        }
    }

    #[test]
    fn a_viewer_only_reads_and_each_role_holds_the_next_ones_rights() {
        for op in Operation::ALL {
            if Viewer.allows(op) {
                assert!(op.is_read(), "{op:?}");
            }
            for pair in MemberRole::ALL.windows(2) {
                assert!(
                    !pair[1].allows(op) || pair[0].allows(op),
                    "{} may {op:?} but {} may not",
                    pair[1],
                    pair[0]
                );
            }
        }
    }

    /// Each scope's reach, written out (every operation not listed is refused).
    const SCOPE_TABLE: [(Scope, &[Operation]); 9] = [
        (
            Scope::ReadOnly,
            &[
                O::ReadLinks,
                O::ReadAnalytics,
                O::ReadDesigns,
                O::ReadDomains,
                O::ReadWebhooks,
                O::ReadUsage,
            ],
        ),
        (Scope::LinksRead, &[O::ReadLinks, O::ReadUsage]),
        (
            Scope::LinksWrite,
            &[O::ReadLinks, O::WriteLinks, O::ReadUsage],
        ),
        (Scope::AnalyticsRead, &[O::ReadAnalytics, O::ReadUsage]),
        (Scope::Generate, &[O::Generate, O::ReadUsage]),
        (Scope::Batch, &[O::Batch, O::ReadUsage]),
        (
            Scope::Domains,
            &[O::ReadDomains, O::WriteDomains, O::ReadUsage],
        ),
        (
            Scope::Designs,
            &[O::ReadDesigns, O::WriteDesigns, O::ReadUsage],
        ),
        (
            Scope::Webhooks,
            &[O::ReadWebhooks, O::WriteWebhooks, O::ReadUsage],
        ),
    ];

    #[test]
    fn every_scope_and_operation_is_as_the_table_says() {
        assert_eq!(SCOPE_TABLE.map(|(s, _)| s), Scope::ALL);
        for (scope, reach) in SCOPE_TABLE {
            let grant = Grant::ScopedKey(ScopeSet::new([scope]).unwrap());
            for op in Operation::ALL {
                assert_eq!(grant.allows(op), reach.contains(&op), "{scope} × {op:?}");
            }
        }
    }

    #[test]
    fn full_keys_reach_the_api_and_never_what_people_manage() {
        let reach: Vec<Operation> = Operation::ALL
            .into_iter()
            .filter(|op| Grant::FullKey.allows(*op))
            .collect();
        assert_eq!(
            reach,
            [
                O::ReadLinks,
                O::WriteLinks,
                O::ReadAnalytics,
                O::Generate,
                O::Batch,
                O::ReadDesigns,
                O::WriteDesigns,
                O::ReadDomains,
                O::WriteDomains,
                O::ReadWebhooks,
                O::WriteWebhooks,
                O::ReadUsage,
                O::Export,
            ]
        );
        let every_scope = Grant::ScopedKey(ScopeSet::new(Scope::ALL).unwrap());
        for op in Operation::ALL {
            if every_scope.allows(op) {
                assert!(Grant::FullKey.allows(op), "{op:?}");
            }
        }
        assert!(!every_scope.allows(O::Export), "export needs a full key");
    }

    #[test]
    fn scopes_parse_by_name_and_refuse_unknown_or_none() {
        let set = ScopeSet::parse(["links:read", " Generate "]).unwrap();
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            [Scope::LinksRead, Scope::Generate]
        );
        assert_eq!(
            ScopeSet::parse(["links:admin"]),
            Err(ScopeError::Unknown("links:admin".into()))
        );
        assert_eq!(ScopeSet::parse([]), Err(ScopeError::Empty));
        assert_eq!(
            serde_json::to_string(&set).unwrap(),
            r#"["links:read","generate"]"#
        );
        assert_eq!(
            serde_json::from_str::<ScopeSet>(r#"["read-only"]"#).unwrap(),
            ScopeSet::new([Scope::ReadOnly]).unwrap()
        );
        assert!(serde_json::from_str::<ScopeSet>("[]").is_err());
        for scope in Scope::ALL {
            assert_eq!(scope.as_str().parse::<Scope>(), Ok(scope));
        }
        for role in MemberRole::ALL {
            assert_eq!(role.as_str().parse::<MemberRole>(), Ok(role));
        }
        assert!("customer".parse::<MemberRole>().is_err());
    }

    #[test]
    fn a_refusal_speaks_the_specs_message() {
        let err = Grant::Member(Viewer).require(O::WriteLinks).unwrap_err();
        assert_eq!(err.to_string(), "API key not authorized for this endpoint");
        assert_eq!(err.operation, O::WriteLinks);
        assert_eq!(Grant::Member(Owner).require(O::DeleteWorkspace), Ok(()));
    }
}
