//! Contract checks of the dashboard's records and rules: passwords, roles and status on accounts, one-time tokens, sessions, plan requests, daily usage, disabling and deleting accounts.

use chrono::Duration;

use crate::account::{AccountStatus, Email, PlanRequest, Role, SignupPolicy};
use crate::error::StoreError;
use crate::key::KeyMode;
use crate::password::{Password, PasswordHash};
use crate::plan::Plan;
use crate::scan::Device;
use crate::service::{
    AccountError, Actor, AdminError, AuthError, LOGIN_ACCOUNT_BURST, LOGIN_ADDRESS_BURST,
    LoginError, Resolution, SignUp,
};
use crate::session::{SESSION_ABSOLUTE, Session, SessionSecret};
use crate::store::Store;
use crate::token::{OneTimeToken, TokenPurpose, TokenSecret};

use super::{key_for, link_for, scan, service, setup, t};

const PASSWORD: &str = "plum tree at dawn";

fn token(
    account: crate::ids::AccountId,
    purpose: TokenPurpose,
    at: &str,
) -> (OneTimeToken, TokenSecret) {
    let secret = TokenSecret::generate().unwrap();
    let token = OneTimeToken {
        hash: secret.hash(),
        account_id: account,
        purpose,
        new_email: None,
        created_at: t(at),
        expires_at: t(at) + Duration::hours(24),
    };
    (token, secret)
}

fn session(account: crate::ids::AccountId, at: &str) -> Session {
    let secret = SessionSecret::generate().unwrap();
    Session {
        hash: secret.hash(),
        account_id: account,
        created_at: t(at),
        last_seen_at: t(at),
        user_agent: "Firefox on Linux".to_owned(),
    }
}

/// Accounts keep their password hash, verification time, status and role through insert and update.
pub fn accounts_keep_dashboard_fields<S: Store>(store: S) {
    let mut a = setup(&store, Plan::Free);
    assert_eq!(store.read(|tx| tx.account(a.id)).unwrap(), Some(a.clone()));
    a.password_hash = Some(PasswordHash::of(&Password::new(PASSWORD).unwrap()).unwrap());
    a.email_verified_at = Some(t("2024-01-02T03:04:05.123456Z"));
    a.status = AccountStatus::Disabled;
    a.role = Role::Admin;
    assert!(store.write(|tx| tx.update_account(&a)).unwrap());
    let back = store.read(|tx| tx.account(a.id)).unwrap().unwrap();
    assert_eq!(back, a);
    assert!(back.password_hash.unwrap().verify(PASSWORD));
    let mut owner = super::account(Plan::Enterprise);
    owner.role = Role::Owner;
    store.write(|tx| tx.insert_account(&owner)).unwrap();
    assert_eq!(
        store.read(|tx| tx.account(owner.id)).unwrap().unwrap().role,
        Role::Owner
    );
}

/// A token is taken once; a newer token of the same account and purpose replaces the older one;
/// tokens of other purposes stay; a token needs an existing account.
pub fn tokens_are_single_use_and_replaced<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let (verify, verify_secret) = token(a.id, TokenPurpose::Verify, "2024-01-02T00:00:00Z");
    let (mut reset, reset_secret) = token(a.id, TokenPurpose::Reset, "2024-01-02T00:00:00Z");
    reset.new_email = Some(Email::parse("new@example.com").unwrap());
    store.write(|tx| tx.insert_token(&verify)).unwrap();
    store.write(|tx| tx.insert_token(&reset)).unwrap();
    assert_eq!(
        store
            .write(|tx| tx.take_token(&reset_secret.hash()))
            .unwrap(),
        Some(reset.clone())
    );
    assert_eq!(
        store
            .write(|tx| tx.take_token(&reset_secret.hash()))
            .unwrap(),
        None
    );
    let (newer, newer_secret) = token(a.id, TokenPurpose::Verify, "2024-01-02T01:00:00Z");
    store.write(|tx| tx.insert_token(&newer)).unwrap();
    assert_eq!(
        store
            .write(|tx| tx.take_token(&verify_secret.hash()))
            .unwrap(),
        None,
        "replaced by the newer token"
    );
    assert_eq!(
        store
            .write(|tx| tx.take_token(&newer_secret.hash()))
            .unwrap(),
        Some(newer)
    );
    let (orphan, _) = token(
        super::account(Plan::Free).id,
        TokenPurpose::Verify,
        "2024-01-02T00:00:00Z",
    );
    assert!(matches!(
        store.write(|tx| tx.insert_token(&orphan)),
        Err(StoreError::Conflict(_))
    ));
}

