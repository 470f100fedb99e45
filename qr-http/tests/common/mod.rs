//! Shared helpers of the integration tests: a real server on an ephemeral port with a temporary database, and a small HTTP client.
#![allow(dead_code)]

pub mod web;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{HeaderMap, Request};
use hyper_util::rt::TokioIo;
use qr_domain::chrono::Duration;
use qr_domain::chrono::{DateTime, Utc};
use qr_domain::scans::scan::{Device, NewScan};
use qr_domain::{AccountId, ApiKey, KeyMode, LinkId, Plan, ScanId, Store, TestClock};
use qr_http::{ServerConfig, ServerHandle};
use qr_sqlite::SqliteStore;
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};

/// A running test server.
pub struct TestServer {
    pub handle: ServerHandle,
    pub addr: SocketAddr,
    pub clock: TestClock,
    pub owner_key: String,
    pub db: PathBuf,
    _dir: tempfile::TempDir,
}

/// A response read in full.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// The GeoIP City test database of the shared test data.
pub fn geoip_db() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/testdata/geoip/GeoIP2-City-Test.mmdb")
}

pub fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

impl TestServer {
    /// Starts a server with the defaults, adjusted by `configure`.
    pub async fn start(configure: impl FnOnce(&mut ServerConfig)) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        Self::start_on(listener, configure).await
    }

    /// Starts a server whose base URL is `http://localhost:<port>` (on the loopback): browsers
    /// offer passkeys only to a domain name, never to an IP address.
    pub async fn start_at_localhost(configure: impl FnOnce(&mut ServerConfig)) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        Self::start_on(listener, move |c| {
            c.base_url = Some(format!("http://localhost:{port}"));
            configure(c);
        })
        .await
    }

    async fn start_on(listener: TcpListener, configure: impl FnOnce(&mut ServerConfig)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("qr.db");
        let mut config = ServerConfig {
            database: db.clone().into(),
            ..ServerConfig::default()
        };
        // No DNS question leaves the machine: the discard port answers nothing, quickly refused
        // (tests of domains start a DNS server of their own on the loopback).
        config.domains.dns_server = Some(SocketAddr::from(([127, 0, 0, 1], 9)));
        config.domains.dns_timeout = Some(std::time::Duration::from_millis(300));
        configure(&mut config);
        let clock = TestClock::new(at("2024-05-15T12:00:00Z"));
        let handle = qr_http::start_with(config, listener, Arc::new(clock.clone()))
            .await
            .unwrap();
        let owner_key = handle
            .initial_key()
            .expect("a new database gets an owner key")
            .expose_secret()
            .to_owned();
        Self {
            addr: handle.local_addr(),
            handle,
            clock,
            owner_key,
            db,
            _dir: dir,
        }
    }

    /// A new account on `plan` with one live key: (account, key record, secret).
    pub fn account(&self, plan: Plan) -> (AccountId, ApiKey, String) {
        let svc = self.handle.app().service();
        let n = uuid_like();
        let account = svc
            .create_account(&format!("user{n}@example.com"), plan)
            .unwrap();
        let (key, secret) = svc.create_key(account.id, KeyMode::Live).unwrap();
        (account.id, key, secret.expose_secret().to_owned())
    }

    pub async fn get(&self, path: &str, key: &str) -> Resp {
        send(self.addr, "GET", path, &[("x-api-key", key)], Bytes::new()).await
    }

    pub async fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: impl Into<Bytes>,
    ) -> Resp {
        send(self.addr, method, path, headers, body.into()).await
    }

    pub async fn stop(self) {
        self.handle.shutdown().await.unwrap();
    }
}

fn uuid_like() -> u128 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    u128::from(N.fetch_add(1, Ordering::Relaxed)) << 64
        | u128::from(std::process::id())
        | (std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
            & 0xffff_ffff)
            << 32
}

/// One HTTP/1.1 request on a new connection.
pub async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Bytes,
) -> Resp {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut request = Request::builder().method(method).uri(path);
    // The server's address is the host unless the test names another (a customer's domain).
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        request = request.header("host", addr.to_string());
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = sender
        .send_request(request.body(Full::new(body)).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    Resp {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body: body.collect().await.unwrap().to_bytes(),
    }
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Asserts the spec's error body with this status and message.
    #[track_caller]
    pub fn assert_error(&self, status: u16, message: &str) {
        assert_eq!(self.status, status, "{:?}", self.text());
        assert_eq!(self.header("content-type"), Some("application/json"));
        let v = self.json();
        assert_eq!(v["error"], Value::Bool(true), "{v}");
        assert_eq!(v["message"], Value::String(message.to_owned()), "{v}");
    }
}

/// Stores `n` scans of `link` directly (as the CLI would, on the server's file), spread one
/// millisecond apart from `first`, with a few sharing an instant; returns their ids.
pub fn seed_scans(s: &TestServer, link: LinkId, first: DateTime<Utc>, n: usize) -> Vec<ScanId> {
    let store = SqliteStore::open(&s.db).unwrap();
    let mut ids = Vec::with_capacity(n);
    let scans: Vec<NewScan> = (0..n)
        .map(|i| NewScan {
            link_id: link,
            // Every fifth scan shares the instant of the one before it.
            at: first + Duration::milliseconds((i - usize::from(i % 5 == 4)) as i64),
            visitor: [(i % 251) as u8; 16],
            country: "DE".into(),
            city: if i % 2 == 0 {
                "Berlin".into()
            } else {
                "Köln, Altstadt".into()
            },
            device: Device::Mobile,
            browser: "Safari".into(),
            os: "iOS".into(),
            referrer: (i % 3 == 0).then(|| "https://news.example/a".into()),
            variant: (i % 7 == 0).then_some(1),
            rule: None,
            max_scans: None,
        })
        .collect();
    for batch in scans.chunks(5_000) {
        ids.extend(
            store
                .record_scans(batch)
                .unwrap()
                .into_iter()
                .map(|fate| fate.id().unwrap()),
        );
    }
    ids
}

/// A query string from pairs, percent-encoded.
pub fn query(pairs: &[(&str, &str)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

/// The files of a ZIP archive in order: (name, bytes).
pub fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    (0..zip.len())
        .map(|i| {
            let mut file = zip.by_index(i).unwrap();
            let mut data = Vec::new();
            file.read_to_end(&mut data).unwrap();
            (file.name().unwrap().into_owned(), data)
        })
        .collect()
}

/// Decodes the single QR code in a PNG image to its text.
pub fn decode_png(bytes: &[u8]) -> String {
    qr_test_support::decode_single(&qr_test_support::png_luma(bytes))
}

/// A small opaque PNG to use as a logo.
pub fn logo_png() -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, 32, 32);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        let pixels: Vec<u8> = (0..32 * 32).flat_map(|_| [200u8, 30, 30, 255]).collect();
        writer.write_image_data(&pixels).unwrap();
    }
    out
}
