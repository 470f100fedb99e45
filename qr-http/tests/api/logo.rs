//! Logos fetched from a local HTTP server (with the private-hosts flag), and the SSRF refusals without it.

use crate::common;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use common::{TestServer, decode_png, logo_png, query};
use http_body_util::Full;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// A loopback HTTP server with a logo, redirects, and bad answers; counts logo downloads.
async fn logo_server() -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let counter = Arc::clone(&counter);
            tokio::spawn(async move {
                let service = service_fn(move |req: Request<hyper::body::Incoming>| {
                    let counter = Arc::clone(&counter);
                    async move {
                        let (status, location, body): (u16, Option<&str>, Vec<u8>) =
                            match req.uri().path() {
                                "/logo.png" => {
                                    counter.fetch_add(1, Ordering::SeqCst);
                                    (200, None, logo_png())
                                }
                                "/hop1" => (302, Some("/hop2"), Vec::new()),
                                "/hop2" => (301, Some("/logo.png?v=2"), Vec::new()),
                                "/loop" => (302, Some("/loop"), Vec::new()),
                                "/text" => (200, None, b"hello, not an image".to_vec()),
                                "/big" => (200, None, vec![0x89; 2 * 1024 * 1024]),
                                _ => (404, None, Vec::new()),
                            };
                        let mut response = Response::builder().status(status);
                        if let Some(location) = location {
                            response = response.header("location", location);
                        }
                        Ok::<_, Infallible>(response.body(Full::new(Bytes::from(body))).unwrap())
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (addr, hits)
}

fn generate(logo: &str) -> String {
    format!(
        "/api/generate?{}",
        query(&[
            ("data", "https://example.com/with-logo"),
            ("size", "400"),
            ("logo", logo)
        ])
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logos_from_a_local_server_when_allowed() {
    let (logo_addr, hits) = logo_server().await;
    let s = TestServer::start(|c| c.allow_private_logo_hosts = true).await;
    let key = s.owner_key.clone();
    let url = format!("http://{logo_addr}/logo.png");
    let r = s.get(&generate(&url), &key).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("image/png"));
    assert_eq!(decode_png(&r.body), "https://example.com/with-logo");
    // The second use comes from the cache.
    assert_eq!(s.get(&generate(&url), &key).await.status, 200);
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    // Two redirects are followed.
    let r = s
        .get(&generate(&format!("http://{logo_addr}/hop1")), &key)
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(hits.load(Ordering::SeqCst), 2);

    let base = format!("http://{logo_addr}");
    for (path, message) in [
        (
            "/loop",
            "Logo could not be fetched: more than 3 redirects".to_owned(),
        ),
        ("/text", "Logo must be a PNG or JPEG image".to_owned()),
        (
            "/big",
            "Logo too large: at most 1048576 bytes allowed".to_owned(),
        ),
        (
            "/missing",
            "Logo could not be fetched: the server answered HTTP 404".to_owned(),
        ),
    ] {
        s.get(&generate(&format!("{base}{path}")), &key)
            .await
            .assert_error(400, &message);
    }
    let svg = s
        .get(
            &format!(
                "/api/generate?{}",
                query(&[("data", "x"), ("format", "svg"), ("logo", &url)])
            ),
            &key,
        )
        .await;
    assert_eq!(svg.status, 200);
    assert!(svg.text().contains("data:image/png;base64,"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_and_odd_logo_urls_are_refused_before_connecting() {
    let (logo_addr, hits) = logo_server().await;
    let s = TestServer::start(|_| {}).await;
    let key = s.owner_key.clone();
    for (url, host) in [
        (format!("http://{logo_addr}/logo.png"), "127.0.0.1"),
        ("http://127.0.0.1/logo.png".to_owned(), "127.0.0.1"),
        ("http://localhost/logo.png".to_owned(), "localhost"),
        ("http://10.0.0.1/logo.png".to_owned(), "10.0.0.1"),
        (
            "http://169.254.169.254/latest/meta-data".to_owned(),
            "169.254.169.254",
        ),
        ("http://[::1]/logo.png".to_owned(), "[::1]"),
        (
            "https://[::ffff:10.0.0.1]/logo.png".to_owned(),
            "[::ffff:10.0.0.1]",
        ),
        ("http://0x7f000001/logo.png".to_owned(), "127.0.0.1"),
    ] {
        s.get(&generate(&url), &key).await.assert_error(
            400,
            &format!("Logo host not allowed: {host} is not a public address"),
        );
    }
    s.get(&generate("ftp://example.com/logo.png"), &key)
        .await
        .assert_error(400, "Invalid logo URL: only http and https are allowed");
    s.get(&generate("file:///etc/passwd"), &key)
        .await
        .assert_error(400, "Invalid logo URL: only http and https are allowed");
    s.get(&generate("not a url"), &key)
        .await
        .assert_error(400, "Invalid logo URL");
    assert_eq!(hits.load(Ordering::SeqCst), 0);
    s.stop().await;
}