/// Sessions are saved, found, listed oldest first, touched, and ended one or all but one.
pub fn sessions_roundtrip_and_end<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let mut first = session(a.id, "2024-01-02T00:00:00Z");
    let second = session(a.id, "2024-01-03T00:00:00Z");
    let other = session(b.id, "2024-01-01T00:00:00Z");
    for s in [&second, &first, &other] {
        store.write(|tx| tx.save_session(s)).unwrap();
    }
    assert_eq!(
        store.read(|tx| tx.session(&first.hash)).unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        store.read(|tx| tx.sessions_of(a.id)).unwrap(),
        vec![first.clone(), second.clone()]
    );
    first.last_seen_at = t("2024-01-02T05:00:00Z");
    store.write(|tx| tx.save_session(&first)).unwrap();
    assert_eq!(
        store.read(|tx| tx.session(&first.hash)).unwrap(),
        Some(first.clone())
    );
    assert!(store.write(|tx| tx.delete_session(&first.hash)).unwrap());
    assert!(!store.write(|tx| tx.delete_session(&first.hash)).unwrap());
    let third = session(a.id, "2024-01-04T00:00:00Z");
    store.write(|tx| tx.save_session(&third)).unwrap();
    assert_eq!(
        store
            .write(|tx| tx.delete_sessions_of(a.id, Some(&third.hash)))
            .unwrap(),
        1
    );
    assert_eq!(
        store.read(|tx| tx.sessions_of(a.id)).unwrap(),
        vec![third.clone()]
    );
    assert_eq!(
        store.write(|tx| tx.delete_sessions_of(a.id, None)).unwrap(),
        1
    );
    assert_eq!(store.read(|tx| tx.sessions_of(b.id)).unwrap(), vec![other]);
    let orphan = session(super::account(Plan::Free).id, "2024-01-02T00:00:00Z");
    assert!(store.write(|tx| tx.save_session(&orphan)).is_err());
}

/// Plan requests: one per account, replaced by a newer one, listed oldest first, removed.
pub fn plan_requests_roundtrip<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let req = |account, plan, at| PlanRequest {
        account_id: account,
        plan,
        created_at: t(at),
    };
    store
        .write(|tx| {
            tx.put_plan_request(&req(b.id, Plan::Pro, "2024-01-03T00:00:00Z"))?;
            tx.put_plan_request(&req(a.id, Plan::Starter, "2024-01-02T00:00:00Z"))?;
            tx.put_plan_request(&req(a.id, Plan::Pro, "2024-01-04T00:00:00Z"))
        })
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.plan_requests()).unwrap(),
        vec![
            req(b.id, Plan::Pro, "2024-01-03T00:00:00Z"),
            req(a.id, Plan::Pro, "2024-01-04T00:00:00Z")
        ]
    );
    assert!(store.write(|tx| tx.delete_plan_request(b.id)).unwrap());
    assert!(!store.write(|tx| tx.delete_plan_request(b.id)).unwrap());
    assert_eq!(store.read(|tx| tx.plan_requests()).unwrap().len(), 1);
}

