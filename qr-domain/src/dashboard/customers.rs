//! Customers on their own: sign-up within the operator's policy, e-mailed one-time tokens (verification, password reset, e-mail change), passwords, plan requests and deleting an account.

use std::net::IpAddr;

use thiserror::Error;

use crate::accounts::account::{Account, AccountStatus, Email, EmailError, PlanRequest, Role};
use crate::accounts::plan::Plan;
use crate::accounts::service::AdminError;
use crate::clock::Clock;
use crate::dashboard::password::{self, HashError, Password, PasswordError, PasswordHash};
use crate::dashboard::session::SessionHash;
use crate::dashboard::token::{OneTimeToken, TOKEN_LIFETIME, TokenPurpose, TokenSecret};
use crate::error::StoreError;
use crate::ids::AccountId;
use crate::random::RandomError;
use crate::service::Service;
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
    /// The owner account cannot be deleted.
    #[error("the owner account cannot be deleted")]
    OwnerProtected,
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
/// address has an account; the e-mail sent differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignUp {
    /// A new unverified account, on the plan asked for when it is self-service, else on Free
    /// with a plan request for the plan asked for.
    Created {
        /// The new account.
        account: Account,
        /// The plan request made, if the plan asked for needs approval.
        requested: Option<Plan>,
    },
    /// The address already has this account; nothing changed.
    Existing(Account),
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

    /// Signs a customer up. The password is hashed whether or not the address has an account,
    /// so both answers take the same time. A plan that is not self-service puts the account on
    /// Free with a plan request.
    pub fn sign_up(&self, email: &str, password: &str, plan: Plan) -> Result<SignUp, AccountError> {
        if !self.policy.is_open() {
            return Err(AccountError::SignupClosed);
        }
        let email = Email::parse(email)?;
        let password = Password::new(password)?;
        let hash = PasswordHash::of(&password)?;
        let now = self.clock.now();
        let self_service = self.policy.is_self_service(plan);
        let mut account = Account::new(
            AccountId::random(),
            email,
            if self_service { plan } else { Plan::Free },
            now,
        );
        account.password_hash = Some(hash);
        let requested = (!self_service).then_some(plan);
        let outcome = self.store.write(|tx| {
            if let Some(existing) = tx.account_by_email(&account.email)? {
                return Ok::<_, AccountError>(SignUp::Existing(existing));
            }
            tx.insert_account(&account)?;
            if let Some(plan) = requested {
                tx.put_plan_request(&PlanRequest {
                    account_id: account.id,
                    plan,
                    created_at: now,
                })?;
            }
            Ok(SignUp::Created {
                account: account.clone(),
                requested,
            })
        })?;
        self.forget_cached_account(account.id);
        Ok(outcome)
    }

    /// Issues a verification or reset token for an account (replacing its earlier one of that
    /// purpose); the secret is returned once, for the e-mailed link.
    pub fn issue_token(
        &self,
        account: AccountId,
        purpose: TokenPurpose,
    ) -> Result<(Account, TokenSecret), AccountError> {
        self.issue(account, purpose, None)
    }

    /// A reset token for the account of `email`, or `None` when no active account has the
    /// address (the caller answers the same either way).
    pub fn password_reset_token(
        &self,
        email: &str,
    ) -> Result<Option<(Account, TokenSecret)>, AccountError> {
        let Ok(email) = Email::parse(email) else {
            return Ok(None);
        };
        match self.store.read(|tx| tx.account_by_email(&email))? {
            Some(account) if account.status == AccountStatus::Active => {
                self.issue(account.id, TokenPurpose::Reset, None).map(Some)
            }
            _ => Ok(None),
        }
    }

    fn issue(
        &self,
        account: AccountId,
        purpose: TokenPurpose,
        new_email: Option<Email>,
    ) -> Result<(Account, TokenSecret), AccountError> {
        let secret = TokenSecret::generate()?;
        let now = self.clock.now();
        let token = OneTimeToken {
            hash: secret.hash(),
            account_id: account,
            purpose,
            new_email,
            created_at: now,
            expires_at: now + TOKEN_LIFETIME,
        };
        let account = self.store.write(|tx| {
            let account = tx
                .account(account)?
                .ok_or(AccountError::NotFound(account))?;
            tx.insert_token(&token)?;
            Ok::<_, AccountError>(account)
        })?;
        Ok((account, secret))
    }

    /// Takes a token of `purpose` (single use) and runs `apply` on its account in the same
    /// transaction; an unknown, used, expired or other-purpose token is [`AccountError::InvalidToken`].
    fn redeem<T>(
        &self,
        presented: &str,
        purpose: TokenPurpose,
        apply: impl FnOnce(&mut dyn WriteTx, Account, &OneTimeToken) -> Result<T, AccountError>,
    ) -> Result<T, AccountError> {
        let secret = TokenSecret::parse(presented).ok_or(AccountError::InvalidToken)?;
        let now = self.clock.now();
        let mut redeemed_by = None;
        let result = self.store.write(|tx| {
            let token = tx
                .take_token(&secret.hash())?
                .filter(|t| t.purpose == purpose && now < t.expires_at)
                .ok_or(AccountError::InvalidToken)?;
            let account = tx
                .account(token.account_id)?
                .ok_or(AccountError::InvalidToken)?;
            redeemed_by = Some(account.id);
            apply(tx, account, &token)
        });
        // An invalid token is still used up: the transaction commits its removal.
        let result = match result {
            Err(AccountError::InvalidToken) => {
                self.store.write(|tx| tx.take_token(&secret.hash()))?;
                Err(AccountError::InvalidToken)
            }
            other => other,
        };
        if let Some(account) = redeemed_by {
            self.forget_cached_account(account);
        }
        result
    }

    /// Marks the address of a verification token's account as verified.
    pub fn verify_email(&self, token: &str) -> Result<Account, AccountError> {
        let now = self.clock.now();
        self.redeem(token, TokenPurpose::Verify, |tx, mut account, _| {
            account.email_verified_at.get_or_insert(now);
            tx.update_account(&account)?;
            Ok(account)
        })
    }

    /// Sets a new password with a reset token, which also proves the address; every session of
    /// the account ends. The password is checked before the token is used up.
    pub fn reset_password(&self, token: &str, password: &str) -> Result<Account, AccountError> {
        let hash = PasswordHash::of(&Password::new(password)?)?;
        let now = self.clock.now();
        self.redeem(token, TokenPurpose::Reset, |tx, mut account, _| {
            account.password_hash = Some(hash);
            account.email_verified_at.get_or_insert(now);
            tx.update_account(&account)?;
            tx.delete_sessions_of(account.id, None)?;
            Ok(account)
        })
    }

    /// Checks the password and the new address, and issues the token that confirms it (sent to
    /// the new address); the account keeps its address until the link is followed.
    pub fn request_email_change(
        &self,
        account: AccountId,
        password: &str,
        new_email: &str,
    ) -> Result<(Account, TokenSecret), AccountError> {
        let new_email = Email::parse(new_email)?;
        self.check_password(account, password)?;
        if let Some(other) = self.store.read(|tx| tx.account_by_email(&new_email))?
            && other.id != account
        {
            return Err(AccountError::EmailTaken(new_email));
        }
        self.issue(account, TokenPurpose::EmailChange, Some(new_email))
    }

    /// Moves the account to the address its e-mail-change token carries (verified, since the
    /// link reached it), unless another account took the address meanwhile.
    pub fn confirm_email_change(&self, token: &str) -> Result<Account, AccountError> {
        let now = self.clock.now();
        self.redeem(token, TokenPurpose::EmailChange, |tx, mut account, t| {
            let email = t.new_email.clone().ok_or(AccountError::InvalidToken)?;
            if let Some(other) = tx.account_by_email(&email)?
                && other.id != account.id
            {
                return Err(AccountError::EmailTaken(email));
            }
            account.email = email;
            account.email_verified_at = Some(now);
            tx.update_account(&account)?;
            Ok(account)
        })
    }

    /// Fails unless `password` is the account's (an account without one never matches). Costs
    /// one Argon2id verification.
    fn check_password(&self, account: AccountId, password: &str) -> Result<Account, AccountError> {
        let account = self
            .store
            .read(|tx| tx.account(account))?
            .ok_or(AccountError::NotFound(account))?;
        match &account.password_hash {
            Some(hash) if hash.verify(password) => Ok(account),
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
        account: AccountId,
        current: &str,
        new: &str,
        keep: &SessionHash,
    ) -> Result<Account, AccountError> {
        let hash = PasswordHash::of(&Password::new(new)?)?;
        self.check_password(account, current)?;
        let account = self.store.write(|tx| {
            let mut account = tx
                .account(account)?
                .ok_or(AccountError::NotFound(account))?;
            account.password_hash = Some(hash);
            tx.update_account(&account)?;
            tx.delete_sessions_of(account.id, Some(keep))?;
            Ok::<_, AccountError>(account)
        })?;
        self.forget_cached_account(account.id);
        Ok(account)
    }

    /// Moves the account to a self-service plan at once, or files a request for another plan
    /// (replacing an earlier request). Asking for the current plan withdraws a pending request.
    pub fn request_plan(&self, account: AccountId, plan: Plan) -> Result<PlanChange, AccountError> {
        let now = self.clock.now();
        let self_service = self.policy.is_self_service(plan);
        let change = self.store.write(|tx| {
            let mut current = tx
                .account(account)?
                .ok_or(AccountError::NotFound(account))?;
            if self_service || current.plan == plan {
                tx.delete_plan_request(account)?;
                current.plan = plan;
                tx.update_account(&current)?;
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

    /// Deletes the account and everything it owns after checking its password; printed codes of
    /// its links stop working (410). The owner account cannot be deleted.
    pub fn delete_own_account(
        &self,
        account: AccountId,
        password: &str,
    ) -> Result<(), AccountError> {
        let found = self.check_password(account, password)?;
        if found.role == Role::Owner {
            return Err(AccountError::OwnerProtected);
        }
        self.store.write(|tx| tx.delete_account(account))?;
        self.forget_cached_account(account);
        self.links.forget(|_, (link, _)| link.account_id == account);
        Ok(())
    }
}
