//! Contract checks of the dashboard's records in the store: accounts' status, one-time tokens, sessions, plan requests, daily usage, deleting accounts and pruning credentials.

use crate::accounts::account::{AccountStatus, Email, PlanRequest};
use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::Plan;
use crate::contract::{key_for, link_for, member_of, scan, setup, t, user};
use crate::dashboard::session::{SESSION_ABSOLUTE, Session, SessionSecret};
use crate::dashboard::token::{OneTimeToken, TokenPurpose, TokenSecret};
use crate::error::StoreError;
use crate::ids::UserId;
use crate::scans::scan::Device;
use crate::store::Store;
use chrono::Duration;

fn token(user: UserId, purpose: TokenPurpose, at: &str) -> (OneTimeToken, TokenSecret) {
    let secret = TokenSecret::generate().unwrap();
    let token = OneTimeToken {
        hash: secret.hash(),
        user_id: user,
        purpose,
        new_email: None,
        created_at: t(at),
        expires_at: t(at) + Duration::hours(24),
    };
    (token, secret)
}

fn session(user: UserId, at: &str) -> Session {
    let secret = SessionSecret::generate().unwrap();
    Session {
        hash: secret.hash(),
        user_id: user,
        account_id: None,
        created_at: t(at),
        last_seen_at: t(at),
        user_agent: "Firefox on Linux".to_owned(),
    }
}

/// Accounts keep their status through insert and update.
pub fn accounts_keep_dashboard_fields<S: Store>(store: S) {
    let mut a = setup(&store, Plan::Free);
    assert_eq!(store.read(|tx| tx.account(a.id)).unwrap(), Some(a.clone()));
    a.status = AccountStatus::Disabled;
    assert!(store.write(|tx| tx.update_account(&a)).unwrap());
    assert_eq!(store.read(|tx| tx.account(a.id)).unwrap(), Some(a));
}

/// A token is taken once; a newer token of the same user and purpose replaces the older one;
/// tokens of other purposes stay; a token needs an existing user.
pub fn tokens_are_single_use_and_replaced<S: Store>(store: S) {
    let w = setup(&store, Plan::Free);
    let a = member_of(&store, w.id, MemberRole::Owner);
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
    let (orphan, _) = token(user().id, TokenPurpose::Verify, "2024-01-02T00:00:00Z");
    assert!(matches!(
        store.write(|tx| tx.insert_token(&orphan)),
        Err(StoreError::Conflict(_))
    ));
}

/// Sessions are saved, found, listed oldest first, touched, moved to another workspace, and
/// ended one or all but one; a session needs an existing user and workspace.
pub fn sessions_roundtrip_and_end<S: Store>(store: S) {
    let w = setup(&store, Plan::Free);
    let a = member_of(&store, w.id, MemberRole::Owner);
    let b = member_of(&store, w.id, MemberRole::Member);
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
    first.account_id = Some(w.id);
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
    let orphan = session(user().id, "2024-01-02T00:00:00Z");
    assert!(store.write(|tx| tx.save_session(&orphan)).is_err());
    let mut nowhere = session(b.id, "2024-01-02T00:00:00Z");
    nowhere.account_id = Some(crate::contract::account(Plan::Free).id);
    assert!(store.write(|tx| tx.save_session(&nowhere)).is_err());
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
    let d = |s: &str| crate::contract::day(s);
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
    let gone = crate::contract::account(Plan::Free);
    store
        .write(|tx| tx.add_daily_usage(d("2024-05-01"), &[(gone.id, 4)]))
        .unwrap();
}

/// Deleting an account removes everything it owns and tombstones its codes; others keep theirs.
/// Its members stay users (their sessions and tokens with them).
pub fn delete_account_removes_everything<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let owner = member_of(&store, a.id, MemberRole::Owner);
    let (ka, secret_a) = key_for(a.id);
    let (kb, _) = key_for(b.id);
    let la = link_for(a.id, "2024-01-02T00:00:00Z");
    let lb = link_for(b.id, "2024-01-02T00:00:00Z");
    let mut sa = session(owner.id, "2024-01-02T00:00:00Z");
    sa.account_id = Some(a.id);
    let (ta, ta_secret) = token(owner.id, TokenPurpose::Reset, "2024-01-02T00:00:00Z");
    let day = crate::contract::day("2024-01-02");
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
                crate::accounts::limits::UsageMonth::of(t("2024-01-02T00:00:00Z")),
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
                tx.code_taken(None, &la.short_code)?,
                "printed codes never come back"
            );
            assert_eq!(tx.link_by_code(None, &la.short_code)?, None);
            assert_eq!(tx.session(&sa.hash)?.map(|s| s.account_id), Some(None));
            assert_eq!(tx.membership(a.id, owner.id)?, None);
            assert!(tx.plan_requests()?.is_empty());
            assert!(tx.daily_usage(a.id, day, day)?.is_empty());
            assert!(
                tx.usage(crate::accounts::limits::UsageMonth::of(t(
                    "2024-01-02T00:00:00Z"
                )))?
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
        Some(ta),
        "the user's token is theirs, not the workspace's"
    );
}

