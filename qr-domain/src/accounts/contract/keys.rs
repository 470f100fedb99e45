//! Contract checks of API keys and authentication: records and hash lookup, the configuration
//! version and the changes it names, regeneration, access rules, the failed-key throttle and the
//! key cache that follows changes.

use crate::accounts::access::{AccessError, AccessRequest, Endpoint, IpRule, KeySettings};
use crate::accounts::caller::Caller;
use crate::accounts::config_change::{ConfigChange, ConfigChanges};
use crate::accounts::key::{ApiKeySecret, KeyMode};
use crate::accounts::limits::UsageMonth;
use crate::accounts::permissions::{NotPermitted, Operation, Scope, ScopeSet};
use crate::accounts::plan::{Feature, Plan};
use crate::clock::TestClock;
use crate::contract::until_changes_heard;
use crate::contract::{DESKTOP, PHONE, key_for, link_for, query, scan, service, setup, t, visit};
use crate::links::link::LinkUpdate;
use crate::scans::geo::NoGeoLocator;
use crate::scans::scan::Device;
use crate::service::Service;
use crate::service::{AUTH_FAILURE_BURST, AuthError, Resolution};
use crate::store::Store;
use chrono::Duration;
use std::sync::Arc;

/// Keys are found by hash; a new hash replaces the old one; last-use times only move forward.
pub fn keys_roundtrip_and_hash_lookup<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let (mut k, secret) = key_for(a.id);
    k.settings
        .ip_allowlist
        .push(IpRule::parse("10.0.0.0/8").unwrap());
    k.settings.disabled_endpoints.insert(Endpoint::Batch);
    store.write(|tx| tx.insert_key(&k)).unwrap();
    assert_eq!(
        store.read(|tx| tx.key_by_hash(&secret.hash())).unwrap(),
        Some(k.clone())
    );
    assert_eq!(store.read(|tx| tx.keys_of(a.id)).unwrap(), vec![k.clone()]);
    let fresh = ApiKeySecret::generate(KeyMode::Live).unwrap();
    let old_hash = k.hash;
    k.hash = fresh.hash();
    k.display_prefix = fresh.display_prefix();
    assert!(store.write(|tx| tx.update_key(&k)).unwrap());
    assert_eq!(store.read(|tx| tx.key_by_hash(&old_hash)).unwrap(), None);
    assert_eq!(
        store
            .read(|tx| tx.key_by_hash(&fresh.hash()))
            .unwrap()
            .map(|x| x.id),
        Some(k.id)
    );
    let later = t("2024-03-01T00:00:00Z");
    store.write(|tx| tx.touch_keys(&[(k.id, later)])).unwrap();
    store
        .write(|tx| tx.touch_keys(&[(k.id, t("2024-02-01T00:00:00Z"))]))
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.key(k.id)).unwrap().unwrap().last_used_at,
        Some(later)
    );
    assert!(store.write(|tx| tx.delete_key(k.id)).unwrap());
    assert_eq!(store.read(|tx| tx.key(k.id)).unwrap(), None);
    assert!(!store.write(|tx| tx.delete_key(k.id)).unwrap());
}

/// The configuration version moves on account and key changes, not on usage, links or scans.
pub fn config_version_tracks_accounts_and_keys<S: Store>(store: S) {
    let v0 = store.config_version().unwrap();
    let mut a = setup(&store, Plan::Free);
    let v1 = store.config_version().unwrap();
    assert_ne!(v0, v1);
    let (k, _) = key_for(a.id);
    store.write(|tx| tx.insert_key(&k)).unwrap();
    let v2 = store.config_version().unwrap();
    assert_ne!(v1, v2);
    let l = link_for(a.id, "2024-01-02T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_link(&l)?;
            tx.save_usage(UsageMonth::of(t("2024-01-02T00:00:00Z")), &[(a.id, 5)])?;
            tx.touch_keys(&[(k.id, t("2024-01-02T00:00:00Z"))])
        })
        .unwrap();
    store
        .record_scans(&[scan(
            l.id,
            "2024-01-02T10:00:00Z",
            1,
            "GB",
            Device::Mobile,
            "Chrome",
        )])
        .unwrap();
    assert_eq!(store.config_version().unwrap(), v2);
    a.plan = Plan::Pro;
    store.write(|tx| tx.update_account(&a)).unwrap();
    assert_ne!(store.config_version().unwrap(), v2);
}

