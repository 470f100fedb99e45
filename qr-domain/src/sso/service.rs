//! Single sign-on's `Service` methods: a workspace's settings (owners and admins), starting a sign-in from a work address or a workspace, and completing it into a user, a membership and a session, each step audited.

use std::net::IpAddr;

use thiserror::Error;

use super::SsoError;
use super::attempt::{ATTEMPT_LIFETIME, SsoAttempt, StateToken};
use super::callback::Callback;
use super::claims::VerifiedIdentity;
use super::provider::IdentityProvider;
use super::settings::{
    IssuerAddresses, RedirectUri, SsoSettings, SsoSettingsError, SsoSettingsInput,
};
use super::store::StoredSsoSettings;
use crate::accounts::account::{Email, EmailError};
use crate::accounts::caller::Caller;
use crate::accounts::members::{MemberError, ensure_free_seat};
use crate::accounts::permissions::{NotPermitted, Operation};
use crate::accounts::user::{Membership, User};
use crate::audit::entry::{AuditAction, AuditObject, Change, ObjectKind};
use crate::audit::service::record;
use crate::clock::Clock;
use crate::dashboard::session::SessionSecret;
use crate::dashboard::sessions::{LoginError, LoginMethod, open_session_in};
use crate::domains::name::DomainName;
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};
use crate::random::{self, RandomError};
use crate::service::Service;
use crate::store::{Store, WriteTx};

/// What a sign-in needs from outside the domain: the provider's client, which issuer hosts
/// the operator allows, and this service's callback URL.
#[derive(Clone, Copy)]
pub struct SsoEnvironment<'a> {
    /// The OpenID Connect client.
    pub provider: &'a dyn IdentityProvider,
    /// Which issuer hosts settings may name.
    pub addresses: IssuerAddresses,
    /// Where providers send browsers back.
    pub redirect_uri: &'a RedirectUri,
}

/// Whose sign-in to start.
#[derive(Debug, Clone, Copy)]
pub enum SsoTarget<'a> {
    /// The workspace whose allowed domains hold this work address.
    Email(&'a str),
    /// This workspace (its own sign-in link, for a domain several workspaces list).
    Workspace(AccountId),
}

/// A sign-in started: where to send the browser, and the state the browser must bring back.
#[derive(Debug, Clone)]
pub struct SsoStart {
    /// The provider's authorization URL with every parameter.
    pub authorization_url: String,
    /// The attempt's state (the adapter binds it to the browser, in a cookie).
    pub state: StateToken,
}

/// A completed sign-in.
#[derive(Debug)]
pub struct SsoLogin {
    /// Who signed in.
    pub user: User,
    /// The new session's secret (for the cookie).
    pub secret: SessionSecret,
    /// The workspace the session shows.
    pub workspace: AccountId,
    /// Whether they joined the workspace with this sign-in.
    pub joined: bool,
}