/// Daily counts add up per account and day, and a range reads only its days.
pub fn daily_usage_adds_up<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let d = |s: &str| super::day(s);
    store
        .write(|tx| {
            tx.add_daily_usage(d("2024-05-01"), &[(a.id, 3), (b.id, 1)])?;
            tx.add_daily_usage(d("2024-05-01"), &[(a.id, 2)])?;
            tx.add_daily_usage(d("2024-05-03"), &[(a.id, 7)])?;
            tx.add_daily_usage(d("2024-04-30"), &[(a.id, 9)])
        })
        .unwrap();
    assert_eq!(
        store
            .read(|tx| tx.daily_usage(a.id, d("2024-05-01"), d("2024-05-31")))
            .unwrap(),
        vec![(d("2024-05-01"), 5), (d("2024-05-03"), 7)]
    );
    assert_eq!(
        store
            .read(|tx| tx.daily_usage(b.id, d("2024-05-01"), d("2024-05-01")))
            .unwrap(),
        vec![(d("2024-05-01"), 1)]
    );
    let gone = super::account(Plan::Free);
    store
        .write(|tx| tx.add_daily_usage(d("2024-05-01"), &[(gone.id, 4)]))
        .unwrap();
}

/// Deleting an account removes everything it owns and tombstones its codes; others keep theirs.
pub fn delete_account_removes_everything<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let (ka, secret_a) = key_for(a.id);
    let (kb, _) = key_for(b.id);
    let la = link_for(a.id, "2024-01-02T00:00:00Z");
    let lb = link_for(b.id, "2024-01-02T00:00:00Z");
    let sa = session(a.id, "2024-01-02T00:00:00Z");
    let (ta, ta_secret) = token(a.id, TokenPurpose::Reset, "2024-01-02T00:00:00Z");
    let day = super::day("2024-01-02");
    store
        .write(|tx| {
            tx.insert_key(&ka)?;
            tx.insert_key(&kb)?;
            tx.insert_link(&la)?;
            tx.insert_link(&lb)?;
            tx.save_session(&sa)?;
            tx.insert_token(&ta)?;
            tx.put_plan_request(&PlanRequest {
                account_id: a.id,
                plan: Plan::Pro,
                created_at: t("2024-01-02T00:00:00Z"),
            })?;
            tx.save_usage(
                crate::limits::UsageMonth::of(t("2024-01-02T00:00:00Z")),
                &[(a.id, 4)],
            )?;
            tx.add_daily_usage(day, &[(a.id, 4), (b.id, 1)])
        })
        .unwrap();
    let hit = |l| scan(l, "2024-01-02T10:00:00Z", 1, "GB", Device::Mobile, "Chrome");
    store.record_scans(&[hit(la.id), hit(lb.id)]).unwrap();
    let v = store.config_version().unwrap();
    assert!(store.write(|tx| tx.delete_account(a.id)).unwrap());
    assert!(!store.write(|tx| tx.delete_account(a.id)).unwrap());
    assert_ne!(
        store.config_version().unwrap(),
        v,
        "keys went: caches must follow"
    );
    store
        .read(|tx| {
            assert_eq!(tx.account(a.id)?, None);
            assert_eq!(tx.account_by_email(&a.email)?, None);
            assert_eq!(tx.key_by_hash(&secret_a.hash())?, None);
            assert_eq!(tx.link(a.id, la.id)?, None);
            assert!(
                tx.code_taken(&la.short_code)?,
                "printed codes never come back"
            );
            assert_eq!(tx.link_by_code(&la.short_code)?, None);
            assert_eq!(tx.session(&sa.hash)?, None);
            assert!(tx.plan_requests()?.is_empty());
            assert!(tx.daily_usage(a.id, day, day)?.is_empty());
            assert!(
                tx.usage(crate::limits::UsageMonth::of(t("2024-01-02T00:00:00Z")))?
                    .is_empty()
            );
            assert!(
                tx.recent_scans(
                    la.id,
                    t("2024-01-01T00:00:00Z"),
                    t("2024-01-03T00:00:00Z"),
                    10
                )?
                .is_empty()
            );
            assert_eq!(tx.key(kb.id)?.map(|k| k.id), Some(kb.id));
            assert_eq!(tx.link(b.id, lb.id)?.map(|l| l.scan_count), Some(1));
            assert_eq!(tx.daily_usage(b.id, day, day)?, vec![(day, 1)]);
            Ok::<_, StoreError>(())
        })
        .unwrap();
    assert_eq!(
        store.write(|tx| tx.take_token(&ta_secret.hash())).unwrap(),
        None
    );
    // The address is free again.
    store.write(|tx| tx.insert_account(&a)).unwrap();
}