/// The changes after a version name every account and key changed since (a key by its id and
/// the hash of its secret after the change, or before it for a deletion), and nothing for
/// usage, links or scans; a version the store has not reached is unknown.
pub fn config_changes_name_accounts_and_keys<S: Store>(store: S) {
    let changes_since = |since: u64| {
        until_changes_heard(&store);
        match store.config_changes(since).unwrap() {
            ConfigChanges::Listed { version, changes } => {
                assert_eq!(version, store.config_version().unwrap());
                changes
            }
            ConfigChanges::Unknown { version } => panic!("unknown from {since} to {version}"),
        }
    };
    let v0 = store.config_version().unwrap();
    assert_eq!(changes_since(v0), vec![]);
    let mut a = setup(&store, Plan::Free);
    let (mut k, _) = key_for(a.id);
    store.write(|tx| tx.insert_key(&k)).unwrap();
    let created = changes_since(v0);
    assert!(
        created.contains(&ConfigChange::Account(a.id)),
        "{created:?}"
    );
    assert!(
        created.contains(&ConfigChange::Key {
            id: k.id,
            hash: k.hash
        }),
        "{created:?}"
    );
    let v1 = store.config_version().unwrap();
    let l = link_for(a.id, "2024-01-02T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_link(&l)?;
            tx.save_usage(UsageMonth::of(t("2024-01-02T00:00:00Z")), &[(a.id, 5)])?;
            tx.touch_keys(&[(k.id, t("2024-01-02T00:00:00Z"))])
        })
        .unwrap();
    assert_eq!(changes_since(v1), vec![]);

    let regenerated = ApiKeySecret::generate(KeyMode::Live).unwrap();
    k.hash = regenerated.hash();
    store.write(|tx| tx.update_key(&k)).unwrap();
    let key_change = ConfigChange::Key {
        id: k.id,
        hash: k.hash,
    };
    assert_eq!(changes_since(v1), vec![key_change]);
    let v2 = store.config_version().unwrap();
    a.plan = Plan::Pro;
    store.write(|tx| tx.update_account(&a)).unwrap();
    assert_eq!(changes_since(v2), vec![ConfigChange::Account(a.id)]);
    assert_eq!(
        changes_since(v1),
        vec![key_change, ConfigChange::Account(a.id)]
    );
    let v3 = store.config_version().unwrap();
    assert!(store.write(|tx| tx.delete_key(k.id)).unwrap());
    assert_eq!(
        changes_since(v3),
        vec![key_change],
        "revoked: the last hash"
    );
    let v4 = store.config_version().unwrap();
    let (other, _) = key_for(a.id);
    store.write(|tx| tx.insert_key(&other)).unwrap();
    store.write(|tx| tx.delete_account(a.id)).unwrap();
    let deleted = changes_since(v4);
    assert!(
        deleted.contains(&ConfigChange::Account(a.id)),
        "{deleted:?}"
    );

    let now = store.config_version().unwrap();
    assert_eq!(
        store.config_changes(now + 5).unwrap(),
        ConfigChanges::Unknown { version: now }
    );
}

/// Regeneration: same key id, settings and usage; the old secret is dead at once.
pub fn service_key_regeneration<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Starter).unwrap();
    let (k, old) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let mut settings = KeySettings::default();
    settings.disabled_endpoints.insert(Endpoint::Batch);
    svc.update_key_settings(k.id, settings.clone()).unwrap();
    let ctx = svc.authenticate(Some(old.expose_secret()), None).unwrap();
    svc.admit(&ctx, false).unwrap();
    let (k2, new) = svc.regenerate_key(k.id).unwrap();
    assert_eq!(k2.id, k.id);
    assert_ne!(old.expose_secret(), new.expose_secret());
    assert_eq!(
        svc.authenticate(Some(old.expose_secret()), None)
            .unwrap_err(),
        AuthError::Unknown
    );
    let ctx = svc.authenticate(Some(new.expose_secret()), None).unwrap();
    assert_eq!(ctx.key.id, k.id);
    assert_eq!(ctx.key.settings, settings);
    assert_eq!(svc.usage(&ctx).usage.current, 1);
    assert!(matches!(
        svc.authenticate(Some("qrapi_live_short"), None),
        Err(AuthError::Malformed(_))
    ));
}

