//! Three servers as one service on one PostgreSQL database and one Redis (started by the test): shared rate limits and an exact monthly count, key and link changes reaching every server, a capped link redirecting exactly its cap, and the behaviour while PostgreSQL is down.

use crate::common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{Resp, at, send};
use qr_domain::chrono::Duration as Span;
use qr_domain::{AccountId, Clock as _, KeyId, KeyMode, Plan, TestClock};
use qr_http::{ServerConfig, ServerHandle};
use qr_store::Location;
use qr_test_support::servers::postgres::{Durability, PgCluster};
use qr_test_support::servers::redis::RedisServer;
use serde_json::json;
use tokio::net::TcpListener;

const SUITE: &str = "the multi-server suite (PostgreSQL and Redis)";

async fn boot(url: &str, redis: Option<String>, clock: &TestClock) -> ServerHandle {
    let config = ServerConfig {
        database: Location::Postgres(url.to_owned()),
        redis,
        ..ServerConfig::default()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    qr_http::start_with(config, listener, Arc::new(clock.clone()))
        .await
        .unwrap()
}

/// A new account with one live key, made through `server`'s service on a blocking thread
/// (PostgreSQL's client must not run on an async worker).
async fn new_account(server: &ServerHandle, plan: Plan) -> (AccountId, KeyId, String) {
    let svc = Arc::clone(server.app().service());
    tokio::task::spawn_blocking(move || {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let account = svc
            .create_account(&format!("user{n}@example.com"), plan)
            .unwrap();
        let (key, secret) = svc.create_key(account.id, KeyMode::Live).unwrap();
        (account.id, key.id, secret.expose_secret().to_owned())
    })
    .await
    .unwrap()
}

async fn get(addr: SocketAddr, path: &str, key: &str) -> Resp {
    send(addr, "GET", path, &[("x-api-key", key)], Bytes::new()).await
}

const GENERATE: &str = "/api/generate?data=hello&size=100";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_servers_share_limits_counts_and_changes() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let Some(redis) = RedisServer::start(SUITE) else {
        return;
    };
    let url = cluster.create_database();
    let clock = TestClock::new(at("2024-05-15T12:00:00Z"));
    let mut servers = Vec::new();
    for _ in 0..3 {
        servers.push(boot(&url, Some(redis.url()), &clock).await);
    }
    let addrs: Vec<SocketAddr> = servers.iter().map(ServerHandle::local_addr).collect();
    assert_eq!(
        servers.iter().filter(|s| s.initial_key().is_some()).count(),
        1,
        "one owner key for the one service"
    );

    // A Free key (2 requests per second, a burst of 2) hammered through all three servers
    // for 10 s: 30 requests every 100 ms.
    let (free, _, key) = new_account(&servers[0], Plan::Free).await;
    let mut accepted = 0u64;
    for _ in 0..100 {
        for i in 0..30 {
            let r = get(addrs[i % 3], GENERATE, &key).await;
            match r.status {
                200 => accepted += 1,
                429 => assert_eq!(r.header("retry-after"), Some("1")),
                other => panic!("unexpected {other}: {}", r.text()),
            }
        }
        clock.advance(Span::milliseconds(100));
    }
    eprintln!("a Free key through three servers for 10 s: {accepted} of 3000 requests accepted");
    assert!(
        (20..=22).contains(&accepted),
        "2 per second plus the burst over 10 s, across three servers: {accepted}"
    );
    clock.advance(Span::seconds(1));
    let usage = get(addrs[2], "/api/dashboard?action=usage", &key).await;
    assert_eq!(usage.json()["usage"]["current"], json!(accepted + 1));

    // A key revoked through one server is refused by the others within 100 ms.
    let svc = Arc::clone(servers[0].app().service());
    let (_, _, doomed) = new_account(&servers[0], Plan::Pro).await;
    for addr in &addrs {
        assert_eq!(get(*addr, "/api/health", &doomed).await.status, 200);
    }
    let owner_of = {
        let svc = Arc::clone(&svc);
        let doomed = doomed.clone();
        tokio::task::spawn_blocking(move || svc.authenticate(Some(&doomed), None).unwrap().key.id)
            .await
            .unwrap()
    };
    let started = Instant::now();
    {
        let svc = Arc::clone(&svc);
        tokio::task::spawn_blocking(move || svc.delete_key(owner_of).unwrap())
            .await
            .unwrap();
    }
    for addr in &addrs[1..] {
        while get(*addr, "/api/health", &doomed).await.status != 401 {
            assert!(
                started.elapsed() < Duration::from_millis(100),
                "still accepted"
            );
        }
    }
    get(addrs[0], "/api/health", &doomed)
        .await
        .assert_error(401, "Invalid API key");

    // A link changed through one server redirects there at once and everywhere within 1 s.
    let (_, _, pro) = new_account(&servers[0], Plan::Pro).await;
    let body = json!({"name": "Poster", "targetUrl": "https://example.com/one"}).to_string();
    let created = send(
        addrs[0],
        "POST",
        "/api/links",
        &[("x-api-key", &pro), ("content-type", "application/json")],
        Bytes::from(body),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let link = created.json();
    let code = link["shortCode"].as_str().unwrap().to_owned();
    let id = link["id"].as_str().unwrap().to_owned();
    for addr in &addrs {
        let r = send(*addr, "GET", &format!("/r/{code}"), &[], Bytes::new()).await;
        assert_eq!(r.header("location"), Some("https://example.com/one"));
    }
    let body = json!({"targetUrl": "https://example.com/two"}).to_string();
    let updated = send(
        addrs[1],
        "PUT",
        &format!("/api/links?id={id}"),
        &[("x-api-key", &pro), ("content-type", "application/json")],
        Bytes::from(body),
    )
    .await;
    assert_eq!(updated.status, 200);
    let started = Instant::now();
    for addr in &addrs {
        loop {
            let r = send(*addr, "GET", &format!("/r/{code}"), &[], Bytes::new()).await;
            if r.header("location") == Some("https://example.com/two") {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_millis(1_500),
                "stale link"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    // Every server saves its counts on the way out: the database holds exactly what was
    // accepted, whichever server accepted it.
    let svc = Arc::clone(servers[0].app().service());
    for server in servers {
        server.shutdown().await.unwrap();
    }
    let month = qr_domain::accounts::limits::UsageMonth::of(clock.now());
    let saved = tokio::task::spawn_blocking(move || {
        use qr_domain::Store as _;
        drop(svc);
        let store = qr_store::Database::open(&Location::Postgres(url)).unwrap();
        store.read(|tx| tx.usage(month)).unwrap()
    })
    .await
    .unwrap();
    let count = saved.iter().find(|(a, _)| *a == free).map(|(_, n)| *n);
    assert_eq!(
        count,
        Some(accepted + 1),
        "accepted generates plus the usage call"
    );
}

async fn post_link(addr: SocketAddr, key: &str, name: &str) -> Resp {
    let body = json!({"name": name, "targetUrl": "https://example.com/kept"}).to_string();
    send(
        addr,
        "POST",
        "/api/links",
        &[("x-api-key", key), ("content-type", "application/json")],
        Bytes::from(body),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_postgres_is_down_writes_get_503_and_known_links_still_redirect() {
    let Some(cluster) = PgCluster::start(SUITE, Durability::Throwaway) else {
        return;
    };
    let url = cluster.create_database();
    let clock = TestClock::new(at("2024-05-15T12:00:00Z"));
    let server = boot(&url, None, &clock).await;
    let addr = server.local_addr();
    let (_, _, key) = new_account(&server, Plan::Pro).await;
    let created = post_link(addr, &key, "Before").await;
    assert_eq!(created.status, 201);
    let code = created.json()["shortCode"].as_str().unwrap().to_owned();
    let redirect = |code: String| async move {
        send(addr, "GET", &format!("/r/{code}"), &[], Bytes::new()).await
    };
    assert_eq!(redirect(code.clone()).await.status, 302);

    cluster.stop();
    // Past the redirect cache's second: the link is known, so it still redirects.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let r = redirect(code.clone()).await;
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some("https://example.com/kept"));
    // A code this server never read needs the database.
    assert_eq!(redirect("ABCDEFGH".to_owned()).await.status, 503);
    // Keyed requests need to know the key is still valid: 503 once the listener noticed.
    let started = Instant::now();
    let refused = loop {
        let r = get(addr, GENERATE, &key).await;
        if r.status == 503 {
            break r;
        }
        assert_eq!(r.status, 200);
        assert!(started.elapsed() < Duration::from_secs(5), "never noticed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    refused.assert_error(
        503,
        "Storage unavailable (database unreachable): the request was not stored; retry later",
    );
    assert_eq!(refused.header("retry-after"), Some("2"));
    assert_eq!(post_link(addr, &key, "During").await.status, 503);

    cluster.start_server();
    let started = Instant::now();
    while get(addr, GENERATE, &key).await.status != 200 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never recovered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(post_link(addr, &key, "After").await.status, 201);
    let listed = get(addr, "/api/links", &key).await.json();
    assert_eq!(listed["links"].as_array().unwrap().len(), 2, "{listed}");
    server.shutdown().await.unwrap();
}

/// A "first 40 scanners" link visited by 8 clients at once through 3 servers, every visit a new
/// visitor: exactly 40 visits reach the target and 40 scans are recorded; every other visitor
/// is sent to the link's `expiredUrl`, including those whose server let them through its gate
/// from a copy of the link that had not seen the other servers' scans.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capped_link_redirects_exactly_its_cap_through_three_servers() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let url = cluster.create_database();
    let clock = TestClock::new(at("2026-03-10T12:00:00Z"));
    let mut servers = Vec::new();
    for _ in 0..3 {
        servers.push(boot(&url, None, &clock).await);
    }
    let (_, _, key) = new_account(&servers[0], Plan::Pro).await;
    let body = json!({
        "name": "Coupon",
        "targetUrl": "https://example.com/coupon",
        "maxScans": 40,
        "expiredUrl": "https://example.com/gone",
    })
    .to_string();
    let created = send(
        servers[0].local_addr(),
        "POST",
        "/api/links",
        &[("x-api-key", &key), ("content-type", "application/json")],
        Bytes::from(body),
    )
    .await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    let link: serde_json::Value = serde_json::from_slice(&created.body).unwrap();
    let code = link["shortCode"].as_str().unwrap().to_owned();
    let addrs: Vec<SocketAddr> = servers.iter().map(ServerHandle::local_addr).collect();
    let clients: Vec<_> = (0..8)
        .map(|client| {
            let (addrs, code) = (addrs.clone(), code.clone());
            tokio::spawn(async move {
                let mut locations = Vec::new();
                for visit in 0..12 {
                    let n = client * 12 + visit;
                    // Each visit its own visitor (the visitor id hashes the User-Agent).
                    let agent = format!(
                        "Mozilla/5.0 (Linux; Android 14; Pixel {n}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
                    );
                    let r = send(
                        addrs[n % addrs.len()],
                        "GET",
                        &format!("/r/{code}"),
                        &[("user-agent", &agent)],
                        Bytes::new(),
                    )
                    .await;
                    assert_eq!(r.status, 302);
                    locations.push(r.header("location").unwrap().to_owned());
                }
                locations
            })
        })
        .collect();
    let mut locations = Vec::new();
    for c in clients {
        locations.extend(c.await.unwrap());
    }
    let to_target = locations
        .iter()
        .filter(|l| *l == "https://example.com/coupon")
        .count();
    let to_expired = locations
        .iter()
        .filter(|l| *l == "https://example.com/gone")
        .count();
    assert_eq!((to_target, to_expired), (40, 96 - 40));
    let read = get(
        addrs[2],
        &format!("/api/links?id={}", link["id"].as_str().unwrap()),
        &key,
    )
    .await;
    let read: serde_json::Value = serde_json::from_slice(&read.body).unwrap();
    assert_eq!(read["scanCount"], 40);
}
