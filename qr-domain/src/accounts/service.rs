//! Accounts (workspaces) and users: creation (a user owning a workspace), lookup (by id or address), and changes of plan, address and enterprise overrides.

use chrono::{DateTime, Utc};
use thiserror::Error;

use crate::accounts::access::SettingsError;
use crate::accounts::account::{Account, Email, EmailError};
use crate::accounts::caller::Caller;
use crate::accounts::key::{KeyGenError, KeyNameError};
use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::{EnterpriseOverrides, Plan, PlanError};
use crate::accounts::user::{Membership, User};
use crate::audit::entry::{AuditAction, AuditObject, ObjectKind};
use crate::audit::service::record;
use crate::audit::summary;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::{AccountId, KeyId, UserId};
use crate::service::Service;
use crate::store::{Store, WriteTx};

/// Appends `plan.changed` (from `before` to `after`, nothing when they are equal) to the
/// workspace's log in the transaction that changes it.
pub(crate) fn record_plan_change(
    tx: &mut dyn WriteTx,
    caller: &Caller,
    at: DateTime<Utc>,
    before: Plan,
    after: Plan,
) -> Result<(), StoreError> {
    if before == after {
        return Ok(());
    }
    record(
        tx,
        caller,
        at,
        AuditAction::PlanChanged,
        AuditObject::new(ObjectKind::Workspace, caller.account),
        summary::field_changed("plan", Some(before.as_str()), Some(after.as_str())),
    )
}