/// Pruning removes expired tokens and sessions idle or old past their limits, nothing else.
pub fn prune_credentials_removes_ended<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let (expired, expired_secret) = token(a.id, TokenPurpose::Verify, "2024-01-01T00:00:00Z");
    let (fresh, fresh_secret) = token(a.id, TokenPurpose::Reset, "2024-01-02T12:00:00Z");
    let idle = session(a.id, "2024-01-01T00:00:00Z");
    let mut old = session(a.id, "2023-12-20T00:00:00Z");
    old.last_seen_at = t("2024-01-02T11:00:00Z");
    let live = session(a.id, "2024-01-02T11:00:00Z");
    store
        .write(|tx| {
            tx.insert_token(&expired)?;
            tx.insert_token(&fresh)?;
            tx.save_session(&idle)?;
            tx.save_session(&old)?;
            tx.save_session(&live)
        })
        .unwrap();
    let now = t("2024-01-02T12:00:00Z");
    let removed = store
        .write(|tx| tx.prune_credentials(now, now - Duration::hours(12), now - SESSION_ABSOLUTE))
        .unwrap();
    assert_eq!(removed, 3);
    assert_eq!(store.read(|tx| tx.sessions_of(a.id)).unwrap(), vec![live]);
    assert_eq!(
        store
            .write(|tx| tx.take_token(&expired_secret.hash()))
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .write(|tx| tx.take_token(&fresh_secret.hash()))
            .unwrap(),
        Some(fresh)
    );
}

/// Sign-up follows the operator's policy: closed, self-service plans, requests for others, the
/// same outcome for a taken address, password rules; admins approve and decline requests.
pub fn dashboard_signup_and_plan_requests<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let svc = svc.with_signup_policy(SignupPolicy::new(true, [Plan::Starter]));
    let owner = svc.create_owner("owner@example.com").unwrap();
    let SignUp::Created {
        account: s,
        requested,
    } = svc
        .sign_up("s@example.com", PASSWORD, Plan::Starter)
        .unwrap()
    else {
        panic!("a new address makes an account");
    };
    assert_eq!(
        (s.plan, requested, s.is_verified()),
        (Plan::Starter, None, false)
    );
    let SignUp::Created {
        account: p,
        requested,
    } = svc.sign_up("p@example.com", PASSWORD, Plan::Pro).unwrap()
    else {
        panic!("a new address makes an account");
    };
    assert_eq!((p.plan, requested), (Plan::Free, Some(Plan::Pro)));
    assert_eq!(
        svc.sign_up("S@EXAMPLE.com", "another fine password", Plan::Free)
            .unwrap(),
        SignUp::Existing(s.clone())
    );
    assert!(matches!(
        svc.sign_up("x@example.com", "password12", Plan::Free),
        Err(AccountError::Password(_))
    ));
    assert!(matches!(
        svc.sign_up("not an address", PASSWORD, Plan::Free),
        Err(AccountError::Email(_))
    ));
    assert!(matches!(
        svc.decide_plan_request(Actor::Account(s.id), p.id, true),
        Err(AdminError::NotAllowed)
    ));
    let requests = svc.admin_plan_requests(Actor::Account(owner.id)).unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!((requests[0].0.plan, requests[0].1.id), (Plan::Pro, p.id));
    let approved = svc
        .decide_plan_request(Actor::Account(owner.id), p.id, true)
        .unwrap();
    assert_eq!(approved.plan, Plan::Pro);
    assert!(matches!(
        svc.decide_plan_request(Actor::Account(owner.id), p.id, false),
        Err(AdminError::NoPlanRequest(_))
    ));
    // A customer asks for a plan later: self-service at once, others as a request.
    assert!(matches!(
        svc.request_plan(s.id, Plan::Enterprise).unwrap(),
        crate::service::PlanChange::Requested(_)
    ));
    assert_eq!(
        svc.pending_plan_request(s.id).unwrap().map(|r| r.plan),
        Some(Plan::Enterprise)
    );
    svc.decide_plan_request(Actor::Operator, s.id, false)
        .unwrap();
    assert_eq!(svc.account(s.id).unwrap().plan, Plan::Starter);
    assert!(matches!(
        svc.request_plan(s.id, Plan::Free).unwrap(),
        crate::service::PlanChange::Changed(a) if a.plan == Plan::Free
    ));
    let closed = svc.with_signup_policy(SignupPolicy::new(false, []));
    assert!(matches!(
        closed.sign_up("late@example.com", PASSWORD, Plan::Free),
        Err(AccountError::SignupClosed)
    ));
}

