//! The audit log over real HTTP: a key's link changes are recorded with the key as the actor, the client's network and no secret, and outlive the link; `GET /api/audit` answers every key 403.

use crate::common;

use common::TestServer;
use qr_domain::Plan;
use qr_domain::accounts::caller::Caller;
use qr_domain::audit::entry::{ActorKind, AuditAction, Change, ObjectKind};
use qr_domain::audit::query::AuditQuery;
use serde_json::json;

#[tokio::test]
async fn a_keys_link_changes_are_logged_with_the_key_as_actor() {
    let s = TestServer::start(|_| {}).await;
    let (account, key, secret) = s.account(Plan::Pro);
    let headers = [
        ("x-api-key", secret.as_str()),
        ("content-type", "application/json"),
    ];
    let created = s
        .send(
            "POST",
            "/api/links",
            &headers,
            json!({"name": "Flyer", "targetUrl": "https://example.com/", "password": "open-sesame-42"})
                .to_string(),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let updated = s
        .send(
            "PUT",
            &format!("/api/links?id={id}"),
            &headers,
            json!({"name": "Poster"}).to_string(),
        )
        .await;
    assert_eq!(updated.status, 200);
    let deleted = s
        .send("DELETE", &format!("/api/links?id={id}"), &headers, "")
        .await;
    assert_eq!(deleted.status, 204);

    let svc = s.handle.app().service();
    let page = svc
        .audit_log(&Caller::operator(account), &AuditQuery::default())
        .unwrap();
    let actions: Vec<AuditAction> = page.entries.iter().map(|e| e.entry.action).collect();
    assert_eq!(
        actions,
        [
            AuditAction::LinkDeleted,
            AuditAction::LinkUpdated,
            AuditAction::LinkCreated,
            AuditAction::KeyCreated
        ],
        "the entries outlive the link (the key itself was made by the operator)"
    );
    assert_eq!(page.entries[3].entry.actor.kind, ActorKind::Operator);
    for e in &page.entries[..3] {
        let entry = &e.entry;
        assert_eq!(entry.actor.kind, ActorKind::Key);
        assert_eq!(entry.actor.id, key.id.to_string());
        assert!(
            entry.actor.label.contains(&key.display_prefix),
            "{}",
            entry.actor.label
        );
        assert!(!entry.actor.label.contains(&secret));
        assert_eq!(entry.object.kind, ObjectKind::Link);
        assert_eq!(entry.object.id, id);
        assert_eq!(
            entry.network.as_ref().map(|n| n.as_str()),
            Some("127.0.0.0/24"),
            "the client's network, never its address"
        );
        assert!(!format!("{entry:?}").contains("open-sesame-42"));
    }
    let creation = &page.entries[2].entry.changes;
    assert!(creation.contains(&Change::hidden("password")));
    assert!(creation.contains(&Change::shown("name", None, Some("Flyer".into()))));
    assert_eq!(
        page.entries[1].entry.changes,
        [Change::shown(
            "name",
            Some("Flyer".into()),
            Some("Poster".into())
        )]
    );
}

#[tokio::test]
async fn no_key_reads_the_audit_log() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, secret) = s.account(Plan::Enterprise);
    for path in [
        "/api/audit",
        "/api/audit?limit=5&actor=key",
        "/api/audit?limit=0&since=yesterday",
    ] {
        s.get(path, &secret)
            .await
            .assert_error(403, "API key not authorized for this endpoint");
    }
    s.get("/api/audit", &s.owner_key)
        .await
        .assert_error(403, "API key not authorized for this endpoint");
    s.get("/api/audit", "qr_live_not-a-key")
        .await
        .assert_error(401, "Invalid API key");
    let r = s
        .send("POST", "/api/audit", &[("x-api-key", &secret)], "")
        .await;
    assert_eq!(r.status, 405);
}
