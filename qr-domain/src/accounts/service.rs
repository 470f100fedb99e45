//! Accounts: creation, lookup (by id or e-mail address, one account per address), and changes of plan, e-mail address and enterprise overrides.

use thiserror::Error;

use crate::accounts::access::SettingsError;
use crate::accounts::account::{Account, Email, EmailError};
use crate::accounts::key::{KeyGenError, KeyNameError};
use crate::accounts::plan::{EnterpriseOverrides, Plan, PlanError};
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::{AccountId, KeyId};
use crate::service::Service;
use crate::store::{ReadTx, Store};

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
    /// Another account has this e-mail address (compared by [`Email::lookup_key`]).
    #[error("an account with the e-mail address {0} already exists")]
    EmailTaken(Email),
    /// No account with this id.
    #[error("account {0} not found")]
    AccountNotFound(AccountId),
    /// No key with this id (or not one of the account's own).
    #[error("API key {0} not found")]
    KeyNotFound(KeyId),
    /// The acting account may not do this (not an admin, or an owner-only change); the
    /// dashboard answers it like a page that does not exist.
    #[error("not allowed")]
    NotAllowed,
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
    /// Creates an account (the operator's way: no password, not verified); its e-mail address
    /// must not belong to another account.
    pub fn create_account(&self, email: &str, plan: Plan) -> Result<Account, AdminError> {
        let account = Account::new(
            AccountId::random(),
            Email::parse(email)?,
            plan,
            self.clock.now(),
        );
        self.insert_new_account(&account)?;
        Ok(account)
    }

    /// Stores a new account whose address must be free.
    pub(crate) fn insert_new_account(&self, account: &Account) -> Result<(), AdminError> {
        self.store.write(|tx| {
            ensure_email_free(tx, account)?;
            tx.insert_account(account)?;
            Ok::<_, AdminError>(())
        })?;
        self.forget_cached_account(account.id);
        Ok(())
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

    /// The account with this e-mail address, compared by [`Email::lookup_key`].
    pub fn account_by_email(&self, email: &Email) -> Result<Option<Account>, StoreError> {
        self.store.read(|tx| tx.account_by_email(email))
    }

    /// Changes an account in one write transaction (the e-mail address stays unique) and drops
    /// its cached keys.
    pub(crate) fn change_account(
        &self,
        id: AccountId,
        change: impl FnOnce(&mut Account) -> Result<(), AdminError>,
    ) -> Result<Account, AdminError> {
        let account = self.store.write(|tx| {
            let mut account = tx.account(id)?.ok_or(AdminError::AccountNotFound(id))?;
            let before = account.email.lookup_key();
            change(&mut account)?;
            if account.email.lookup_key() != before {
                ensure_email_free(tx, &account)?;
            }
            tx.update_account(&account)?;
            Ok::<_, AdminError>(account)
        })?;
        self.forget_cached_account(account.id);
        Ok(account)
    }

    /// Changes an account's plan; takes effect on the next request.
    pub fn set_plan(&self, id: AccountId, plan: Plan) -> Result<Account, AdminError> {
        self.change_account(id, |a| {
            a.plan = plan;
            Ok(())
        })
    }

    /// Changes an account's e-mail address; the new one must not belong to another account.
    pub fn set_email(&self, id: AccountId, email: &str) -> Result<Account, AdminError> {
        let email = Email::parse(email)?;
        self.change_account(id, |a| {
            a.email = email;
            Ok(())
        })
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

/// Refuses `account`'s e-mail address when another account has it. The store's unique index
/// backs this up, but would only answer with a generic conflict.
pub(crate) fn ensure_email_free(tx: &dyn ReadTx, account: &Account) -> Result<(), AdminError> {
    match tx.account_by_email(&account.email)? {
        Some(other) if other.id != account.id => Err(AdminError::EmailTaken(account.email.clone())),
        _ => Ok(()),
    }
}