/// Verification: keys only after it; a token works once, not after 24 hours, not for another
/// purpose, and a newer token replaces the older.
pub fn dashboard_verification_tokens<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let SignUp::Created { account: a, .. } =
        svc.sign_up("a@example.com", PASSWORD, Plan::Free).unwrap()
    else {
        panic!("new account");
    };
    assert!(matches!(
        svc.create_own_key(a.id, "Server", KeyMode::Live),
        Err(AdminError::NotVerified)
    ));
    let (_, first) = svc.issue_token(a.id, TokenPurpose::Verify).unwrap();
    let (_, second) = svc.issue_token(a.id, TokenPurpose::Verify).unwrap();
    assert!(matches!(
        svc.verify_email(first.expose()),
        Err(AccountError::InvalidToken)
    ));
    let (_, reset) = svc.issue_token(a.id, TokenPurpose::Reset).unwrap();
    assert!(matches!(
        svc.verify_email(reset.expose()),
        Err(AccountError::InvalidToken)
    ));
    assert!(
        matches!(
            svc.reset_password(reset.expose(), "a brand new password"),
            Err(AccountError::InvalidToken)
        ),
        "a token tried for the wrong purpose is used up"
    );
    let verified = svc.verify_email(second.expose()).unwrap();
    assert_eq!(verified.email_verified_at, Some(t("2024-05-01T10:00:00Z")));
    assert!(matches!(
        svc.verify_email(second.expose()),
        Err(AccountError::InvalidToken)
    ));
    assert!(matches!(
        svc.verify_email("not-a-token"),
        Err(AccountError::InvalidToken)
    ));
    let (key, secret) = svc.create_own_key(a.id, "Server", KeyMode::Live).unwrap();
    assert_eq!(key.name, "Server");
    assert!(secret.expose_secret().ends_with(&key.last_four));
    let (_, late) = svc.issue_token(a.id, TokenPurpose::Verify).unwrap();
    clock.advance(Duration::hours(24));
    assert!(matches!(
        svc.verify_email(late.expose()),
        Err(AccountError::InvalidToken)
    ));
}

/// Password reset: a bad new password leaves the token usable; a good one replaces the password,
/// verifies the address and ends every session; unknown addresses give no token.
pub fn dashboard_password_reset<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    assert!(
        svc.password_reset_token("nobody@example.com")
            .unwrap()
            .is_none()
    );
    let (_, token) = svc.password_reset_token("A@example.com").unwrap().unwrap();
    assert!(matches!(
        svc.reset_password(token.expose(), "short"),
        Err(AccountError::Password(_))
    ));
    let changed = svc.reset_password(token.expose(), PASSWORD).unwrap();
    assert!(changed.is_verified(), "the link reached the address");
    let (_, session) = svc.log_in("a@example.com", PASSWORD, None, None).unwrap();
    assert!(svc.session(session.expose()).unwrap().is_some());
    let (_, again) = svc.issue_token(a.id, TokenPurpose::Reset).unwrap();
    svc.reset_password(again.expose(), "an even better password")
        .unwrap();
    assert!(
        svc.session(session.expose()).unwrap().is_none(),
        "sessions end"
    );
    assert_eq!(
        svc.log_in("a@example.com", PASSWORD, None, None)
            .unwrap_err(),
        LoginError::Invalid
    );
    assert!(matches!(
        svc.reset_password(again.expose(), "yet another password"),
        Err(AccountError::InvalidToken)
    ));
}

