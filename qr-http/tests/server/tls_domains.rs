//! Customers' domains behind Caddy's on-demand TLS, as `docs/deploy.md` sets it up: a verified domain gets a certificate on its first handshake and its codes redirect through Caddy; a name the service does not vouch for gets no certificate; and codes imported from each other service's export onto the domain, scanned from their rendered QR codes, redirect through Caddy.
//!
//! Three real programs on loopback ports: dnsmasq serving the customer's TXT record, the server
//! (whose domain checks ask dnsmasq), and Debian's Caddy with its internal CA, asking the
//! server's `/domains/tls-check` before issuing. The client resolves every name to 127.0.0.1
//! by connecting there itself and naming the domain in SNI and `Host`, as a phone that resolved
//! `go.brand.test` to the proxy would.

use crate::common::web::{Client, create_key, customer};
use crate::common::{Resp, TestServer, decode_png};

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::rt::TokioIo;
use qr_domain::Plan;
use qr_test_support::servers::caddy::CaddyServer;
use qr_test_support::servers::dnsmasq::{DnsZone, DnsmasqServer};
use serde_json::json;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{self, AlertDescription, ClientConfig, RootCertStore};

/// The suite's name in the skip line.
const SUITE: &str = "the customers' domains behind Caddy";
/// The import suite's name in the skip line.
const IMPORT_SUITE: &str = "imported codes scanned through Caddy";
/// The customer's domain, verified in the test.
const DOMAIN: &str = "go.brand.test";
/// Where the customer's link leads.
const TARGET: &str = "https://brand.example/spring-menu";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_domain_gets_a_certificate_from_caddy_and_an_unverified_name_none() {
    let Some(dns) = DnsmasqServer::start(SUITE, &DnsZone::new()) else {
        return;
    };
    let s = TestServer::start(|config| {
        config.domains.dns_server = Some(dns.address());
        // Caddy proxies from 127.0.0.1: its X-Forwarded-For is believed, as deploy.md sets up.
        config.trusted_proxies = vec!["127.0.0.1".to_owned()];
    })
    .await;
    let Some(caddy) = CaddyServer::start(SUITE, s.addr, "/domains/tls-check") else {
        s.stop().await;
        return;
    };
    let (_, _, key) = s.account(Plan::Pro);

    // The customer adds the domain, publishes the TXT record the answer names, and asks for a
    // check; a second domain is added but never verified.
    let added = post(&s, &key, "/api/domains", json!({ "domain": DOMAIN })).await;
    assert_eq!(added.status, 201, "{}", added.text());
    let added = added.json();
    let record = &added["verification"];
    let (name, value) = (
        record["name"].as_str().unwrap(),
        record["value"].as_str().unwrap(),
    );
    assert_eq!(name, format!("_qr-verify.{DOMAIN}"));
    dns.serve(&DnsZone::new().txt(name, &[value]));
    let id = added["id"].as_str().unwrap();
    let checked = post(&s, &key, &format!("/api/domains/check?id={id}"), json!({})).await;
    assert_eq!(checked.status, 200, "{}", checked.text());
    assert_eq!(checked.json()["status"], "verified", "{}", checked.text());
    let pending = post(
        &s,
        &key,
        "/api/domains",
        json!({ "domain": "wait.brand.test" }),
    )
    .await;
    assert_eq!(pending.status, 201, "{}", pending.text());

    let link = post(
        &s,
        &key,
        "/api/links",
        json!({ "name": "Spring menu", "targetUrl": TARGET, "domain": DOMAIN }),
    )
    .await;
    assert_eq!(link.status, 201, "{}", link.text());
    let code = link.json()["shortCode"].as_str().unwrap().to_owned();

    // The first handshake for the name has Caddy ask the server and issue the certificate.
    let tls = connector(&caddy.root_certificate_pem());
    for path in [format!("/{code}"), format!("/r/{code}")] {
        let stream = handshake(&tls, caddy.https_address(), DOMAIN)
            .await
            .unwrap_or_else(|e| panic!("Caddy refused {DOMAIN}: {e}; its log: {}", caddy.log()));
        let r = get(stream, DOMAIN, &path).await;
        assert_eq!(r.status, 302, "{path}: {}", r.text());
        assert_eq!(r.header("location"), Some(TARGET), "{path}");
    }

    for refused in ["nobody.test", "wait.brand.test"] {
        let e = handshake(&tls, caddy.https_address(), refused)
            .await
            .map(|_| ())
            .expect_err("no certificate for a name the service does not vouch for");
        // Caddy refuses the handshake itself (an alert), not our trust in what it sent.
        let alert = e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>());
        assert_eq!(
            alert,
            Some(&rustls::Error::AlertReceived(
                AlertDescription::InternalError
            )),
            "{refused}: {e}"
        );
    }
    drop(caddy);
    s.stop().await;
}

