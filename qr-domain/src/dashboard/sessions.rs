//! Dashboard login and sessions: throttled password checks with one answer for a wrong address or password, a pending second step for users with a second factor, a new session at each login showing one of the user's workspaces (the switcher changes it) with `login.*` audit entries, idle and absolute expiry, logging out (everywhere).

use std::net::IpAddr;

use thiserror::Error;

use crate::accounts::account::{Account, Email};
use chrono::{DateTime, Utc};

use crate::accounts::caller::Caller;
use crate::accounts::permissions::{MemberRole, Operation};
use crate::accounts::user::{Membership, User};
use crate::audit::entry::{AuditAction, AuditObject, Change, ObjectKind};
use crate::audit::service::record;
use crate::clock::Clock;
use crate::dashboard::password;
use crate::dashboard::second_factor::PendingLogin;
use crate::dashboard::session::{Session, SessionSecret, user_agent_label};
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};
use crate::random::RandomError;
use crate::service::Service;
use crate::service::throttle::bucket;
use crate::store::{ReadTx, Store, WriteTx};

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
    /// The password is right but every workspace of the user is disabled.
    #[error("this account is disabled; contact the operator of the service")]
    Disabled,
    /// The password is right and the user has a second factor: no session yet. The pending
    /// login goes to the browser (a cookie), which finishes it with a code or a recovery code
    /// ([`Service::finish_login`]) or a passkey ([`Service::finish_passkey_second_step`]).
    #[error("the password is correct; a second factor is needed to finish")]
    SecondFactorNeeded(PendingLogin),
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A live session with its user and the workspace it shows, as of this request.
#[derive(Debug, Clone)]
pub struct SessionContext {
    /// The logged-in user.
    pub user: User,
    /// The workspace the session shows: one the user belongs to, active.
    pub account: Account,
    /// The user's membership of that workspace (their role there).
    pub membership: Membership,
    /// Every active workspace of the user with their membership, oldest membership first (the
    /// switcher lists them).
    pub workspaces: Vec<(Account, Membership)>,
    /// The session record.
    pub session: Session,
    /// Whether the user has a second factor (a confirmed authenticator app or a passkey).
    pub two_factor_on: bool,
    /// Whether the workspace shown requires its members to have one.
    pub two_factor_required: bool,
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

    /// The logged-in person as the caller of workspace operations, from `client`.
    pub fn caller(&self, client: Option<IpAddr>) -> Caller {
        Caller::member(
            self.account.id,
            self.user.id,
            self.user.email.as_str(),
            self.membership.role,
            client,
        )
    }

    /// The user's role in the workspace shown.
    pub fn role(&self) -> MemberRole {
        self.membership.role
    }

    /// Whether the user may do `op` in the workspace shown.
    pub fn may(&self, op: Operation) -> bool {
        self.membership.role.allows(op)
    }

    /// Whether the workspace shown requires a second factor the user does not have: then the
    /// dashboard sends them to enrolment before anything else in this workspace.
    pub fn must_enrol_two_factor(&self) -> bool {
        self.two_factor_required && !self.two_factor_on
    }
}

/// How a login proved who it was, as its audit entry says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginMethod {
    /// The password alone (the user has no second factor).
    Password,
    /// The password, then a code from the authenticator app.
    PasswordAndTotp,
    /// The password, then a recovery code.
    PasswordAndRecoveryCode,
    /// The password, then a passkey.
    PasswordAndPasskey,
    /// A passkey alone, instead of the password (the authenticator verified the person: a PIN
    /// or biometrics, so two factors in one).
    Passkey,
    /// A verified identity from elsewhere (single sign-on).
    External,
}

impl LoginMethod {
    /// The name the audit log shows.
    pub fn as_str(self) -> &'static str {
        match self {
            LoginMethod::Password => "password",
            LoginMethod::PasswordAndTotp => "password and authenticator code",
            LoginMethod::PasswordAndRecoveryCode => "password and recovery code",
            LoginMethod::PasswordAndPasskey => "password and passkey",
            LoginMethod::Passkey => "passkey",
            LoginMethod::External => "single sign-on",
        }
    }
}

