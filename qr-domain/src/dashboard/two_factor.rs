//! Two-factor login's records and enrolment: a user's TOTP secret (pending until a code confirms it), the last step a code was accepted for, the unused recovery codes; and the workspace setting that requires members to have one.
//!
//! The TOTP secret is kept as its 20 bytes, not hashed: checking a code needs the secret
//! itself (HMAC), as a webhook's signing secret does (docs/api.md, "The TOTP secret at rest").

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use thiserror::Error;

use crate::accounts::caller::Caller;
use crate::accounts::permissions::{NotPermitted, Operation};
use crate::audit::entry::{AuditAction, AuditObject, Change, ObjectKind};
use crate::audit::service::record;
use crate::clock::Clock;
use crate::dashboard::password;
use crate::dashboard::recovery::{RecoveryCode, RecoveryCodeHashes};
use crate::dashboard::sessions::{SessionContext, has_second_factor, record_in_workspaces};
use crate::dashboard::totp::TotpSecret;
use crate::error::StoreError;
use crate::ids::UserId;
use crate::random::RandomError;
use crate::service::Service;
use crate::store::{Store, WriteTx};

/// The name authenticator apps show above the codes (the `issuer` of the key URI).
pub const TOTP_ISSUER: &str = "QR Platform";

/// A user's second factor: a TOTP secret and, once confirmed, their recovery codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwoFactor {
    /// Whose it is.
    pub user_id: UserId,
    /// The shared secret of the authenticator app.
    pub totp_secret: TotpSecret,
    /// When a code from the app confirmed it; `None` while enrolment is under way (then it
    /// does not protect logins yet).
    pub confirmed_at: Option<DateTime<Utc>>,
    /// The step of the last code accepted, so no code is accepted twice
    /// ([`TotpSecret::verify`]).
    pub last_used_step: Option<u64>,
    /// The unused recovery codes' hashes.
    pub recovery_codes: RecoveryCodeHashes,
    /// When enrolment began.
    pub created_at: DateTime<Utc>,
}

impl TwoFactor {
    /// Whether it protects logins (a code confirmed it).
    pub fn is_confirmed(&self) -> bool {
        self.confirmed_at.is_some()
    }
}

/// What the security page shows about a user's second factor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TwoFactorStatus {
    /// None.
    Off,
    /// Enrolment begun: the secret to show until a code confirms it.
    Pending(TotpSecret),
    /// Logins ask for a code; this many recovery codes are unused.
    On {
        /// Unused recovery codes.
        recovery_codes_left: usize,
    },
}