/// The five services' exports with their short URLs on [`DOMAIN`] (qr-import's `brand-*`
/// files): the form's service, the file, and how many links it holds.
const BRAND_EXPORTS: [(&str, &str, usize); 5] = [
    ("bitly", "brand-bitly.csv", 3),
    ("rebrandly", "brand-rebrandly.csv", 2),
    ("shlink", "brand-shlink.json", 2),
    ("yourls", "brand-yourls.json", 2),
    ("kutt", "brand-kutt.json", 2),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codes_imported_onto_a_verified_domain_scan_through_caddy() {
    let Some(dns) = DnsmasqServer::start(IMPORT_SUITE, &DnsZone::new()) else {
        return;
    };
    let (s, smtp) = crate::common::web::start(|config| {
        config.domains.dns_server = Some(dns.address());
        config.trusted_proxies = vec!["127.0.0.1".to_owned()];
        config.self_service_plans = vec![Plan::Free, Plan::Pro];
    })
    .await;
    let Some(caddy) = CaddyServer::start(IMPORT_SUITE, s.addr, "/domains/tls-check") else {
        s.stop().await;
        return;
    };

    // A customer on Pro with the domain verified against the DNS server.
    let mut c = customer(&s, &smtp, "mover@example.com").await;
    let csrf = c.csrf("/dashboard/links/import").await;
    let r = c
        .post(
            "/dashboard/account/plan",
            &[("csrf", &csrf), ("plan", "pro")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let (_, key) = create_key(&mut c, "import").await;
    let added = post(&s, &key, "/api/domains", json!({ "domain": DOMAIN })).await;
    assert_eq!(added.status, 201, "{}", added.text());
    let added = added.json();
    let record = &added["verification"];
    dns.serve(&DnsZone::new().txt(
        record["name"].as_str().unwrap(),
        &[record["value"].as_str().unwrap()],
    ));
    let id = added["id"].as_str().unwrap();
    let checked = post(&s, &key, &format!("/api/domains/check?id={id}"), json!({})).await;
    assert_eq!(checked.json()["status"], "verified", "{}", checked.text());

    // Each export uploaded on the Links page, each record keeping its own domain.
    for (from, file, links) in BRAND_EXPORTS {
        let (status, html) = upload(&mut c, &csrf, from, file).await;
        assert_eq!(status, 200, "{file}: {html}");
        assert!(
            html.contains(&format!(
                "{links} links created, 0 already here, 0 refused."
            )),
            "{file}: {html}"
        );
    }

    // Every link's code, rendered by the dashboard and decoded, scanned: on the domain through
    // Caddy (SNI and Host the domain), on the service's own address (the one bit.ly hash)
    // from the server itself.
    let listed = s.get("/api/links", &key).await.json();
    let links = listed["links"].as_array().unwrap();
    assert_eq!(links.len(), 11, "{listed}");
    let tls = connector(&caddy.root_certificate_pem());
    let mut on_domain = 0;
    for link in links {
        let (id, target) = (
            link["id"].as_str().unwrap(),
            link["targetUrl"].as_str().unwrap(),
        );
        let image = c.get(&format!("/dashboard/links/{id}/qr.png")).await;
        assert_eq!(image.status, 200, "{link}");
        let scanned = decode_png(&image.body);
        assert_eq!(scanned, link["shortUrl"].as_str().unwrap(), "{link}");
        let r = if let Some(path) = scanned.strip_prefix(&format!("https://{DOMAIN}")) {
            on_domain += 1;
            let stream = handshake(&tls, caddy.https_address(), DOMAIN)
                .await
                .unwrap_or_else(|e| {
                    panic!("Caddy refused {DOMAIN}: {e}; its log: {}", caddy.log())
                });
            get(stream, DOMAIN, path).await
        } else {
            assert_eq!(
                link["shortCode"], "4Hk2Lm9",
                "only bit.ly's hash is off the domain"
            );
            let path = &scanned[scanned.find("/r/").expect("a /r/ address")..];
            s.send("GET", path, &[], Vec::new()).await
        };
        assert_eq!(r.status, 302, "{scanned}: {}", r.text());
        assert_eq!(r.header("location"), Some(target), "{scanned}");
    }
    assert_eq!(on_domain, 10);
    drop(caddy);
    s.stop().await;
}

/// Uploads qr-import's `file` as `from`'s export on the dashboard's import form: the status
/// and the page.
async fn upload(c: &mut Client, csrf: &str, from: &str, file: &str) -> (u16, String) {
    let path = format!(
        "{}/../qr-import/testdata/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let r = c
        .post_multipart(
            "/dashboard/links/import",
            &[("csrf", csrf), ("from", from)],
            Some(("file", &bytes)),
        )
        .await;
    (r.status, r.text())
}

/// Sends `body` as JSON with `key`.
async fn post(s: &TestServer, key: &str, path: &str, body: serde_json::Value) -> Resp {
    s.send(
        "POST",
        path,
        &[("x-api-key", key), ("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

/// A TLS client trusting only Caddy's root (the ring provider, as qr-http's own clients).
fn connector(root_pem: &str) -> TlsConnector {
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(root_pem.as_bytes()).expect("Caddy's root is PEM"))
        .expect("Caddy's root is a CA certificate");
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS 1.2 and 1.3")
            .with_root_certificates(roots)
            .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

/// A TLS connection to `address` naming `name` in SNI (so `name` resolves to `address`).
async fn handshake(
    tls: &TlsConnector,
    address: SocketAddr,
    name: &str,
) -> std::io::Result<TlsStream<TcpStream>> {
    let tcp = TcpStream::connect(address).await?;
    let server_name = ServerName::try_from(name.to_owned()).expect("a DNS name");
    tls.connect(server_name, tcp).await
}

/// One HTTP/1.1 GET of `path` with `Host: host` over `stream`.
async fn get(stream: TlsStream<TcpStream>, host: &str, path: &str) -> Resp {
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let request = Request::builder()
        .uri(path)
        // No port: the browser's Host for https://go.brand.test/ on port 443.
        .header("host", host)
        .body(Empty::<Bytes>::new())
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    Resp {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body: body.collect().await.unwrap().to_bytes(),
    }
}
