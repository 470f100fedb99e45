//! Contract checks of passkeys over a store: passkeys read back in order and unique by credential id, used and deleted only as told, ceremonies taken once and pruned after their 5 minutes, both going with their user; and the plain-text fake verifier the service's checks (`contract/service.rs`) use.

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

mod service;

pub use service::{
    service_passkey_login, service_passkey_meets_the_workspace_requirement,
    service_passkey_registration, service_passkey_removal, service_passkey_second_step,
    service_prune_removes_expired_ceremonies,
};

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