/// Login: one answer for a wrong address or password, sessions with idle and absolute expiry,
/// logging out and out everywhere, and the throttles per account and per address.
pub fn dashboard_login_and_sessions<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let (_, t1) = svc.issue_token(a.id, TokenPurpose::Reset).unwrap();
    svc.reset_password(t1.expose(), PASSWORD).unwrap();
    let ip = Some("192.0.2.7".parse().unwrap());
    assert_eq!(
        svc.log_in("a@example.com", "wrong password", ip, None)
            .unwrap_err(),
        LoginError::Invalid
    );
    assert_eq!(
        svc.log_in("b@example.com", PASSWORD, ip, None).unwrap_err(),
        LoginError::Invalid
    );
    let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
    let (_, s1) = svc
        .log_in("A@Example.com", PASSWORD, ip, Some(firefox))
        .unwrap();
    let (_, s2) = svc.log_in("a@example.com", PASSWORD, ip, None).unwrap();
    assert_ne!(s1, s2, "a new session at every login");
    let ctx = svc.session(s1.expose()).unwrap().unwrap();
    assert_eq!(ctx.account.id, a.id);
    assert_eq!(ctx.session.user_agent, "Firefox on Linux");
    assert!(ctx.check_csrf(&ctx.csrf_token()) && !ctx.check_csrf("forged"));
    assert_eq!(svc.sessions(a.id).unwrap().len(), 2);
    // Idle expiry: 11 hours quiet is fine, 12 is not.
    clock.advance(Duration::hours(11));
    assert!(svc.session(s1.expose()).unwrap().is_some());
    clock.advance(Duration::hours(12));
    assert!(svc.session(s1.expose()).unwrap().is_none());
    assert!(svc.session(s2.expose()).unwrap().is_none());
    // Absolute expiry: active every 6 hours, still over after 7 days.
    let (_, s3) = svc.log_in("a@example.com", PASSWORD, ip, None).unwrap();
    for _ in 0..27 {
        clock.advance(Duration::hours(6));
        assert!(svc.session(s3.expose()).unwrap().is_some());
    }
    clock.advance(Duration::hours(6));
    assert!(svc.session(s3.expose()).unwrap().is_none());
    let (_, s4) = svc.log_in("a@example.com", PASSWORD, ip, None).unwrap();
    let (_, s5) = svc.log_in("a@example.com", PASSWORD, ip, None).unwrap();
    svc.log_out(&svc.session(s4.expose()).unwrap().unwrap())
        .unwrap();
    assert!(svc.session(s4.expose()).unwrap().is_none());
    assert!(svc.session(s5.expose()).unwrap().is_some());
    svc.log_in("a@example.com", PASSWORD, ip, None).unwrap();
    assert!(svc.log_out_everywhere(a.id).unwrap() >= 2);
    assert!(svc.sessions(a.id).unwrap().is_empty());
    assert!(svc.session(s5.expose()).unwrap().is_none());
    // Per account: after the burst even the right password is refused unchecked, from anywhere.
    for i in 0..LOGIN_ACCOUNT_BURST {
        let from = Some(format!("198.51.100.{i}").parse().unwrap());
        assert_eq!(
            svc.log_in("a@example.com", "guess", from, None)
                .unwrap_err(),
            LoginError::Invalid
        );
    }
    assert!(matches!(
        svc.log_in("a@example.com", PASSWORD, Some("203.0.113.9".parse().unwrap()), None),
        Err(LoginError::Throttled { retry_after_secs }) if retry_after_secs > 0
    ));
    clock.advance(Duration::minutes(2));
    assert!(svc.log_in("a@example.com", PASSWORD, ip, None).is_ok());
    // Per address: many accounts guessed from one address.
    let guesser = Some("203.0.113.50".parse().unwrap());
    for i in 0..LOGIN_ADDRESS_BURST {
        assert_eq!(
            svc.log_in(&format!("u{i}@example.com"), "guess", guesser, None)
                .unwrap_err(),
            LoginError::Invalid
        );
    }
    assert!(matches!(
        svc.log_in("a@example.com", PASSWORD, guesser, None),
        Err(LoginError::Throttled { .. })
    ));
}

