//! Contract checks of passkeys over a store: passkeys read back in order and unique by credential id, used and deleted only as told, ceremonies taken once and pruned after their 5 minutes, both going with their user; and the service's rules through a plain-text fake verifier (registration, removal, a login with a passkey alone, a login's second step, the workspace's two-factor requirement) with their audit entries.

use std::sync::atomic::{AtomicU64, Ordering};

use chrono::Duration;

use crate::accounts::plan::Plan;
use crate::audit::entry::{AuditAction, AuditEntry, ObjectKind, summary_line};
use crate::audit::query::AuditQuery;
use crate::clock::Clock;
use crate::contract::{service, t, user};
use crate::dashboard::second_factor::SecondFactorError;
use crate::dashboard::session::SessionSecret;
use crate::dashboard::token::{TokenHash, TokenPurpose};
use crate::dashboard::totp::step_at;
use crate::dashboard::two_factor::TwoFactorError;
use crate::error::StoreError;
use crate::ids::UserId;
use crate::passkeys::{
    AuthenticatorResponse, CEREMONY_LIFETIME, Ceremony, CeremonyPurpose, CeremonyState, Challenge,
    ChallengeOptions, Claimed, CredentialId, MAX_PASSKEYS_PER_USER, Passkey, PasskeyData,
    PasskeyError, PasskeyName, PasskeyNameError, PasskeyUser, PasskeyVerifier, VerifiedCredential,
    VerifierError,
};
use crate::service::{LoginError, Service, SessionContext};
use crate::store::Store;

const PASSWORD: &str = "plum tree at dawn";

/// The kind a registration's state starts with.
const REGISTER: &str = "register";
/// The kind an authentication's state starts with (a login alone or a second step).
const AUTHENTICATE: &str = "authenticate";

/// A verifier without cryptography. A ceremony's state is `"<kind> challenge-<n>"`; an answer
/// is `"credential=<hex> user=<hex or none> verifies=<yes or no>"` (see [`answer`]). It accepts
/// an answer whose `verifies` is `yes`, to a state of the right kind, from a credential among
/// the candidates (for an authentication); a credential's record is the state it last answered,
/// so each use changes it.
#[derive(Debug, Default)]
struct FakeVerifier {
    challenges: AtomicU64,
}

impl FakeVerifier {
    fn challenge(&self, kind: &str) -> Challenge {
        let n = self.challenges.fetch_add(1, Ordering::Relaxed);
        let text = format!("{kind} challenge-{n}");
        Challenge {
            options: ChallengeOptions::new(text.clone()),
            state: CeremonyState::new(text),
        }
    }

    /// The credential an answer names and whether it says it verifies; the state must be of
    /// `kind`.
    fn check(
        state: &CeremonyState,
        kind: &str,
        response: &AuthenticatorResponse,
    ) -> Result<(CredentialId, bool), VerifierError> {
        if state.as_str().split(' ').next() != Some(kind) {
            return Err(VerifierError::Refused(format!("not a {kind} ceremony")));
        }
        let (claimed, verifies) = parse_answer(response)?;
        Ok((claimed.credential_id, verifies))
    }
}

/// The answer a fake authenticator gives.
fn answer(credential: &CredentialId, handle: Option<UserId>, verifies: bool) -> String {
    let handle = handle.map_or("none".to_owned(), |u| {
        crate::random::hex(u.as_uuid().as_bytes())
    });
    let verifies = if verifies { "yes" } else { "no" };
    format!(
        "credential={} user={handle} verifies={verifies}",
        credential.to_hex()
    )
}

/// Reads [`answer`]'s text back.
fn parse_answer(response: &AuthenticatorResponse) -> Result<(Claimed, bool), VerifierError> {
    let malformed = || VerifierError::Malformed(response.as_str().to_owned());
    let mut parts = response.as_str().split(' ');
    let mut field = |name: &str| {
        parts
            .next()
            .and_then(|p| p.strip_prefix(name))
            .and_then(|p| p.strip_prefix('='))
            .map(str::to_owned)
            .ok_or_else(malformed)
    };
    let credential_id = CredentialId::from_hex(&field("credential")?).ok_or_else(malformed)?;
    let handle = field("user")?;
    let verifies = field("verifies")? == "yes";
    let user_handle = match handle.as_str() {
        "none" => None,
        // Any hex bytes: a credential id's parser reads them as well as any.
        hex => Some(
            CredentialId::from_hex(hex)
                .ok_or_else(malformed)?
                .as_bytes()
                .to_vec(),
        ),
    };
    Ok((
        Claimed {
            credential_id,
            user_handle,
        },
        verifies,
    ))
}

impl PasskeyVerifier for FakeVerifier {
    fn start_registration(
        &self,
        _: &PasskeyUser<'_>,
        _: &[Passkey],
    ) -> Result<Challenge, VerifierError> {
        Ok(self.challenge(REGISTER))
    }

