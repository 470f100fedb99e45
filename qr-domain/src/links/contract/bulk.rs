//! Contract checks of bulk link creation: the stored idempotency records (per account, replaced, pruned, deleted with the account) and the service's bulk rules on top (per-index failures, plans, link limits, idempotent retries).

use crate::accounts::caller::Caller;
use crate::accounts::plan::Plan;
use crate::contract::{service, setup, t};
use crate::error::StoreError;
use crate::links::bulk::{BulkError, BulkRequest, IdempotencyKey, IdempotencyRecord, ItemError};
use crate::links::campaign::FieldError;
use crate::links::link::{LinkError, LinkUpdate, RuleInput};
use crate::service::BulkCaller;
use crate::store::Store;
use chrono::Duration;

/// A bulk item as the checks write it: its name (none: refused as an adapter refuses an item
/// without one), its target, and its campaign fields set through the typed API.
#[derive(Clone)]
struct Item {
    name: Option<String>,
    target: String,
    set: fn(&mut LinkUpdate) -> Result<(), FieldError>,
}

fn plain(_: &mut LinkUpdate) -> Result<(), FieldError> {
    Ok(())
}

fn item(
    name: Option<&str>,
    target: &str,
    set: fn(&mut LinkUpdate) -> Result<(), FieldError>,
) -> Item {
    Item {
        name: name.map(str::to_owned),
        target: target.to_owned(),
        set,
    }
}

fn record(account: crate::ids::AccountId, key: &str, at: &str, answer: &str) -> IdempotencyRecord {
    IdempotencyRecord {
        account_id: account,
        key: IdempotencyKey::parse(key).expect("valid key"),
        fingerprint: [7; 32],
        answer: answer.to_owned(),
        created_at: t(at),
        expires_at: t(at) + Duration::hours(24),
    }
}

/// The request of `items`, read as an adapter reads them; the fingerprint covers names and
/// targets, which is what the checks vary.
fn request(items: &[Item]) -> BulkRequest {
    let read = items
        .iter()
        .map(|i| match &i.name {
            None => Err(ItemError::Unread {
                message: "name field required".to_owned(),
            }),
            Some(name) => LinkUpdate::parse(Some(name), Some(&i.target))
                .and_then(|mut u| (i.set)(&mut u).map(|()| u).map_err(LinkError::from))
                .map_err(ItemError::from),
        })
        .collect();
    let sent: Vec<_> = items.iter().map(|i| (&i.name, &i.target)).collect();
    BulkRequest {
        items: read,
        data: items.iter().map(|i| i.target.clone()).collect(),
        fingerprint: BulkRequest::fingerprint_of(format!("{sent:?}").as_bytes()),
    }
}

fn links(n: usize, prefix: &str) -> Vec<Item> {
    (0..n)
        .map(|i| Item {
            name: Some(format!("{prefix} {i}")),
            target: format!("https://example.com/{prefix}/{i}"),
            set: plain,
        })
        .collect()
}

