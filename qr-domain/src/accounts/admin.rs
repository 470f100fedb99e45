//! Administration for the owner, admins and the operator's CLI: who may act, the accounts overview, plan requests, plans, disabling, roles and verification by hand.

use crate::accounts::account::{Account, AccountStatus, Email, PlanRequest, Role};
use crate::accounts::limits::UsageMonth;
use crate::accounts::plan::Plan;
use crate::accounts::service::AdminError;
use crate::clock::Clock;
use crate::ids::AccountId;
use crate::service::Service;
use crate::store::{ReadTx, Store};

/// Who asks for an administrative change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    /// The operator at the command line, with every power (the database file is theirs).
    Operator,
    /// A dashboard account; it must be an admin, and some changes need the owner.
    Account(AccountId),
}

/// An account as the admin pages list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountSummary {
    /// The account.
    pub account: Account,
    /// API requests counted this month (from this process's counters).
    pub requests_this_month: u64,
    /// Its pending plan request, if any.
    pub plan_request: Option<PlanRequest>,
}

impl<S: Store, C: Clock> Service<S, C> {
    /// The acting account when it may administer (`None` for the operator); an account that is
    /// not an active admin gets [`AdminError::NotAllowed`].
    fn admin(&self, tx: &dyn ReadTx, actor: Actor) -> Result<Option<Account>, AdminError> {
        match actor {
            Actor::Operator => Ok(None),
            Actor::Account(id) => match tx.account(id)? {
                Some(a) if a.is_admin() && a.status == AccountStatus::Active => Ok(Some(a)),
                _ => Err(AdminError::NotAllowed),
            },
        }
    }

