//! Contract checks of webhooks over a store: endpoints and their isolation, the outbox (fan-out, due order, leases and updates, pruning), scan events written with their batch, quota thresholds, and the service's delivery rules on top.

use crate::accounts::caller::Caller;
use crate::accounts::limits::UsageMonth;
use crate::accounts::plan::Plan;
use crate::clock::TestClock;
use crate::contract::{PHONE, key_for, link_for, scan, service, setup, t, visit};
use crate::error::StoreError;
use crate::scans::geo::NoGeoLocator;
use crate::scans::scan::{Device, ScanFate};
use crate::service::{Service, WebhookSettings};
use crate::store::Store;
use crate::webhooks::outbox::{DeliveryState, NewEvent};
use crate::webhooks::webhook::{
    EventId, EventKind, EventSet, Webhook, WebhookError, WebhookId, WebhookSecret, WebhookUrl,
};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;

fn hook(account: crate::ids::AccountId, events: &[&str], at: &str) -> Webhook {
    Webhook {
        id: WebhookId::random(),
        account_id: account,
        url: WebhookUrl::parse("https://hooks.example.com/in").expect("valid"),
        events: EventSet::parse(events.iter().copied()).expect("valid"),
        secret: WebhookSecret::generate().expect("rng"),
        created_at: t(at),
    }
}

fn event(kind: EventKind, at: &str) -> NewEvent {
    NewEvent {
        id: EventId::random(),
        kind,
        data: r#"{"n":1}"#.to_owned(),
        at: t(at),
    }
}

/// Webhooks are stored whole (secret included), listed oldest first per account and overall,
/// need an existing account, are deleted only by their account, and move the config version.
pub fn webhooks_roundtrip_and_isolation<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Pro);
    let later = hook(a.id, &["link.created"], "2024-02-01T00:00:00Z");
    let first = hook(
        a.id,
        &["scan.recorded", "usage.threshold"],
        "2024-01-01T00:00:00Z",
    );
    let other = hook(b.id, &["link.deleted"], "2024-01-15T00:00:00Z");
    let v0 = store.config_version().unwrap();
    store
        .write(|tx| {
            tx.insert_webhook(&later)?;
            tx.insert_webhook(&first)?;
            tx.insert_webhook(&other)
        })
        .unwrap();
    assert_ne!(
        store.config_version().unwrap(),
        v0,
        "adding webhooks moves the version"
    );
    assert_eq!(
        store.read(|tx| tx.webhooks_of(a.id)).unwrap(),
        vec![first.clone(), later.clone()]
    );
    assert_eq!(
        store.read(|tx| tx.webhooks()).unwrap(),
        vec![first.clone(), other.clone(), later.clone()]
    );
    let orphan = hook(
        crate::ids::AccountId::random(),
        &["link.created"],
        "2024-01-01T00:00:00Z",
    );
    assert!(matches!(
        store.write(|tx| tx.insert_webhook(&orphan)),
        Err(StoreError::Conflict(_))
    ));
    let v1 = store.config_version().unwrap();
    assert!(!store.write(|tx| tx.delete_webhook(b.id, first.id)).unwrap());
    assert!(store.write(|tx| tx.delete_webhook(a.id, first.id)).unwrap());
    assert!(!store.write(|tx| tx.delete_webhook(a.id, first.id)).unwrap());
    assert_ne!(
        store.config_version().unwrap(),
        v1,
        "deleting one moves it too"
    );
    assert_eq!(store.read(|tx| tx.webhooks_of(a.id)).unwrap(), vec![later]);
}