/// A record is found by its account and key hash only, read back whole, replaced by a later
/// put, pruned once expired, deleted with its account, and refused for a missing account.
pub fn idempotency_records_roundtrip_and_prune<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let b = setup(&store, Plan::Pro);
    let first = record(a.id, "retry-1", "2024-03-01T10:00:00Z", r#"{"created":[]}"#);
    store
        .write(|tx| tx.put_idempotency_record(&first))
        .expect("put");
    let found = store
        .read(|tx| tx.idempotency_record(a.id, &first.key))
        .expect("read");
    assert_eq!(found.as_ref(), Some(&first));
    let other_key = IdempotencyKey::parse("retry-2").expect("valid");
    assert_eq!(
        store
            .read(|tx| tx.idempotency_record(a.id, &other_key))
            .expect("read"),
        None
    );
    // Keys are per account: b's same key is another record.
    assert_eq!(
        store
            .read(|tx| tx.idempotency_record(b.id, &first.key))
            .expect("read"),
        None
    );
    let replaced = record(
        a.id,
        "retry-1",
        "2024-03-03T10:00:00Z",
        r#"{"created":[1]}"#,
    );
    store
        .write(|tx| tx.put_idempotency_record(&replaced))
        .expect("replace");
    assert_eq!(
        store
            .read(|tx| tx.idempotency_record(a.id, &first.key))
            .expect("read"),
        Some(replaced.clone())
    );
    let of_b = record(b.id, "retry-9", "2024-03-01T10:00:00Z", "{}");
    store
        .write(|tx| tx.put_idempotency_record(&of_b))
        .expect("put b");
    // At b's expiry instant b's record goes, a's later one stays.
    let pruned = store
        .write(|tx| tx.prune_idempotency_records(of_b.expires_at))
        .expect("prune");
    assert_eq!(pruned, 1);
    assert!(
        store
            .read(|tx| tx.idempotency_record(b.id, &of_b.key))
            .expect("read")
            .is_none()
    );
    assert!(
        store
            .write(|tx| tx.delete_account(a.id))
            .expect("delete account")
    );
    assert!(
        store
            .read(|tx| tx.idempotency_record(a.id, &first.key))
            .expect("read")
            .is_none()
    );
    let orphan = record(a.id, "retry-3", "2024-03-01T10:00:00Z", "{}");
    let refused = store.write(|tx| tx.put_idempotency_record(&orphan));
    assert!(
        matches!(refused, Err(StoreError::Conflict(_))),
        "{refused:?}"
    );
}

/// Every valid item is created and every other one reported at its index with its
/// `targetUrl` as data: a malformed item, a field above the plan, a custom code that another
/// item of the same request took, and items past the link limit.
pub fn service_bulk_creates_valid_items_and_reports_the_rest<S: Store>(store: S) {
    let a = setup(&store, Plan::Starter);
    let (svc, _clock) = service(store, "2024-03-01T10:00:00Z");
    let body = [
        item(Some("One"), "https://example.com/1", |u| {
            u.set_tags(&["print"])
        }),
        item(Some("Two"), "ftp://example.com/2", plain),
        item(Some("Three"), "https://example.com/3", |u| {
            u.set_rules(&[RuleInput {
                os: Some("ios"),
                target_url: "https://apps.example/",
                ..RuleInput::default()
            }])
        }),
        item(Some("Four"), "https://example.com/4", |u| {
            u.set_short_code("Spring-Sale")
        }),
        item(Some("Five"), "https://example.com/5", |u| {
            u.set_short_code("spring-sale")
        }),
        item(None, "https://example.com/6", plain),
    ];
    let outcome = svc
        .create_links_bulk(
            &Caller::operator(a.id),
            request(&body),
            None,
            BulkCaller::Operator,
        )
        .expect("bulk");
    let names: Vec<(usize, &str)> = outcome
        .created
        .iter()
        .map(|(i, l)| (*i, l.name.as_str()))
        .collect();
    assert_eq!(names, [(0, "One"), (3, "Four")]);
    assert_eq!(outcome.created[1].1.short_code.as_str(), "Spring-Sale");
    assert_eq!(outcome.created[0].1.tags.len(), 1);
    let failed: Vec<(usize, &str)> = outcome
        .failures
        .iter()
        .map(|f| (f.index, f.data.as_str()))
        .collect();
    assert_eq!(
        failed,
        [
            (1, "ftp://example.com/2"),
            (2, "https://example.com/3"),
            (4, "https://example.com/5"),
            (5, "https://example.com/6"),
        ]
    );
    assert_eq!(
        outcome.failures[1].error.to_string(),
        "rules requires Pro plan"
    );
    assert!(
        outcome.failures[2]
            .error
            .to_string()
            .contains("already taken")
    );
    assert_eq!(outcome.failures[3].error.to_string(), "name field required");
    assert!(!outcome.replayed);
    assert_eq!(svc.count_links(a.id).expect("count"), 2);
    // Starter holds 50 links: of 50 more, the last 2 fail with the limit, in order.
    let outcome = svc
        .create_links_bulk(
            &Caller::operator(a.id),
            request(&links(50, "more")),
            None,
            BulkCaller::Operator,
        )
        .expect("bulk");
    assert_eq!(outcome.created.len(), 48);
    let limited: Vec<usize> = outcome.failures.iter().map(|f| f.index).collect();
    assert_eq!(limited, [48, 49]);
    assert!(
        outcome.failures[0]
            .error
            .to_string()
            .contains("link limit reached")
    );
    assert_eq!(svc.count_links(a.id).expect("count"), 50);
}