/// Appends an entry as `user` to every active workspace of theirs (a login or a change to
/// their own second factor concerns each of them).
pub(crate) fn record_in_workspaces(
    tx: &mut dyn WriteTx,
    user: &User,
    client: Option<IpAddr>,
    at: DateTime<Utc>,
    action: AuditAction,
    object: &AuditObject,
    changes: &[Change],
) -> Result<(), StoreError> {
    for (account, membership) in active_workspaces(&*tx, user.id)? {
        let caller = Caller::member(
            account.id,
            user.id,
            user.email.as_str(),
            membership.role,
            client,
        );
        let object = match object.kind {
            // A login's object is the workspace logged in to, each in its own log.
            ObjectKind::Workspace => AuditObject::new(ObjectKind::Workspace, account.id),
            _ => object.clone(),
        };
        record(tx, &caller, at, action, object, changes.to_vec())?;
    }
    Ok(())
}

/// A `login.succeeded` or `login.failed` entry in each of the user's workspaces.
pub(crate) fn record_login(
    tx: &mut dyn WriteTx,
    user: &User,
    client: Option<IpAddr>,
    at: DateTime<Utc>,
    action: AuditAction,
    method: &str,
) -> Result<(), StoreError> {
    let object = AuditObject::new(ObjectKind::Workspace, "");
    let changes = [Change::shown("method", None, Some(method.to_owned()))];
    record_in_workspaces(tx, user, client, at, action, &object, &changes)
}

/// Whether a user has a second factor: a confirmed authenticator app or a passkey. Either
/// makes the password alone insufficient and meets a workspace's requirement.
pub(crate) fn has_second_factor(tx: &dyn ReadTx, user: UserId) -> Result<bool, StoreError> {
    Ok(tx.two_factor(user)?.is_some_and(|f| f.is_confirmed()) || !tx.passkeys_of(user)?.is_empty())
}