/// An event fans out to the account's webhooks that want its kind; due rows come oldest
/// first, due by their next attempt, within the limit; updates change the delivery fields;
/// lists are newest first; pruning removes only finished rows older than its cut.
pub fn outbox_fans_out_updates_and_prunes<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let links = hook(
        a.id,
        &["link.created", "link.updated"],
        "2024-01-01T00:00:00Z",
    );
    let all = hook(
        a.id,
        &["link.created", "scan.recorded", "link.deleted"],
        "2024-01-02T00:00:00Z",
    );
    let b_hook = hook(b.id, &["link.created"], "2024-01-01T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_webhook(&links)?;
            tx.insert_webhook(&all)?;
            tx.insert_webhook(&b_hook)
        })
        .unwrap();
    let e1 = event(EventKind::LinkCreated, "2024-05-01T10:00:00Z");
    let e2 = event(EventKind::LinkUpdated, "2024-05-01T10:00:01Z");
    let e3 = event(EventKind::LinkDeleted, "2024-05-01T10:00:02Z");
    let e4 = event(EventKind::UsageThreshold, "2024-05-01T10:00:03Z");
    let written = store
        .write(|tx| {
            Ok::<_, StoreError>([
                tx.enqueue_webhook_event(a.id, &e1)?,
                tx.enqueue_webhook_event(a.id, &e2)?,
                tx.enqueue_webhook_event(a.id, &e3)?,
                tx.enqueue_webhook_event(a.id, &e4)?,
            ])
        })
        .unwrap();
    assert_eq!(written, [2, 1, 1, 0], "only the webhooks wanting the kind");
    let now = t("2024-05-01T10:00:05Z");
    let due = store
        .read(|tx| tx.due_webhook_events(links.id, now, 10))
        .unwrap();
    assert_eq!(due.iter().map(|e| e.id).collect::<Vec<_>>(), [e1.id, e2.id]);
    assert!(due.iter().all(|e| e.state == DeliveryState::Pending
        && e.attempts == 0
        && e.account_id == a.id
        && e.data == r#"{"n":1}"#
        && e.next_attempt_at == e.created_at));
    assert_eq!(due[0].created_at, e1.at);
    let early = store
        .read(|tx| tx.due_webhook_events(links.id, t("2024-05-01T10:00:00.500Z"), 10))
        .unwrap();
    assert_eq!(early.len(), 1, "not due before it happened");
    assert_eq!(
        store
            .read(|tx| tx.due_webhook_events(all.id, now, 1))
            .unwrap()[0]
            .id,
        e1.id
    );
    let mut retried = due[0].clone();
    retried.attempts = 3;
    retried.next_attempt_at = t("2024-05-01T11:00:00Z");
    retried.last_error = Some("HTTP 500".into());
    let mut delivered = due[1].clone();
    delivered.attempts = 1;
    delivered.state = DeliveryState::Delivered;
    store
        .write(|tx| tx.update_webhook_events(&[retried.clone(), delivered.clone()]))
        .unwrap();
    assert!(
        store
            .read(|tx| tx.due_webhook_events(links.id, now, 10))
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store
            .read(|tx| tx.due_webhook_events(links.id, t("2024-05-01T11:00:00Z"), 10))
            .unwrap(),
        vec![retried.clone()]
    );
    let listed = store.read(|tx| tx.webhook_events_of(a.id, 10)).unwrap();
    assert_eq!(listed.len(), 4);
    assert_eq!(listed[0].id, e3.id, "newest first");
    assert!(listed.contains(&delivered) && listed.contains(&retried));
    assert!(
        store
            .read(|tx| tx.webhook_events_of(b.id, 10))
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store
            .read(|tx| tx.webhook_events_of(a.id, 2))
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        store
            .write(|tx| tx.prune_webhook_events(t("2024-06-01T00:00:00Z")))
            .unwrap(),
        1,
        "only the delivered row; pending rows stay however old"
    );
    assert_eq!(
        store
            .read(|tx| tx.webhook_events_of(a.id, 10))
            .unwrap()
            .len(),
        3
    );
    assert!(store.write(|tx| tx.delete_webhook(a.id, all.id)).unwrap());
    assert_eq!(
        store.read(|tx| tx.webhook_events_of(a.id, 10)).unwrap(),
        vec![retried],
        "a deleted webhook's events go with it"
    );
}