/// Repeated failed authentication from one address is answered with a wait past its budget;
/// valid keys from that address are always served, known or not.
pub fn service_failed_authentication_is_throttled<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let (_, secret) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let attacker: Option<std::net::IpAddr> = Some("203.0.113.66".parse().unwrap());
    let neighbour: Option<std::net::IpAddr> = Some("203.0.113.67".parse().unwrap());
    // The key is known to this service before the attack.
    assert!(
        svc.authenticate(Some(secret.expose_secret()), attacker)
            .is_ok()
    );
    let wrong = "qrapi_live_00000000000000000000000000000000";
    for attempt in 0..AUTH_FAILURE_BURST {
        let e = svc.authenticate(Some(wrong), attacker).unwrap_err();
        assert_eq!(e, AuthError::Unknown, "attempt {attempt}");
    }
    // Over the budget: unknown keys get a wait; missing and malformed keys (no lookup) keep
    // their plain refusal. An unseen key is still looked up (the cache cannot answer it), and
    // refused with the wait if wrong.
    let throttled = |e: AuthError| {
        matches!(
            e,
            AuthError::Throttled {
                retry_after_secs: 1..=3
            }
        )
    };
    assert!(throttled(
        svc.authenticate(Some(wrong), attacker).unwrap_err()
    ));
    assert_eq!(
        svc.authenticate(None, attacker).unwrap_err(),
        AuthError::Missing
    );
    assert!(matches!(
        svc.authenticate(Some("qrapi_live_short"), attacker),
        Err(AuthError::Malformed(_))
    ));
    let unseen = "qrapi_live_11111111111111111111111111111111";
    assert!(svc.authenticate_cached(Some(unseen), attacker).is_none());
    assert!(throttled(
        svc.authenticate(Some(unseen), attacker).unwrap_err()
    ));
    assert!(throttled(
        svc.authenticate_cached(Some(unseen), attacker)
            .unwrap()
            .unwrap_err()
    ));
    // Valid keys from the same address are served: a known one, and one never seen before.
    assert!(
        svc.authenticate(Some(secret.expose_secret()), attacker)
            .is_ok()
    );
    assert!(
        svc.authenticate_cached(Some(secret.expose_secret()), attacker)
            .unwrap()
            .is_ok()
    );
    let (_, fresh) = svc.create_key(a.id, KeyMode::Live).unwrap();
    assert!(
        svc.authenticate_cached(Some(fresh.expose_secret()), attacker)
            .is_none()
    );
    assert!(
        svc.authenticate(Some(fresh.expose_secret()), attacker)
            .is_ok()
    );
    // Another address is not affected.
    assert_eq!(
        svc.authenticate(Some(wrong), neighbour).unwrap_err(),
        AuthError::Unknown
    );
    // Successes do not end the wait for failures; waiting lets one more attempt through.
    assert!(throttled(
        svc.authenticate(Some(wrong), attacker).unwrap_err()
    ));
    clock.advance(Duration::seconds(3));
    assert_eq!(
        svc.authenticate(Some(wrong), attacker).unwrap_err(),
        AuthError::Unknown
    );
}

