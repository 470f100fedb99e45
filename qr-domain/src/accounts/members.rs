//! A workspace's members: listing them, adding an existing user within the plan's seats, changing roles, removing, leaving, and handing the workspace to another member.

use thiserror::Error;

use crate::accounts::account::Email;
use crate::accounts::caller::Caller;
use crate::accounts::permissions::{MemberRole, NotPermitted, Operation};
use crate::accounts::plan::Limit;
use crate::accounts::user::{Membership, User};
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
        "the {plan} plan has {seats} seats and all are taken; remove a member or change the plan"
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
            ensure_free_seat(tx, caller.account)?;
            let membership = Membership {
                account_id: caller.account,
                user_id: user.id,
                role,
                created_at: now,
            };
            tx.put_membership(&membership)?;
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
        self.store.write(|tx| {
            let mut membership = member(tx, caller.account, user)?;
            if membership.role == MemberRole::Owner || role == MemberRole::Owner {
                return Err(MemberError::OwnerStays);
            }
            membership.role = role;
            tx.put_membership(&membership)?;
            Ok(membership)
        })
    }

    /// Removes a member (never the owner). Their sessions showing the workspace show another;
    /// the workspace's keys, links and everything else stay, whoever made them.
    pub fn remove_member(&self, caller: &Caller, user: UserId) -> Result<(), MemberError> {
        caller.require(Operation::WriteMembers)?;
        self.store.write(|tx| remove(tx, caller.account, user))
    }

    /// The logged-in user leaves the workspace shown (the owner hands it over first).
    pub fn leave_workspace(&self, ctx: &SessionContext) -> Result<(), MemberError> {
        self.store
            .write(|tx| remove(tx, ctx.account.id, ctx.user.id))
    }

    /// Hands the workspace to another member, who becomes its owner; the old owner stays as an
    /// admin. The workspace keeps its address, which is how the operator's commands name it.
    pub fn transfer_ownership(&self, caller: &Caller, to: UserId) -> Result<(), MemberError> {
        caller.require(Operation::TransferOwnership)?;
        let account = caller.account;
        self.store.write(|tx| {
            let mut new_owner = member(tx, account, to)?;
            if new_owner.role == MemberRole::Owner {
                return Ok(());
            }
            for mut m in tx.members_of(account)? {
                if m.role == MemberRole::Owner {
                    m.role = MemberRole::Admin;
                    tx.put_membership(&m)?;
                }
            }
            new_owner.role = MemberRole::Owner;
            tx.put_membership(&new_owner)?;
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

/// Removes a member who is not the owner.
fn remove(tx: &mut dyn WriteTx, account: AccountId, user: UserId) -> Result<(), MemberError> {
    if member(tx, account, user)?.role == MemberRole::Owner {
        return Err(MemberError::OwnerStays);
    }
    tx.delete_membership(account, user)?;
    Ok(())
}

/// Refuses a new member when the plan's seats are all taken.
pub(crate) fn ensure_free_seat(tx: &dyn ReadTx, account: AccountId) -> Result<(), MemberError> {
    let workspace = tx
        .account(account)?
        .ok_or(MemberError::NoWorkspace(account))?;
    if let Limit::Max(seats) = workspace.limits().seats {
        let taken = tx.members_of(account)?.len() as u64;
        if taken >= seats {
            return Err(MemberError::SeatsTaken {
                plan: workspace.plan.title(),
                seats,
            });
        }
    }
    Ok(())
}