/// Scans of subscribed accounts write one `scan.recorded` event per stored scan and webhook in
/// their batch; scans of other accounts, of deleted links and plain batches write none.
pub fn scans_write_events_for_subscribed_accounts<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let (la, lb) = (
        link_for(a.id, "2024-01-01T00:00:00Z"),
        link_for(b.id, "2024-01-01T00:00:00Z"),
    );
    let scans_hook = hook(a.id, &["scan.recorded"], "2024-01-01T00:00:00Z");
    let links_hook = hook(a.id, &["link.created"], "2024-01-01T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_link(&la)?;
            tx.insert_link(&lb)?;
            tx.insert_webhook(&scans_hook)?;
            tx.insert_webhook(&links_hook)
        })
        .unwrap();
    let hit = |link, at| scan(link, at, 1, "DE", Device::Mobile, "Chrome");
    store
        .record_scans(&[hit(la.id, "2024-05-01T10:00:00Z")])
        .unwrap();
    let subscribed: HashSet<_> = [a.id].into();
    let ids = store
        .record_scans_with_events(
            &[
                hit(la.id, "2024-05-01T10:00:01Z"),
                hit(lb.id, "2024-05-01T10:00:02Z"),
                hit(crate::ids::LinkId::random(), "2024-05-01T10:00:03Z"),
                hit(la.id, "2024-05-01T10:00:04Z"),
            ],
            &subscribed,
        )
        .unwrap();
    assert!(
        ids[0].id().is_some()
            && ids[1].id().is_some()
            && ids[2] == ScanFate::LinkGone
            && ids[3].id().is_some()
    );
    let due = store
        .read(|tx| tx.due_webhook_events(scans_hook.id, t("2024-05-02T00:00:00Z"), 10))
        .unwrap();
    assert_eq!(
        due.len(),
        2,
        "the two stored scans of the subscribed account"
    );
    for (row, id) in due.iter().zip([ids[0], ids[3]]) {
        assert_eq!(row.kind, EventKind::ScanRecorded);
        let data: Value = serde_json::from_str(&row.data).unwrap();
        assert_eq!(data["scanId"], id.id().unwrap().to_string());
        assert_eq!(data["linkId"], la.id.to_string());
        assert_eq!(
            (data["country"].as_str(), data["device"].as_str()),
            (Some("DE"), Some("mobile"))
        );
    }
    assert_eq!(due[0].created_at, t("2024-05-01T10:00:01Z"));
    assert!(
        store
            .read(|tx| tx.due_webhook_events(links_hook.id, t("2024-05-02T00:00:00Z"), 10))
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store
            .read(|tx| tx.link(a.id, la.id))
            .unwrap()
            .unwrap()
            .scan_count,
        3
    );
}

/// A quota threshold is recorded once per account, month and percentage; deleting the account
/// removes its webhooks, events and thresholds.
pub fn thresholds_once_and_account_deletion<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let may = UsageMonth::of(t("2024-05-10T00:00:00Z"));
    let june = UsageMonth::of(t("2024-06-10T00:00:00Z"));
    let claim = |m, p| {
        store
            .write(|tx| tx.claim_usage_threshold(a.id, m, p))
            .unwrap()
    };
    assert!(claim(may, 80));
    assert!(!claim(may, 80));
    assert!(claim(may, 100));
    assert!(claim(june, 80));
    let h = hook(a.id, &["usage.threshold"], "2024-01-01T00:00:00Z");
    store.write(|tx| tx.insert_webhook(&h)).unwrap();
    store
        .write(|tx| {
            tx.enqueue_webhook_event(
                a.id,
                &event(EventKind::UsageThreshold, "2024-05-10T00:00:00Z"),
            )
        })
        .unwrap();
    assert!(store.write(|tx| tx.delete_account(a.id)).unwrap());
    assert!(store.read(|tx| tx.webhooks()).unwrap().is_empty());
    assert!(
        store
            .read(|tx| tx.webhook_events_of(a.id, 10))
            .unwrap()
            .is_empty()
    );
    let back = crate::contract::account(Plan::Free);
    let back = crate::accounts::account::Account { id: a.id, ..back };
    store.write(|tx| tx.insert_account(&back)).unwrap();
    assert!(
        store
            .write(|tx| tx.claim_usage_threshold(a.id, may, 80))
            .unwrap(),
        "the deleted account's thresholds went with it"
    );
}

