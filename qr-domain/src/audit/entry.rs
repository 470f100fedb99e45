//! What one audit log entry records: when, who (the actor with their label at the time), what (a typed action), on which object, the changed fields, and the client's network.
//!
//! An entry never holds a secret: actors are named by id and label (a key's name and display
//! prefix, a user's e-mail address), and secret fields appear as changed without values
//! ([`ChangeValues::Hidden`], see `summary.rs`). The client's address is kept as its network
//! only ([`ClientNetwork`]), the privacy rule the access log follows.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::accounts::access::canonical;
use crate::accounts::caller::{Actor, Caller};
use crate::ids::AccountId;

/// The longest text an entry keeps for one value, in characters: a before/after value, a
/// label or an object id. Longer text is cut there and ends with `…`, so a 256 KB
/// `apple-app-site-association` document costs the log 500 characters, not 256 KB.
pub const MAX_VALUE_CHARS: usize = 500;

/// An entry's id: assigned by the store, increasing with every append in the store, so newest
/// first is highest id first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AuditId(pub i64);

impl fmt::Display for AuditId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What kind of actor made a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActorKind {
    /// A person in the dashboard.
    User,
    /// A program with an API key.
    Key,
    /// The operator's `qr` command.
    Operator,
}

impl ActorKind {
    /// The stored and shown name.
    pub fn as_str(self) -> &'static str {
        match self {
            ActorKind::User => "user",
            ActorKind::Key => "key",
            ActorKind::Operator => "operator",
        }
    }
}

impl FromStr for ActorKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        [ActorKind::User, ActorKind::Key, ActorKind::Operator]
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown actor kind {s:?}: expected user, key or operator"))
    }
}

/// Who made a change, as the log keeps it: kind, id and the label at the time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditActor {
    /// User, key or operator.
    pub kind: ActorKind,
    /// The user's or key's id; empty for the operator.
    pub id: String,
    /// The e-mail address or the key's name and display prefix at the time; `operator` for the
    /// operator.
    pub label: String,
}

/// What was done. The names (`link.created`, …) are the log's interface: the dashboard, the
/// CSV export and `qr audit` show them and filter by them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AuditAction {
    /// A link was created (one by one, in bulk or by import).
    LinkCreated,
    /// A link's fields changed.
    LinkUpdated,
    /// A link was deleted.
    LinkDeleted,
    /// A design was saved.
    DesignCreated,
    /// A design changed (the default flag included).
    DesignUpdated,
    /// A design was removed.
    DesignDeleted,
    /// A domain was added.
    DomainAdded,
    /// A domain's settings changed.
    DomainUpdated,
    /// A domain was removed.
    DomainDeleted,
    /// A webhook was registered.
    WebhookCreated,
    /// A webhook was removed.
    WebhookDeleted,
    /// An API key was created.
    KeyCreated,
    /// An API key's name, scopes or access rules changed.
    KeyUpdated,
    /// An API key's secret was regenerated.
    KeyRegenerated,
    /// An API key was revoked.
    KeyRevoked,
    /// Someone was invited.
    MemberInvited,
    /// An invitation was accepted.
    MemberJoined,
    /// An invitation was revoked before it was used.
    InvitationRevoked,
    /// The invitee declined an invitation.
    InvitationDeclined,
    /// A member was removed or left.
    MemberRemoved,
    /// A member's role changed.
    RoleChanged,
    /// The workspace's plan changed.
    PlanChanged,
    /// The workspace's settings changed.
    SettingsChanged,
    /// A member logged in.
    LoginSucceeded,
    /// A login to the workspace failed.
    LoginFailed,
}

impl AuditAction {
    /// Every action, in the order above.
    pub const ALL: [AuditAction; 25] = [
        AuditAction::LinkCreated,
        AuditAction::LinkUpdated,
        AuditAction::LinkDeleted,
        AuditAction::DesignCreated,
        AuditAction::DesignUpdated,
        AuditAction::DesignDeleted,
        AuditAction::DomainAdded,
        AuditAction::DomainUpdated,
        AuditAction::DomainDeleted,
        AuditAction::WebhookCreated,
        AuditAction::WebhookDeleted,
        AuditAction::KeyCreated,
        AuditAction::KeyUpdated,
        AuditAction::KeyRegenerated,
        AuditAction::KeyRevoked,
        AuditAction::MemberInvited,
        AuditAction::MemberJoined,
        AuditAction::InvitationRevoked,
        AuditAction::InvitationDeclined,
        AuditAction::MemberRemoved,
        AuditAction::RoleChanged,
        AuditAction::PlanChanged,
        AuditAction::SettingsChanged,
        AuditAction::LoginSucceeded,
        AuditAction::LoginFailed,
    ];

