//! The second step of a login: a pending login (server-side, five minutes, single use, bound to the user whose password was right) finished with a code from the authenticator app or a recovery code, each accepted once, wrong ones throttled with the passwords.

use std::fmt;
use std::net::IpAddr;

use chrono::Duration;
use thiserror::Error;

use crate::accounts::user::User;
use crate::audit::entry::AuditAction;
use crate::clock::Clock;
use crate::dashboard::session::SessionSecret;
use crate::dashboard::sessions::{LoginError, LoginMethod, admit_login, record_login};
use crate::dashboard::token::{OneTimeToken, TokenPurpose, TokenSecret};
use crate::error::StoreError;
use crate::random::RandomError;
use crate::service::Service;
use crate::store::Store;

/// How long the second step waits after the password: enough to open the app and type six
/// digits, short enough that a stolen cookie is soon worthless.
pub const PENDING_LOGIN_LIFETIME: Duration = Duration::minutes(5);

/// A pending login as the browser holds it (a cookie): the secret of a one-time token. Its
/// `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct PendingLogin(TokenSecret);

/// Why the second step failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SecondFactorError {
    /// No such pending login: never started, already finished or expired. The password is
    /// asked again.
    #[error("this login has expired; enter your e-mail address and password again")]
    Expired,
    /// The code is neither the app's current code nor an unused recovery code.
    #[error("that code is not correct")]
    WrongCode,
    /// Too many failed logins from this address or for this account lately; nothing was checked.
    #[error("too many failed logins; try again in {retry_after_secs} seconds")]
    Throttled {
        /// Seconds to wait.
        retry_after_secs: u64,
    },
    /// Every workspace of the user is disabled.
    #[error("this account is disabled; contact the operator of the service")]
    Disabled,
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl PendingLogin {
    /// A pending login as a cookie presents it; `None` when it cannot be one.
    pub fn parse(raw: &str) -> Option<Self> {
        TokenSecret::parse(raw).map(Self)
    }

    /// The secret, for the cookie.
    pub fn expose(&self) -> &str {
        self.0.expose()
    }

    /// The stored form.
    pub(crate) fn hash(&self) -> crate::dashboard::token::TokenHash {
        self.0.hash()
    }
}

impl fmt::Debug for PendingLogin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PendingLogin(…)")
    }
}

impl From<LoginError> for SecondFactorError {
    fn from(e: LoginError) -> Self {
        match e {
            LoginError::Throttled { retry_after_secs } => {
                SecondFactorError::Throttled { retry_after_secs }
            }
            LoginError::Disabled => SecondFactorError::Disabled,
            LoginError::Random(e) => SecondFactorError::Random(e),
            LoginError::Store(e) => SecondFactorError::Store(e),
            LoginError::Invalid | LoginError::SecondFactorNeeded(_) => SecondFactorError::Expired,
        }
    }
}

/// What a typed second factor is, by its shape: six digits are the app's code, anything else is
/// tried as a recovery code.
fn is_totp_shaped(code: &str) -> bool {
    let digits: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit())
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Starts the second step for a user whose password was right (a newer pending login of
    /// the same user replaces an older one).
    pub(crate) fn begin_second_step(&self, user: &User) -> Result<PendingLogin, LoginError> {
        let secret = TokenSecret::generate()?;
        let now = self.clock.now();
        let token = OneTimeToken {
            hash: secret.hash(),
            user_id: user.id,
            purpose: TokenPurpose::SecondFactor,
            new_email: None,
            created_at: now,
            expires_at: now + PENDING_LOGIN_LIFETIME,
        };
        self.store.write(|tx| tx.insert_token(&token))?;
        Ok(PendingLogin(secret))
    }

    /// Finishes a pending login with the app's current code or an unused recovery code: a new
    /// session, and the code used up (its step, or the recovery code). A wrong code counts
    /// against the login throttles (the account's budget of 5 failures is shared with
    /// passwords, so guessing codes is refused unchecked after it) and is a `login.failed`
    /// entry; the pending login stays for another try until it expires.
    pub fn finish_login(
        &self,
        pending: &str,
        code: &str,
        client: Option<IpAddr>,
        user_agent: Option<&str>,
    ) -> Result<(User, SessionSecret), SecondFactorError> {
        let Some(pending) = PendingLogin::parse(pending) else {
            return Err(SecondFactorError::Expired);
        };
        let now = self.clock.now();
        let hash = pending.hash();
        // The closure answers Ok(Err(..)) for a refused code so the transaction still commits
        // what a refusal writes (the pending login put back, the audit entry).
        self.store.write(|tx| {
            let token = match tx.take_token(&hash)? {
                Some(t) if t.purpose == TokenPurpose::SecondFactor && t.expires_at > now => t,
                _ => return Ok(Err(SecondFactorError::Expired)),
            };
            let Some(user) = tx.user(token.user_id)? else {
                return Ok(Err(SecondFactorError::Expired));
            };
            let by_account = user.email.as_str().to_ascii_lowercase();
            if let Err(e) = self.login_throttled(client, &by_account) {
                // Nothing was checked: the pending login stays as it was.
                tx.insert_token(&token)?;
                return Ok(Err(e.into()));
            }
            // A user whose only second factor is a passkey has no app and no recovery codes:
            // every code is a wrong one, counted like any other.
            let mut factor = tx.two_factor(user.id)?.filter(|f| f.is_confirmed());
            let method = match factor.as_mut() {
                Some(factor) => Self::redeem_code(factor, code, now),
                None => None,
            };
            let Some(method) = method else {
                record_login(
                    tx,
                    &user,
                    client,
                    now,
                    AuditAction::LoginFailed,
                    "wrong second-factor code",
                )?;
                tx.insert_token(&token)?;
                self.count_login_failure(client, by_account);
                return Ok(Err(SecondFactorError::WrongCode));
            };
            if let Some(factor) = &factor {
                tx.put_two_factor(factor)?;
            }
            admit_login(tx, user, method, client, user_agent, now)
        })?
    }

    /// Uses up the app's current code (its step) or an unused recovery code of a confirmed
    /// factor; how the login was finished, or `None` for a wrong code.
    fn redeem_code(
        factor: &mut crate::dashboard::two_factor::TwoFactor,
        code: &str,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Option<LoginMethod> {
        if is_totp_shaped(code) {
            factor
                .totp_secret
                .verify(code, now, factor.last_used_step)
                .map(|step| {
                    factor.last_used_step = Some(step);
                    LoginMethod::PasswordAndTotp
                })
        } else {
            factor
                .recovery_codes
                .redeem(code)
                .then_some(LoginMethod::PasswordAndRecoveryCode)
        }
    }
}
