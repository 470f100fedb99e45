//! Contract checks of two-factor login over a store: enrolment confirmed by a real code, the two-step login with codes and recovery codes each accepted once, throttled wrong codes, the pending login's expiry, turning it off, the workspace requirement, and their audit entries.

use chrono::Duration;

use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::Plan;
use crate::audit::entry::{AuditAction, AuditEntry, summary_line};
use crate::audit::query::AuditQuery;
use crate::clock::Clock;
use crate::contract::service;
use crate::dashboard::second_factor::SecondFactorError;
use crate::dashboard::token::TokenPurpose;
use crate::dashboard::totp::{TotpSecret, step_at};
use crate::dashboard::two_factor::{TwoFactorError, TwoFactorStatus};
use crate::service::{LOGIN_ACCOUNT_BURST, LoginError, Service, SessionContext};
use crate::store::Store;

const PASSWORD: &str = "plum tree at dawn";

/// A user with `email` and a password, owning a workspace of `plan`; their session.
fn person<S: Store, C: Clock>(svc: &Service<S, C>, email: &str, plan: Plan) -> SessionContext {
    let account = svc.create_account(email, plan).unwrap();
    let owner = svc.owner_of(account.id).unwrap().unwrap();
    let (_, token) = svc.issue_token(owner.id, TokenPurpose::Reset).unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    let (_, secret) = svc.log_in(email, PASSWORD, None, None).unwrap();
    svc.session(secret.expose()).unwrap().unwrap()
}

/// The code the app shows now.
fn code_now<C: Clock>(secret: &TotpSecret, clock: &C) -> String {
    secret.code_at_step(step_at(clock.now()).unwrap())
}