/// An outside security run's sequence: one address (an office behind NAT) sends a few dozen
/// wrong keys, then another account's key is regenerated and its plan changed, then clients at
/// that address present valid keys, known to the server before or not, and retry them. Every
/// one is served; the address's further wrong keys get the wait.
pub fn service_valid_keys_pass_a_throttled_address_after_changes<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let office: Option<std::net::IpAddr> = Some("198.51.100.20".parse().unwrap());
    let mut clients = Vec::new();
    for i in 0..6 {
        let account = svc
            .create_account(&format!("client{i}@example.com"), Plan::Pro)
            .unwrap();
        clients.push(svc.create_key(account.id, KeyMode::Live).unwrap().1);
    }
    // Half of them were served before the failures began.
    for secret in &clients[..3] {
        svc.authenticate(Some(secret.expose_secret()), office)
            .unwrap();
    }
    let wrong = "qrapi_live_00000000000000000000000000000000";
    for _ in 0..3 * AUTH_FAILURE_BURST {
        assert!(svc.authenticate(Some(wrong), office).is_err());
    }
    let other = svc.create_account("other@example.com", Plan::Free).unwrap();
    let (other_key, _) = svc.create_key(other.id, KeyMode::Live).unwrap();
    svc.regenerate_key(other_key.id).unwrap();
    svc.set_plan(other.id, Plan::Starter).unwrap();
    for attempt in 0..3 {
        for (i, secret) in clients.iter().enumerate() {
            let served = svc.authenticate(Some(secret.expose_secret()), office);
            assert!(served.is_ok(), "client {i}, attempt {attempt}: {served:?}");
        }
    }
    assert!(matches!(
        svc.authenticate(Some(wrong), office),
        Err(AuthError::Throttled { .. })
    ));
}

/// A change of one account or key drops only its own cached entries: every other account's
/// keys stay in memory (answered without a lookup), on the service that made the changes and
/// on another sharing the store that only hears of them; the changed ones are read again.
pub fn service_key_cache_keeps_other_accounts_keys<S: Store>(store: S) {
    let store = Arc::new(store);
    let clock = TestClock::new(t("2024-05-01T10:00:00Z"));
    let here = Service::new(Arc::clone(&store), clock.clone(), Arc::new(NoGeoLocator)).unwrap();
    let elsewhere = Service::new(Arc::clone(&store), clock, Arc::new(NoGeoLocator)).unwrap();
    let mut kept = Vec::new();
    for i in 0..10 {
        let account = here
            .create_account(&format!("kept{i}@example.com"), Plan::Pro)
            .unwrap();
        for _ in 0..10 {
            kept.push(here.create_key(account.id, KeyMode::Live).unwrap().1);
        }
    }
    let changed = here
        .create_account("changed@example.com", Plan::Free)
        .unwrap();
    let (_, changed_a) = here.create_key(changed.id, KeyMode::Live).unwrap();
    let (_, changed_b) = here.create_key(changed.id, KeyMode::Live).unwrap();
    let other = here
        .create_account("other@example.com", Plan::Free)
        .unwrap();
    let (regenerated, old_secret) = here.create_key(other.id, KeyMode::Live).unwrap();
    let (revoked, revoked_secret) = here.create_key(other.id, KeyMode::Live).unwrap();
    until_changes_heard(&*store);
    let everyone: Vec<&ApiKeySecret> = kept
        .iter()
        .chain([&changed_a, &changed_b, &old_secret, &revoked_secret])
        .collect();
    for svc in [&here, &elsewhere] {
        for secret in &everyone {
            svc.authenticate(Some(secret.expose_secret()), None)
                .unwrap();
        }
    }

    let (_, new_secret) = here.regenerate_key(regenerated.id).unwrap();
    here.set_plan(changed.id, Plan::Pro).unwrap();
    here.delete_key(revoked.id).unwrap();
    let newcomer = here.create_account("new@example.com", Plan::Free).unwrap();
    here.create_key(newcomer.id, KeyMode::Live).unwrap();
    until_changes_heard(&*store);

    for (name, svc) in [("here", &here), ("elsewhere", &elsewhere)] {
        for (i, secret) in kept.iter().enumerate() {
            assert!(
                matches!(
                    svc.authenticate_cached(Some(secret.expose_secret()), None),
                    Some(Ok(_))
                ),
                "{name}: kept key {i} was dropped"
            );
        }
        for secret in [&changed_a, &changed_b, &old_secret, &revoked_secret] {
            assert!(
                svc.authenticate_cached(Some(secret.expose_secret()), None)
                    .is_none(),
                "{name}: a changed key is read again"
            );
        }
        for secret in [&changed_a, &changed_b] {
            let ctx = svc
                .authenticate(Some(secret.expose_secret()), None)
                .unwrap();
            assert_eq!(ctx.account.plan, Plan::Pro, "{name}");
        }
        for secret in [&old_secret, &revoked_secret] {
            assert_eq!(
                svc.authenticate(Some(secret.expose_secret()), None)
                    .unwrap_err(),
                AuthError::Unknown,
                "{name}"
            );
        }
        assert_eq!(
            svc.authenticate(Some(new_secret.expose_secret()), None)
                .unwrap()
                .key
                .id,
            regenerated.id
        );
    }
}