/// Why settings were not read or saved.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SsoSettingsChangeError {
    /// The caller's role does not allow it (owners and admins only).
    #[error(transparent)]
    NotPermitted(#[from] NotPermitted),
    /// A field was refused.
    #[error(transparent)]
    Invalid(#[from] SsoSettingsError),
    /// Disabling settings that were never saved.
    #[error("single sign-on is not set up for this workspace")]
    NotSetUp,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a sign-in did not start or did not end in a session; `Display` is the page's message.
#[derive(Debug, Error)]
pub enum SsoLoginError {
    /// The address typed is not one.
    #[error(transparent)]
    Email(#[from] EmailError),
    /// No workspace signs in this domain's people.
    #[error(
        "no workspace signs in {domain} addresses with single sign-on; log in with your password"
    )]
    NoWorkspace {
        /// The address's domain.
        domain: String,
    },
    /// Several workspaces list the domain, so the address alone cannot choose.
    #[error(
        "several workspaces use single sign-on for {domain}; use the sign-in link your workspace's admins gave you"
    )]
    SeveralWorkspaces {
        /// The address's domain.
        domain: String,
    },
    /// The workspace has no enabled single sign-on (or does not exist).
    #[error("this workspace does not use single sign-on")]
    NotEnabled,
    /// The workspace is disabled.
    #[error("this workspace is disabled; contact the operator of the service")]
    Disabled,
    /// No attempt has this state: never begun here, already completed (a replayed callback),
    /// or expired and pruned.
    #[error("this sign-in is unknown, was already used, or has expired; start again")]
    UnknownAttempt,
    /// The protocol refused it (state, age, provider, claims).
    #[error(transparent)]
    Sso(#[from] SsoError),
    /// A user has the address, is not a member, and is not linked to this identity: linking
    /// them on the provider's word would let a workspace's provider take over any account.
    #[error(
        "an account with the address {0} exists and is not a member of this workspace; log in with its password, or ask the workspace's admins to invite it, then sign in with single sign-on"
    )]
    ExistingAccount(Email),
    /// The membership could not be made (every seat taken).
    #[error(transparent)]
    Members(#[from] MemberError),
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<LoginError> for SsoLoginError {
    fn from(e: LoginError) -> Self {
        match e {
            LoginError::Random(e) => SsoLoginError::Random(e),
            LoginError::Store(e) => SsoLoginError::Store(e),
            LoginError::Disabled => SsoLoginError::Disabled,
            other => SsoLoginError::Store(StoreError::Backend(other.to_string())),
        }
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// The caller's workspace's settings (owners and admins: they include the client id).
    pub fn sso_settings(
        &self,
        caller: &Caller,
    ) -> Result<Option<StoredSsoSettings>, SsoSettingsChangeError> {
        caller.require(Operation::WriteSettings)?;
        Ok(self.store.read(|tx| tx.sso_settings(caller.account))?)
    }

    /// Validates and saves the settings, enabled. An empty client secret keeps the saved one
    /// (the page never shows it back, so it cannot be typed again); appends `settings.changed`
    /// with the changed fields, the secret as "changed" only.
    pub fn save_sso_settings(
        &self,
        caller: &Caller,
        input: SsoSettingsInput<'_>,
        addresses: IssuerAddresses,
    ) -> Result<StoredSsoSettings, SsoSettingsChangeError> {
        caller.require(Operation::WriteSettings)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let before = tx.sso_settings(caller.account)?;
            let kept_secret = before
                .as_ref()
                .filter(|_| input.client_secret.trim().is_empty())
                .map(|b| b.settings.client_secret.reveal_to_provider().to_owned());
            let input = SsoSettingsInput {
                client_secret: kept_secret.as_deref().unwrap_or(input.client_secret),
                ..input
            };
            let stored = StoredSsoSettings {
                account_id: caller.account,
                enabled: true,
                settings: SsoSettings::parse(input, addresses)?,
                updated_at: now,
            };
            let changes = settings_changes(before.as_ref(), &stored);
            tx.put_sso_settings(&stored)?;
            if !changes.is_empty() {
                audit_settings(tx, caller, now, changes)?;
            }
            Ok(stored)
        })
    }

    /// Turns single sign-on off, keeping the fields; sign-ins in progress fail at completion.
    pub fn disable_sso(&self, caller: &Caller) -> Result<(), SsoSettingsChangeError> {
        caller.require(Operation::WriteSettings)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let mut stored = tx
                .sso_settings(caller.account)?
                .ok_or(SsoSettingsChangeError::NotSetUp)?;
            if stored.enabled {
                stored.enabled = false;
                stored.updated_at = now;
                tx.put_sso_settings(&stored)?;
                let change =
                    Change::shown("sso.enabled", Some("true".into()), Some("false".into()));
                audit_settings(tx, caller, now, vec![change])?;
            }
            Ok(())
        })
    }

    /// Starts a sign-in: finds the workspace (by the address's domain among the enabled
    /// settings, or by id), reads its provider's metadata, keeps a new attempt and answers
    /// the authorization URL.
    pub fn begin_sso(
        &self,
        env: SsoEnvironment<'_>,
        target: SsoTarget<'_>,
    ) -> Result<SsoStart, SsoLoginError> {
        let stored = match target {
            SsoTarget::Email(raw) => self.settings_for_address(raw)?,
            SsoTarget::Workspace(account) => self
                .store
                .read(|tx| tx.sso_settings(account))?
                .filter(|s| s.enabled)
                .ok_or(SsoLoginError::NotEnabled)?,
        };
        self.require_active(stored.account_id)?;
        let metadata = env
            .provider
            .discover(&stored.settings.issuer)
            .map_err(SsoError::from)?;
        let now = self.clock.now();
        let attempt = SsoAttempt::begin(stored.account_id, now)?;
        let authorization_url = attempt
            .authorization_url(&metadata, &stored.settings.client_id, env.redirect_uri)
            .map_err(SsoError::from)?;
        self.store
            .write(|tx| tx.insert_sso_attempt(&attempt, now - ATTEMPT_LIFETIME))?;
        Ok(SsoStart {
            authorization_url,
            state: attempt.state().clone(),
        })
    }

    /// Completes a sign-in from the callback's query. `browser_state` is the state the
    /// adapter bound to the browser that began it (a cookie): a callback arriving in another
    /// browser is refused (login CSRF: someone else's code would log this browser in as them).
    /// The attempt is taken out before anything else, so a replayed callback finds none. Then
    /// the identity is linked to a user (by the provider's subject; else the member with the
    /// address; else a new user without a password, the address verified by the provider), who
    /// joins the workspace with the default role within the plan's seats, and a session opens
    /// in it; `login.succeeded` (and `member.joined`) are appended in the same transaction.
    pub fn finish_sso(
        &self,
        env: SsoEnvironment<'_>,
        query: &[(String, String)],
        browser_state: Option<&str>,
        client: Option<IpAddr>,
        user_agent: Option<&str>,
    ) -> Result<SsoLogin, SsoLoginError> {
        let callback =
            Callback::from_query_pairs(query.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .map_err(SsoError::from)?;
        let same_browser = browser_state.is_some_and(|bound| {
            random::constant_time_eq(bound.as_bytes(), callback.state.as_bytes())
        });
        if !same_browser {
            return Err(SsoError::StateMismatch.into());
        }
        let state =
            StateToken::from_stored(&callback.state).ok_or(SsoLoginError::UnknownAttempt)?;
        let attempt = self
            .store
            .write(|tx| tx.take_sso_attempt(&state))?
            .ok_or(SsoLoginError::UnknownAttempt)?;
        let account = attempt.workspace();
        let stored = self
            .store
            .read(|tx| tx.sso_settings(account))?
            .filter(|s| s.enabled)
            .ok_or(SsoLoginError::NotEnabled)?;
        let metadata = env
            .provider
            .discover(&stored.settings.issuer)
            .map_err(SsoError::from)?;
        let identity = attempt.complete(
            &callback,
            env.provider,
            &metadata,
            &stored.settings,
            env.redirect_uri,
            self.clock.now(),
        )?;
        let now = self.clock.now();
        self.store.write(|tx| {
            if !tx.account(account)?.is_some_and(|a| a.is_active()) {
                return Err(SsoLoginError::Disabled);
            }
            let user = identity_user(tx, account, &identity, now)?;
            let mut joined = false;
            let membership = match tx.membership(account, user.id)? {
                Some(m) => m,
                None => {
                    ensure_free_seat(&*tx, account, now)?;
                    let m = Membership {
                        account_id: account,
                        user_id: user.id,
                        role: stored.settings.default_role.role(),
                        created_at: now,
                    };
                    tx.put_membership(&m)?;
                    joined = true;
                    m
                }
            };
            let caller = Caller::member(
                account,
                user.id,
                user.email.as_str(),
                membership.role,
                client,
            );
            if joined {
                let role = Change::shown("role", None, Some(membership.role.as_str().to_owned()));
                record(
                    tx,
                    &caller,
                    now,
                    AuditAction::MemberJoined,
                    AuditObject::new(ObjectKind::Member, user.id),
                    vec![role],
                )?;
            }
            // The session shows this workspace; `login.succeeded` goes to each of the user's
            // workspaces, as every login's does.
            let secret = open_session_in(
                tx,
                &user,
                Some(account),
                LoginMethod::External,
                client,
                user_agent,
                now,
            )?;
            Ok(SsoLogin {
                user,
                secret,
                workspace: account,
                joined,
            })
        })
    }

    /// The one enabled workspace whose allowed domains hold the address's domain.
    fn settings_for_address(&self, raw: &str) -> Result<StoredSsoSettings, SsoLoginError> {
        let email = Email::parse(raw)?;
        let domain = email
            .as_str()
            .rsplit_once('@')
            .and_then(|(_, d)| DomainName::parse_any(d).ok())
            .map(|d| d.as_str().to_owned())
            .ok_or(SsoLoginError::NoWorkspace {
                domain: email.as_str().to_owned(),
            })?;
        let mut found = self.store.read(|tx| tx.sso_settings_for_domain(&domain))?;
        match found.len() {
            0 => Err(SsoLoginError::NoWorkspace { domain }),
            1 => Ok(found.remove(0)),
            _ => Err(SsoLoginError::SeveralWorkspaces { domain }),
        }
    }

    /// Refuses a workspace that is gone or disabled.
    fn require_active(&self, account: AccountId) -> Result<(), SsoLoginError> {
        let active = self
            .store
            .read(|tx| tx.account(account))?
            .is_some_and(|a| a.is_active());
        if active {
            Ok(())
        } else {
            Err(SsoLoginError::Disabled)
        }
    }
}