    /// Whether the actor may use the admin pages.
    pub fn may_administer(&self, actor: Actor) -> Result<bool, AdminError> {
        match self.store.read(|tx| self.admin(tx, actor)) {
            Ok(_) => Ok(true),
            Err(AdminError::NotAllowed) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Every account, oldest first, with this month's requests and its pending plan request.
    pub fn admin_accounts(&self, actor: Actor) -> Result<Vec<AccountSummary>, AdminError> {
        let month = UsageMonth::of(self.clock.now());
        let (accounts, requests) = self.store.read(|tx| {
            self.admin(tx, actor)?;
            Ok::<_, AdminError>((tx.accounts()?, tx.plan_requests()?))
        })?;
        Ok(accounts
            .into_iter()
            .map(|account| AccountSummary {
                requests_this_month: self.meter.used(account.id, month),
                plan_request: requests
                    .iter()
                    .find(|r| r.account_id == account.id)
                    .copied(),
                account,
            })
            .collect())
    }

    /// Pending plan requests with their accounts, oldest first.
    pub fn admin_plan_requests(
        &self,
        actor: Actor,
    ) -> Result<Vec<(PlanRequest, Account)>, AdminError> {
        self.store.read(|tx| {
            self.admin(tx, actor)?;
            let mut out = Vec::new();
            for request in tx.plan_requests()? {
                if let Some(account) = tx.account(request.account_id)? {
                    out.push((request, account));
                }
            }
            Ok(out)
        })
    }

    /// Approves (the account moves to the plan asked for) or declines a pending plan request.
    pub fn decide_plan_request(
        &self,
        actor: Actor,
        account: AccountId,
        approve: bool,
    ) -> Result<Account, AdminError> {
        let changed = self.store.write(|tx| {
            self.admin(tx, actor)?;
            let request = tx
                .plan_requests()?
                .into_iter()
                .find(|r| r.account_id == account)
                .ok_or(AdminError::NoPlanRequest(account))?;
            let mut target = tx
                .account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            tx.delete_plan_request(account)?;
            if approve {
                target.plan = request.plan;
                tx.update_account(&target)?;
            }
            Ok::<_, AdminError>(target)
        })?;
        self.forget_cached_account(account);
        Ok(changed)
    }

    /// Deletes an account and everything it owns (keys, links with their codes tombstoned so
    /// printed codes answer 410, scans, rollups, usage, sessions, tokens, plan request) for a
    /// data-protection request. Nobody deletes the owner's account; an admin's account only the
    /// owner or the operator; an admin never their own (the account page does, with the password).
    pub fn admin_delete_account(&self, actor: Actor, account: AccountId) -> Result<(), AdminError> {
        self.store.write(|tx| {
            let acting = self.admin(tx, actor)?;
            let target = tx
                .account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            if target.role == Role::Owner {
                return Err(AdminError::OwnerProtected);
            }
            if let Some(acting) = acting {
                if acting.id == account {
                    return Err(AdminError::OwnAccount);
                }
                if target.is_admin() && acting.role != Role::Owner {
                    return Err(AdminError::NotAllowed);
                }
            }
            tx.delete_account(account)?;
            Ok::<_, AdminError>(())
        })?;
        self.forget_cached_account(account);
        self.links.forget(|_, (link, _)| link.account_id == account);
        Ok(())
    }

    /// Puts an account on a plan (a pending request is settled by it).
    pub fn admin_set_plan(
        &self,
        actor: Actor,
        account: AccountId,
        plan: Plan,
    ) -> Result<Account, AdminError> {
        let changed = self.store.write(|tx| {
            self.admin(tx, actor)?;
            let mut target = tx
                .account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            target.plan = plan;
            tx.update_account(&target)?;
            tx.delete_plan_request(account)?;
            Ok::<_, AdminError>(target)
        })?;
        self.forget_cached_account(account);
        Ok(changed)
    }

    /// Disables an account (its sessions end and its keys answer 401 from the next request, on
    /// every server sharing the store) or enables it again. Nobody disables the owner or their
    /// own account.
    pub fn set_status(
        &self,
        actor: Actor,
        account: AccountId,
        status: AccountStatus,
    ) -> Result<Account, AdminError> {
        let changed = self.store.write(|tx| {
            let me = self.admin(tx, actor)?;
            if me.as_ref().is_some_and(|m| m.id == account) {
                return Err(AdminError::OwnAccount);
            }
            let mut target = tx
                .account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            if target.role == Role::Owner && status == AccountStatus::Disabled {
                return Err(AdminError::OwnerProtected);
            }
            target.status = status;
            tx.update_account(&target)?;
            if status == AccountStatus::Disabled {
                tx.delete_sessions_of(account, None)?;
            }
            Ok(target)
        })?;
        self.forget_cached_account(account);
        Ok(changed)
    }

    /// Makes an account an admin or a customer again: the owner's (or the operator's) decision.
    /// The owner's own role never changes, and nobody else becomes the owner.
    pub fn set_role(
        &self,
        actor: Actor,
        account: AccountId,
        role: Role,
    ) -> Result<Account, AdminError> {
        let changed = self.store.write(|tx| {
            if let Some(me) = self.admin(tx, actor)?
                && me.role != Role::Owner
            {
                return Err(AdminError::NotAllowed);
            }
            let mut target = tx
                .account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            if target.role == Role::Owner || role == Role::Owner {
                return Err(AdminError::OwnerProtected);
            }
            target.role = role;
            tx.update_account(&target)?;
            Ok(target)
        })?;
        self.forget_cached_account(account);
        Ok(changed)
    }

    /// Marks an account's address as verified by hand (when no mail can reach it).
    pub fn mark_verified(&self, actor: Actor, account: AccountId) -> Result<Account, AdminError> {
        let now = self.clock.now();
        let changed = self.store.write(|tx| {
            self.admin(tx, actor)?;
            let mut target = tx
                .account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            target.email_verified_at.get_or_insert(now);
            tx.update_account(&target)?;
            Ok::<_, AdminError>(target)
        })?;
        self.forget_cached_account(account);
        Ok(changed)
    }

    /// The owner account of a new installation: Enterprise, verified (the operator made it), the
    /// owner role, no password yet.
    pub fn create_owner(&self, email: &str) -> Result<Account, AdminError> {
        let mut owner = Account::new(
            AccountId::random(),
            Email::parse(email)?,
            Plan::Enterprise,
            self.clock.now(),
        );
        owner.role = Role::Owner;
        owner.email_verified_at = Some(owner.created_at);
        self.insert_new_account(&owner)?;
        Ok(owner)
    }

    /// Gives a database made before roles existed its owner: when no account is the owner, the
    /// account with `email` (the one the first start created) becomes it. Returns it if so.
    pub fn adopt_owner(&self, email: &str) -> Result<Option<Account>, AdminError> {
        let email = Email::parse(email)?;
        let adopted = self.store.write(|tx| {
            if tx.accounts()?.iter().any(|a| a.role == Role::Owner) {
                return Ok::<_, AdminError>(None);
            }
            let Some(mut account) = tx.account_by_email(&email)? else {
                return Ok(None);
            };
            account.role = Role::Owner;
            account.email_verified_at.get_or_insert(account.created_at);
            tx.update_account(&account)?;
            Ok(Some(account))
        })?;
        if let Some(account) = &adopted {
            self.forget_cached_account(account.id);
        }
        Ok(adopted)
    }
}