/// Errors of account and key administration.
#[derive(Debug, Clone, Error)]
pub enum AdminError {
    /// The e-mail address is invalid.
    #[error(transparent)]
    Email(#[from] EmailError),
    /// A plan or limit value is invalid.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// Key settings the plan does not allow.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// Another user has this e-mail address (compared by [`Email::lookup_key`]).
    #[error("an account with the e-mail address {0} already exists")]
    EmailTaken(Email),
    /// No account with this id.
    #[error("account {0} not found")]
    AccountNotFound(AccountId),
    /// No user with this id.
    #[error("user {0} not found")]
    UserNotFound(UserId),
    /// No key with this id (or not one of the account's own).
    #[error("API key {0} not found")]
    KeyNotFound(KeyId),
    /// The acting account may not do this (not an admin, or an owner-only change); the
    /// dashboard answers it like a page that does not exist.
    #[error("not allowed")]
    NotAllowed,
    /// The caller's role or key does not allow this workspace operation (403).
    #[error(transparent)]
    NotPermitted(#[from] crate::accounts::permissions::NotPermitted),
    /// The owner account cannot be disabled, demoted or deleted.
    #[error("the owner account cannot be changed this way")]
    OwnerProtected,
    /// An admin cannot disable or demote their own account.
    #[error("you cannot do this to your own account")]
    OwnAccount,
    /// The account has no pending plan request.
    #[error("account {0} has no pending plan request")]
    NoPlanRequest(AccountId),
    /// Keys are issued only once the address is verified.
    #[error("verify your e-mail address before creating a key")]
    NotVerified,
    /// The key name is invalid.
    #[error(transparent)]
    KeyName(#[from] KeyNameError),
    /// Generating a secret failed.
    #[error(transparent)]
    KeyGen(#[from] KeyGenError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Creates a workspace with a new user owning it (the operator's way: no password, not
    /// verified); the address must not belong to another user.
    pub fn create_account(&self, email: &str, plan: Plan) -> Result<Account, AdminError> {
        let email = Email::parse(email)?;
        let now = self.clock.now();
        let user = User::new(UserId::random(), email.clone(), now);
        let account = Account::new(AccountId::random(), email, plan, now);
        self.insert_user_with_workspace(&user, &account)?;
        Ok(account)
    }

    /// Stores a new user, whose address must be free, owning a new workspace.
    pub(crate) fn insert_user_with_workspace(
        &self,
        user: &User,
        account: &Account,
    ) -> Result<(), AdminError> {
        self.store.write(|tx| {
            if tx.user_by_email(&user.email)?.is_some() {
                return Err(AdminError::EmailTaken(user.email.clone()));
            }
            tx.insert_user(user)?;
            tx.insert_account(account)?;
            tx.put_membership(&Membership {
                account_id: account.id,
                user_id: user.id,
                role: MemberRole::Owner,
                created_at: account.created_at,
            })?;
            Ok::<_, AdminError>(())
        })?;
        self.forget_cached_account(account.id);
        Ok(())
    }

    /// The user with this login address, compared by [`Email::lookup_key`].
    pub fn user_by_email(&self, email: &Email) -> Result<Option<User>, StoreError> {
        self.store.read(|tx| tx.user_by_email(email))
    }

    /// The user with this id.
    pub fn user(&self, id: UserId) -> Result<User, AdminError> {
        self.store
            .read(|tx| tx.user(id))?
            .ok_or(AdminError::UserNotFound(id))
    }

    /// The user who owns a workspace.
    pub fn owner_of(&self, account: AccountId) -> Result<Option<User>, StoreError> {
        self.store
            .read(|tx| crate::accounts::admin::workspace_owner(tx, account))
    }

    /// The account with this id.
    pub fn account(&self, id: AccountId) -> Result<Account, AdminError> {
        self.store
            .read(|tx| tx.account(id))?
            .ok_or(AdminError::AccountNotFound(id))
    }

    /// All accounts, oldest first.
    pub fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        self.store.read(|tx| tx.accounts())
    }

    /// The oldest workspace with this address, compared by [`Email::lookup_key`].
    pub fn account_by_email(&self, email: &Email) -> Result<Option<Account>, StoreError> {
        self.store.read(|tx| tx.account_by_email(email))
    }

    /// Changes an account in one write transaction and drops its cached keys.
    pub(crate) fn change_account(
        &self,
        id: AccountId,
        change: impl FnOnce(&mut Account) -> Result<(), AdminError>,
    ) -> Result<Account, AdminError> {
        let account = self.store.write(|tx| {
            let mut account = tx.account(id)?.ok_or(AdminError::AccountNotFound(id))?;
            change(&mut account)?;
            tx.update_account(&account)?;
            Ok::<_, AdminError>(account)
        })?;
        self.forget_cached_account(account.id);
        Ok(account)
    }

    /// Changes an account's plan; takes effect on the next request.
    pub fn set_plan(&self, id: AccountId, plan: Plan) -> Result<Account, AdminError> {
        let now = self.clock.now();
        let account = self.store.write(|tx| {
            let mut account = tx.account(id)?.ok_or(AdminError::AccountNotFound(id))?;
            let before = account.plan;
            account.plan = plan;
            tx.update_account(&account)?;
            record_plan_change(tx, &Caller::operator(id), now, before, plan)?;
            Ok::<_, AdminError>(account)
        })?;
        self.forget_cached_account(id);
        Ok(account)
    }

    /// Changes the login address of a workspace's owner, and the workspace's address with it
    /// (the operator's way: no confirmation mail); the new one must not belong to another user.
    pub fn set_email(&self, id: AccountId, email: &str) -> Result<Account, AdminError> {
        let email = Email::parse(email)?;
        let account = self.store.write(|tx| {
            let mut account = tx.account(id)?.ok_or(AdminError::AccountNotFound(id))?;
            if let Some(mut owner) = crate::accounts::admin::workspace_owner(tx, id)? {
                if let Some(other) = tx.user_by_email(&email)?
                    && other.id != owner.id
                {
                    return Err(AdminError::EmailTaken(email));
                }
                owner.email = email.clone();
                tx.update_user(&owner)?;
            }
            account.email = email;
            tx.update_account(&account)?;
            Ok::<_, AdminError>(account)
        })?;
        self.forget_cached_account(account.id);
        Ok(account)
    }

    /// Sets the enterprise overrides of an account (they apply while it is on Enterprise).
    pub fn set_overrides(
        &self,
        id: AccountId,
        overrides: EnterpriseOverrides,
    ) -> Result<Account, AdminError> {
        overrides.validate()?;
        self.change_account(id, |a| {
            a.overrides = overrides;
            Ok(())
        })
    }
}
