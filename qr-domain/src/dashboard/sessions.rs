//! Dashboard login and sessions: throttled password checks with one answer for a wrong address or password, a new session at each login, idle and absolute expiry, logging out (everywhere).

use std::net::IpAddr;

use thiserror::Error;

use crate::accounts::account::{Account, AccountStatus, Email};
use crate::accounts::caller::Caller;
use crate::accounts::permissions::MemberRole;
use crate::clock::Clock;
use crate::dashboard::password;
use crate::dashboard::session::{Session, SessionSecret, user_agent_label};
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};
use crate::random::RandomError;
use crate::service::Service;
use crate::service::throttle::bucket;
use crate::store::Store;

/// Why a login failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LoginError {
    /// The address has no account, the password is wrong, or the account has no password:
    /// one answer for all three.
    #[error("the e-mail address or the password is not correct")]
    Invalid,
    /// Too many failures from this address or for this account lately; nothing was checked.
    #[error("too many failed logins; try again in {retry_after_secs} seconds")]
    Throttled {
        /// Seconds to wait.
        retry_after_secs: u64,
    },
    /// The password is right but the account is disabled.
    #[error("this account is disabled; contact the operator of the service")]
    Disabled,
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A live session with its account, as of this request.
#[derive(Debug, Clone)]
pub struct SessionContext {
    /// The logged-in account.
    pub account: Account,
    /// The session record.
    pub session: Session,
    secret: SessionSecret,
}

impl SessionContext {
    /// The CSRF token every state-changing form of this session carries.
    pub fn csrf_token(&self) -> String {
        self.secret.csrf_token()
    }

    /// Whether a form's token is this session's.
    pub fn check_csrf(&self, presented: &str) -> bool {
        self.secret.check_csrf(presented)
    }

    /// The logged-in person as the caller of workspace operations, from `client`. Until
    /// accounts have members, the account's own login is its user (the same id) and its owner.
    pub fn caller(&self, client: Option<IpAddr>) -> Caller {
        Caller::member(
            self.account.id,
            UserId::from_uuid(self.account.id.as_uuid()),
            self.account.email.as_str(),
            MemberRole::Owner,
            client,
        )
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Checks an address and password and starts a new session. Failures are counted per client
    /// address and per address typed (whether or not it has an account); once either is over
    /// its budget, attempts are refused unchecked. Without an account a dummy hash is verified,
    /// so the answer takes as long either way.
    pub fn log_in(
        &self,
        email: &str,
        password: &str,
        client: Option<IpAddr>,
        user_agent: Option<&str>,
    ) -> Result<(Account, SessionSecret), LoginError> {
        let now = self.clock.now();
        let by_account = email.trim().to_ascii_lowercase();
        let throttled = [
            self.dashboard.login_address.throttled(&bucket(client), now),
            self.dashboard.login_account.throttled(&by_account, now),
        ];
        if let Some(retry_after_secs) = throttled.into_iter().flatten().max() {
            return Err(LoginError::Throttled { retry_after_secs });
        }
        let account = match Email::parse(email) {
            Ok(parsed) => self.store.read(|tx| tx.account_by_email(&parsed))?,
            Err(_) => None,
        };
        let matches = match account.as_ref().and_then(|a| a.password_hash.as_ref()) {
            Some(hash) => hash.verify(password),
            None => {
                password::verify_nothing(password);
                false
            }
        };
        let account = match account {
            Some(account) if matches => account,
            _ => {
                self.dashboard.login_address.count(bucket(client), now);
                self.dashboard.login_account.count(by_account, now);
                return Err(LoginError::Invalid);
            }
        };
        if account.status == AccountStatus::Disabled {
            return Err(LoginError::Disabled);
        }
        let secret = SessionSecret::generate()?;
        let session = Session {
            hash: secret.hash(),
            account_id: account.id,
            created_at: now,
            last_seen_at: now,
            user_agent: user_agent_label(user_agent),
        };
        self.store.write(|tx| tx.save_session(&session))?;
        Ok((account, secret))
    }

    /// The live session of a cookie's secret with its account, or `None` (malformed, unknown,
    /// expired, or its account disabled). Notes the request as the session's last one, writing
    /// at most every five minutes.
    pub fn session(&self, presented: &str) -> Result<Option<SessionContext>, StoreError> {
        let Some(secret) = SessionSecret::parse(presented) else {
            return Ok(None);
        };
        let now = self.clock.now();
        let hash = secret.hash();
        let found = self.store.read(|tx| {
            let Some(session) = tx.session(&hash)? else {
                return Ok::<_, StoreError>(None);
            };
            Ok(tx
                .account(session.account_id)?
                .map(|account| (session, account)))
        })?;
        let Some((mut session, account)) = found else {
            return Ok(None);
        };
        if session.expired(now) || account.status != AccountStatus::Active {
            return Ok(None);
        }
        if session.needs_touch(now) {
            session.last_seen_at = now;
            self.store.write(|tx| tx.save_session(&session))?;
        }
        Ok(Some(SessionContext {
            account,
            session,
            secret,
        }))
    }

    /// Ends this session.
    pub fn log_out(&self, ctx: &SessionContext) -> Result<(), StoreError> {
        self.store
            .write(|tx| tx.delete_session(&ctx.session.hash))
            .map(drop)
    }

    /// The account's sessions, oldest first, ended ones left out.
    pub fn sessions(&self, account: AccountId) -> Result<Vec<Session>, StoreError> {
        let now = self.clock.now();
        let mut sessions = self.store.read(|tx| tx.sessions_of(account))?;
        sessions.retain(|s| !s.expired(now));
        Ok(sessions)
    }

    /// Ends every session of the account, this one included; returns how many records went
    /// (ended ones not yet pruned included).
    pub fn log_out_everywhere(&self, account: AccountId) -> Result<u64, StoreError> {
        self.store.write(|tx| tx.delete_sessions_of(account, None))
    }
}
