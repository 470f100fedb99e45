//! The dashboard on PostgreSQL with two servers sharing the database: sign-up on one, verification, login and keys on the other, sessions, key regeneration and a disabled account reaching both.

use crate::common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::web::{Client, PASSWORD, create_key, element_text, follow, log_in, mail, sign_up};
use common::{Resp, at, send};
use qr_domain::chrono::Duration as Span;
use qr_domain::service::Actor;
use qr_domain::{AccountStatus, Email, TestClock};
use qr_http::{ServerConfig, ServerHandle};
use qr_store::Location;
use qr_test_support::SmtpServer;
use qr_test_support::servers::postgres::PgCluster;
use tokio::net::TcpListener;

const SUITE: &str = "the dashboard on PostgreSQL";

async fn boot(url: &str, smtp: &SmtpServer, clock: &TestClock) -> ServerHandle {
    let config = ServerConfig {
        database: Location::Postgres(url.to_owned()),
        smtp_url: Some(smtp.url()),
        ..ServerConfig::default()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    qr_http::start_with(config, listener, Arc::new(clock.clone()))
        .await
        .unwrap()
}

async fn api(addr: SocketAddr, key: &str) -> Resp {
    send(
        addr,
        "GET",
        "/api/generate?data=hello",
        &[("x-api-key", key)],
        Bytes::new(),
    )
    .await
}

/// Polls `addr` with `key` until it answers `status`, for at most 1 s (the other server hears
/// of a change through `NOTIFY`).
async fn until_status(addr: SocketAddr, key: &str, status: u16) {
    let started = Instant::now();
    loop {
        let r = api(addr, key).await;
        if r.status == status {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "still {} instead of {status}: {}",
            r.status,
            r.text()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_works_the_same_on_postgres_across_two_servers() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let url = cluster.create_database();
    let smtp = SmtpServer::start();
    let clock = TestClock::new(at("2024-05-15T12:00:00Z"));
    let (a, b) = (
        boot(&url, &smtp, &clock).await,
        boot(&url, &smtp, &clock).await,
    );
    let (on_a, on_b) = (a.local_addr(), b.local_addr());

    // Sign-up and verification on A, login on B: the token and the account are in the database.
    let mut at_a = Client::new(on_a);
    assert_eq!(
        sign_up(&mut at_a, "pia@example.com", "free").await.status,
        200
    );
    let link = mail(&smtp, "pia@example.com", "Verify")
        .link_containing("/dashboard/verify")
        .unwrap();
    let mut at_b = Client::new(on_b);
    let r = follow(&mut at_b, &link, "/dashboard/verify").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("Address verified"));
    let r = follow(&mut at_a, &link, "/dashboard/verify").await;
    assert_eq!(r.status, 400, "the token was used up on the other server");
    assert!(r.text().contains("This link does not work"));
    assert_eq!(
        log_in(&mut at_b, "pia@example.com", PASSWORD).await.status,
        303
    );

    // The session cookie of B is good on A: sessions live in the database, not in a server.
    let mut also_a = at_b.on(on_a);
    assert_eq!(also_a.get("/dashboard/keys").await.status, 200);
    let sessions = also_a.get("/dashboard/account").await.text();
    assert!(sessions.contains("Log out everywhere"), "{sessions}");

    // A key made on B works on A; regenerated on A, the old one fails on B.
    let (id, secret) = create_key(&mut at_b, "Server").await;
    assert_eq!(api(on_a, &secret).await.status, 200);
    clock.advance(Span::seconds(1));
    assert_eq!(api(on_b, &secret).await.status, 200);
    let csrf = also_a.csrf("/dashboard/keys").await;
    let r = also_a
        .post(
            &format!("/dashboard/keys/{id}/regenerate"),
            &[("csrf", &csrf)],
        )
        .await;
    let new_secret = element_text(&r.text(), "new-api-key").unwrap();
    clock.advance(Span::seconds(1));
    until_status(on_b, &secret, 401).await;
    clock.advance(Span::seconds(1));
    assert_eq!(api(on_b, &new_secret).await.status, 200);

    // The operator disables the account through A: B refuses its key and its session.
    let svc = Arc::clone(a.app().service());
    tokio::task::spawn_blocking(move || {
        let account = svc
            .account_by_email(&Email::parse("pia@example.com").unwrap())
            .unwrap()
            .unwrap();
        svc.set_status(Actor::Operator, account.id, AccountStatus::Disabled)
            .unwrap();
    })
    .await
    .unwrap();
    clock.advance(Span::seconds(1));
    until_status(on_b, &new_secret, 401).await;
    assert_eq!(
        at_b.get("/dashboard").await.header("location"),
        Some("/dashboard/login")
    );
    let r = log_in(&mut at_a, "pia@example.com", PASSWORD).await;
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(r.text().contains("disabled"), "{}", r.text());

    a.shutdown().await.unwrap();
    b.shutdown().await.unwrap();
}
