//! Customers on their own: sign-up (a user and their workspace) within the operator's policy, e-mailed one-time tokens (verification, password reset, e-mail change), passwords, plan requests and deleting a workspace.

use std::net::IpAddr;

use thiserror::Error;

use crate::accounts::account::{Account, Email, EmailError, PlanRequest, Role};
use crate::accounts::caller::Caller;
use crate::accounts::permissions::{MemberRole, NotPermitted, Operation};
use crate::accounts::plan::Plan;
use crate::accounts::service::{AdminError, record_plan_change};
use crate::accounts::user::{Membership, User};
use crate::clock::Clock;
use crate::dashboard::password::{self, HashError, Password, PasswordError, PasswordHash};
use crate::dashboard::session::SessionHash;
use crate::dashboard::token::{OneTimeToken, TOKEN_LIFETIME, TokenPurpose, TokenSecret};
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};
use crate::random::RandomError;
use crate::service::Service;
use crate::service::SessionContext;
use crate::service::throttle::bucket;
use crate::store::{Store, WriteTx};

/// Why a customer's own operation failed.
#[derive(Debug, Clone, Error)]
pub enum AccountError {
    /// The operator closed sign-up.
    #[error("sign-up is closed on this service")]
    SignupClosed,
    /// The e-mail address is invalid.
    #[error(transparent)]
    Email(#[from] EmailError),
    /// The new password breaks a rule.
    #[error(transparent)]
    Password(#[from] PasswordError),
    /// The current password given to confirm a change is wrong.
    #[error("the password is not correct")]
    WrongPassword,
    /// Too many attempts from this client address lately.
    #[error("too many attempts; try again in {retry_after_secs} seconds")]
    Throttled {
        /// Seconds to wait.
        retry_after_secs: u64,
    },
    /// The e-mailed link is unknown, used, of another purpose, or expired.
    #[error(
        "this link is not valid: it was already used, has expired, or was replaced by a newer one"
    )]
    InvalidToken,
    /// Another account has the address.
    #[error("an account with the e-mail address {0} already exists")]
    EmailTaken(Email),
    /// No such account.
    #[error("account {0} not found")]
    NotFound(AccountId),
    /// No such user.
    #[error("user {0} not found")]
    UserNotFound(UserId),
    /// The owner of the service cannot delete their workspace from the dashboard.
    #[error("the owner account cannot be deleted")]
    OwnerProtected,
    /// The member's role does not allow this.
    #[error(transparent)]
    NotPermitted(#[from] NotPermitted),
    /// Hashing the password failed.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a sign-up did. The dashboard answers both the same way, so nobody learns whether an
/// address has a user; the e-mail sent differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignUp {
    /// A new unverified user owning a new workspace, on the plan asked for when it is
    /// self-service, else on Free with a plan request for the plan asked for.
    Created {
        /// The new user.
        user: User,
        /// Their workspace.
        account: Account,
        /// The plan request made, if the plan asked for needs approval.
        requested: Option<Plan>,
    },
    /// The address already has this user; nothing changed.
    Existing(User),
}

/// What asking for a plan did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanChange {
    /// A self-service plan: the account is on it now.
    Changed(Account),
    /// A plan that needs approval: the request waits for the owner or an admin.
    Requested(PlanRequest),
}