    fn finish_registration(
        &self,
        state: &CeremonyState,
        response: &AuthenticatorResponse,
    ) -> Result<VerifiedCredential, VerifierError> {
        match Self::check(state, REGISTER, response)? {
            (credential_id, true) => Ok(VerifiedCredential {
                credential_id,
                data: PasskeyData::new(format!("answered {}", state.as_str())),
            }),
            (_, false) => Err(VerifierError::Refused("the signature".to_owned())),
        }
    }

    fn start_authentication(&self, _: &[Passkey]) -> Result<Challenge, VerifierError> {
        Ok(self.challenge(AUTHENTICATE))
    }

    fn start_discoverable_authentication(&self) -> Result<Challenge, VerifierError> {
        Ok(self.challenge(AUTHENTICATE))
    }

    fn claimed_by(&self, response: &AuthenticatorResponse) -> Result<Claimed, VerifierError> {
        parse_answer(response).map(|(claimed, _)| claimed)
    }

    fn finish_authentication(
        &self,
        state: &CeremonyState,
        response: &AuthenticatorResponse,
        passkeys: &[Passkey],
    ) -> Result<VerifiedCredential, VerifierError> {
        let (credential_id, verifies) = Self::check(state, AUTHENTICATE, response)?;
        if !passkeys.iter().any(|p| p.credential_id == credential_id) {
            return Err(VerifierError::Refused("not a candidate".to_owned()));
        }
        if !verifies {
            return Err(VerifierError::Refused("the signature".to_owned()));
        }
        Ok(VerifiedCredential {
            credential_id,
            data: PasskeyData::new(format!("answered {}", state.as_str())),
        })
    }
}

/// A credential id of 16 bytes `b`.
fn credential(b: u8) -> CredentialId {
    CredentialId::new(vec![b; 16]).expect("16 bytes")
}

/// A passkey of `user` (not stored).
fn passkey(user: UserId, b: u8, at: &str) -> Passkey {
    Passkey {
        credential_id: credential(b),
        user_id: user,
        name: PasskeyName::parse(&format!("Key {b}")).expect("valid"),
        data: PasskeyData::new(format!("{{\"key\":{b}}}")),
        created_at: t(at),
        last_used_at: None,
    }
}

/// A ceremony named by the hash of 32 bytes `b`, begun at `at` (not stored).
fn ceremony(b: u8, purpose: CeremonyPurpose, user: Option<UserId>, at: &str) -> Ceremony {
    Ceremony {
        hash: TokenHash([b; 32]),
        purpose,
        user_id: user,
        state: CeremonyState::new(format!("state {b}")),
        created_at: t(at),
        expires_at: t(at) + CEREMONY_LIFETIME,
    }
}

/// A stored user.
fn stored_user<S: Store>(store: &S) -> UserId {
    let u = user();
    store.write(|tx| tx.insert_user(&u)).expect("user");
    u.id
}