/// Pruning removes expired tokens and sessions idle or old past their limits, nothing else.
pub fn prune_credentials_removes_ended<S: Store>(store: S) {
    let w = setup(&store, Plan::Free);
    let a = member_of(&store, w.id, MemberRole::Owner);
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

/// A second factor reads back as stored (secret, confirmation, last step, recovery hashes),
/// is replaced whole, and goes with its user; a workspace's requirement is set once, removed,
/// and goes with the workspace; both need their owner to exist.
pub fn second_factors_roundtrip_and_follow_deletions<S: Store>(store: S) {
    use crate::dashboard::recovery::{RecoveryCode, RecoveryCodeHashes};
    use crate::dashboard::totp::TotpSecret;
    use crate::dashboard::two_factor::TwoFactor;

    let w = setup(&store, Plan::Free);
    let other = setup(&store, Plan::Free);
    let a = member_of(&store, w.id, MemberRole::Owner);
    let b = member_of(&store, w.id, MemberRole::Member);
    let pending = TwoFactor {
        user_id: a.id,
        totp_secret: TotpSecret::generate().unwrap(),
        confirmed_at: None,
        last_used_step: None,
        recovery_codes: RecoveryCodeHashes::default(),
        created_at: t("2024-01-02T00:00:00Z"),
    };
    assert_eq!(store.read(|tx| tx.two_factor(a.id)).unwrap(), None);
    store.write(|tx| tx.put_two_factor(&pending)).unwrap();
    assert_eq!(
        store.read(|tx| tx.two_factor(a.id)).unwrap(),
        Some(pending.clone())
    );
    let codes = RecoveryCode::generate_set().unwrap();
    let mut confirmed = TwoFactor {
        confirmed_at: Some(t("2024-01-02T00:01:00Z")),
        // A step far in the future still fits the stores' integers.
        last_used_step: Some(66_666_666_666),
        recovery_codes: RecoveryCodeHashes::of(&codes),
        ..pending
    };
    store.write(|tx| tx.put_two_factor(&confirmed)).unwrap();
    assert_eq!(
        store.read(|tx| tx.two_factor(a.id)).unwrap(),
        Some(confirmed.clone())
    );
    assert!(confirmed.recovery_codes.redeem(codes[3].expose_secret()));
    store.write(|tx| tx.put_two_factor(&confirmed)).unwrap();
    let read = store.read(|tx| tx.two_factor(a.id)).unwrap().unwrap();
    assert_eq!(read.recovery_codes.remaining(), 9);
    assert_eq!(read, confirmed);
    assert_eq!(store.read(|tx| tx.two_factor(b.id)).unwrap(), None);
    let nobody = TwoFactor {
        user_id: UserId::random(),
        ..confirmed.clone()
    };
    assert!(matches!(
        store.write(|tx| tx.put_two_factor(&nobody)),
        Err(StoreError::Conflict(_))
    ));
    // Deleting.
    let for_b = TwoFactor {
        user_id: b.id,
        ..confirmed.clone()
    };
    store.write(|tx| tx.put_two_factor(&for_b)).unwrap();
    assert!(store.write(|tx| tx.delete_two_factor(b.id)).unwrap());
    assert!(!store.write(|tx| tx.delete_two_factor(b.id)).unwrap());
    assert!(store.write(|tx| tx.delete_user(a.id)).unwrap());
    assert_eq!(store.read(|tx| tx.two_factor(a.id)).unwrap(), None);
    // The workspace requirement.
    assert!(!store.read(|tx| tx.two_factor_required(w.id)).unwrap());
    store
        .write(|tx| tx.require_two_factor(w.id, t("2024-01-03T00:00:00Z")))
        .unwrap();
    store
        .write(|tx| tx.require_two_factor(w.id, t("2024-01-04T00:00:00Z")))
        .unwrap();
    assert!(store.read(|tx| tx.two_factor_required(w.id)).unwrap());
    assert!(!store.read(|tx| tx.two_factor_required(other.id)).unwrap());
    assert!(
        store
            .write(|tx| tx.stop_requiring_two_factor(w.id))
            .unwrap()
    );
    assert!(
        !store
            .write(|tx| tx.stop_requiring_two_factor(w.id))
            .unwrap()
    );
    assert!(!store.read(|tx| tx.two_factor_required(w.id)).unwrap());
    store
        .write(|tx| tx.require_two_factor(other.id, t("2024-01-03T00:00:00Z")))
        .unwrap();
    assert!(store.write(|tx| tx.delete_account(other.id)).unwrap());
    assert!(!store.read(|tx| tx.two_factor_required(other.id)).unwrap());
    assert!(matches!(
        store.write(|tx| tx.require_two_factor(other.id, t("2024-01-05T00:00:00Z"))),
        Err(StoreError::Conflict(_))
    ));
}