    /// The stored and shown name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::LinkCreated => "link.created",
            AuditAction::LinkUpdated => "link.updated",
            AuditAction::LinkDeleted => "link.deleted",
            AuditAction::DesignCreated => "design.created",
            AuditAction::DesignUpdated => "design.updated",
            AuditAction::DesignDeleted => "design.deleted",
            AuditAction::DomainAdded => "domain.added",
            AuditAction::DomainUpdated => "domain.updated",
            AuditAction::DomainDeleted => "domain.deleted",
            AuditAction::WebhookCreated => "webhook.created",
            AuditAction::WebhookDeleted => "webhook.deleted",
            AuditAction::KeyCreated => "key.created",
            AuditAction::KeyUpdated => "key.updated",
            AuditAction::KeyRegenerated => "key.regenerated",
            AuditAction::KeyRevoked => "key.revoked",
            AuditAction::MemberInvited => "member.invited",
            AuditAction::MemberJoined => "member.joined",
            AuditAction::InvitationRevoked => "member.invitation_revoked",
            AuditAction::InvitationDeclined => "member.invitation_declined",
            AuditAction::MemberRemoved => "member.removed",
            AuditAction::RoleChanged => "role.changed",
            AuditAction::PlanChanged => "plan.changed",
            AuditAction::SettingsChanged => "settings.changed",
            AuditAction::LoginSucceeded => "login.succeeded",
            AuditAction::LoginFailed => "login.failed",
        }
    }
}

impl FromStr for AuditAction {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        AuditAction::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| format!("unknown audit action {s:?}"))
    }
}

impl fmt::Display for AuditAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of thing an entry names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectKind {
    /// A link.
    Link,
    /// A design.
    Design,
    /// A domain.
    Domain,
    /// A webhook.
    Webhook,
    /// An API key.
    Key,
    /// A member or an invitation.
    Member,
    /// The workspace itself (plan, settings, logins).
    Workspace,
}

impl ObjectKind {
    /// Every kind.
    pub const ALL: [ObjectKind; 7] = [
        ObjectKind::Link,
        ObjectKind::Design,
        ObjectKind::Domain,
        ObjectKind::Webhook,
        ObjectKind::Key,
        ObjectKind::Member,
        ObjectKind::Workspace,
    ];

    /// The stored and shown name.
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectKind::Link => "link",
            ObjectKind::Design => "design",
            ObjectKind::Domain => "domain",
            ObjectKind::Webhook => "webhook",
            ObjectKind::Key => "key",
            ObjectKind::Member => "member",
            ObjectKind::Workspace => "workspace",
        }
    }
}

impl FromStr for ObjectKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        ObjectKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                format!(
                    "unknown object kind {s:?}: expected link, design, domain, webhook, key, member or workspace"
                )
            })
    }
}

impl fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The thing an entry names, by kind and id. Only the id is kept (not a reference), so the
/// entry outlives the object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditObject {
    /// Link, design, ….
    pub kind: ObjectKind,
    /// Its id as text.
    pub id: String,
}

impl AuditObject {
    /// The object `kind` with id `id`.
    pub fn new(kind: ObjectKind, id: impl fmt::Display) -> Self {
        Self {
            kind,
            id: bounded(&id.to_string()),
        }
    }
}

/// A changed field's values as the log keeps them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ChangeValues {
    // Hidden comes first: untagged variants are tried in order, and Shown (both members
    // optional) would match a hidden change's map too.
    /// A secret field (a link's password): only that it changed.
    Hidden {
        /// Always `true`: the values are withheld.
        hidden: bool,
    },
    /// The values as text; `None` for "not set".
    Shown {
        /// Before the change (`None` on creation or when it was not set).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<String>,
        /// After the change (`None` on deletion or when it was cleared).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<String>,
    },
}

/// One changed field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The field's API name (`name`, `targetUrl`, `password`, …).
    pub field: String,
    /// Its values.
    #[serde(flatten)]
    pub values: ChangeValues,
}

impl Change {
    /// A field shown with its values, each cut to [`MAX_VALUE_CHARS`].
    pub fn shown(field: &str, before: Option<String>, after: Option<String>) -> Self {
        Self {
            field: field.to_owned(),
            values: ChangeValues::Shown {
                before: before.as_deref().map(bounded),
                after: after.as_deref().map(bounded),
            },
        }
    }

    /// A secret field: changed, without values.
    pub fn hidden(field: &str) -> Self {
        Self {
            field: field.to_owned(),
            values: ChangeValues::Hidden { hidden: true },
        }
    }
}

impl fmt::Display for Change {
    /// `name: "Old" → "New"`, `name: "New"` on creation, `name: "Old" → none` when cleared,
    /// `password: changed` for a secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.values {
            ChangeValues::Hidden { .. } => write!(f, "{}: changed", self.field),
            ChangeValues::Shown { before, after } => {
                let show = |v: &Option<String>| v.as_deref().map_or("none".to_owned(), quote);
                match (before, after) {
                    (None, Some(after)) => write!(f, "{}: {}", self.field, quote(after)),
                    _ => write!(f, "{}: {} → {}", self.field, show(before), show(after)),
                }
            }
        }
    }
}

