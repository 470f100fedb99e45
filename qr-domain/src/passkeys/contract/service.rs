//! Contract checks of passkeys through the service, with `super`'s plain-text fake verifier: registration (at most ten, single-use ceremonies of one purpose and one user), removal after the password, a login with a passkey alone, a login's second step, the workspace's two-factor requirement met by a passkey, and pruning, each with its audit entries.

use super::*;

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