/// A passkey reads back field for field (used or not); a user's passkeys come oldest first,
/// ties by credential id; a second passkey with a credential id taken (by anyone) and a passkey
/// of a missing user are conflicts.
pub fn passkeys_roundtrip_in_order_and_are_unique<S: Store>(store: S) {
    let a = stored_user(&store);
    let b = stored_user(&store);
    let newest = passkey(a, 1, "2024-05-03T10:00:00Z");
    let oldest = Passkey {
        last_used_at: Some(t("2024-05-02T08:30:00Z")),
        ..passkey(a, 9, "2024-05-01T10:00:00Z")
    };
    let tie_high = passkey(a, 7, "2024-05-02T10:00:00Z");
    let tie_low = passkey(a, 3, "2024-05-02T10:00:00Z");
    let theirs = passkey(b, 5, "2024-04-01T10:00:00Z");
    for p in [&newest, &oldest, &tie_high, &tie_low, &theirs] {
        store.write(|tx| tx.insert_passkey(p)).expect("insert");
    }
    let read = |id: &CredentialId| store.read(|tx| tx.passkey(id)).expect("read");
    assert_eq!(read(&oldest.credential_id), Some(oldest.clone()));
    assert_eq!(read(&newest.credential_id), Some(newest.clone()));
    assert_eq!(read(&theirs.credential_id), Some(theirs.clone()));
    assert_eq!(read(&credential(200)), None);
    assert_eq!(
        store.read(|tx| tx.passkeys_of(a)).expect("list"),
        [oldest.clone(), tie_low, tie_high, newest.clone()],
        "oldest first, ties by credential id"
    );
    assert_eq!(store.read(|tx| tx.passkeys_of(b)).expect("list"), [theirs]);
    assert_eq!(
        store
            .read(|tx| tx.passkeys_of(UserId::random()))
            .expect("list"),
        []
    );
    assert!(matches!(
        store.write(|tx| tx.insert_passkey(&passkey(b, 1, "2024-05-04T10:00:00Z"))),
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        store.write(|tx| tx.insert_passkey(&passkey(a, 1, "2024-05-04T10:00:00Z"))),
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(
        read(&newest.credential_id),
        Some(newest),
        "the first passkey with the id stays as it was"
    );
    assert!(matches!(
        store.write(|tx| tx.insert_passkey(&passkey(UserId::random(), 42, "2024-05-04T10:00:00Z"))),
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(read(&credential(42)), None);
}

/// `delete_passkey` deletes only the named user's passkey; `record_passkey_use` stores the
/// record and the time and answers false for an unknown id.
pub fn passkeys_are_used_and_deleted_only_as_told<S: Store>(store: S) {
    let a = stored_user(&store);
    let b = stored_user(&store);
    let mine = passkey(a, 1, "2024-05-01T10:00:00Z");
    let theirs = passkey(b, 2, "2024-05-01T10:00:00Z");
    for p in [&mine, &theirs] {
        store.write(|tx| tx.insert_passkey(p)).expect("insert");
    }
    let used_at = t("2024-05-02T11:12:13Z");
    let data = PasskeyData::new("{\"counter\":8}".to_owned());
    assert!(
        store
            .write(|tx| tx.record_passkey_use(&mine.credential_id, &data, used_at))
            .expect("use")
    );
    assert!(
        !store
            .write(|tx| tx.record_passkey_use(&credential(99), &data, used_at))
            .expect("use of nothing")
    );
    let read = |id: &CredentialId| store.read(|tx| tx.passkey(id)).expect("read");
    assert_eq!(
        read(&mine.credential_id),
        Some(Passkey {
            data: data.clone(),
            last_used_at: Some(used_at),
            ..mine.clone()
        })
    );
    assert_eq!(
        read(&theirs.credential_id),
        Some(theirs.clone()),
        "untouched"
    );
    assert!(
        !store
            .write(|tx| tx.delete_passkey(a, &theirs.credential_id))
            .expect("delete")
    );
    assert_eq!(
        read(&theirs.credential_id),
        Some(theirs.clone()),
        "another user's passkey is never deleted"
    );
    assert!(
        !store
            .write(|tx| tx.delete_passkey(a, &credential(99)))
            .expect("delete")
    );
    assert!(
        store
            .write(|tx| tx.delete_passkey(a, &mine.credential_id))
            .expect("delete")
    );
    assert_eq!(read(&mine.credential_id), None);
    assert_eq!(store.read(|tx| tx.passkeys_of(a)).expect("list"), []);
    assert!(
        !store
            .write(|tx| tx.delete_passkey(a, &mine.credential_id))
            .expect("delete again")
    );
    assert_eq!(store.read(|tx| tx.passkeys_of(b)).expect("list"), [theirs]);
}

/// A ceremony (with or without a user) reads back whole once, then is gone; one naming a
/// missing user is a conflict; pruning deletes the ceremonies that expired before the time
/// given, and only those.
pub fn ceremonies_are_taken_once_and_pruned_when_expired<S: Store>(store: S) {
    let a = stored_user(&store);
    let registering = ceremony(
        1,
        CeremonyPurpose::Register,
        Some(a),
        "2024-05-01T10:00:00Z",
    );
    let second = ceremony(
        2,
        CeremonyPurpose::SecondFactor,
        Some(a),
        "2024-05-01T10:00:00Z",
    );
    let login = ceremony(3, CeremonyPurpose::Login, None, "2024-05-01T10:00:00Z");
    for c in [&registering, &second, &login] {
        store.write(|tx| tx.insert_ceremony(c)).expect("insert");
    }
    let take = |hash: &TokenHash| store.write(|tx| tx.take_ceremony(hash)).expect("take");
    assert_eq!(take(&login.hash), Some(login.clone()), "every field back");
    assert_eq!(take(&login.hash), None, "single use");
    assert_eq!(take(&second.hash), Some(second.clone()));
    assert_eq!(take(&second.hash), None);
    assert_eq!(take(&TokenHash([9; 32])), None);
    assert!(matches!(
        store.write(|tx| tx.insert_ceremony(&ceremony(
            4,
            CeremonyPurpose::Register,
            Some(UserId::random()),
            "2024-05-01T10:00:00Z"
        ))),
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(take(&TokenHash([4; 32])), None);

    // Three more: expiring at 10:05 (with `registering`), 10:06 and 10:07.
    let later = ceremony(5, CeremonyPurpose::Login, None, "2024-05-01T10:01:00Z");
    let latest = ceremony(6, CeremonyPurpose::Login, None, "2024-05-01T10:02:00Z");
    let same = ceremony(7, CeremonyPurpose::Login, None, "2024-05-01T10:00:00Z");
    for c in [&later, &latest, &same] {
        store.write(|tx| tx.insert_ceremony(c)).expect("insert");
    }
    let prune = |at: &str| store.write(|tx| tx.prune_ceremonies(t(at))).expect("prune");
    assert_eq!(prune("2024-05-01T10:04:59Z"), 0, "none expired yet");
    assert_eq!(
        prune("2024-05-01T10:05:00Z"),
        0,
        "expiring at 10:05 is not expired before 10:05"
    );
    assert_eq!(prune("2024-05-01T10:06:30Z"), 3, "10:05 twice and 10:06");
    assert_eq!(take(&registering.hash), None);
    assert_eq!(take(&same.hash), None);
    assert_eq!(take(&later.hash), None);
    assert_eq!(take(&latest.hash), Some(latest), "not expired: kept");
}

/// Deleting a user deletes their passkeys and ceremonies, and nobody else's.
pub fn passkeys_and_ceremonies_go_with_their_user<S: Store>(store: S) {
    let a = stored_user(&store);
    let b = stored_user(&store);
    for p in [
        passkey(a, 1, "2024-05-01T10:00:00Z"),
        passkey(a, 2, "2024-05-01T10:00:00Z"),
        passkey(b, 3, "2024-05-01T10:00:00Z"),
    ] {
        store.write(|tx| tx.insert_passkey(&p)).expect("insert");
    }
    let at = "2024-05-01T10:00:00Z";
    let ceremonies = [
        ceremony(1, CeremonyPurpose::Register, Some(a), at),
        ceremony(2, CeremonyPurpose::SecondFactor, Some(a), at),
        ceremony(3, CeremonyPurpose::Register, Some(b), at),
        ceremony(4, CeremonyPurpose::Login, None, at),
    ];
    for c in &ceremonies {
        store.write(|tx| tx.insert_ceremony(c)).expect("insert");
    }
    assert!(store.write(|tx| tx.delete_user(a)).expect("delete"));
    assert_eq!(store.read(|tx| tx.passkeys_of(a)).expect("list"), []);
    assert_eq!(
        store.read(|tx| tx.passkey(&credential(1))).expect("read"),
        None
    );
    assert_eq!(
        store.read(|tx| tx.passkeys_of(b)).expect("list").len(),
        1,
        "another user's passkey stays"
    );
    let take = |c: &Ceremony| store.write(|tx| tx.take_ceremony(&c.hash)).expect("take");
    assert_eq!(take(&ceremonies[0]), None);
    assert_eq!(take(&ceremonies[1]), None);
    assert_eq!(take(&ceremonies[2]), Some(ceremonies[2].clone()));
    assert_eq!(
        take(&ceremonies[3]),
        Some(ceremonies[3].clone()),
        "a login's ceremony names nobody"
    );
    // The credential ids are free again.
    store
        .write(|tx| tx.insert_passkey(&passkey(b, 1, "2024-05-02T10:00:00Z")))
        .expect("the id of a deleted passkey may come back");
}

/// A user with `email` and a password, owning a workspace; their session.
fn person<S: Store, C: Clock>(svc: &Service<S, C>, email: &str) -> SessionContext {
    person_and_secret(svc, email).0
}

/// [`person`] with the session's secret.
fn person_and_secret<S: Store, C: Clock>(
    svc: &Service<S, C>,
    email: &str,
) -> (SessionContext, SessionSecret) {
    let account = svc.create_account(email, Plan::Pro).expect("workspace");
    let owner = svc.owner_of(account.id).expect("read").expect("owner");
    let (_, token) = svc
        .issue_token(owner.id, TokenPurpose::Reset)
        .expect("token");
    svc.reset_password(token.expose(), PASSWORD)
        .expect("password");
    let (_, secret) = svc.log_in(email, PASSWORD, None, None).expect("login");
    let ctx = svc
        .session(secret.expose())
        .expect("session")
        .expect("live");
    (ctx, secret)
}

/// Adds passkey `b` for the session's user through the service.
fn register<S: Store, C: Clock>(
    svc: &Service<S, C>,
    verifier: &FakeVerifier,
    ctx: &SessionContext,
    b: u8,
    name: &str,
) -> Passkey {
    let (token, _) = svc
        .begin_passkey_registration(ctx, verifier)
        .expect("begin");
    svc.finish_passkey_registration(
        ctx,
        verifier,
        token.expose(),
        name,
        &answer(&credential(b), Some(ctx.user.id), true),
        None,
    )
    .expect("finish")
}

/// The change summaries of a workspace's entries with `action`, newest first.
fn summaries<S: Store, C: Clock>(
    svc: &Service<S, C>,
    ctx: &SessionContext,
    action: AuditAction,
) -> Vec<String> {
    entries(svc, ctx, action)
        .iter()
        .map(|e| summary_line(&e.entry.changes))
        .collect()
}

/// The entries of the session's workspace with `action`, newest first.
fn entries<S: Store, C: Clock>(
    svc: &Service<S, C>,
    ctx: &SessionContext,
    action: AuditAction,
) -> Vec<AuditEntry> {
    let query = AuditQuery {
        limit: 200,
        ..AuditQuery::default()
    };
    svc.audit_log(&ctx.caller(None), &query)
        .expect("log")
        .entries
        .into_iter()
        .filter(|e| e.entry.action == action)
        .collect()
}

/// Begin, then finish with the authenticator's answer: the passkey is stored with its name and
/// the verifier's record, audited in the user's workspace, and counts as a second factor. A
/// ceremony finishes once, only its own user's registration, within 5 minutes; a refused
/// answer, a bad name, a credential already added and an eleventh passkey are refused.
pub fn service_passkey_registration<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let v = FakeVerifier::default();
    let ann = person(&svc, "ann@example.com");
    let bob = person(&svc, "bob@example.com");
    assert!(!ann.two_factor_on);
    let finish = |ctx: &SessionContext, token: &str, name: &str, b: u8, verifies: bool| {
        svc.finish_passkey_registration(
            ctx,
            &v,
            token,
            name,
            &answer(&credential(b), Some(ctx.user.id), verifies),
            None,
        )
    };

    let (token, options) = svc.begin_passkey_registration(&ann, &v).expect("begin");
    assert!(options.as_str().starts_with(REGISTER), "{options:?}");
    assert_eq!(
        finish(&ann, token.expose(), "  ", 1, true),
        Err(PasskeyError::Name(PasskeyNameError::Empty))
    );
    assert_eq!(
        finish(&ann, token.expose(), "a\tb", 1, true),
        Err(PasskeyError::Name(PasskeyNameError::Control))
    );
    let added = finish(&ann, token.expose(), " Laptop ", 1, true).expect("added");
    assert_eq!(added.credential_id, credential(1));
    assert_eq!(added.user_id, ann.user.id);
    assert_eq!(added.name.as_str(), "Laptop");
    assert_eq!(added.created_at, clock.now());
    assert_eq!(added.last_used_at, None);
    assert!(added.data.as_str().starts_with("answered register"));
    assert_eq!(
        svc.passkeys(ann.user.id).expect("list"),
        std::slice::from_ref(&added)
    );
    assert_eq!(
        finish(&ann, token.expose(), "Laptop", 2, true),
        Err(PasskeyError::Expired),
        "a ceremony finishes once"
    );
    let changed = entries(&svc, &ann, AuditAction::SettingsChanged);
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(
        summary_line(&changed[0].entry.changes),
        r#"passkey: "Laptop""#
    );
    assert_eq!(changed[0].entry.object.kind, ObjectKind::Member);
    assert_eq!(changed[0].entry.object.id, ann.user.id.to_string());
    assert_eq!(changed[0].entry.account_id, ann.account.id);
    assert_eq!(changed[0].entry.actor.id, ann.user.id.to_string());
    assert!(entries(&svc, &bob, AuditAction::SettingsChanged).is_empty());
    assert!(
        matches!(
            svc.log_in("ann@example.com", PASSWORD, None, None),
            Err(LoginError::SecondFactorNeeded(_))
        ),
        "a passkey is a second factor"
    );

    // Bob's ceremony does not finish Ann's registration (and is used up trying).
    let (bobs, _) = svc.begin_passkey_registration(&bob, &v).expect("begin");
    assert_eq!(
        finish(&ann, bobs.expose(), "Phone", 2, true),
        Err(PasskeyError::Expired)
    );
    assert_eq!(
        finish(&bob, bobs.expose(), "Phone", 2, true),
        Err(PasskeyError::Expired)
    );
    // A login's ceremony does not finish a registration.
    let (login, _) = svc.begin_passkey_login(&v, None).expect("begin login");
    assert_eq!(
        finish(&ann, login.expose(), "Phone", 2, true),
        Err(PasskeyError::Expired)
    );
    assert_eq!(
        finish(&ann, "not a token", "Phone", 2, true),
        Err(PasskeyError::Expired)
    );
    // A refused answer adds nothing and uses the ceremony up.
    let (token, _) = svc.begin_passkey_registration(&ann, &v).expect("begin");
    assert_eq!(
        finish(&ann, token.expose(), "Phone", 2, false),
        Err(PasskeyError::NotAccepted)
    );
    assert_eq!(
        finish(&ann, token.expose(), "Phone", 2, true),
        Err(PasskeyError::Expired)
    );
    // A malformed answer is not accepted either.
    let (token, _) = svc.begin_passkey_registration(&ann, &v).expect("begin");
    assert_eq!(
        svc.finish_passkey_registration(&ann, &v, token.expose(), "Phone", "{}", None),
        Err(PasskeyError::NotAccepted)
    );
    // A credential someone has is not added twice.
    let (token, _) = svc.begin_passkey_registration(&bob, &v).expect("begin");
    assert_eq!(
        finish(&bob, token.expose(), "Phone", 1, true),
        Err(PasskeyError::AlreadyAdded)
    );
    // Five minutes, then the ceremony is gone.
    let (token, _) = svc.begin_passkey_registration(&ann, &v).expect("begin");
    clock.advance(CEREMONY_LIFETIME);
    assert_eq!(
        finish(&ann, token.expose(), "Phone", 2, true),
        Err(PasskeyError::Expired)
    );
    assert_eq!(svc.passkeys(ann.user.id).expect("list").len(), 1);
    assert!(svc.passkeys(bob.user.id).expect("list").is_empty());

    // Ten at most: a ceremony begun at nine cannot finish after a tenth was added.
    for b in 2..u8::try_from(MAX_PASSKEYS_PER_USER).expect("small") {
        clock.advance(Duration::seconds(1));
        register(&svc, &v, &ann, b, &format!("Key {b}"));
    }
    let (early, _) = svc.begin_passkey_registration(&ann, &v).expect("begin");
    register(&svc, &v, &ann, 100, "Tenth");
    assert_eq!(
        svc.passkeys(ann.user.id).expect("list").len(),
        MAX_PASSKEYS_PER_USER
    );
    assert_eq!(
        finish(&ann, early.expose(), "Eleventh", 101, true),
        Err(PasskeyError::TooMany)
    );
    assert!(matches!(
        svc.begin_passkey_registration(&ann, &v),
        Err(PasskeyError::TooMany)
    ));
    let names: Vec<String> = svc
        .passkeys(ann.user.id)
        .expect("list")
        .iter()
        .map(|p| p.name.as_str().to_owned())
        .collect();
    assert_eq!(names.first().map(String::as_str), Some("Laptop"));
    assert_eq!(names.last().map(String::as_str), Some("Tenth"));
    assert_eq!(
        summaries(&svc, &ann, AuditAction::SettingsChanged).len(),
        MAX_PASSKEYS_PER_USER
    );
}

/// Removal takes the password; another user's passkey, or no passkey, is "not found" and stays;
/// the removal is audited with the passkey's name.
pub fn service_passkey_removal<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let v = FakeVerifier::default();
    let ann = person(&svc, "ann@example.com");
    let bob = person(&svc, "bob@example.com");
    let laptop = register(&svc, &v, &ann, 1, "Laptop");
    let phone = register(&svc, &v, &bob, 2, "Phone");
    let remove = |ctx: &SessionContext, id: &str, password: &str| {
        svc.remove_passkey(ctx, id, password, None)
    };
    assert_eq!(
        remove(&ann, &laptop.credential_id.to_hex(), "wrong"),
        Err(PasskeyError::WrongPassword)
    );
    assert_eq!(
        remove(&ann, &phone.credential_id.to_hex(), PASSWORD),
        Err(PasskeyError::NotFound)
    );
    assert_eq!(
        remove(&ann, &credential(9).to_hex(), PASSWORD),
        Err(PasskeyError::NotFound)
    );
    assert_eq!(remove(&ann, "zz", PASSWORD), Err(PasskeyError::NotFound));
    assert_eq!(
        svc.passkeys(ann.user.id).expect("list"),
        std::slice::from_ref(&laptop)
    );
    assert_eq!(svc.passkeys(bob.user.id).expect("list"), [phone]);
    remove(
        &ann,
        &laptop.credential_id.to_hex().to_uppercase(),
        PASSWORD,
    )
    .expect("removed");
    assert!(svc.passkeys(ann.user.id).expect("list").is_empty());
    assert_eq!(
        remove(&ann, &laptop.credential_id.to_hex(), PASSWORD),
        Err(PasskeyError::NotFound)
    );
    assert_eq!(
        summaries(&svc, &ann, AuditAction::SettingsChanged),
        [r#"passkey: "Laptop" → none"#, r#"passkey: "Laptop""#]
    );
    assert_eq!(
        summaries(&svc, &bob, AuditAction::SettingsChanged),
        [r#"passkey: "Phone""#],
        "the refused removal of Bob's passkey wrote nothing"
    );
    // Without a passkey the password alone logs in again.
    svc.log_in("ann@example.com", PASSWORD, None, None)
        .expect("no second factor left");
}

/// A passkey alone signs its user in (a session, the passkey's use recorded, `login.succeeded`
/// by "passkey"); an unknown credential, a user handle not the owner's and a signature the
/// verifier refuses are not accepted, the last one audited as `login.failed`; a login's ceremony
/// finishes once, within 5 minutes, and only a login.
pub fn service_passkey_login<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let v = FakeVerifier::default();
    let ann = person(&svc, "ann@example.com");
    let bob = person(&svc, "bob@example.com");
    let laptop = register(&svc, &v, &ann, 1, "Laptop");
    register(&svc, &v, &bob, 2, "Phone");
    let ip = Some("192.0.2.7".parse().expect("ip"));
    let finish = |token: &str, response: &str| {
        svc.finish_passkey_login(&v, token, response, ip, Some("Firefox"))
    };
    let begin = || svc.begin_passkey_login(&v, ip).expect("begin").0;

    clock.advance(Duration::minutes(1));
    let token = begin();
    let (user, secret) = finish(
        token.expose(),
        &answer(&laptop.credential_id, Some(ann.user.id), true),
    )
    .expect("signed in");
    assert_eq!(user.id, ann.user.id);
    let session = svc
        .session(secret.expose())
        .expect("session")
        .expect("live");
    assert_eq!(session.user.id, ann.user.id);
    assert_eq!(session.account.id, ann.account.id);
    let used = svc.passkeys(ann.user.id).expect("list");
    assert_eq!(used[0].last_used_at, Some(clock.now()));
    assert_ne!(used[0].data, laptop.data, "the verifier's new record");
    assert!(used[0].data.as_str().starts_with("answered authenticate"));
    assert_eq!(
        summaries(&svc, &ann, AuditAction::LoginSucceeded)[0],
        r#"method: "passkey""#
    );
    assert_eq!(
        finish(
            token.expose(),
            &answer(&laptop.credential_id, Some(ann.user.id), true)
        ),
        Err(PasskeyError::Expired),
        "a ceremony finishes once"
    );

    let failed_before = entries(&svc, &ann, AuditAction::LoginFailed).len();
    assert_eq!(
        finish(begin().expose(), &answer(&credential(9), None, true)),
        Err(PasskeyError::NotAccepted),
        "an unknown credential"
    );
    assert_eq!(
        finish(
            begin().expose(),
            &answer(&laptop.credential_id, Some(bob.user.id), true)
        ),
        Err(PasskeyError::NotAccepted),
        "a user handle that is not the owner's"
    );
    assert_eq!(
        finish(begin().expose(), "not an answer"),
        Err(PasskeyError::NotAccepted)
    );
    let failed = entries(&svc, &ann, AuditAction::LoginFailed);
    assert_eq!(
        failed.len(),
        failed_before,
        "nothing verified a passkey of hers"
    );
    assert_eq!(
        finish(
            begin().expose(),
            &answer(&laptop.credential_id, Some(ann.user.id), false)
        ),
        Err(PasskeyError::NotAccepted),
        "a signature the verifier refuses"
    );
    let failed = summaries(&svc, &ann, AuditAction::LoginFailed);
    assert_eq!(failed.len(), failed_before + 1, "{failed:?}");
    assert_eq!(failed[0], r#"method: "passkey not verified""#);
    assert!(entries(&svc, &bob, AuditAction::LoginFailed).is_empty());
    assert_eq!(
        finish("", &answer(&laptop.credential_id, Some(ann.user.id), true)),
        Err(PasskeyError::Expired)
    );
    assert!(matches!(
        finish(begin().expose(), "  "),
        Err(PasskeyError::Response(_))
    ));

    // A registration's ceremony does not finish a login, nor a second step's.
    let (registering, _) = svc.begin_passkey_registration(&ann, &v).expect("begin");
    assert_eq!(
        finish(
            registering.expose(),
            &answer(&laptop.credential_id, Some(ann.user.id), true)
        ),
        Err(PasskeyError::Expired)
    );
    let Err(LoginError::SecondFactorNeeded(pending)) =
        svc.log_in("ann@example.com", PASSWORD, ip, None)
    else {
        panic!("a passkey is a second factor");
    };
    let (second, _) = svc
        .begin_passkey_second_step(&v, pending.expose())
        .expect("begin second step");
    assert_eq!(
        finish(
            second.expose(),
            &answer(&laptop.credential_id, Some(ann.user.id), true)
        ),
        Err(PasskeyError::Expired)
    );
    // Five minutes.
    let token = begin();
    clock.advance(CEREMONY_LIFETIME);
    assert_eq!(
        finish(
            token.expose(),
            &answer(&laptop.credential_id, Some(ann.user.id), true)
        ),
        Err(PasskeyError::Expired)
    );
    let token = begin();
    clock.advance(CEREMONY_LIFETIME - Duration::seconds(1));
    finish(
        token.expose(),
        &answer(&laptop.credential_id, Some(ann.user.id), true),
    )
    .expect("within five minutes");
    assert_eq!(
        summaries(&svc, &ann, AuditAction::LoginSucceeded)
            .iter()
            .filter(|s| *s == r#"method: "passkey""#)
            .count(),
        2
    );
}

/// A passkey-only user's password asks for the second step, which a passkey of theirs finishes
/// ("password and passkey"); a refused answer leaves the pending login for another ceremony;
/// another user's passkey or ceremony is refused; a user without passkeys is told so; a code
/// is a wrong code for a passkey-only user.
pub fn service_passkey_second_step<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let v = FakeVerifier::default();
    let ann = person(&svc, "ann@example.com");
    let bob = person(&svc, "bob@example.com");
    let laptop = register(&svc, &v, &ann, 1, "Laptop");
    let phone = register(&svc, &v, &bob, 2, "Phone");
    let ip = Some("192.0.2.8".parse().expect("ip"));
    let pending_of = |email: &str| {
        let Err(LoginError::SecondFactorNeeded(pending)) = svc.log_in(email, PASSWORD, ip, None)
        else {
            panic!("{email} has a passkey: a second step");
        };
        pending
    };
    let begin = |pending: &str| svc.begin_passkey_second_step(&v, pending);
    let finish = |pending: &str, token: &str, response: &str| {
        svc.finish_passkey_second_step(&v, pending, token, response, ip, Some("Firefox"))
    };
    let anns = |verifies| answer(&laptop.credential_id, Some(ann.user.id), verifies);

    let pending = pending_of("ann@example.com");
    let (token, options) = begin(pending.expose()).expect("begin");
    assert!(options.as_str().starts_with(AUTHENTICATE), "{options:?}");
    assert_eq!(
        finish(pending.expose(), token.expose(), &anns(false)),
        Err(PasskeyError::NotAccepted)
    );
    assert_eq!(
        summaries(&svc, &ann, AuditAction::LoginFailed)[0],
        r#"method: "passkey not verified""#
    );
    assert_eq!(
        finish(pending.expose(), token.expose(), &anns(true)),
        Err(PasskeyError::Expired),
        "the refused ceremony is used up"
    );
    // Bob's passkey does not finish Ann's login.
    let (token, _) = begin(pending.expose()).expect("the pending login stays");
    assert_eq!(
        finish(
            pending.expose(),
            token.expose(),
            &answer(&phone.credential_id, Some(bob.user.id), true)
        ),
        Err(PasskeyError::NotAccepted)
    );
    // Nor does Bob's ceremony, which leaves her pending login as it was.
    let bobs_pending = pending_of("bob@example.com");
    let (bobs, _) = begin(bobs_pending.expose()).expect("begin");
    assert_eq!(
        finish(pending.expose(), bobs.expose(), &anns(true)),
        Err(PasskeyError::Expired)
    );
    // Nor a login's or a registration's ceremony.
    let (login, _) = svc.begin_passkey_login(&v, ip).expect("begin login");
    assert_eq!(
        finish(pending.expose(), login.expose(), &anns(true)),
        Err(PasskeyError::Expired)
    );
    let (registering, _) = svc.begin_passkey_registration(&ann, &v).expect("begin");
    assert_eq!(
        finish(pending.expose(), registering.expose(), &anns(true)),
        Err(PasskeyError::Expired)
    );
    // A new ceremony finishes it.
    clock.advance(Duration::seconds(10));
    let (token, _) = begin(pending.expose()).expect("begin");
    let (user, secret) = finish(pending.expose(), token.expose(), &anns(true)).expect("signed in");
    assert_eq!(user.id, ann.user.id);
    let session = svc
        .session(secret.expose())
        .expect("session")
        .expect("live");
    assert_eq!(session.user.id, ann.user.id);
    assert!(session.two_factor_on);
    assert_eq!(
        svc.passkeys(ann.user.id).expect("list")[0].last_used_at,
        Some(clock.now())
    );
    assert_eq!(
        summaries(&svc, &ann, AuditAction::LoginSucceeded)[0],
        r#"method: "password and passkey""#
    );
    assert_eq!(
        begin(pending.expose()).map(|_| ()),
        Err(PasskeyError::LoginExpired),
        "a pending login is single use"
    );
    assert_eq!(begin("forged").map(|_| ()), Err(PasskeyError::LoginExpired));

    // A code is a wrong code for a user whose only second factor is a passkey.
    let pending = pending_of("ann@example.com");
    assert_eq!(
        svc.finish_login(pending.expose(), "123456", ip, None)
            .unwrap_err(),
        SecondFactorError::WrongCode
    );
    // The pending login stays for a passkey.
    let (token, _) = begin(pending.expose()).expect("begin");
    finish(pending.expose(), token.expose(), &anns(true)).expect("signed in");

    // The second step's ceremony lasts five minutes, and the pending login as long: past
    // them the password is asked again.
    let pending = pending_of("bob@example.com");
    let (token, _) = begin(pending.expose()).expect("begin");
    clock.advance(CEREMONY_LIFETIME);
    assert_eq!(
        finish(
            pending.expose(),
            token.expose(),
            &answer(&phone.credential_id, Some(bob.user.id), true)
        ),
        Err(PasskeyError::LoginExpired)
    );

    // A user with an authenticator app and no passkey.
    let carl = person(&svc, "carl@example.com");
    let secret = svc.begin_totp_enrolment(&carl).expect("enrol");
    let code = secret.code_at_step(step_at(clock.now()).expect("step"));
    svc.confirm_totp_enrolment(&carl, &code, None)
        .expect("confirm");
    let pending = pending_of("carl@example.com");
    assert_eq!(
        begin(pending.expose()).map(|_| ()),
        Err(PasskeyError::NoPasskey)
    );
}

/// A workspace's two-factor requirement is met by a passkey: its owner with only a passkey may
/// turn the requirement on.
pub fn service_passkey_meets_the_workspace_requirement<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let v = FakeVerifier::default();
    let (owner, secret) = person_and_secret(&svc, "owner@example.com");
    assert_eq!(
        svc.require_two_factor(&owner.caller(None), &owner),
        Err(TwoFactorError::EnrolFirst)
    );
    register(&svc, &v, &owner, 1, "Laptop");
    svc.require_two_factor(&owner.caller(None), &owner)
        .expect("a passkey is a second factor");
    let session = svc
        .session(secret.expose())
        .expect("session")
        .expect("live");
    assert!(session.two_factor_required && session.two_factor_on);
    assert!(!session.must_enrol_two_factor());
}

/// Pruning removes the ceremonies past their 5 minutes and keeps the others.
pub fn service_prune_removes_expired_ceremonies<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let v = FakeVerifier::default();
    let (old, _) = svc.begin_passkey_login(&v, None).expect("begin");
    clock.advance(Duration::minutes(3));
    let (new, _) = svc.begin_passkey_login(&v, None).expect("begin");
    clock.advance(Duration::minutes(3));
    let report = svc.prune().expect("prune");
    assert_eq!(report.credentials_deleted, 1, "{report:?}");
    let take = |hash: TokenHash| svc.store.write(|tx| tx.take_ceremony(&hash)).expect("take");
    assert_eq!(take(old.hash()), None);
    assert!(take(new.hash()).is_some(), "2 minutes left: kept");
}