/// The active workspaces of a user with their memberships, oldest membership first.
fn active_workspaces(
    tx: &dyn ReadTx,
    user: UserId,
) -> Result<Vec<(Account, Membership)>, StoreError> {
    let mut out = Vec::new();
    for membership in tx.memberships_of_user(user)? {
        if let Some(account) = tx.account(membership.account_id)?
            && account.is_active()
        {
            out.push((account, membership));
        }
    }
    Ok(out)
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Checks an address and password and starts a new session, or, when the user has a
    /// second factor, a pending login ([`LoginError::SecondFactorNeeded`]). Failures are counted
    /// per client address and per address typed (whether or not it has a user); once either is
    /// over its budget, attempts are refused unchecked. Without a user a dummy hash is verified,
    /// so the answer takes as long either way. A wrong password for an existing user is a
    /// `login.failed` entry in each of their workspaces. The session shows the user's first
    /// active workspace.
    pub fn log_in(
        &self,
        email: &str,
        password: &str,
        client: Option<IpAddr>,
        user_agent: Option<&str>,
    ) -> Result<(User, SessionSecret), LoginError> {
        let now = self.clock.now();
        let by_account = email.trim().to_ascii_lowercase();
        self.login_throttled(client, &by_account)?;
        let user = match Email::parse(email) {
            Ok(parsed) => self.store.read(|tx| tx.user_by_email(&parsed))?,
            Err(_) => None,
        };
        let matches = match user.as_ref().and_then(|u| u.password_hash.as_ref()) {
            Some(hash) => hash.verify(password),
            None => {
                password::verify_nothing(password);
                false
            }
        };
        let user = match user {
            Some(user) if matches => user,
            found => {
                self.count_login_failure(client, by_account);
                if let Some(user) = found {
                    self.store.write(|tx| {
                        record_login(
                            tx,
                            &user,
                            client,
                            now,
                            AuditAction::LoginFailed,
                            "wrong password",
                        )
                    })?;
                }
                return Err(LoginError::Invalid);
            }
        };
        if self.store.read(|tx| has_second_factor(tx, user.id))? {
            let pending = self.begin_second_step(&user)?;
            return Err(LoginError::SecondFactorNeeded(pending));
        }
        let secret = self.store.write(|tx| {
            open_session_in(
                tx,
                &user,
                None,
                LoginMethod::Password,
                client,
                user_agent,
                now,
            )
        })?;
        Ok((user, secret))
    }

    /// Refuses unchecked while the client address or the account typed is over its budget of
    /// failed logins (passwords and second-factor codes alike).
    pub(crate) fn login_throttled(
        &self,
        client: Option<IpAddr>,
        by_account: &str,
    ) -> Result<(), LoginError> {
        let now = self.clock.now();
        let throttled = [
            self.dashboard.login_address.throttled(&bucket(client), now),
            self.dashboard
                .login_account
                .throttled(&by_account.to_owned(), now),
        ];
        match throttled.into_iter().flatten().max() {
            Some(retry_after_secs) => Err(LoginError::Throttled { retry_after_secs }),
            None => Ok(()),
        }
    }

    /// Counts a failed password or code against the client address and the account.
    pub(crate) fn count_login_failure(&self, client: Option<IpAddr>, by_account: String) {
        let now = self.clock.now();
        self.dashboard.login_address.count(bucket(client), now);
        self.dashboard.login_account.count(by_account, now);
    }

    /// The user's oldest membership of an active workspace, with the workspace.
    fn first_workspace(
        &self,
        tx: &dyn ReadTx,
        user: UserId,
    ) -> Result<Option<(Account, Membership)>, StoreError> {
        Ok(active_workspaces(tx, user)?.into_iter().next())
    }

    /// The workspace a session shows and the user's membership of it: the one it names while
    /// the user belongs to it and it is active, else the user's first active one.
    fn shown_workspace(
        &self,
        tx: &dyn ReadTx,
        session: &Session,
    ) -> Result<Option<(Account, Membership)>, StoreError> {
        if let Some(id) = session.account_id
            && let Some(membership) = tx.membership(id, session.user_id)?
            && let Some(account) = tx.account(id)?
            && account.is_active()
        {
            return Ok(Some((account, membership)));
        }
        self.first_workspace(tx, session.user_id)
    }

    /// The live session of a cookie's secret with its user and workspace, or `None`
    /// (malformed, unknown, expired, or no active workspace left to show). Notes the request
    /// as the session's last one, writing at most every five minutes, or at once when the
    /// workspace it showed is no longer the user's.
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
            let Some(user) = tx.user(session.user_id)? else {
                return Ok(None);
            };
            let workspaces = active_workspaces(tx, user.id)?;
            let two_factor_on = has_second_factor(tx, user.id)?;
            let Some(shown) = self.shown_workspace(tx, &session)? else {
                return Ok(None);
            };
            let required = tx.two_factor_required(shown.0.id)?;
            Ok(Some((
                session,
                user,
                shown,
                workspaces,
                two_factor_on,
                required,
            )))
        })?;
        let Some((mut session, user, (account, membership), workspaces, two_factor_on, required)) =
            found
        else {
            return Ok(None);
        };
        if session.expired(now) {
            return Ok(None);
        }
        if session.needs_touch(now) || session.account_id != Some(account.id) {
            session.last_seen_at = now;
            session.account_id = Some(account.id);
            self.store.write(|tx| tx.save_session(&session))?;
        }
        Ok(Some(SessionContext {
            user,
            account,
            membership,
            workspaces,
            session,
            two_factor_on,
            two_factor_required: required,
            secret,
        }))
    }

    /// Shows another workspace of the user in this session; `false` (nothing changes) when
    /// the user does not belong to it or it is disabled, so another workspace's id answers as
    /// one that does not exist.
    pub fn switch_workspace(
        &self,
        ctx: &SessionContext,
        account: AccountId,
    ) -> Result<bool, StoreError> {
        self.store.write(|tx| {
            let usable = tx.membership(account, ctx.user.id)?.is_some()
                && tx.account(account)?.is_some_and(|a| a.is_active());
            if usable {
                let mut session = ctx.session.clone();
                session.account_id = Some(account);
                tx.save_session(&session)?;
            }
            Ok(usable)
        })
    }

    /// The workspaces a user belongs to with their role in each, oldest membership first;
    /// disabled ones are left out.
    pub fn workspaces_of(&self, user: UserId) -> Result<Vec<(Account, Membership)>, StoreError> {
        self.store.read(|tx| active_workspaces(tx, user))
    }

    /// Ends this session.
    pub fn log_out(&self, ctx: &SessionContext) -> Result<(), StoreError> {
        self.store
            .write(|tx| tx.delete_session(&ctx.session.hash))
            .map(drop)
    }

    /// The user's sessions, oldest first, ended ones left out.
    pub fn sessions(&self, user: UserId) -> Result<Vec<Session>, StoreError> {
        let now = self.clock.now();
        let mut sessions = self.store.read(|tx| tx.sessions_of(user))?;
        sessions.retain(|s| !s.expired(now));
        Ok(sessions)
    }

    /// Ends every session of the user, this one included; returns how many records went
    /// (ended ones not yet pruned included).
    pub fn log_out_everywhere(&self, user: UserId) -> Result<u64, StoreError> {
        self.store.write(|tx| tx.delete_sessions_of(user, None))
    }
}