/// Why a two-factor setting could not change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TwoFactorError {
    /// Two-factor login is already on; turn it off first to enrol a new app.
    #[error("two-factor login is already on")]
    AlreadyOn,
    /// There is nothing to confirm, regenerate or turn off.
    #[error("two-factor login is not on")]
    NotOn,
    /// The code from the app is not the current one.
    #[error("that code is not correct; type the 6 digits your app shows now")]
    WrongCode,
    /// The password given to confirm the change is wrong.
    #[error("the password is not correct")]
    WrongPassword,
    /// Requiring two-factor login needs the owner or admin to have it first, so they cannot
    /// lock themselves out of their own settings.
    #[error("turn on two-factor login for yourself before requiring it of the members")]
    EnrolFirst,
    /// The member's role does not allow this.
    #[error(transparent)]
    NotPermitted(#[from] NotPermitted),
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The audit entry of a change to the user's own second factor, in every workspace of theirs:
/// their workspaces' owners see who turned it on or off.
fn record_factor_change(
    tx: &mut dyn WriteTx,
    ctx: &SessionContext,
    client: Option<IpAddr>,
    at: DateTime<Utc>,
    before: &str,
    after: &str,
) -> Result<(), StoreError> {
    let object = AuditObject::new(ObjectKind::Member, ctx.user.id);
    let changes = vec![Change::shown(
        "two_factor",
        Some(before.to_owned()),
        Some(after.to_owned()),
    )];
    record_in_workspaces(
        tx,
        &ctx.user,
        client,
        at,
        AuditAction::SettingsChanged,
        &object,
        &changes,
    )
}

impl<S: Store, C: Clock> Service<S, C> {
    /// The user's second factor as the security page shows it.
    pub fn two_factor_status(&self, user: UserId) -> Result<TwoFactorStatus, StoreError> {
        Ok(match self.store.read(|tx| tx.two_factor(user))? {
            None => TwoFactorStatus::Off,
            Some(f) if f.is_confirmed() => TwoFactorStatus::On {
                recovery_codes_left: f.recovery_codes.remaining(),
            },
            Some(f) => TwoFactorStatus::Pending(f.totp_secret),
        })
    }

    /// Begins TOTP enrolment: a new secret, kept pending until a code confirms it (a pending one
    /// is replaced, so a secret seen on an abandoned page stops counting).
    pub fn begin_totp_enrolment(&self, ctx: &SessionContext) -> Result<TotpSecret, TwoFactorError> {
        let secret = TotpSecret::generate()?;
        let now = self.clock.now();
        self.store.write(|tx| {
            if tx
                .two_factor(ctx.user.id)?
                .is_some_and(|f| f.is_confirmed())
            {
                return Err(TwoFactorError::AlreadyOn);
            }
            tx.put_two_factor(&TwoFactor {
                user_id: ctx.user.id,
                totp_secret: secret.clone(),
                confirmed_at: None,
                last_used_step: None,
                recovery_codes: RecoveryCodeHashes::default(),
                created_at: now,
            })?;
            Ok(secret)
        })
    }

    /// Confirms the pending secret with a code from the app: logins ask for a code from now on,
    /// and the answer is the ten recovery codes, to show once. The code's step counts as used.
    pub fn confirm_totp_enrolment(
        &self,
        ctx: &SessionContext,
        code: &str,
        client: Option<IpAddr>,
    ) -> Result<Vec<RecoveryCode>, TwoFactorError> {
        let codes = RecoveryCode::generate_set()?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let mut factor = match tx.two_factor(ctx.user.id)? {
                Some(f) if f.is_confirmed() => return Err(TwoFactorError::AlreadyOn),
                Some(f) => f,
                None => return Err(TwoFactorError::NotOn),
            };
            let step = factor
                .totp_secret
                .verify(code, now, None)
                .ok_or(TwoFactorError::WrongCode)?;
            factor.confirmed_at = Some(now);
            factor.last_used_step = Some(step);
            factor.recovery_codes = RecoveryCodeHashes::of(&codes);
            tx.put_two_factor(&factor)?;
            record_factor_change(tx, ctx, client, now, "off", "totp")?;
            Ok(codes)
        })
    }

    /// A new set of ten recovery codes in place of the old ones, after checking the password.
    pub fn regenerate_recovery_codes(
        &self,
        ctx: &SessionContext,
        password: &str,
    ) -> Result<Vec<RecoveryCode>, TwoFactorError> {
        self.check_own_password(ctx, password)?;
        let codes = RecoveryCode::generate_set()?;
        self.store.write(|tx| {
            let mut factor = tx
                .two_factor(ctx.user.id)?
                .filter(TwoFactor::is_confirmed)
                .ok_or(TwoFactorError::NotOn)?;
            factor.recovery_codes = RecoveryCodeHashes::of(&codes);
            tx.put_two_factor(&factor)?;
            Ok(codes)
        })
    }

    /// Turns two-factor login off after checking the password: the secret and the recovery
    /// codes are deleted.
    pub fn disable_two_factor(
        &self,
        ctx: &SessionContext,
        password: &str,
        client: Option<IpAddr>,
    ) -> Result<(), TwoFactorError> {
        self.check_own_password(ctx, password)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let was_on = tx
                .two_factor(ctx.user.id)?
                .is_some_and(|f| f.is_confirmed());
            if !tx.delete_two_factor(ctx.user.id)? {
                return Err(TwoFactorError::NotOn);
            }
            if was_on {
                record_factor_change(tx, ctx, client, now, "totp", "off")?;
            }
            Ok(())
        })
    }

    /// Requires every member of the caller's workspace to have a second factor, an authenticator
    /// app or a passkey (owners and admins: [`Operation::WriteSettings`]); the caller must have
    /// one.
    pub fn require_two_factor(
        &self,
        caller: &Caller,
        ctx: &SessionContext,
    ) -> Result<(), TwoFactorError> {
        caller.require(Operation::WriteSettings)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            if !has_second_factor(tx, ctx.user.id)? {
                return Err(TwoFactorError::EnrolFirst);
            }
            if !tx.two_factor_required(caller.account)? {
                tx.require_two_factor(caller.account, now)?;
                record_requirement_change(tx, caller, now, false, true)?;
            }
            Ok(())
        })
    }

    /// Stops requiring a second factor of the caller's workspace's members.
    pub fn stop_requiring_two_factor(&self, caller: &Caller) -> Result<(), TwoFactorError> {
        caller.require(Operation::WriteSettings)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            if tx.stop_requiring_two_factor(caller.account)? {
                record_requirement_change(tx, caller, now, true, false)?;
            }
            Ok(())
        })
    }

    /// Fails unless `password` is the session user's (a user without one never matches); one
    /// Argon2id verification either way.
    fn check_own_password(
        &self,
        ctx: &SessionContext,
        password: &str,
    ) -> Result<(), TwoFactorError> {
        let user = self.store.read(|tx| tx.user(ctx.user.id))?;
        match user.and_then(|u| u.password_hash) {
            Some(hash) if hash.verify(password) => Ok(()),
            Some(_) => Err(TwoFactorError::WrongPassword),
            None => {
                password::verify_nothing(password);
                Err(TwoFactorError::WrongPassword)
            }
        }
    }
}

/// The `settings.changed` entry of the workspace's two-factor requirement.
fn record_requirement_change(
    tx: &mut dyn WriteTx,
    caller: &Caller,
    at: DateTime<Utc>,
    before: bool,
    after: bool,
) -> Result<(), StoreError> {
    record(
        tx,
        caller,
        at,
        AuditAction::SettingsChanged,
        AuditObject::new(ObjectKind::Workspace, caller.account),
        vec![Change::shown(
            "require_two_factor",
            Some(before.to_string()),
            Some(after.to_string()),
        )],
    )
}