impl From<AdminError> for AccountError {
    fn from(e: AdminError) -> Self {
        match e {
            AdminError::Email(e) => AccountError::Email(e),
            AdminError::EmailTaken(e) => AccountError::EmailTaken(e),
            AdminError::AccountNotFound(id) => AccountError::NotFound(id),
            AdminError::Store(e) => AccountError::Store(e),
            other => AccountError::Store(StoreError::Backend(other.to_string())),
        }
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Counts a sign-up or e-mail request from `client` (a password hash or an e-mail each):
    /// 10 at once, then one every 30 s per address.
    pub fn admit_form(&self, client: Option<IpAddr>) -> Result<(), AccountError> {
        match self.dashboard.forms.count(bucket(client), self.clock.now()) {
            None => Ok(()),
            Some(retry_after_secs) => Err(AccountError::Throttled { retry_after_secs }),
        }
    }

    /// Signs a customer up: a user owning a new workspace. The password is hashed whether or
    /// not the address has a user, so both answers take the same time. A plan that is not
    /// self-service puts the workspace on Free with a plan request.
    pub fn sign_up(&self, email: &str, password: &str, plan: Plan) -> Result<SignUp, AccountError> {
        if !self.policy.is_open() {
            return Err(AccountError::SignupClosed);
        }
        let email = Email::parse(email)?;
        let password = Password::new(password)?;
        let hash = PasswordHash::of(&password)?;
        let now = self.clock.now();
        let self_service = self.policy.is_self_service(plan);
        let mut user = User::new(UserId::random(), email.clone(), now);
        user.password_hash = Some(hash);
        let account = Account::new(
            AccountId::random(),
            email,
            if self_service { plan } else { Plan::Free },
            now,
        );
        let requested = (!self_service).then_some(plan);
        let outcome = self.store.write(|tx| {
            if let Some(existing) = tx.user_by_email(&user.email)? {
                return Ok::<_, AccountError>(SignUp::Existing(existing));
            }
            tx.insert_user(&user)?;
            tx.insert_account(&account)?;
            tx.put_membership(&Membership {
                account_id: account.id,
                user_id: user.id,
                role: MemberRole::Owner,
                created_at: now,
            })?;
            if let Some(plan) = requested {
                tx.put_plan_request(&PlanRequest {
                    account_id: account.id,
                    plan,
                    created_at: now,
                })?;
            }
            Ok(SignUp::Created {
                user: user.clone(),
                account: account.clone(),
                requested,
            })
        })?;
        self.forget_cached_account(account.id);
        Ok(outcome)
    }

    /// Issues a verification or reset token for a user (replacing their earlier one of that
    /// purpose); the secret is returned once, for the e-mailed link.
    pub fn issue_token(
        &self,
        user: UserId,
        purpose: TokenPurpose,
    ) -> Result<(User, TokenSecret), AccountError> {
        self.issue(user, purpose, None)
    }

    /// A reset token for the user of `email`, or `None` when no user has the address (the
    /// caller answers the same either way).
    pub fn password_reset_token(
        &self,
        email: &str,
    ) -> Result<Option<(User, TokenSecret)>, AccountError> {
        let Ok(email) = Email::parse(email) else {
            return Ok(None);
        };
        match self.store.read(|tx| tx.user_by_email(&email))? {
            Some(user) => self.issue(user.id, TokenPurpose::Reset, None).map(Some),
            None => Ok(None),
        }
    }

    fn issue(
        &self,
        user: UserId,
        purpose: TokenPurpose,
        new_email: Option<Email>,
    ) -> Result<(User, TokenSecret), AccountError> {
        let secret = TokenSecret::generate()?;
        let now = self.clock.now();
        let token = OneTimeToken {
            hash: secret.hash(),
            user_id: user,
            purpose,
            new_email,
            created_at: now,
            expires_at: now + TOKEN_LIFETIME,
        };
        let user = self.store.write(|tx| {
            let user = tx.user(user)?.ok_or(AccountError::UserNotFound(user))?;
            tx.insert_token(&token)?;
            Ok::<_, AccountError>(user)
        })?;
        Ok((user, secret))
    }

    /// Takes a token of `purpose` (single use) and runs `apply` on its user in the same
    /// transaction; an unknown, used, expired or other-purpose token is [`AccountError::InvalidToken`].
    fn redeem<T>(
        &self,
        presented: &str,
        purpose: TokenPurpose,
        apply: impl FnOnce(&mut dyn WriteTx, User, &OneTimeToken) -> Result<T, AccountError>,
    ) -> Result<T, AccountError> {
        let secret = TokenSecret::parse(presented).ok_or(AccountError::InvalidToken)?;
        let now = self.clock.now();
        let result = self.store.write(|tx| {
            let token = tx
                .take_token(&secret.hash())?
                .filter(|t| t.purpose == purpose && now < t.expires_at)
                .ok_or(AccountError::InvalidToken)?;
            let user = tx.user(token.user_id)?.ok_or(AccountError::InvalidToken)?;
            apply(tx, user, &token)
        });
        // An invalid token is still used up: the transaction commits its removal.
        match result {
            Err(AccountError::InvalidToken) => {
                self.store.write(|tx| tx.take_token(&secret.hash()))?;
                Err(AccountError::InvalidToken)
            }
            other => other,
        }
    }

    /// Marks the address of a verification token's user as verified.
    pub fn verify_email(&self, token: &str) -> Result<User, AccountError> {
        let now = self.clock.now();
        self.redeem(token, TokenPurpose::Verify, |tx, mut user, _| {
            user.email_verified_at.get_or_insert(now);
            tx.update_user(&user)?;
            Ok(user)
        })
    }

    /// Sets a new password with a reset token, which also proves the address; every session of
    /// the user ends. The password is checked before the token is used up.
    pub fn reset_password(&self, token: &str, password: &str) -> Result<User, AccountError> {
        let hash = PasswordHash::of(&Password::new(password)?)?;
        let now = self.clock.now();
        self.redeem(token, TokenPurpose::Reset, |tx, mut user, _| {
            user.password_hash = Some(hash);
            user.email_verified_at.get_or_insert(now);
            tx.update_user(&user)?;
            tx.delete_sessions_of(user.id, None)?;
            Ok(user)
        })
    }

    /// Checks the password and the new address, and issues the token that confirms it (sent to
    /// the new address); the user keeps their address until the link is followed.
    pub fn request_email_change(
        &self,
        user: UserId,
        password: &str,
        new_email: &str,
    ) -> Result<(User, TokenSecret), AccountError> {
        let new_email = Email::parse(new_email)?;
        self.check_password(user, password)?;
        if let Some(other) = self.store.read(|tx| tx.user_by_email(&new_email))?
            && other.id != user
        {
            return Err(AccountError::EmailTaken(new_email));
        }
        self.issue(user, TokenPurpose::EmailChange, Some(new_email))
    }

    /// Moves the user to the address their e-mail-change token carries (verified, since the
    /// link reached it), unless another user took the address meanwhile. The workspaces they
    /// own whose address was their old one move along.
    pub fn confirm_email_change(&self, token: &str) -> Result<User, AccountError> {
        let now = self.clock.now();
        let mut moved = Vec::new();
        let user = self.redeem(token, TokenPurpose::EmailChange, |tx, mut user, t| {
            let email = t.new_email.clone().ok_or(AccountError::InvalidToken)?;
            if let Some(other) = tx.user_by_email(&email)?
                && other.id != user.id
            {
                return Err(AccountError::EmailTaken(email));
            }
            for membership in tx.memberships_of_user(user.id)? {
                if membership.role != MemberRole::Owner {
                    continue;
                }
                if let Some(mut account) = tx.account(membership.account_id)?
                    && account.email.lookup_key() == user.email.lookup_key()
                {
                    account.email = email.clone();
                    tx.update_account(&account)?;
                    moved.push(account.id);
                }
            }
            user.email = email;
            user.email_verified_at = Some(now);
            tx.update_user(&user)?;
            Ok(user)
        })?;
        for account in moved {
            self.forget_cached_account(account);
        }
        Ok(user)
    }

    /// Fails unless `password` is the user's (a user without one never matches). Costs one
    /// Argon2id verification.
    fn check_password(&self, user: UserId, password: &str) -> Result<User, AccountError> {
        let user = self
            .store
            .read(|tx| tx.user(user))?
            .ok_or(AccountError::UserNotFound(user))?;
        match &user.password_hash {
            Some(hash) if hash.verify(password) => Ok(user),
            Some(_) => Err(AccountError::WrongPassword),
            None => {
                password::verify_nothing(password);
                Err(AccountError::WrongPassword)
            }
        }
    }

    /// Changes the password after checking the current one; every other session ends.
    pub fn change_password(
        &self,
        user: UserId,
        current: &str,
        new: &str,
        keep: &SessionHash,
    ) -> Result<User, AccountError> {
        let hash = PasswordHash::of(&Password::new(new)?)?;
        self.check_password(user, current)?;
        self.store.write(|tx| {
            let mut user = tx.user(user)?.ok_or(AccountError::UserNotFound(user))?;
            user.password_hash = Some(hash);
            tx.update_user(&user)?;
            tx.delete_sessions_of(user.id, Some(keep))?;
            Ok::<_, AccountError>(user)
        })
    }

    /// Moves the workspace to a self-service plan at once, or files a request for another plan
    /// (replacing an earlier request). Asking for the current plan withdraws a pending request.
    /// Only its owner may.
    pub fn request_plan(&self, caller: &Caller, plan: Plan) -> Result<PlanChange, AccountError> {
        caller.require(Operation::ChangePlan)?;
        let account = caller.account;
        let now = self.clock.now();
        let self_service = self.policy.is_self_service(plan);
        let change = self.store.write(|tx| {
            let mut current = tx
                .account(account)?
                .ok_or(AccountError::NotFound(account))?;
            if self_service || current.plan == plan {
                tx.delete_plan_request(account)?;
                let before = current.plan;
                current.plan = plan;
                tx.update_account(&current)?;
                record_plan_change(tx, caller, now, before, plan)?;
                return Ok::<_, AccountError>(PlanChange::Changed(current));
            }
            let request = PlanRequest {
                account_id: account,
                plan,
                created_at: now,
            };
            tx.put_plan_request(&request)?;
            Ok(PlanChange::Requested(request))
        })?;
        self.forget_cached_account(account);
        Ok(change)
    }

    /// The account's pending plan request, if any.
    pub fn pending_plan_request(
        &self,
        account: AccountId,
    ) -> Result<Option<PlanRequest>, StoreError> {
        Ok(self
            .store
            .read(|tx| tx.plan_requests())?
            .into_iter()
            .find(|r| r.account_id == account))
    }

    /// Deletes the workspace and everything in it after checking the owner's password; printed
    /// codes of its links stop working (410). Only its owner may, and never the owner of the
    /// service. A user left without any workspace is deleted too (they are logged out); one who
    /// still belongs to others stays, and their session shows another.
    pub fn delete_workspace(
        &self,
        ctx: &SessionContext,
        password: &str,
    ) -> Result<(), AccountError> {
        ctx.caller(None).require(Operation::DeleteWorkspace)?;
        let user = self.check_password(ctx.user.id, password)?;
        if user.role == Role::Owner {
            return Err(AccountError::OwnerProtected);
        }
        let account = ctx.account.id;
        self.store.write(|tx| {
            tx.delete_account(account)?;
            if tx.memberships_of_user(user.id)?.is_empty() {
                tx.delete_user(user.id)?;
            }
            Ok::<_, AccountError>(())
        })?;
        self.forget_cached_account(account);
        self.links.forget(|_, (link, _)| link.account_id == account);
        Ok(())
    }
}