/// Opens the session of a login admitted inside `tx` ([`open_session_in`], showing the user's
/// first active workspace): the user and the session's secret, or the refusal the closure
/// answers so the transaction still commits what it wrote (a user whose workspaces are all
/// disabled); a store failure aborts the transaction.
pub(crate) fn admit_login<E: From<LoginError>>(
    tx: &mut dyn WriteTx,
    user: User,
    method: LoginMethod,
    client: Option<IpAddr>,
    user_agent: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Result<(User, SessionSecret), E>, StoreError> {
    match open_session_in(tx, &user, None, method, client, user_agent, now) {
        Ok(secret) => Ok(Ok((user, secret))),
        Err(LoginError::Store(e)) => Err(e),
        Err(e) => Ok(Err(e.into())),
    }
}

/// Saves a new session for `user` showing `workspace` when they belong to it and it is active,
/// else their first active one, and appends `login.succeeded` (with `method`) to each of their
/// workspaces: the one way every login (password, second step, passkey, single sign-on) opens a
/// session, inside the transaction that admitted the user.
pub(crate) fn open_session_in(
    tx: &mut dyn WriteTx,
    user: &User,
    workspace: Option<AccountId>,
    method: LoginMethod,
    client: Option<IpAddr>,
    user_agent: Option<&str>,
    now: DateTime<Utc>,
) -> Result<SessionSecret, LoginError> {
    let workspaces = active_workspaces(&*tx, user.id)?;
    let shown = workspace
        .and_then(|id| workspaces.iter().find(|(a, _)| a.id == id))
        .or_else(|| workspaces.first())
        .map(|(account, _)| account.id)
        .ok_or(LoginError::Disabled)?;
    let secret = SessionSecret::generate()?;
    tx.save_session(&Session {
        hash: secret.hash(),
        user_id: user.id,
        account_id: Some(shown),
        created_at: now,
        last_seen_at: now,
        user_agent: user_agent_label(user_agent),
    })?;
    record_login(
        tx,
        user,
        client,
        now,
        AuditAction::LoginSucceeded,
        method.as_str(),
    )?;
    Ok(secret)
}