/// The user an identity signs in as, linking or creating them (see [`Service::finish_sso`]).
/// A user found unverified is marked verified: the provider vouched for the address.
fn identity_user(
    tx: &mut dyn WriteTx,
    account: AccountId,
    identity: &VerifiedIdentity,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<User, SsoLoginError> {
    let linked = match tx.sso_identity(&identity.issuer, &identity.subject)? {
        Some(id) => tx.user(id)?,
        None => None,
    };
    let mut user = match linked {
        Some(user) => user,
        None => {
            let user = match tx.user_by_email(&identity.email)? {
                Some(user) if tx.membership(account, user.id)?.is_some() => user,
                Some(user) => return Err(SsoLoginError::ExistingAccount(user.email)),
                None => {
                    let user = User::new(UserId::random(), identity.email.clone(), now);
                    tx.insert_user(&user)?;
                    user
                }
            };
            tx.link_sso_identity(&identity.issuer, &identity.subject, user.id, now)?;
            user
        }
    };
    if user.email_verified_at.is_none() {
        user.email_verified_at = Some(now);
        tx.update_user(&user)?;
    }
    Ok(user)
}

/// Appends `settings.changed` on the workspace.
fn audit_settings(
    tx: &mut dyn WriteTx,
    caller: &Caller,
    at: chrono::DateTime<chrono::Utc>,
    changes: Vec<Change>,
) -> Result<(), StoreError> {
    record(
        tx,
        caller,
        at,
        AuditAction::SettingsChanged,
        AuditObject::new(ObjectKind::Workspace, caller.account),
        changes,
    )
}

/// The fields that differ between the saved settings and the new ones, as the log shows them:
/// each with its values, the client secret as changed only.
fn settings_changes(before: Option<&StoredSsoSettings>, after: &StoredSsoSettings) -> Vec<Change> {
    let fields = |s: &StoredSsoSettings| {
        [
            ("sso.enabled", s.enabled.to_string()),
            ("sso.issuer", s.settings.issuer.as_str().to_owned()),
            ("sso.clientId", s.settings.client_id.as_str().to_owned()),
            ("sso.domains", s.domains_text()),
            (
                "sso.defaultRole",
                s.settings.default_role.role().as_str().to_owned(),
            ),
        ]
    };
    let old = before.map(fields);
    let mut changes: Vec<Change> = fields(after)
        .into_iter()
        .enumerate()
        .filter_map(|(i, (name, value))| {
            let was = old.as_ref().map(|o| o[i].1.clone());
            (was.as_deref() != Some(value.as_str())).then(|| Change::shown(name, was, Some(value)))
        })
        .collect();
    let secret_changed =
        before.is_none_or(|b| b.settings.client_secret != after.settings.client_secret);
    if secret_changed {
        changes.push(Change::hidden("sso.clientSecret"));
    }
    changes
}