/// Enrolment, the two-step login, recovery codes, throttling, expiry, turning it off, and the
/// audit entries of each.
pub fn service_two_factor_login<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let ctx = person(&svc, "a@example.com", Plan::Pro);
    let ip = Some("192.0.2.7".parse().unwrap());
    assert_eq!(
        svc.two_factor_status(ctx.user.id).unwrap(),
        TwoFactorStatus::Off
    );
    // Enrolment: a pending secret, confirmed by the app's current code only.
    let secret = svc.begin_totp_enrolment(&ctx).unwrap();
    assert_eq!(
        svc.two_factor_status(ctx.user.id).unwrap(),
        TwoFactorStatus::Pending(secret.clone())
    );
    let (_, plain) = svc.log_in("a@example.com", PASSWORD, ip, None).unwrap();
    assert!(
        !plain.expose().is_empty(),
        "a pending secret protects nothing yet"
    );
    assert_eq!(
        svc.confirm_totp_enrolment(&ctx, "000000", ip),
        Err(TwoFactorError::WrongCode)
    );
    let codes = svc
        .confirm_totp_enrolment(&ctx, &code_now(&secret, &clock), ip)
        .unwrap();
    assert_eq!(codes.len(), 10);
    assert_eq!(
        svc.two_factor_status(ctx.user.id).unwrap(),
        TwoFactorStatus::On {
            recovery_codes_left: 10
        }
    );
    assert_eq!(
        svc.begin_totp_enrolment(&ctx),
        Err(TwoFactorError::AlreadyOn)
    );
    // The password alone no longer opens a session; the code that confirmed enrolment is used.
    let Err(LoginError::SecondFactorNeeded(pending)) =
        svc.log_in("a@example.com", PASSWORD, ip, None)
    else {
        panic!("a second step");
    };
    assert_eq!(
        svc.finish_login(pending.expose(), &code_now(&secret, &clock), ip, None)
            .unwrap_err(),
        SecondFactorError::WrongCode,
        "a code is accepted once"
    );
    clock.advance(Duration::seconds(30));
    let (user, session) = svc
        .finish_login(pending.expose(), &code_now(&secret, &clock), ip, None)
        .unwrap();
    assert_eq!(user.id, ctx.user.id);
    assert!(
        svc.session(session.expose())
            .unwrap()
            .unwrap()
            .two_factor_on
    );
    assert_eq!(
        svc.finish_login(pending.expose(), &code_now(&secret, &clock), ip, None)
            .unwrap_err(),
        SecondFactorError::Expired,
        "a pending login is single use"
    );
    // A recovery code works once.
    let Err(LoginError::SecondFactorNeeded(pending)) =
        svc.log_in("a@example.com", PASSWORD, ip, None)
    else {
        panic!("a second step");
    };
    let recovery = codes[4].expose_secret().to_uppercase();
    svc.finish_login(pending.expose(), &recovery, ip, None)
        .unwrap();
    let Err(LoginError::SecondFactorNeeded(pending)) =
        svc.log_in("a@example.com", PASSWORD, ip, None)
    else {
        panic!("a second step");
    };
    assert_eq!(
        svc.finish_login(pending.expose(), &recovery, ip, None)
            .unwrap_err(),
        SecondFactorError::WrongCode
    );
    assert_eq!(
        svc.two_factor_status(ctx.user.id).unwrap(),
        TwoFactorStatus::On {
            recovery_codes_left: 9
        }
    );
    // Wrong codes share the account's login budget: after it, even the right code is refused
    // unchecked.
    clock.advance(Duration::hours(1));
    let Err(LoginError::SecondFactorNeeded(pending)) =
        svc.log_in("a@example.com", PASSWORD, ip, None)
    else {
        panic!("a second step");
    };
    for _ in 0..LOGIN_ACCOUNT_BURST {
        assert_eq!(
            svc.finish_login(pending.expose(), "123 456", ip, None)
                .unwrap_err(),
            SecondFactorError::WrongCode
        );
    }
    let Err(LoginError::Throttled { .. }) = svc.log_in("a@example.com", PASSWORD, ip, None) else {
        panic!("the password is throttled too");
    };
    clock.advance(Duration::minutes(10));
    let Err(LoginError::SecondFactorNeeded(pending)) =
        svc.log_in("a@example.com", PASSWORD, ip, None)
    else {
        panic!("a second step");
    };
    for _ in 0..LOGIN_ACCOUNT_BURST {
        let _ = svc.finish_login(pending.expose(), "not a code", ip, None);
    }
    assert!(matches!(
        svc.finish_login(pending.expose(), &code_now(&secret, &clock), ip, None),
        Err(SecondFactorError::Throttled { .. })
    ));
    // A pending login lasts five minutes.
    clock.advance(Duration::hours(1));
    let Err(LoginError::SecondFactorNeeded(pending)) =
        svc.log_in("a@example.com", PASSWORD, ip, None)
    else {
        panic!("a second step");
    };
    clock.advance(Duration::minutes(5));
    assert_eq!(
        svc.finish_login(pending.expose(), &code_now(&secret, &clock), ip, None)
            .unwrap_err(),
        SecondFactorError::Expired
    );
    assert_eq!(
        svc.finish_login("forged", "123456", ip, None).unwrap_err(),
        SecondFactorError::Expired
    );
    // Recovery codes are replaced after the password.
    assert_eq!(
        svc.regenerate_recovery_codes(&ctx, "wrong").unwrap_err(),
        TwoFactorError::WrongPassword
    );
    let fresh = svc.regenerate_recovery_codes(&ctx, PASSWORD).unwrap();
    let Err(LoginError::SecondFactorNeeded(pending)) =
        svc.log_in("a@example.com", PASSWORD, ip, None)
    else {
        panic!("a second step");
    };
    assert_eq!(
        svc.finish_login(pending.expose(), codes[0].expose_secret(), ip, None)
            .unwrap_err(),
        SecondFactorError::WrongCode,
        "the old set is gone"
    );
    svc.finish_login(pending.expose(), fresh[0].expose_secret(), ip, None)
        .unwrap();
    // Turning it off takes the password; then the password alone logs in again.
    assert_eq!(
        svc.disable_two_factor(&ctx, "wrong", ip),
        Err(TwoFactorError::WrongPassword)
    );
    svc.disable_two_factor(&ctx, PASSWORD, ip).unwrap();
    assert_eq!(
        svc.two_factor_status(ctx.user.id).unwrap(),
        TwoFactorStatus::Off
    );
    svc.log_in("a@example.com", PASSWORD, ip, None).unwrap();
    assert_eq!(
        svc.disable_two_factor(&ctx, PASSWORD, ip),
        Err(TwoFactorError::NotOn)
    );
    // The workspace's log: logins by method, failures, and the factor turned on and off.
    let log = svc
        .audit_log(
            &ctx.caller(None),
            &AuditQuery {
                limit: 200,
                ..AuditQuery::default()
            },
        )
        .unwrap();
    let with = |action: AuditAction| summaries(&log.entries, action);
    let succeeded = with(AuditAction::LoginSucceeded);
    assert!(
        succeeded.iter().any(|s| s.contains("authenticator code")),
        "{succeeded:?}"
    );
    assert!(
        succeeded.iter().any(|s| s.contains("recovery code")),
        "{succeeded:?}"
    );
    let failed = with(AuditAction::LoginFailed);
    assert!(
        failed
            .iter()
            .any(|s| s.contains("wrong second-factor code")),
        "{failed:?}"
    );
    let settings = with(AuditAction::SettingsChanged);
    assert_eq!(settings.len(), 2, "{settings:?}");
    for entry in &log.entries {
        let text = format!("{entry:?}");
        assert!(!text.contains(&secret.to_base32()), "no secret in the log");
        assert!(!text.contains(fresh[1].expose_secret()));
    }
}

