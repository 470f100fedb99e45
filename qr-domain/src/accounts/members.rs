//! A workspace's members: listing them, adding an existing user within the plan's seats (which pending invitations share), changing roles, removing, leaving, and handing the workspace to another member.

use chrono::{DateTime, Utc};
use thiserror::Error;

use crate::accounts::account::Email;
use crate::accounts::caller::Caller;
use crate::accounts::invitations::{SeatsFull, ensure_seat};
use crate::accounts::permissions::{MemberRole, NotPermitted, Operation};
use crate::accounts::user::{Membership, User};
use crate::audit::entry::{AuditAction, AuditObject, Change, ObjectKind};
use crate::audit::service::record;
use crate::audit::summary;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};
use crate::service::{Service, SessionContext};
use crate::store::{ReadTx, Store, WriteTx};

/// Why a change of members was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MemberError {
    /// The caller's role does not allow it.
    #[error(transparent)]
    NotPermitted(#[from] NotPermitted),
    /// The address is not a valid one.
    #[error(transparent)]
    Email(#[from] crate::accounts::account::EmailError),
    /// No user has this address (the operator adds existing users; others are invited).
    #[error("no user has the e-mail address {0}")]
    NoSuchUser(Email),
    /// The user is not a member of this workspace (another workspace's member is not found
    /// either).
    #[error("user {0} is not a member of this workspace")]
    NotMember(UserId),
    /// The user already belongs to the workspace.
    #[error("{0} is already a member of this workspace")]
    AlreadyMember(Email),
    /// Every seat of the plan is taken.
    #[error(
        "the {plan} plan has {seats} seats and all are taken by members and pending invitations; remove a member, revoke an invitation or change the plan"
    )]
    SeatsTaken {
        /// The plan's title.
        plan: &'static str,
        /// Its seats.
        seats: u64,
    },
    /// The owner's role changes only by handing the workspace over, and nobody else becomes
    /// the owner by a role change.
    #[error("the owner stays the owner until they hand the workspace over to another member")]
    OwnerStays,
    /// No such workspace.
    #[error("account {0} not found")]
    NoWorkspace(AccountId),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl<S: Store, C: Clock> Service<S, C> {
    /// The workspace's members with their users: the owner first, then in the order they joined.
    pub fn members(&self, caller: &Caller) -> Result<Vec<(Membership, User)>, MemberError> {
        caller.require(Operation::ReadMembers)?;
        self.store.read(|tx| members_with_users(tx, caller.account))
    }

    /// Adds an existing user to the workspace with `role` (never owner), within the plan's
    /// seats.
    pub fn add_member(
        &self,
        caller: &Caller,
        email: &str,
        role: MemberRole,
    ) -> Result<Membership, MemberError> {
        caller.require(Operation::WriteMembers)?;
        if role == MemberRole::Owner {
            return Err(MemberError::OwnerStays);
        }
        let email = Email::parse(email)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let user = tx
                .user_by_email(&email)?
                .ok_or_else(|| MemberError::NoSuchUser(email.clone()))?;
            if tx.membership(caller.account, user.id)?.is_some() {
                return Err(MemberError::AlreadyMember(user.email));
            }
            ensure_free_seat(tx, caller.account, now)?;
            let membership = Membership {
                account_id: caller.account,
                user_id: user.id,
                role,
                created_at: now,
            };
            tx.put_membership(&membership)?;
            record(
                tx,
                caller,
                now,
                AuditAction::MemberJoined,
                member_object(user.id),
                member_fields(None, Some((&user.email, role))),
            )?;
            Ok(membership)
        })
    }

    /// Gives a member another role; the owner's role, and becoming the owner, go only by
    /// [`Service::transfer_ownership`].
    pub fn change_member_role(
        &self,
        caller: &Caller,
        user: UserId,
        role: MemberRole,
    ) -> Result<Membership, MemberError> {
        caller.require(Operation::WriteMembers)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let mut membership = member(tx, caller.account, user)?;
            if membership.role == MemberRole::Owner || role == MemberRole::Owner {
                return Err(MemberError::OwnerStays);
            }
            let before = membership.role;
            membership.role = role;
            tx.put_membership(&membership)?;
            if before != role {
                record_role_change(tx, caller, now, user, before, role)?;
            }
            Ok(membership)
        })
    }

    /// Removes a member (never the owner). Their sessions showing the workspace show another;
    /// the workspace's keys, links and everything else stay, whoever made them.
    pub fn remove_member(&self, caller: &Caller, user: UserId) -> Result<(), MemberError> {
        caller.require(Operation::WriteMembers)?;
        let now = self.clock.now();
        self.store.write(|tx| remove(tx, caller, now, user))
    }

    /// The logged-in user leaves the workspace shown (the owner hands it over first).
    pub fn leave_workspace(&self, ctx: &SessionContext) -> Result<(), MemberError> {
        let now = self.clock.now();
        // Leaving needs no right: the member's own entry names them as who acted.
        let caller = ctx.caller(None);
        self.store.write(|tx| remove(tx, &caller, now, ctx.user.id))
    }

    /// Hands the workspace to another member, who becomes its owner; the old owner stays as an
    /// admin. The workspace keeps its address, which is how the operator's commands name it.
    pub fn transfer_ownership(&self, caller: &Caller, to: UserId) -> Result<(), MemberError> {
        caller.require(Operation::TransferOwnership)?;
        let account = caller.account;
        let now = self.clock.now();
        self.store.write(|tx| {
            let mut new_owner = member(tx, account, to)?;
            if new_owner.role == MemberRole::Owner {
                return Ok(());
            }
            for mut m in tx.members_of(account)? {
                if m.role == MemberRole::Owner {
                    m.role = MemberRole::Admin;
                    tx.put_membership(&m)?;
                    record_role_change(
                        tx,
                        caller,
                        now,
                        m.user_id,
                        MemberRole::Owner,
                        MemberRole::Admin,
                    )?;
                }
            }
            let before = new_owner.role;
            new_owner.role = MemberRole::Owner;
            tx.put_membership(&new_owner)?;
            record_role_change(tx, caller, now, to, before, MemberRole::Owner)?;
            Ok::<_, MemberError>(())
        })?;
        self.forget_cached_account(account);
        Ok(())
    }
}