/// The service's rules: registration checks and limits, link events in the change's
/// transaction, scan events through the writer in batches, claims with leases, retries with
/// backoff, giving up after 3 days, and quota thresholds from the flush.
pub fn service_webhook_events_and_delivery<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let b = svc.create_account("b@example.com", Plan::Free).unwrap();
    assert!(matches!(
        svc.create_webhook(
            &Caller::operator(a.id),
            "ftp://x.example/",
            &["link.created"],
            None
        ),
        Err(WebhookError::InvalidUrl(_))
    ));
    assert!(matches!(
        svc.create_webhook(&Caller::operator(a.id), "https://x.example/", &[], None),
        Err(WebhookError::InvalidEvents(_))
    ));
    assert!(matches!(
        svc.create_webhook(
            &Caller::operator(a.id),
            "https://x.example/",
            &["link.created"],
            Some("short")
        ),
        Err(WebhookError::InvalidSecret)
    ));
    let h = svc
        .create_webhook(
            &Caller::operator(a.id),
            "https://hooks.example.com/a",
            &[
                "link.created",
                "link.updated",
                "link.deleted",
                "scan.recorded",
            ],
            Some("a-secret-of-twenty-chars"),
        )
        .unwrap();
    assert_eq!(h.secret.expose(), "a-secret-of-twenty-chars");
    for i in 1..crate::webhooks::webhook::MAX_WEBHOOKS_PER_ACCOUNT {
        svc.create_webhook(
            &Caller::operator(b.id),
            &format!("https://h.example/{i}"),
            &["link.created"],
            None,
        )
        .unwrap();
    }
    let last = svc
        .create_webhook(
            &Caller::operator(b.id),
            "https://h.example/last",
            &["link.created"],
            None,
        )
        .unwrap();
    assert!(matches!(
        svc.create_webhook(
            &Caller::operator(b.id),
            "https://h.example/more",
            &["link.created"],
            None
        ),
        Err(WebhookError::LimitReached(10))
    ));
    assert_eq!(
        svc.delete_webhook(&Caller::operator(a.id), last.id),
        Err(WebhookError::NotFound)
    );
    svc.delete_webhook(&Caller::operator(b.id), last.id)
        .unwrap();
    assert_eq!(svc.webhooks(b.id).unwrap().len(), 9);

    let link = svc
        .create_link(&Caller::operator(a.id), "Flyer", "https://example.com/")
        .unwrap();
    svc.update_link(
        &Caller::operator(a.id),
        link.id,
        &crate::links::link::LinkUpdate::parse(Some("Poster"), None).unwrap(),
    )
    .unwrap();
    for i in 0..3 {
        svc.record_scan(&link, &visit(&format!("198.51.100.{i}"), PHONE))
            .unwrap();
    }
    let claimed = svc.claim_webhook_deliveries(100).unwrap();
    let kinds: Vec<&str> = claimed.iter().map(|d| d.events[0].kind.as_str()).collect();
    assert_eq!(kinds, ["link.created", "link.updated", "scan.recorded"]);
    let batch: Value = serde_json::from_str(&claimed[2].body).unwrap();
    assert_eq!(batch["data"]["scans"].as_array().unwrap().len(), 3);
    let created: Value = serde_json::from_str(&claimed[0].body).unwrap();
    assert_eq!(
        created["data"]["link"]["shortCode"],
        link.short_code.as_str()
    );
    assert_eq!(created["id"], claimed[0].events[0].id.to_string());
    assert!(
        claimed[0]
            .signature(1_714_557_600)
            .starts_with("t=1714557600,v1=")
    );
    assert!(
        svc.claim_webhook_deliveries(100).unwrap().is_empty(),
        "claimed rows are leased"
    );
    svc.finish_webhook_delivery(&claimed[0], Ok(())).unwrap();
    svc.finish_webhook_delivery(&claimed[1], Err("HTTP 500".into()))
        .unwrap();
    svc.finish_webhook_delivery(&claimed[2], Ok(())).unwrap();
    // The lease runs out after 60 s; the failed one is due after at most 30 s of backoff.
    clock.advance(chrono::Duration::seconds(31));
    let retry = svc.claim_webhook_deliveries(100).unwrap();
    assert_eq!(retry.len(), 1);
    assert_eq!(retry[0].events[0].attempts, 1);
    assert_eq!(
        retry[0].body, claimed[1].body,
        "a retry sends the same body"
    );
    svc.delete_link(&Caller::operator(a.id), link.id).unwrap();
    clock.advance(chrono::Duration::days(3));
    svc.finish_webhook_delivery(&retry[0], Err("timed out".into()))
        .unwrap();
    let listed = svc.webhook_deliveries(a.id, 10).unwrap();
    let updated = listed
        .iter()
        .find(|e| e.kind == EventKind::LinkUpdated)
        .unwrap();
    assert_eq!(
        updated.state,
        DeliveryState::Failed,
        "given up after 3 days"
    );
    assert_eq!(
        (updated.attempts, updated.last_error.as_deref()),
        (2, Some("timed out"))
    );
    let deleted = svc.claim_webhook_deliveries(100).unwrap();
    assert_eq!(deleted.len(), 1);
    let body: Value = serde_json::from_str(&deleted[0].body).unwrap();
    assert_eq!(
        (body["type"].as_str(), body["data"]["link"]["name"].as_str()),
        (Some("link.deleted"), Some("Poster"))
    );
    assert!(
        svc.webhook_deliveries(b.id, 10).unwrap().is_empty(),
        "b's links made no events"
    );
}

