//! Who is acting, in which workspace, with which rights: the caller every workspace operation is made by, whether a person in the dashboard, a program with an API key, or the operator's command line.

use std::net::IpAddr;

use crate::accounts::auth::AuthContext;
use crate::accounts::permissions::{Grant, MemberRole, NotPermitted, Operation};
use crate::ids::{AccountId, KeyId, UserId};

/// Who did something, as the audit log names them. The label is kept as it was at the time
/// (an e-mail address, a key's name), so the log still says who after a user or key is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A person logged in to the dashboard.
    User {
        /// The user.
        id: UserId,
        /// Their e-mail address at the time.
        email: String,
    },
    /// A program with an API key.
    Key {
        /// The key.
        id: KeyId,
        /// The key's name and display prefix at the time, never its secret.
        label: String,
    },
    /// The operator, through the `qr` command on the server's database.
    Operator,
}

/// A caller in a workspace: the workspace, who acts, what they may do, and from which client
/// address (used for the audit log under the scans' privacy rule, never stored whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The workspace (account) acted in.
    pub account: AccountId,
    /// Who acts.
    pub actor: Actor,
    /// What they may do there.
    pub grant: Grant,
    /// The client's address, when the call came over the network.
    pub client: Option<IpAddr>,
}

impl Caller {
    /// A program calling with an authenticated key: full access, or the key's scopes.
    pub fn key(ctx: &AuthContext, client: Option<IpAddr>) -> Self {
        Self {
            account: ctx.account.id,
            actor: Actor::Key {
                id: ctx.key.id,
                label: format!("{} ({}…)", ctx.key.name, ctx.key.display_prefix),
            },
            grant: ctx.key.grant(),
            client,
        }
    }

    /// A member acting in the dashboard with their role.
    pub fn member(
        account: AccountId,
        user: UserId,
        email: &str,
        role: MemberRole,
        client: Option<IpAddr>,
    ) -> Self {
        Self {
            account,
            actor: Actor::User {
                id: user,
                email: email.to_owned(),
            },
            grant: Grant::Member(role),
            client,
        }
    }

    /// The operator's command line acting on a workspace: everything an owner may do.
    pub fn operator(account: AccountId) -> Self {
        Self {
            account,
            actor: Actor::Operator,
            grant: Grant::Member(MemberRole::Owner),
            client: None,
        }
    }

    /// A service administrator acting on a workspace from the admin pages (its plan, its
    /// status), who need not be its member: recorded as that user, with the operator's rights.
    pub fn service_admin(account: AccountId, user: UserId, email: &str) -> Self {
        Self {
            actor: Actor::User {
                id: user,
                email: email.to_owned(),
            },
            ..Self::operator(account)
        }
    }

    /// Whether the caller may do `op`.
    pub fn may(&self, op: Operation) -> bool {
        self.grant.allows(op)
    }

    /// [`Caller::may`] as a result, for `?`.
    pub fn require(&self, op: Operation) -> Result<(), NotPermitted> {
        self.grant.require(op)
    }
}