/// The members of a workspace with their users: the owner first, then the others in the
/// order they joined.
fn members_with_users(
    tx: &dyn ReadTx,
    account: AccountId,
) -> Result<Vec<(Membership, User)>, MemberError> {
    let mut out = Vec::new();
    for m in tx.members_of(account)? {
        if let Some(user) = tx.user(m.user_id)? {
            out.push((m, user));
        }
    }
    // A stable sort keeps the store's order (joining time) among the others.
    out.sort_by_key(|(m, _)| m.role != MemberRole::Owner);
    Ok(out)
}

/// A member's membership, or [`MemberError::NotMember`].
fn member(tx: &dyn ReadTx, account: AccountId, user: UserId) -> Result<Membership, MemberError> {
    tx.membership(account, user)?
        .ok_or(MemberError::NotMember(user))
}

/// Removes a member who is not the owner, with the `member.removed` entry by `caller`.
fn remove(
    tx: &mut dyn WriteTx,
    caller: &Caller,
    now: DateTime<Utc>,
    user: UserId,
) -> Result<(), MemberError> {
    let membership = member(tx, caller.account, user)?;
    if membership.role == MemberRole::Owner {
        return Err(MemberError::OwnerStays);
    }
    let email = tx.user(user)?.map(|u| u.email);
    tx.delete_membership(caller.account, user)?;
    record(
        tx,
        caller,
        now,
        AuditAction::MemberRemoved,
        member_object(user),
        match &email {
            Some(email) => member_fields(Some((email, membership.role)), None),
            None => summary::field_changed("role", Some(membership.role.as_str()), None),
        },
    )?;
    Ok(())
}

/// The audit log's name of a member: their user id, which outlives their address.
fn member_object(user: UserId) -> AuditObject {
    AuditObject::new(ObjectKind::Member, user)
}

/// A member's address and role before and after (a join: none before; a removal: none after).
fn member_fields(
    before: Option<(&Email, MemberRole)>,
    after: Option<(&Email, MemberRole)>,
) -> Vec<Change> {
    let email = |m: Option<(&Email, MemberRole)>| m.map(|(e, _)| e.to_string());
    let role = |m: Option<(&Email, MemberRole)>| m.map(|(_, r)| r.as_str().to_owned());
    vec![
        Change::shown("email", email(before), email(after)),
        Change::shown("role", role(before), role(after)),
    ]
}

/// Records a member's role going from `before` to `after`.
fn record_role_change(
    tx: &mut dyn WriteTx,
    caller: &Caller,
    now: DateTime<Utc>,
    user: UserId,
    before: MemberRole,
    after: MemberRole,
) -> Result<(), StoreError> {
    record(
        tx,
        caller,
        now,
        AuditAction::RoleChanged,
        member_object(user),
        summary::field_changed("role", Some(before.as_str()), Some(after.as_str())),
    )
}

/// Refuses a new member when members and pending invitations take every seat of the plan.
pub(crate) fn ensure_free_seat(
    tx: &dyn ReadTx,
    account: AccountId,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), MemberError> {
    let workspace = tx
        .account(account)?
        .ok_or(MemberError::NoWorkspace(account))?;
    ensure_seat(tx, &workspace, now, None)
}

impl From<SeatsFull> for MemberError {
    fn from(s: SeatsFull) -> Self {
        MemberError::SeatsTaken {
            plan: s.plan,
            seats: s.seats,
        }
    }
}