/// Quota events: 80 % and 100 % of the month's quota, once each per month (also across a
/// restart), written by the flush for accounts with a `usage.threshold` webhook only.
pub fn service_usage_thresholds<S: Store>(store: S) {
    let store = Arc::new(store);
    let mut a = crate::contract::account(Plan::Enterprise);
    a.overrides.monthly_requests = Some(20);
    let mut quiet = crate::contract::account(Plan::Enterprise);
    quiet.overrides.monthly_requests = Some(20);
    let (ka, sa) = key_for(a.id);
    let (kq, sq) = key_for(quiet.id);
    store
        .write(|tx| {
            tx.insert_account(&a)?;
            tx.insert_account(&quiet)?;
            tx.insert_key(&ka)?;
            tx.insert_key(&kq)
        })
        .unwrap();
    let clock = TestClock::new(t("2024-05-01T10:00:00Z"));
    let start = || {
        Service::new(Arc::clone(&store), clock.clone(), Arc::new(NoGeoLocator))
            .unwrap()
            .with_webhook_settings(WebhookSettings::default())
    };
    let svc = start();
    svc.create_webhook(
        &Caller::operator(a.id),
        "https://h.example/q",
        &["usage.threshold"],
        None,
    )
    .unwrap();
    let percents = |svc: &Service<S, TestClock>| -> Vec<u64> {
        svc.webhook_deliveries(a.id, 10)
            .unwrap()
            .iter()
            .map(|e| {
                serde_json::from_str::<Value>(&e.data).unwrap()["percent"]
                    .as_u64()
                    .unwrap()
            })
            .collect()
    };
    let admit =
        |svc: &Service<S, TestClock>, secret: &crate::accounts::key::ApiKeySecret, n: usize| {
            let ctx = svc
                .authenticate(Some(secret.expose_secret()), None)
                .unwrap();
            for _ in 0..n {
                svc.admit(&ctx, false).unwrap();
            }
            svc.flush().unwrap();
        };
    admit(&svc, &sa, 15);
    admit(&svc, &sq, 19);
    assert!(percents(&svc).is_empty(), "15 of 20 is below 80 %");
    admit(&svc, &sa, 1);
    assert_eq!(percents(&svc), [80]);
    admit(&svc, &sa, 1);
    assert_eq!(percents(&svc), [80], "once per month");
    drop(svc);
    let svc = start();
    admit(&svc, &sa, 1);
    assert_eq!(
        percents(&svc),
        [80],
        "another server knows it from the store"
    );
    admit(&svc, &sa, 2);
    assert_eq!(percents(&svc), [100, 80]);
    let data: Value =
        serde_json::from_str(&svc.webhook_deliveries(a.id, 1).unwrap()[0].data).unwrap();
    assert_eq!(
        (
            data["month"].as_str(),
            data["used"].as_u64(),
            data["limit"].as_u64()
        ),
        (Some("2024-05"), Some(20), Some(20))
    );
    assert!(svc.webhook_deliveries(quiet.id, 10).unwrap().is_empty());
}
