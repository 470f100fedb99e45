//! Customers' domains behind Caddy's on-demand TLS, as `docs/deploy.md` sets it up: a verified domain gets a certificate on its first handshake and its codes redirect through Caddy; a name the service does not vouch for gets no certificate.
//!
//! Three real programs on loopback ports: dnsmasq serving the customer's TXT record, the server
//! (whose domain checks ask dnsmasq), and Debian's Caddy with its internal CA, asking the
//! server's `/domains/tls-check` before issuing. The client resolves every name to 127.0.0.1
//! by connecting there itself and naming the domain in SNI and `Host`, as a phone that resolved
//! `go.brand.test` to the proxy would.

use crate::common::{Resp, TestServer};

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
