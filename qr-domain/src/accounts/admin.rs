//! Administration of the service for its owner, admins and the operator's CLI: who may act, the workspaces overview, plan requests, plans, disabling, users' roles and verification by hand.

use crate::accounts::account::{Account, AccountStatus, Email, PlanRequest, Role};
use crate::accounts::caller::Caller;
use crate::accounts::limits::UsageMonth;
use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::Plan;
use crate::accounts::service::{AdminError, record_plan_change};
use crate::accounts::user::User;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};
use crate::service::Service;
use crate::store::{ReadTx, Store};

/// Who asks for an administrative change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    /// The operator at the command line, with every power (the database file is theirs).
    Operator,
    /// A dashboard user; they must be an admin, and some changes need the owner.
    User(UserId),
}

/// An account as the admin pages list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountSummary {
    /// The account.
    pub account: Account,
    /// Its owner (none only while a hand-over is broken off by a deleted user).
    pub owner: Option<User>,
    /// API requests counted this month (from this process's counters).
    pub requests_this_month: u64,
    /// Its pending plan request, if any.
    pub plan_request: Option<PlanRequest>,
}

/// Who the audit log names for a change from the admin pages: the acting service
/// administrator, or the operator (`None`).
fn admin_caller(account: AccountId, acting: Option<&User>) -> Caller {
    match acting {
        Some(user) => Caller::service_admin(account, user.id, user.email.as_str()),
        None => Caller::operator(account),
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// The acting user when they may administer (`None` for the operator); a user who is not
    /// an admin gets [`AdminError::NotAllowed`].
    fn admin(&self, tx: &dyn ReadTx, actor: Actor) -> Result<Option<User>, AdminError> {
        match actor {
            Actor::Operator => Ok(None),
            Actor::User(id) => match tx.user(id)? {
                Some(u) if u.is_admin() => Ok(Some(u)),
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
            let mut accounts = Vec::new();
            for account in tx.accounts()? {
                let owner = workspace_owner(tx, account.id)?;
                accounts.push((account, owner));
            }
            Ok::<_, AdminError>((accounts, tx.plan_requests()?))
        })?;
        Ok(accounts
            .into_iter()
            .map(|(account, owner)| AccountSummary {
                owner,
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
        let now = self.clock.now();
        let changed = self.store.write(|tx| {
            let acting = self.admin(tx, actor)?;
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
                let before = target.plan;
                target.plan = request.plan;
                tx.update_account(&target)?;
                let caller = admin_caller(account, acting.as_ref());
                record_plan_change(tx, &caller, now, before, request.plan)?;
            }
            Ok::<_, AdminError>(target)
        })?;
        self.forget_cached_account(account);
        Ok(changed)
    }

    /// Deletes an account and everything it owns (keys, links with their codes tombstoned so
    /// printed codes answer 410, scans, rollups, usage, memberships, plan request) for a
    /// data-protection request; members left without any workspace are deleted too. Nobody
    /// deletes a workspace the service's owner owns; one an admin owns only the owner or the
    /// operator; an admin never one they belong to (the account page does, with the password).
    pub fn admin_delete_account(&self, actor: Actor, account: AccountId) -> Result<(), AdminError> {
        self.store.write(|tx| {
            let acting = self.admin(tx, actor)?;
            tx.account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            let owner = workspace_owner(tx, account)?;
            if owner.as_ref().is_some_and(|o| o.role == Role::Owner) {
                return Err(AdminError::OwnerProtected);
            }
            let members = tx.members_of(account)?;
            if let Some(acting) = acting {
                if members.iter().any(|m| m.user_id == acting.id) {
                    return Err(AdminError::OwnAccount);
                }
                if owner.as_ref().is_some_and(User::is_admin) && acting.role != Role::Owner {
                    return Err(AdminError::NotAllowed);
                }
            }
            tx.delete_account(account)?;
            for member in members {
                if tx.memberships_of_user(member.user_id)?.is_empty() {
                    tx.delete_user(member.user_id)?;
                }
            }
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
        let now = self.clock.now();
        let changed = self.store.write(|tx| {
            let acting = self.admin(tx, actor)?;
            let mut target = tx
                .account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            let before = target.plan;
            target.plan = plan;
            tx.update_account(&target)?;
            record_plan_change(
                tx,
                &admin_caller(account, acting.as_ref()),
                now,
                before,
                plan,
            )?;
            tx.delete_plan_request(account)?;
            Ok::<_, AdminError>(target)
        })?;
        self.forget_cached_account(account);
        Ok(changed)
    }

    /// Disables an account (nobody opens it in the dashboard any more, so a user with no other
    /// workspace is logged out, and its keys answer 401 from the next request, on every server
    /// sharing the store) or enables it again. Nobody disables a workspace the service's owner
    /// owns, nor one they belong to.
    pub fn set_status(
        &self,
        actor: Actor,
        account: AccountId,
        status: AccountStatus,
    ) -> Result<Account, AdminError> {
        let changed = self.store.write(|tx| {
            let me = self.admin(tx, actor)?;
            if let Some(me) = me
                && tx.membership(account, me.id)?.is_some()
            {
                return Err(AdminError::OwnAccount);
            }
            let mut target = tx
                .account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            let owner = workspace_owner(tx, account)?;
            if owner.is_some_and(|o| o.role == Role::Owner) && status == AccountStatus::Disabled {
                return Err(AdminError::OwnerProtected);
            }
            target.status = status;
            tx.update_account(&target)?;
            Ok(target)
        })?;
        self.forget_cached_account(account);
        Ok(changed)
    }

    /// Makes a user an admin or a customer again: the owner's (or the operator's) decision.
    /// The owner's own role never changes, and nobody else becomes the owner.
    pub fn set_role(&self, actor: Actor, user: UserId, role: Role) -> Result<User, AdminError> {
        self.store.write(|tx| {
            if let Some(me) = self.admin(tx, actor)?
                && me.role != Role::Owner
            {
                return Err(AdminError::NotAllowed);
            }
            let mut target = tx.user(user)?.ok_or(AdminError::UserNotFound(user))?;
            if target.role == Role::Owner || role == Role::Owner {
                return Err(AdminError::OwnerProtected);
            }
            target.role = role;
            tx.update_user(&target)?;
            Ok(target)
        })
    }

    /// Marks a user's address as verified by hand (when no mail can reach it).
    pub fn mark_verified(&self, actor: Actor, user: UserId) -> Result<User, AdminError> {
        let now = self.clock.now();
        self.store.write(|tx| {
            self.admin(tx, actor)?;
            let mut target = tx.user(user)?.ok_or(AdminError::UserNotFound(user))?;
            target.email_verified_at.get_or_insert(now);
            tx.update_user(&target)?;
            Ok::<_, AdminError>(target)
        })
    }

    /// The owner of a new installation: a user with the owner role, verified (the operator made
    /// them), no password yet, owning an Enterprise workspace.
    pub fn create_owner(&self, email: &str) -> Result<(User, Account), AdminError> {
        let email = Email::parse(email)?;
        let now = self.clock.now();
        let mut owner = User::new(UserId::random(), email.clone(), now);
        owner.role = Role::Owner;
        owner.email_verified_at = Some(now);
        let account = Account::new(AccountId::random(), email, Plan::Enterprise, now);
        self.insert_user_with_workspace(&owner, &account)?;
        Ok((owner, account))
    }

    /// Gives a database made before roles existed its owner: when no user is the owner, the
    /// user with `email` (the one the first start created) becomes it. Returns them if so.
    pub fn adopt_owner(&self, email: &str) -> Result<Option<User>, AdminError> {
        let email = Email::parse(email)?;
        self.store.write(|tx| {
            if tx.users()?.iter().any(|u| u.role == Role::Owner) {
                return Ok::<_, AdminError>(None);
            }
            let Some(mut user) = tx.user_by_email(&email)? else {
                return Ok(None);
            };
            user.role = Role::Owner;
            user.email_verified_at.get_or_insert(user.created_at);
            tx.update_user(&user)?;
            Ok(Some(user))
        })
    }
}

/// The user who owns a workspace.
pub(crate) fn workspace_owner(
    tx: &dyn ReadTx,
    account: AccountId,
) -> Result<Option<User>, StoreError> {
    match tx
        .members_of(account)?
        .into_iter()
        .find(|m| m.role == MemberRole::Owner)
    {
        Some(m) => tx.user(m.user_id),
        None => Ok(None),
    }
}