/// The operations of `GET /api/generate` and `POST /api/batch`, as the HTTP layer names them.
const GENERATE: Option<Operation> = Some(Operation::Generate);
const BATCH: Option<Operation> = Some(Operation::Batch);

/// Key restrictions and plan features (batch, logo) give 403s.
pub fn service_access_rules<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let (k, s) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    let req = AccessRequest {
        client_ip: Some("203.0.113.9".parse().unwrap()),
        origin: Some("https://app.example.com"),
        features: &[],
    };
    assert!(
        svc.authorize(&ctx, Endpoint::Generate, GENERATE, req)
            .is_ok()
    );
    assert!(svc.authorize(&ctx, Endpoint::Batch, BATCH, req).is_err());
    let logo = AccessRequest {
        features: &[Feature::Logo],
        ..req
    };
    assert_eq!(
        svc.authorize(&ctx, Endpoint::Generate, GENERATE, logo),
        Err(AccessError::FeatureNotInPlan(Feature::Logo))
    );
    let pro = svc.set_plan(a.id, Plan::Pro).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    assert_eq!(ctx.account, pro);
    assert!(
        svc.authorize(&ctx, Endpoint::Generate, GENERATE, logo)
            .is_ok()
    );
    let mut settings = KeySettings::default();
    settings
        .ip_allowlist
        .push(IpRule::parse("198.51.100.0/24").unwrap());
    svc.update_key_settings(k.id, settings).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    assert!(
        svc.authorize(&ctx, Endpoint::Generate, GENERATE, req)
            .is_err()
    );
}

/// The in-memory fast paths (redirect links, keys, settled rollups) answer like the store and
/// forget what this service changes.
pub fn service_caches_follow_changes<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-06-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let (key, secret) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let l = svc
        .create_link(&Caller::operator(a.id), "L", "https://example.com/one")
        .unwrap();
    let code = l.short_code.to_string();

    // Links: cached by a lookup, forgotten by an update or a deletion here.
    assert_eq!(svc.cached_link(None, &code), None);
    assert_eq!(
        svc.resolve(None, &code).unwrap(),
        Resolution::Live(l.clone())
    );
    assert_eq!(svc.cached_link(None, &code).map(|x| x.id), Some(l.id));
    assert_eq!(svc.cached_link(None, "not a code"), None);
    let update = LinkUpdate::parse(None, Some("https://example.com/two")).unwrap();
    svc.update_link(&Caller::operator(a.id), l.id, &update)
        .unwrap();
    assert_eq!(svc.cached_link(None, &code), None);
    let Resolution::Live(resolved) = svc.resolve(None, &code).unwrap() else {
        panic!("the link is live");
    };
    assert_eq!(resolved.target_url.as_str(), "https://example.com/two");
    assert_eq!(
        svc.cached_link(None, &code).map(|x| x.target_url),
        Some(resolved.target_url)
    );

    // Keys: unseen keys need the store; a local regeneration forgets the old secret.
    let presented = secret.expose_secret().to_owned();
    assert!(svc.authenticate_cached(Some(&presented), None).is_none());
    assert!(matches!(
        svc.authenticate_cached(Some("qrapi_bad"), None),
        Some(Err(AuthError::Malformed(_)))
    ));
    assert_eq!(
        svc.authenticate(Some(&presented), None).unwrap().key.id,
        key.id
    );
    assert_eq!(
        svc.authenticate_cached(Some(&presented), None)
            .map(|r| r.map(|c| c.key.id)),
        Some(Ok(key.id))
    );
    svc.regenerate_key(key.id).unwrap();
    assert!(svc.authenticate(Some(&presented), None).is_err());
    assert!(matches!(
        svc.authenticate_cached(Some(&presented), None),
        Some(Err(AuthError::Unknown))
    ));

    // Settled rollups: a repeated query answers the same, and new scans still count.
    for _ in 0..4 {
        svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
        clock.advance(Duration::days(1));
    }
    let id = l.id;
    let first = svc.analytics(&a, id, &query(None, None, None)).unwrap();
    assert_eq!(first.analytics.total_scans, 4);
    assert_eq!(
        svc.analytics(&a, id, &query(None, None, None)).unwrap(),
        first
    );
    svc.record_scan(&l, &visit("192.0.2.2", DESKTOP)).unwrap();
    clock.advance(Duration::days(1));
    svc.record_scan(&l, &visit("192.0.2.3", PHONE)).unwrap();
    let later = svc.analytics(&a, id, &query(None, None, None)).unwrap();
    assert_eq!(later.analytics.total_scans, 6);
    assert_eq!(
        later
            .analytics
            .scans_by_day
            .iter()
            .map(|d| d.scans)
            .collect::<Vec<_>>(),
        vec![1, 1, 1, 1, 1, 1]
    );

    svc.delete_link(&Caller::operator(a.id), id).unwrap();
    assert_eq!(svc.cached_link(None, &code), None);
    assert_eq!(svc.resolve(None, &code).unwrap(), Resolution::Gone);
}

