//! Contract checks of the dashboard's rules over a store: sign-up policy and plan requests, verification, password reset, login and sessions, e-mail changes, disabling and roles, deletion, daily usage, renders and own keys.

use crate::accounts::account::{AccountStatus, Role, SignupPolicy};
use crate::accounts::caller::Caller;
use crate::accounts::key::{KeyCreator, KeyMode};
use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::Plan;
use crate::accounts::user::Membership;
use crate::clock::Clock;
use crate::contract::{service, t};
use crate::dashboard::token::TokenPurpose;
use crate::ids::{AccountId, UserId};
use crate::service::Service;
use crate::service::{
    AccountError, Actor, AdminError, AuthError, LOGIN_ACCOUNT_BURST, LOGIN_ADDRESS_BURST,
    LoginError, Resolution, SignUp,
};
use crate::store::Store;
use chrono::Duration;

const PASSWORD: &str = "plum tree at dawn";

/// The user who owns a workspace the operator made.
fn owner_id<S: Store, C: Clock>(svc: &Service<S, C>, account: AccountId) -> UserId {
    svc.owner_of(account).unwrap().expect("an owner").id
}

/// Sign-up follows the operator's policy: closed, self-service plans, requests for others, the
/// same outcome for a taken address, password rules; admins approve and decline requests.
pub fn dashboard_signup_and_plan_requests<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let svc = svc.with_signup_policy(SignupPolicy::new(true, [Plan::Starter]));
    let (owner, _) = svc.create_owner("owner@example.com").unwrap();
    let SignUp::Created {
        user: su,
        account: s,
        requested,
    } = svc
        .sign_up("s@example.com", PASSWORD, Plan::Starter)
        .unwrap()
    else {
        panic!("a new address makes an account");
    };
    assert_eq!(
        (s.plan, requested, su.is_verified()),
        (Plan::Starter, None, false)
    );
    let SignUp::Created {
        account: p,
        requested,
        ..
    } = svc.sign_up("p@example.com", PASSWORD, Plan::Pro).unwrap()
    else {
        panic!("a new address makes an account");
    };
    assert_eq!((p.plan, requested), (Plan::Free, Some(Plan::Pro)));
    assert_eq!(
        svc.sign_up("S@EXAMPLE.com", "another fine password", Plan::Free)
            .unwrap(),
        SignUp::Existing(su.clone())
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
        svc.decide_plan_request(Actor::User(su.id), p.id, true),
        Err(AdminError::NotAllowed)
    ));
    let requests = svc.admin_plan_requests(Actor::User(owner.id)).unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!((requests[0].0.plan, requests[0].1.id), (Plan::Pro, p.id));
    let approved = svc
        .decide_plan_request(Actor::User(owner.id), p.id, true)
        .unwrap();
    assert_eq!(approved.plan, Plan::Pro);
    assert!(matches!(
        svc.decide_plan_request(Actor::User(owner.id), p.id, false),
        Err(AdminError::NoPlanRequest(_))
    ));
    // A customer asks for a plan later: self-service at once, others as a request; only the
    // workspace's owner may.
    let as_owner = Caller::member(s.id, su.id, "s@example.com", MemberRole::Owner, None);
    let as_admin = Caller::member(s.id, su.id, "s@example.com", MemberRole::Admin, None);
    assert!(matches!(
        svc.request_plan(&as_admin, Plan::Free),
        Err(AccountError::NotPermitted(_))
    ));
    assert!(matches!(
        svc.request_plan(&as_owner, Plan::Enterprise).unwrap(),
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
        svc.request_plan(&as_owner, Plan::Free).unwrap(),
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
    let SignUp::Created {
        user: u,
        account: a,
        ..
    } = svc.sign_up("a@example.com", PASSWORD, Plan::Free).unwrap()
    else {
        panic!("new account");
    };
    let owner = Caller::member(a.id, u.id, "a@example.com", MemberRole::Owner, None);
    assert!(matches!(
        svc.create_own_key(&owner, "Server", KeyMode::Live, None),
        Err(AdminError::NotVerified)
    ));
    let (_, first) = svc.issue_token(u.id, TokenPurpose::Verify).unwrap();
    let (_, second) = svc.issue_token(u.id, TokenPurpose::Verify).unwrap();
    assert!(matches!(
        svc.verify_email(first.expose()),
        Err(AccountError::InvalidToken)
    ));
    let (_, reset) = svc.issue_token(u.id, TokenPurpose::Reset).unwrap();
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
    let (key, secret) = svc
        .create_own_key(&owner, "Server", KeyMode::Live, None)
        .unwrap();
    assert_eq!(key.name, "Server");
    assert_eq!(key.created_by, Some(KeyCreator::User(u.id)));
    assert!(secret.expose_secret().ends_with(&key.last_four));
    let (_, late) = svc.issue_token(u.id, TokenPurpose::Verify).unwrap();
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
    let ua = owner_id(&svc, a.id);
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
    let (_, again) = svc.issue_token(ua, TokenPurpose::Reset).unwrap();
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
    let ua = owner_id(&svc, a.id);
    let (_, t1) = svc.issue_token(ua, TokenPurpose::Reset).unwrap();
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
    assert_eq!(svc.sessions(ua).unwrap().len(), 2);
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
    assert!(svc.log_out_everywhere(ua).unwrap() >= 2);
    assert!(svc.sessions(ua).unwrap().is_empty());
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
    let ua = owner_id(&svc, a.id);
    svc.create_account("taken@example.com", Plan::Free).unwrap();
    let (_, t1) = svc.issue_token(ua, TokenPurpose::Reset).unwrap();
    svc.reset_password(t1.expose(), PASSWORD).unwrap();
    assert!(matches!(
        svc.request_email_change(ua, "wrong password", "new@example.com"),
        Err(AccountError::WrongPassword)
    ));
    assert!(matches!(
        svc.request_email_change(ua, PASSWORD, "TAKEN@example.com"),
        Err(AccountError::EmailTaken(_))
    ));
    let (_, token) = svc
        .request_email_change(ua, PASSWORD, "new@example.com")
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
    assert_eq!(
        svc.account(a.id).unwrap().email.as_str(),
        "new@example.com",
        "the workspace she owns moves along"
    );
}

/// Disabling a workspace ends its only member's sessions, refuses their logins and fails keys at
/// once; enabling restores the keys. Only admins administer, only the owner makes admins, and
/// the owner is protected.
pub fn dashboard_disable_and_roles<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let (owner, owner_ws) = svc.create_owner("owner@example.com").unwrap();
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let b = svc.create_account("b@example.com", Plan::Free).unwrap();
    let (ua, ub) = (owner_id(&svc, a.id), owner_id(&svc, b.id));
    let (_, token) = svc.issue_token(ua, TokenPurpose::Reset).unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    let (_, key) = svc.create_key(a.id, KeyMode::Live).unwrap();
    assert!(svc.authenticate(Some(key.expose_secret()), None).is_ok());
    let (_, session) = svc.log_in("a@example.com", PASSWORD, None, None).unwrap();
    assert!(matches!(
        svc.set_status(Actor::User(ub), a.id, AccountStatus::Disabled),
        Err(AdminError::NotAllowed)
    ));
    assert!(!svc.may_administer(Actor::User(ub)).unwrap());
    svc.set_status(Actor::User(owner.id), a.id, AccountStatus::Disabled)
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
    svc.set_role(Actor::User(owner.id), ub, Role::Admin)
        .unwrap();
    assert!(svc.may_administer(Actor::User(ub)).unwrap());
    assert_eq!(svc.admin_accounts(Actor::User(ub)).unwrap().len(), 3);
    assert!(matches!(
        svc.set_role(Actor::User(ub), ua, Role::Admin),
        Err(AdminError::NotAllowed)
    ));
    assert!(matches!(
        svc.set_status(Actor::User(ub), owner_ws.id, AccountStatus::Disabled),
        Err(AdminError::OwnerProtected)
    ));
    assert!(matches!(
        svc.set_status(Actor::User(ub), b.id, AccountStatus::Disabled),
        Err(AdminError::OwnAccount)
    ));
    assert!(matches!(
        svc.set_role(Actor::Operator, owner.id, Role::Customer),
        Err(AdminError::OwnerProtected)
    ));
    let changed = svc
        .admin_set_plan(Actor::User(ub), a.id, Plan::Pro)
        .unwrap();
    assert_eq!(changed.plan, Plan::Pro);
    assert!(
        svc.mark_verified(Actor::Operator, ub)
            .unwrap()
            .is_verified()
    );
    assert!(
        svc.adopt_owner("b@example.com").unwrap().is_none(),
        "there is an owner already"
    );
}