/// Changing the address: the password is checked, a taken address refused, and the account moves
/// only when the link sent to the new address is followed.
pub fn dashboard_email_change<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    svc.create_account("taken@example.com", Plan::Free).unwrap();
    let (_, t1) = svc.issue_token(a.id, TokenPurpose::Reset).unwrap();
    svc.reset_password(t1.expose(), PASSWORD).unwrap();
    assert!(matches!(
        svc.request_email_change(a.id, "wrong password", "new@example.com"),
        Err(AccountError::WrongPassword)
    ));
    assert!(matches!(
        svc.request_email_change(a.id, PASSWORD, "TAKEN@example.com"),
        Err(AccountError::EmailTaken(_))
    ));
    let (_, token) = svc
        .request_email_change(a.id, PASSWORD, "new@example.com")
        .unwrap();
    assert_eq!(svc.account(a.id).unwrap().email.as_str(), "a@example.com");
    let moved = svc.confirm_email_change(token.expose()).unwrap();
    assert_eq!(moved.email.as_str(), "new@example.com");
    assert!(moved.is_verified());
    assert!(matches!(
        svc.confirm_email_change(token.expose()),
        Err(AccountError::InvalidToken)
    ));
    assert!(svc.log_in("new@example.com", PASSWORD, None, None).is_ok());
}

/// Disabling ends sessions, refuses logins and fails keys at once; enabling restores the keys.
/// Only admins administer, only the owner makes admins, and the owner is protected.
pub fn dashboard_disable_and_roles<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let owner = svc.create_owner("owner@example.com").unwrap();
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let b = svc.create_account("b@example.com", Plan::Free).unwrap();
    let (_, token) = svc.issue_token(a.id, TokenPurpose::Reset).unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    let (_, key) = svc.create_key(a.id, KeyMode::Live).unwrap();
    assert!(svc.authenticate(Some(key.expose_secret()), None).is_ok());
    let (_, session) = svc.log_in("a@example.com", PASSWORD, None, None).unwrap();
    assert!(matches!(
        svc.set_status(Actor::Account(b.id), a.id, AccountStatus::Disabled),
        Err(AdminError::NotAllowed)
    ));
    assert!(!svc.may_administer(Actor::Account(b.id)).unwrap());
    svc.set_status(Actor::Account(owner.id), a.id, AccountStatus::Disabled)
        .unwrap();
    assert_eq!(
        svc.authenticate(Some(key.expose_secret()), None)
            .unwrap_err(),
        AuthError::Unknown
    );
    assert!(svc.session(session.expose()).unwrap().is_none());
    assert_eq!(
        svc.log_in("a@example.com", PASSWORD, None, None)
            .unwrap_err(),
        LoginError::Disabled
    );
    svc.set_status(Actor::Operator, a.id, AccountStatus::Active)
        .unwrap();
    assert!(svc.authenticate(Some(key.expose_secret()), None).is_ok());
    // Roles: the owner makes an admin, who administers but makes no admins.
    svc.set_role(Actor::Account(owner.id), b.id, Role::Admin)
        .unwrap();
    assert!(svc.may_administer(Actor::Account(b.id)).unwrap());
    assert_eq!(svc.admin_accounts(Actor::Account(b.id)).unwrap().len(), 3);
    assert!(matches!(
        svc.set_role(Actor::Account(b.id), a.id, Role::Admin),
        Err(AdminError::NotAllowed)
    ));
    assert!(matches!(
        svc.set_status(Actor::Account(b.id), owner.id, AccountStatus::Disabled),
        Err(AdminError::OwnerProtected)
    ));
    assert!(matches!(
        svc.set_status(Actor::Account(b.id), b.id, AccountStatus::Disabled),
        Err(AdminError::OwnAccount)
    ));
    assert!(matches!(
        svc.set_role(Actor::Operator, owner.id, Role::Customer),
        Err(AdminError::OwnerProtected)
    ));
    let changed = svc
        .admin_set_plan(Actor::Account(b.id), a.id, Plan::Pro)
        .unwrap();
    assert_eq!(changed.plan, Plan::Pro);
    assert!(
        svc.mark_verified(Actor::Operator, b.id)
            .unwrap()
            .is_verified()
    );
    assert!(
        svc.adopt_owner("b@example.com").unwrap().is_none(),
        "there is an owner already"
    );
}