fn quote(s: &str) -> String {
    format!("{s:?}")
}

/// The changes of an entry as one line: `name: "A" → "B"; password: changed`.
pub fn summary_line(changes: &[Change]) -> String {
    changes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The client's network as the log keeps it: an IPv4 /24 or an IPv6 /48, never the address
/// (an IPv4-mapped IPv6 address counts as IPv4). The same rule as the access log's `client`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClientNetwork(String);

impl ClientNetwork {
    /// The network of `ip`.
    pub fn of(ip: IpAddr) -> Self {
        Self(match canonical(ip) {
            IpAddr::V4(ip) => {
                let [a, b, c, _] = ip.octets();
                format!("{a}.{b}.{c}.0/24")
            }
            IpAddr::V6(ip) => {
                let s = ip.segments();
                format!("{}/48", Ipv6Addr::new(s[0], s[1], s[2], 0, 0, 0, 0, 0))
            }
        })
    }

    /// A network as stored (already reduced when it was appended).
    pub fn from_stored(text: String) -> Self {
        Self(text)
    }

    /// The network's text (`203.0.113.0/24`).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClientNetwork {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An entry to append: everything but its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAuditEntry {
    /// The workspace.
    pub account_id: AccountId,
    /// When.
    pub at: DateTime<Utc>,
    /// Who.
    pub actor: AuditActor,
    /// What.
    pub action: AuditAction,
    /// On what.
    pub object: AuditObject,
    /// The changed fields.
    pub changes: Vec<Change>,
    /// From which network, when the call came over one.
    pub network: Option<ClientNetwork>,
}

impl NewAuditEntry {
    /// What `caller` did at `at`: the workspace, actor and network come from the caller.
    pub fn by(
        caller: &Caller,
        at: DateTime<Utc>,
        action: AuditAction,
        object: AuditObject,
        changes: Vec<Change>,
    ) -> Self {
        Self {
            account_id: caller.account,
            at,
            actor: AuditActor::of(&caller.actor),
            action,
            object,
            changes,
            network: caller.client.map(ClientNetwork::of),
        }
    }
}

impl AuditActor {
    /// The log's record of `actor`.
    pub fn of(actor: &Actor) -> Self {
        match actor {
            Actor::User { id, email } => Self {
                kind: ActorKind::User,
                id: id.to_string(),
                label: bounded(email),
            },
            Actor::Key { id, label } => Self {
                kind: ActorKind::Key,
                id: id.to_string(),
                label: bounded(label),
            },
            Actor::Operator => Self {
                kind: ActorKind::Operator,
                id: String::new(),
                label: "operator".to_owned(),
            },
        }
    }
}

/// A stored entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its id, in append order.
    pub id: AuditId,
    /// Everything else.
    pub entry: NewAuditEntry,
}

/// `text` cut to [`MAX_VALUE_CHARS`] characters, ending with `…` when cut.
pub fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_VALUE_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => {
            let mut cut = text[..end].to_owned();
            cut.pop();
            cut.push('…');
            cut
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_kept_as_their_network() {
        let net = |ip: &str| ClientNetwork::of(ip.parse().unwrap()).to_string();
        assert_eq!(net("203.0.113.77"), "203.0.113.0/24");
        assert_eq!(net("::ffff:203.0.113.77"), "203.0.113.0/24");
        assert_eq!(net("2001:db8:1:2:3:4:5:6"), "2001:db8:1::/48");
    }

    #[test]
    fn names_round_trip_and_values_are_bounded() {
        for action in AuditAction::ALL {
            assert_eq!(action.as_str().parse::<AuditAction>(), Ok(action));
        }
        for kind in ObjectKind::ALL {
            assert_eq!(kind.as_str().parse::<ObjectKind>(), Ok(kind));
        }
        let long = "é".repeat(MAX_VALUE_CHARS + 10);
        let cut = bounded(&long);
        assert_eq!(cut.chars().count(), MAX_VALUE_CHARS);
        assert!(cut.ends_with('…'));
        assert_eq!(bounded("short"), "short");
    }

    #[test]
    fn changes_read_as_one_line() {
        let line = summary_line(&[
            Change::shown("name", Some("A".into()), Some("B".into())),
            Change::shown("tags", None, Some("[\"x\"]".into())),
            Change::shown("domain", Some("go.example.com".into()), None),
            Change::hidden("password"),
        ]);
        assert_eq!(
            line,
            r#"name: "A" → "B"; tags: "[\"x\"]"; domain: "go.example.com" → none; password: changed"#
        );
        let json = serde_json::to_string(&[Change::hidden("password")]).unwrap();
        assert_eq!(json, r#"[{"field":"password","hidden":true}]"#);
        let back: Vec<Change> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, [Change::hidden("password")]);
    }
}