/// Deleting a workspace needs its owner's password and takes its keys, links and sessions with
/// it (a user left without workspaces goes too); other members may not; the service's owner
/// cannot delete theirs.
pub fn dashboard_account_deletion<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let (owner, _) = svc.create_owner("owner@example.com").unwrap();
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let ua = owner_id(&svc, a.id);
    let (_, token) = svc.issue_token(ua, TokenPurpose::Reset).unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    let viewer = svc.create_account("v@example.com", Plan::Free).unwrap();
    let uv = owner_id(&svc, viewer.id);
    svc.store
        .write(|tx| {
            tx.put_membership(&Membership {
                account_id: a.id,
                user_id: uv,
                role: MemberRole::Viewer,
                created_at: t("2024-05-01T10:00:00Z"),
            })
        })
        .unwrap();
    let (_, token) = svc.issue_token(uv, TokenPurpose::Reset).unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    let (_, key) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let link = svc
        .create_link(&Caller::operator(a.id), "Flyer", "https://example.com/")
        .unwrap();
    let (_, session) = svc.log_in("a@example.com", PASSWORD, None, None).unwrap();
    let ctx = svc.session(session.expose()).unwrap().unwrap();
    assert!(svc.authenticate(Some(key.expose_secret()), None).is_ok());
    let (_, viewing) = svc.log_in("v@example.com", PASSWORD, None, None).unwrap();
    let vctx = svc.session(viewing.expose()).unwrap().unwrap();
    assert!(svc.switch_workspace(&vctx, a.id).unwrap());
    let vctx = svc.session(viewing.expose()).unwrap().unwrap();
    assert!(matches!(
        svc.delete_workspace(&vctx, PASSWORD),
        Err(AccountError::NotPermitted(_))
    ));
    assert!(matches!(
        svc.delete_workspace(&ctx, "wrong password"),
        Err(AccountError::WrongPassword)
    ));
    svc.delete_workspace(&ctx, PASSWORD).unwrap();
    assert_eq!(
        svc.authenticate(Some(key.expose_secret()), None)
            .unwrap_err(),
        AuthError::Unknown
    );
    assert_eq!(
        svc.resolve(None, link.short_code.as_str()).unwrap(),
        Resolution::Gone
    );
    assert!(svc.session(session.expose()).unwrap().is_none());
    assert!(svc.account_by_email(&a.email).unwrap().is_none());
    assert!(
        matches!(svc.user(ua), Err(AdminError::UserNotFound(_))),
        "no workspace left"
    );
    let vctx = svc.session(viewing.expose()).unwrap().unwrap();
    assert_eq!(vctx.account.id, viewer.id, "the viewer is back in her own");
    let (_, token) = svc.issue_token(owner.id, TokenPurpose::Reset).unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    let (_, own) = svc
        .log_in("owner@example.com", PASSWORD, None, None)
        .unwrap();
    let octx = svc.session(own.expose()).unwrap().unwrap();
    assert!(matches!(
        svc.delete_workspace(&octx, PASSWORD),
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
        vec![
            (crate::contract::day("2024-05-01"), 0),
            (crate::contract::day("2024-05-02"), 2)
        ]
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
    let in_a = Caller::operator(a.id);
    assert!(matches!(
        svc.regenerate_own_key(&in_a, kb.id),
        Err(AdminError::KeyNotFound(_))
    ));
    assert!(matches!(
        svc.update_own_key_settings(&in_a, kb.id, Default::default()),
        Err(AdminError::KeyNotFound(_))
    ));
    assert!(matches!(
        svc.revoke_own_key(&in_a, kb.id),
        Err(AdminError::KeyNotFound(_))
    ));
    assert!(svc.key(kb.id).is_ok());
    assert_eq!(svc.own_key(a.id, ka.id).unwrap().id, ka.id);
}

/// The dashboard's link list: newest first, paged, searched by name, target or code ignoring case,
/// and only the account's own links.
pub fn dashboard_link_search<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let b = svc.create_account("b@example.com", Plan::Free).unwrap();
    let l = svc
        .create_link(&Caller::operator(a.id), "Mine", "https://example.com")
        .unwrap();
    assert_eq!(svc.count_links(a.id).unwrap(), 1);
    let page = crate::service::LinkPage {
        number: 1,
        size: 10,
    };
    assert_eq!(svc.search_links(b.id, "", page).unwrap(), (vec![], 0));
    clock.advance(Duration::seconds(1));
    let second = svc
        .create_link(
            &Caller::operator(a.id),
            "Menu card",
            "https://menu.example/",
        )
        .unwrap();
    assert_eq!(
        svc.search_links(a.id, "", page).unwrap().0,
        vec![second.clone(), l.clone()],
        "newest first"
    );
    assert_eq!(
        svc.search_links(a.id, "MENU", page).unwrap(),
        (vec![second], 1)
    );
    assert_eq!(
        svc.search_links(a.id, l.short_code.as_str(), page)
            .unwrap()
            .1,
        1
    );
    let two = crate::service::LinkPage { number: 2, size: 1 };
    assert_eq!(
        svc.search_links(a.id, "", two).unwrap(),
        (vec![l.clone()], 2)
    );
    let beyond = crate::service::LinkPage { number: 9, size: 1 };
    assert_eq!(svc.search_links(a.id, "", beyond).unwrap(), (vec![], 2));
    assert_eq!(
        svc.search_links(a.id, "  MENU.Example ", page).unwrap().1,
        1,
        "the target matches, trimmed and with ASCII case folded"
    );
    assert_eq!(
        svc.search_links(a.id, "%", page).unwrap().1,
        0,
        "no wildcards"
    );
}
