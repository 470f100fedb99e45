//! The `Service` methods of passkeys: registering one (a logged-in user, at most ten), removing one (after the password), a login with a passkey alone, and a login's second step finished with one; every ceremony single use and five minutes long, failures throttled and audited as the password's are.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use thiserror::Error;

use super::ceremony::{CEREMONY_LIFETIME, Ceremony, CeremonyPurpose, CeremonyToken};
use super::credential::{
    CredentialId, MAX_PASSKEYS_PER_USER, Passkey, PasskeyName, PasskeyNameError,
};
use super::verifier::{
    AuthenticatorResponse, Challenge, ChallengeOptions, PasskeyUser, PasskeyVerifier,
    ResponseError, VerifierError,
};
use crate::accounts::user::User;
use crate::audit::entry::{AuditAction, AuditObject, Change, ObjectKind};
use crate::clock::Clock;
use crate::dashboard::password;
use crate::dashboard::second_factor::PendingLogin;
use crate::dashboard::session::SessionSecret;
use crate::dashboard::sessions::{
    LoginError, LoginMethod, SessionContext, admit_login, record_in_workspaces, record_login,
};
use crate::dashboard::token::TokenPurpose;
use crate::error::StoreError;
use crate::ids::UserId;
use crate::random::RandomError;
use crate::service::Service;
use crate::service::throttle::bucket;
use crate::store::{Store, WriteTx};