/// A key's scopes are stored with it from its creation, survive regeneration and a reload, and
/// are checked before its other restrictions; changing its settings to no scopes gives it full
/// access again.
pub fn service_key_scopes<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let links_write = ScopeSet::new([Scope::LinksWrite, Scope::Generate]).unwrap();
    let (k, _) = svc
        .create_key_with_scopes(a.id, KeyMode::Live, Some(links_write.clone()))
        .unwrap();
    assert_eq!(k.settings.scopes.as_ref(), Some(&links_write));
    let (_, s) = svc.regenerate_key(k.id).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    assert_eq!(ctx.key.settings.scopes.as_ref(), Some(&links_write));
    let req = AccessRequest::default();
    for op in [
        Operation::ReadLinks,
        Operation::WriteLinks,
        Operation::Generate,
    ] {
        assert_eq!(svc.authorize(&ctx, Endpoint::Links, Some(op), req), Ok(()));
    }
    assert_eq!(
        svc.authorize(
            &ctx,
            Endpoint::Analytics,
            Some(Operation::ReadAnalytics),
            req
        ),
        Err(AccessError::OutOfScope(NotPermitted {
            operation: Operation::ReadAnalytics
        }))
    );
    assert_eq!(
        svc.authorize(&ctx, Endpoint::Export, Some(Operation::Export), req)
            .unwrap_err()
            .to_string(),
        "API key not authorized for this endpoint"
    );
    assert_eq!(svc.authorize(&ctx, Endpoint::Health, None, req), Ok(()));

    // The scope is checked first; a disabled endpoint still bars what the scopes reach.
    let mut settings = ctx.key.settings.clone();
    settings.disabled_endpoints.insert(Endpoint::Links);
    svc.update_key_settings(k.id, settings.clone()).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    assert_eq!(
        svc.authorize(&ctx, Endpoint::Links, Some(Operation::WriteLinks), req),
        Err(AccessError::EndpointDisabled(Endpoint::Links))
    );
    assert!(matches!(
        svc.authorize(&ctx, Endpoint::Webhooks, Some(Operation::ReadWebhooks), req),
        Err(AccessError::OutOfScope(_))
    ));

    // No scopes: full access, as every key made before scopes has.
    settings.scopes = None;
    settings.disabled_endpoints.clear();
    svc.update_key_settings(k.id, settings).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    assert_eq!(
        svc.authorize(&ctx, Endpoint::Export, Some(Operation::Export), req),
        Ok(())
    );
    let (full, _) = svc.create_key(a.id, KeyMode::Test).unwrap();
    assert_eq!(svc.key(full.id).unwrap().settings.scopes, None);
}