/// Deleting one's account needs the password and takes its keys, links and sessions with it;
/// the owner cannot delete theirs.
pub fn dashboard_account_deletion<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let owner = svc.create_owner("owner@example.com").unwrap();
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let (_, token) = svc.issue_token(a.id, TokenPurpose::Reset).unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    let (_, key) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let link = svc
        .create_link(&a, "Flyer", "https://example.com/")
        .unwrap();
    let (_, session) = svc.log_in("a@example.com", PASSWORD, None, None).unwrap();
    assert!(svc.authenticate(Some(key.expose_secret()), None).is_ok());
    assert!(matches!(
        svc.delete_own_account(a.id, "wrong password"),
        Err(AccountError::WrongPassword)
    ));
    svc.delete_own_account(a.id, PASSWORD).unwrap();
    assert_eq!(
        svc.authenticate(Some(key.expose_secret()), None)
            .unwrap_err(),
        AuthError::Unknown
    );
    assert_eq!(
        svc.resolve(link.short_code.as_str()).unwrap(),
        Resolution::Gone
    );
    assert!(svc.session(session.expose()).unwrap().is_none());
    assert!(svc.account_by_email(&a.email).unwrap().is_none());
    let (_, token) = svc.issue_token(owner.id, TokenPurpose::Reset).unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    assert!(matches!(
        svc.delete_own_account(owner.id, PASSWORD),
        Err(AccountError::OwnerProtected)
    ));
}

/// Requests per day count admitted API requests (flushed or not); dashboard renders are
/// rate-limited but never counted. Keys of another account are "not found".
pub fn dashboard_usage_renders_and_own_keys<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-02T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let b = svc.create_account("b@example.com", Plan::Free).unwrap();
    let (kb, _) = svc.create_key(b.id, KeyMode::Live).unwrap();
    let (ka, secret) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let ctx = svc
        .authenticate(Some(secret.expose_secret()), None)
        .unwrap();
    svc.admit(&ctx, false).unwrap();
    svc.flush().unwrap();
    clock.advance(Duration::seconds(1));
    svc.admit(&ctx, false).unwrap();
    let days = svc.daily_requests(a.id).unwrap();
    assert_eq!(
        days,
        vec![(super::day("2024-05-01"), 0), (super::day("2024-05-02"), 2)]
    );
    svc.flush().unwrap();
    assert_eq!(
        svc.daily_requests(a.id).unwrap()[1].1,
        2,
        "flushed counts are not doubled"
    );
    let account = svc.account(a.id).unwrap();
    for _ in 0..10 {
        assert!(svc.admit_render(&account).is_ok());
    }
    assert_eq!(
        svc.admit_render(&account),
        Err(1),
        "Free renders: 5 a second, 10 at once"
    );
    assert_eq!(svc.usage(&ctx).usage.current, 2);
    assert!(matches!(
        svc.own_key(a.id, kb.id),
        Err(AdminError::KeyNotFound(_))
    ));
    assert!(matches!(
        svc.regenerate_own_key(a.id, kb.id),
        Err(AdminError::KeyNotFound(_))
    ));
    assert!(matches!(
        svc.revoke_own_key(a.id, kb.id),
        Err(AdminError::KeyNotFound(_))
    ));
    assert!(svc.key(kb.id).is_ok());
    assert_eq!(svc.own_key(a.id, ka.id).unwrap().id, ka.id);
}