/// A wrong password for an existing user is a `login.failed` entry in their workspace; an
/// unknown address fails alike and writes nothing anywhere.
pub fn service_failed_logins_are_audited<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let ctx = person(&svc, "a@example.com", Plan::Free);
    let before = svc
        .audit_log(&ctx.caller(None), &AuditQuery::default())
        .unwrap()
        .entries
        .len();
    assert_eq!(
        svc.log_in("a@example.com", "wrong", None, None)
            .unwrap_err(),
        LoginError::Invalid
    );
    assert_eq!(
        svc.log_in("nobody@example.com", "wrong", None, None)
            .unwrap_err(),
        LoginError::Invalid
    );
    let entries = svc
        .audit_log(&ctx.caller(None), &AuditQuery::default())
        .unwrap()
        .entries;
    assert_eq!(entries.len(), before + 1);
    assert_eq!(
        summaries(&entries[..1], AuditAction::LoginFailed),
        vec![r#"method: "wrong password""#.to_owned()]
    );
}

/// Owners and admins require a second factor of their members once they have one; a member
/// without one must enrol in that workspace (not in their own), and each change is logged.
pub fn service_workspace_requires_two_factor<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let owner = person(&svc, "owner@example.com", Plan::Pro);
    let member = person(&svc, "member@example.com", Plan::Free);
    svc.add_member(
        &owner.caller(None),
        "member@example.com",
        MemberRole::Member,
    )
    .unwrap();
    // A new login of the member, switched to the owner's workspace.
    let member_session = || {
        let secret = svc
            .log_in("member@example.com", PASSWORD, None, None)
            .unwrap()
            .1;
        let ctx = svc.session(secret.expose()).unwrap().unwrap();
        assert!(svc.switch_workspace(&ctx, owner.account.id).unwrap());
        (
            secret.clone(),
            svc.session(secret.expose()).unwrap().unwrap(),
        )
    };
    assert_eq!(
        svc.require_two_factor(&owner.caller(None), &owner),
        Err(TwoFactorError::EnrolFirst)
    );
    let secret = svc.begin_totp_enrolment(&owner).unwrap();
    svc.confirm_totp_enrolment(&owner, &code_now(&secret, &clock), None)
        .unwrap();
    let (_, in_owners) = member_session();
    assert!(matches!(
        svc.require_two_factor(&in_owners.caller(None), &in_owners),
        Err(TwoFactorError::NotPermitted(_))
    ));
    assert!(!in_owners.must_enrol_two_factor());
    svc.require_two_factor(&owner.caller(None), &owner).unwrap();
    svc.require_two_factor(&owner.caller(None), &owner).unwrap();
    let (in_owners_secret, in_owners) = member_session();
    assert!(in_owners.two_factor_required && in_owners.must_enrol_two_factor());
    let own_secret = svc
        .log_in("member@example.com", PASSWORD, None, None)
        .unwrap()
        .1;
    let own = svc.session(own_secret.expose()).unwrap().unwrap();
    assert!(svc.switch_workspace(&own, member.account.id).unwrap());
    let own = svc.session(own_secret.expose()).unwrap().unwrap();
    assert_eq!(own.account.id, member.account.id);
    assert!(
        !own.must_enrol_two_factor(),
        "their own workspace does not require it"
    );
    // The member enrols and may go on.
    let secret = svc.begin_totp_enrolment(&in_owners).unwrap();
    svc.confirm_totp_enrolment(&in_owners, &code_now(&secret, &clock), None)
        .unwrap();
    let refreshed = svc.session(in_owners_secret.expose()).unwrap().unwrap();
    assert!(refreshed.two_factor_on && !refreshed.must_enrol_two_factor());
    svc.stop_requiring_two_factor(&owner.caller(None)).unwrap();
    svc.stop_requiring_two_factor(&owner.caller(None)).unwrap();
    let log = svc
        .audit_log(
            &owner.caller(None),
            &AuditQuery {
                limit: 200,
                ..AuditQuery::default()
            },
        )
        .unwrap();
    let requirement: Vec<String> = summaries(&log.entries, AuditAction::SettingsChanged)
        .into_iter()
        .filter(|s| s.contains("require_two_factor"))
        .collect();
    assert_eq!(requirement.len(), 2, "once on, once off: {requirement:?}");
}

/// The change summaries of the entries with `action`, newest first.
fn summaries(entries: &[AuditEntry], action: AuditAction) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e.entry.action == action)
        .map(|e| summary_line(&e.entry.changes))
        .collect()
}