/// Why a passkey step failed. Each `Display` is the message the dashboard shows.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PasskeyError {
    /// No such ceremony: never begun, already finished, expired, begun for something else or by
    /// someone else.
    #[error("this passkey request has expired; try again")]
    Expired,
    /// A second step's pending login is gone (finished, expired, or never begun): the password
    /// is asked again.
    #[error("this login has expired; enter your e-mail address and password again")]
    LoginExpired,
    /// The answer did not verify, or names no passkey of the account (one message for both, so
    /// the answer says nothing about which passkeys exist).
    #[error("that passkey was not accepted; use a passkey you added to your account here")]
    NotAccepted,
    /// A second step with a passkey for a user who has none.
    #[error("this account has no passkey; enter a code from your authenticator app")]
    NoPasskey,
    /// The user has [`MAX_PASSKEYS_PER_USER`] already.
    #[error("an account has at most 10 passkeys; remove one before adding another")]
    TooMany,
    /// The authenticator answered with a credential the service already has.
    #[error("this passkey is already added")]
    AlreadyAdded,
    /// The user has no passkey with that id.
    #[error("no such passkey")]
    NotFound,
    /// The password given to confirm a removal is wrong.
    #[error("the password is not correct")]
    WrongPassword,
    /// The name typed for a new passkey.
    #[error(transparent)]
    Name(#[from] PasskeyNameError),
    /// What the browser posted.
    #[error(transparent)]
    Response(#[from] ResponseError),
    /// Too many failed logins (or passkey logins begun) from this address or for this account
    /// lately; nothing was checked.
    #[error("too many failed logins; try again in {retry_after_secs} seconds")]
    Throttled {
        /// Seconds to wait.
        retry_after_secs: u64,
    },
    /// Every workspace of the user is disabled.
    #[error("this account is disabled; contact the operator of the service")]
    Disabled,
    /// The verifier could not make a challenge or read its own state.
    #[error("passkeys are not working on this server right now: {0}")]
    Verifier(VerifierError),
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<LoginError> for PasskeyError {
    fn from(e: LoginError) -> Self {
        match e {
            LoginError::Throttled { retry_after_secs } => {
                PasskeyError::Throttled { retry_after_secs }
            }
            LoginError::Disabled => PasskeyError::Disabled,
            LoginError::Random(e) => PasskeyError::Random(e),
            LoginError::Store(e) => PasskeyError::Store(e),
            LoginError::Invalid | LoginError::SecondFactorNeeded(_) => PasskeyError::LoginExpired,
        }
    }
}

/// A verifier's refusal of an answer is the user's "not accepted"; its failure to work at all is
/// the server's.
fn refused_or_broken(e: VerifierError) -> PasskeyError {
    match e {
        VerifierError::Malformed(_) | VerifierError::Refused(_) => PasskeyError::NotAccepted,
        VerifierError::Internal(_) => PasskeyError::Verifier(e),
    }
}

/// The `settings.changed` entry of a passkey added or removed, in every workspace of the user:
/// their workspaces' owners see how members sign in.
fn record_passkey_change(
    tx: &mut dyn WriteTx,
    user: &User,
    client: Option<IpAddr>,
    at: DateTime<Utc>,
    before: Option<&PasskeyName>,
    after: Option<&PasskeyName>,
) -> Result<(), StoreError> {
    let object = AuditObject::new(ObjectKind::Member, user.id);
    let changes = vec![Change::shown(
        "passkey",
        before.map(|n| n.as_str().to_owned()),
        after.map(|n| n.as_str().to_owned()),
    )];
    record_in_workspaces(
        tx,
        user,
        client,
        at,
        AuditAction::SettingsChanged,
        &object,
        &changes,
    )
}

/// Who a passkey login is checked for, and where the attempt came from.
struct LoginCheck<'a> {
    user: &'a User,
    client: Option<IpAddr>,
    /// The account's key in the login throttles (its lowercased address).
    by_account: String,
    now: DateTime<Utc>,
}

/// The result of a transaction that commits what a refusal writes (the audit entry, a pending
/// login put back) and still refuses: `Ok(Err(..))` from the closure.
type Refusable<T> = Result<Result<T, PasskeyError>, StoreError>;

impl<S: Store, C: Clock> Service<S, C> {
    /// Has the verifier check an authentication answer against `candidates` (the user's
    /// passkeys), storing the used passkey's new record and time. A refused answer is a
    /// `login.failed` entry of the user and counts against the address and the account; a
    /// verifier that cannot work is the server's failure, neither counted nor recorded.
    fn verify_login(
        &self,
        tx: &mut dyn WriteTx,
        verifier: &dyn PasskeyVerifier,
        ceremony: &Ceremony,
        response: &AuthenticatorResponse,
        candidates: &[Passkey],
        check: LoginCheck<'_>,
    ) -> Refusable<()> {
        match verifier.finish_authentication(&ceremony.state, response, candidates) {
            Ok(verified) => {
                tx.record_passkey_use(&verified.credential_id, &verified.data, check.now)?;
                Ok(Ok(()))
            }
            Err(e @ VerifierError::Internal(_)) => Ok(Err(PasskeyError::Verifier(e))),
            Err(_) => {
                record_login(
                    tx,
                    check.user,
                    check.client,
                    check.now,
                    AuditAction::LoginFailed,
                    "passkey not verified",
                )?;
                self.count_login_failure(check.client, check.by_account);
                Ok(Err(PasskeyError::NotAccepted))
            }
        }
    }

    /// The user's passkeys, oldest first.
    pub fn passkeys(&self, user: UserId) -> Result<Vec<Passkey>, StoreError> {
        self.store.read(|tx| tx.passkeys_of(user))
    }

    /// Keeps a ceremony for `challenge` and hands out its token with the browser's options.
    fn keep_ceremony(
        &self,
        purpose: CeremonyPurpose,
        user: Option<UserId>,
        challenge: Challenge,
    ) -> Result<(CeremonyToken, ChallengeOptions), PasskeyError> {
        let token = CeremonyToken::generate()?;
        let now = self.clock.now();
        let ceremony = Ceremony {
            hash: token.hash(),
            purpose,
            user_id: user,
            state: challenge.state,
            created_at: now,
            expires_at: now + CEREMONY_LIFETIME,
        };
        self.store.write(|tx| tx.insert_ceremony(&ceremony))?;
        Ok((token, challenge.options))
    }

    /// Takes the ceremony a form names when it is live and of `purpose`; any other is gone all
    /// the same (single use).
    fn take_ceremony(
        &self,
        tx: &mut dyn WriteTx,
        token: &str,
        purpose: CeremonyPurpose,
    ) -> Result<Option<Ceremony>, StoreError> {
        let Some(token) = CeremonyToken::parse(token) else {
            return Ok(None);
        };
        let now = self.clock.now();
        Ok(tx
            .take_ceremony(&token.hash())?
            .filter(|c| c.purpose == purpose && c.expires_at > now))
    }

    /// Begins adding a passkey for the session's user: the options for
    /// `navigator.credentials.create()`, the user's passkeys excluded.
    pub fn begin_passkey_registration(
        &self,
        ctx: &SessionContext,
        verifier: &dyn PasskeyVerifier,
    ) -> Result<(CeremonyToken, ChallengeOptions), PasskeyError> {
        let registered = self.passkeys(ctx.user.id)?;
        if registered.len() >= MAX_PASSKEYS_PER_USER {
            return Err(PasskeyError::TooMany);
        }
        let user = PasskeyUser {
            id: ctx.user.id,
            name: ctx.user.email.as_str(),
        };
        let challenge = verifier
            .start_registration(&user, &registered)
            .map_err(PasskeyError::Verifier)?;
        self.keep_ceremony(CeremonyPurpose::Register, Some(ctx.user.id), challenge)
    }

    /// Finishes adding a passkey with the authenticator's answer and the name the user gave it:
    /// it signs in from now on, alone or as the second step after the password, and meets a
    /// workspace's two-factor requirement.
    pub fn finish_passkey_registration(
        &self,
        ctx: &SessionContext,
        verifier: &dyn PasskeyVerifier,
        token: &str,
        name: &str,
        response: &str,
        client: Option<IpAddr>,
    ) -> Result<Passkey, PasskeyError> {
        let name = PasskeyName::parse(name)?;
        let response = AuthenticatorResponse::parse(response)?;
        let now = self.clock.now();
        self.store.write(|tx| -> Refusable<Passkey> {
            let Some(ceremony) = self.take_ceremony(tx, token, CeremonyPurpose::Register)? else {
                return Ok(Err(PasskeyError::Expired));
            };
            if ceremony.user_id != Some(ctx.user.id) {
                return Ok(Err(PasskeyError::Expired));
            }
            let verified = match verifier.finish_registration(&ceremony.state, &response) {
                Ok(v) => v,
                Err(e) => return Ok(Err(refused_or_broken(e))),
            };
            if tx.passkeys_of(ctx.user.id)?.len() >= MAX_PASSKEYS_PER_USER {
                return Ok(Err(PasskeyError::TooMany));
            }
            if tx.passkey(&verified.credential_id)?.is_some() {
                return Ok(Err(PasskeyError::AlreadyAdded));
            }
            let passkey = Passkey {
                credential_id: verified.credential_id,
                user_id: ctx.user.id,
                name,
                data: verified.data,
                created_at: now,
                last_used_at: None,
            };
            tx.insert_passkey(&passkey)?;
            record_passkey_change(tx, &ctx.user, client, now, None, Some(&passkey.name))?;
            Ok(Ok(passkey))
        })?
    }

    /// Removes one of the session user's passkeys (named by its credential id in hex) after
    /// checking the password; another user's passkey is "no such passkey".
    pub fn remove_passkey(
        &self,
        ctx: &SessionContext,
        credential: &str,
        password: &str,
        client: Option<IpAddr>,
    ) -> Result<(), PasskeyError> {
        let user = self.store.read(|tx| tx.user(ctx.user.id))?;
        let password_ok = match user.and_then(|u| u.password_hash) {
            Some(hash) => hash.verify(password),
            None => {
                password::verify_nothing(password);
                false
            }
        };
        if !password_ok {
            return Err(PasskeyError::WrongPassword);
        }
        let id = CredentialId::from_hex(credential).ok_or(PasskeyError::NotFound)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let Some(passkey) = tx.passkey(&id)?.filter(|p| p.user_id == ctx.user.id) else {
                return Err(PasskeyError::NotFound);
            };
            tx.delete_passkey(ctx.user.id, &id)?;
            record_passkey_change(tx, &ctx.user, client, now, Some(&passkey.name), None)?;
            Ok(())
        })
    }

    /// Begins a login with a passkey alone: options any discoverable passkey of the service may
    /// answer. Each begun login keeps a ceremony before anyone is known, so they are bounded per
    /// client address (30 at once, then one every 2 s).
    pub fn begin_passkey_login(
        &self,
        verifier: &dyn PasskeyVerifier,
        client: Option<IpAddr>,
    ) -> Result<(CeremonyToken, ChallengeOptions), PasskeyError> {
        let now = self.clock.now();
        if let Some(retry_after_secs) = self.dashboard.passkey_starts.count(bucket(client), now) {
            return Err(PasskeyError::Throttled { retry_after_secs });
        }
        let challenge = verifier
            .start_discoverable_authentication()
            .map_err(PasskeyError::Verifier)?;
        self.keep_ceremony(CeremonyPurpose::Login, None, challenge)
    }

    /// Finishes a login with a passkey alone: the passkey the answer names, when it verifies,
    /// signs in its user (no second step: the authenticator verified the person). A failure
    /// counts against the client address, and, once the passkey names a user, against that
    /// account, in the same budgets as wrong passwords; a passkey that did not verify is a
    /// `login.failed` entry in its user's workspaces.
    pub fn finish_passkey_login(
        &self,
        verifier: &dyn PasskeyVerifier,
        token: &str,
        response: &str,
        client: Option<IpAddr>,
        user_agent: Option<&str>,
    ) -> Result<(User, SessionSecret), PasskeyError> {
        let response = AuthenticatorResponse::parse(response)?;
        let now = self.clock.now();
        if let Some(retry_after_secs) = self.dashboard.login_address.throttled(&bucket(client), now)
        {
            return Err(PasskeyError::Throttled { retry_after_secs });
        }
        self.store.write(|tx| -> Refusable<(User, SessionSecret)> {
            let Some(ceremony) = self.take_ceremony(tx, token, CeremonyPurpose::Login)? else {
                return Ok(Err(PasskeyError::Expired));
            };
            let unknown = |this: &Self| {
                this.dashboard.login_address.count(bucket(client), now);
                Ok(Err(PasskeyError::NotAccepted))
            };
            let Ok(claimed) = verifier.claimed_by(&response) else {
                return unknown(self);
            };
            let Some(passkey) = tx.passkey(&claimed.credential_id)? else {
                return unknown(self);
            };
            // The handle the authenticator keeps is its owner's id; another one means the
            // answer was put together from parts.
            if claimed
                .user_handle
                .is_some_and(|h| h.as_slice() != passkey.user_id.as_uuid().as_bytes())
            {
                return unknown(self);
            }
            let Some(user) = tx.user(passkey.user_id)? else {
                return unknown(self);
            };
            let by_account = user.email.as_str().to_ascii_lowercase();
            if let Err(e) = self.login_throttled(client, &by_account) {
                return Ok(Err(e.into()));
            }
            let check = LoginCheck {
                user: &user,
                client,
                by_account,
                now,
            };
            if let Err(refused) =
                self.verify_login(tx, verifier, &ceremony, &response, &[passkey], check)?
            {
                return Ok(Err(refused));
            }
            admit_login(tx, user, LoginMethod::Passkey, client, user_agent, now)
        })?
    }

    /// Begins a login's second step with a passkey: options any of the pending user's passkeys
    /// may answer. The pending login stays as it is.
    pub fn begin_passkey_second_step(
        &self,
        verifier: &dyn PasskeyVerifier,
        pending: &str,
    ) -> Result<(CeremonyToken, ChallengeOptions), PasskeyError> {
        let Some(pending) = PendingLogin::parse(pending) else {
            return Err(PasskeyError::LoginExpired);
        };
        let now = self.clock.now();
        let hash = pending.hash();
        let (user, passkeys) = self.store.write(|tx| {
            let Some(token) = tx.take_token(&hash)? else {
                return Err(PasskeyError::LoginExpired);
            };
            tx.insert_token(&token)?;
            if token.purpose != TokenPurpose::SecondFactor || token.expires_at <= now {
                return Err(PasskeyError::LoginExpired);
            }
            Ok((token.user_id, tx.passkeys_of(token.user_id)?))
        })?;
        if passkeys.is_empty() {
            return Err(PasskeyError::NoPasskey);
        }
        let challenge = verifier
            .start_authentication(&passkeys)
            .map_err(PasskeyError::Verifier)?;
        self.keep_ceremony(CeremonyPurpose::SecondFactor, Some(user), challenge)
    }

    /// Finishes a login's second step with a passkey of the user whose password was right: a new
    /// session. A passkey that does not verify counts and is audited like a wrong code, and the
    /// pending login stays for another try until it expires.
    pub fn finish_passkey_second_step(
        &self,
        verifier: &dyn PasskeyVerifier,
        pending: &str,
        token: &str,
        response: &str,
        client: Option<IpAddr>,
        user_agent: Option<&str>,
    ) -> Result<(User, SessionSecret), PasskeyError> {
        let response = AuthenticatorResponse::parse(response)?;
        let Some(pending) = PendingLogin::parse(pending) else {
            return Err(PasskeyError::LoginExpired);
        };
        let now = self.clock.now();
        let hash = pending.hash();
        self.store.write(|tx| -> Refusable<(User, SessionSecret)> {
            let ceremony = self.take_ceremony(tx, token, CeremonyPurpose::SecondFactor)?;
            let login = match tx.take_token(&hash)? {
                Some(t) if t.purpose == TokenPurpose::SecondFactor && t.expires_at > now => t,
                _ => return Ok(Err(PasskeyError::LoginExpired)),
            };
            let Some(ceremony) = ceremony.filter(|c| c.user_id == Some(login.user_id)) else {
                tx.insert_token(&login)?;
                return Ok(Err(PasskeyError::Expired));
            };
            let Some(user) = tx.user(login.user_id)? else {
                return Ok(Err(PasskeyError::LoginExpired));
            };
            let by_account = user.email.as_str().to_ascii_lowercase();
            if let Err(e) = self.login_throttled(client, &by_account) {
                tx.insert_token(&login)?;
                return Ok(Err(e.into()));
            }
            let passkeys = tx.passkeys_of(user.id)?;
            let check = LoginCheck {
                user: &user,
                client,
                by_account,
                now,
            };
            if let Err(refused) =
                self.verify_login(tx, verifier, &ceremony, &response, &passkeys, check)?
            {
                // The pending login stays for another try until it expires.
                tx.insert_token(&login)?;
                return Ok(Err(refused));
            }
            admit_login(
                tx,
                user,
                LoginMethod::PasswordAndPasskey,
                client,
                user_agent,
                now,
            )
        })?
    }
}