/// Through an API key, the plan decides: no bulk below Pro (naming Pro), at most the plan's
/// size, and an empty list is refused.
pub fn service_bulk_follows_the_plans<S: Store>(store: S) {
    let free = setup(&store, Plan::Free);
    let pro = setup(&store, Plan::Pro);
    let (svc, _clock) = service(store, "2024-03-01T10:00:00Z");
    let refused = svc.create_links_bulk(
        &Caller::operator(free.id),
        request(&links(1, "f")),
        None,
        BulkCaller::Api,
    );
    assert!(
        matches!(refused, Err(BulkError::PlanRequired(Plan::Pro))),
        "{refused:?}"
    );
    let refused = svc.create_links_bulk(
        &Caller::operator(pro.id),
        request(&links(101, "p")),
        None,
        BulkCaller::Api,
    );
    assert!(
        matches!(refused, Err(BulkError::TooMany(100))),
        "{refused:?}"
    );
    let refused = svc.create_links_bulk(
        &Caller::operator(pro.id),
        request(&links(0, "p")),
        None,
        BulkCaller::Api,
    );
    assert!(
        matches!(refused, Err(BulkError::LinksRequired)),
        "{refused:?}"
    );
    assert_eq!(svc.count_links(pro.id).expect("count"), 0);
    let done = svc
        .create_links_bulk(
            &Caller::operator(pro.id),
            request(&links(100, "p")),
            None,
            BulkCaller::Api,
        )
        .expect("100 on Pro");
    assert_eq!(done.created.len(), 100);
}

/// A retry with the same key creates nothing and answers the same links and failures; the
/// same key with another body is refused; another account's same key is its own; after 24
/// hours the key is free again.
pub fn service_bulk_is_idempotent<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let b = setup(&store, Plan::Pro);
    let (svc, clock) = service(store, "2024-03-01T10:00:00Z");
    let key = || Some(IdempotencyKey::parse("import-42").expect("valid"));
    let mut body = links(3, "x");
    body[1].target = "not a url".to_owned();
    let first = svc
        .create_links_bulk(
            &Caller::operator(a.id),
            request(&body),
            key(),
            BulkCaller::Api,
        )
        .expect("first");
    assert_eq!((first.created.len(), first.failures.len()), (2, 1));
    clock.advance(Duration::minutes(5));
    let again = svc
        .create_links_bulk(
            &Caller::operator(a.id),
            request(&body),
            key(),
            BulkCaller::Api,
        )
        .expect("retry");
    assert!(again.replayed);
    assert_eq!(again.created, first.created);
    assert_eq!(again.failures, first.failures);
    assert_eq!(svc.count_links(a.id).expect("count"), 2);
    let other = svc.create_links_bulk(
        &Caller::operator(a.id),
        request(&links(3, "y")),
        key(),
        BulkCaller::Api,
    );
    assert!(matches!(other, Err(BulkError::KeyReused)), "{other:?}");
    let theirs = svc
        .create_links_bulk(
            &Caller::operator(b.id),
            request(&body),
            key(),
            BulkCaller::Api,
        )
        .expect("b's own key");
    assert!(!theirs.replayed);
    assert_eq!(svc.count_links(b.id).expect("count"), 2);
    // A link deleted since is left out of the replay.
    svc.delete_link(&Caller::operator(a.id), first.created[0].1.id)
        .expect("delete");
    let replay = svc
        .create_links_bulk(
            &Caller::operator(a.id),
            request(&body),
            key(),
            BulkCaller::Api,
        )
        .expect("retry");
    assert_eq!(replay.created, first.created[1..]);
    clock.advance(Duration::hours(24));
    let later = svc
        .create_links_bulk(
            &Caller::operator(a.id),
            request(&body),
            key(),
            BulkCaller::Api,
        )
        .expect("expired key");
    assert!(!later.replayed);
    assert_eq!(svc.count_links(a.id).expect("count"), 3);
}
