//! Customers' domains through real requests: the API (add, plan counts, names, check against a real DNS server on the loopback, settings, orphan visits, removal), links on a domain, requests routed by their Host (codes at the root and under /r/, root and not-found addresses, app files, the API kept off the domain), and the TLS check.

use qr_domain::Plan;
use qr_test_support::servers::dnsmasq::{DnsZone, DnsmasqServer, SILENT_DOMAIN};
use serde_json::{Value, json};

use crate::common::TestServer;

/// Starts dnsmasq with `zone` and a server asking it, or `None` (printed) without dnsmasq.
async fn server_with_dns(zone: &DnsZone) -> Option<(DnsmasqServer, TestServer)> {
    let dns = DnsmasqServer::start("qr-http domains", zone)?;
    let address = dns.address();
    let server = TestServer::start(|c| {
        c.base_url = Some("http://qr.example".to_owned());
        c.domains.dns_server = Some(address);
        c.domains.dns_timeout = Some(std::time::Duration::from_millis(400));
    })
    .await;
    Some((dns, server))
}

async fn post_json(s: &TestServer, path: &str, key: &str, body: &Value) -> crate::common::Resp {
    s.send(
        "POST",
        path,
        &[("x-api-key", key), ("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

async fn on_domain(s: &TestServer, host: &str, method: &str, path: &str) -> crate::common::Resp {
    s.send(method, path, &[("host", host), ("user-agent", PHONE)], "")
        .await
}

const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

#[tokio::test]
async fn domains_are_added_verified_by_dns_and_serve_their_links() {
    let zone = DnsZone::new().a("qr.example", "192.0.2.10".parse().unwrap());
    let Some((dns, s)) = server_with_dns(&zone).await else {
        return;
    };
    let (_, _, free) = s.account(Plan::Free);
    let (_, _, key) = s.account(Plan::Pro);
    let (_, _, other) = s.account(Plan::Pro);

    // Plans and names.
    post_json(
        &s,
        "/api/domains",
        &free,
        &json!({"domain": "go.free.test"}),
    )
    .await
    .assert_error(403, "Custom domains require Starter plan");
    for (name, why) in [
        ("https://go.brand.test", "give the host name alone"),
        ("127.0.0.1", "an IP address is not a domain name"),
        (
            "go.qr.example",
            "the service's own host and its subdomains cannot be added",
        ),
        ("localhost", "at least two labels"),
    ] {
        let r = post_json(&s, "/api/domains", &key, &json!({"domain": name})).await;
        assert_eq!(r.status, 400, "{name}: {}", r.text());
        let message = r.json()["message"].as_str().unwrap().to_owned();
        assert!(
            message.starts_with("Invalid domain: ") && message.contains(why),
            "{message}"
        );
    }
    post_json(
        &s,
        "/api/domains",
        &key,
        &json!({"domain": "go.brand.test", "x": 1}),
    )
    .await
    .assert_error(400, "Unknown field x: expected domain");
    let added = post_json(
        &s,
        "/api/domains",
        &key,
        &json!({"domain": "Go.Brand.TEST"}),
    )
    .await;
    assert_eq!(added.status, 201, "{}", added.text());
    let domain = added.json();
    assert_eq!(domain["domain"], "go.brand.test");
    assert_eq!(domain["status"], "pending");
    assert_eq!(domain["acceptsLinks"], false);
    assert_eq!(domain["verification"]["type"], "TXT");
    assert_eq!(domain["verification"]["name"], "_qr-verify.go.brand.test");
    let value = domain["verification"]["value"].as_str().unwrap().to_owned();
    assert!(value.starts_with("qr-verify="));
    let id = domain["id"].as_str().unwrap().to_owned();
    post_json(
        &s,
        "/api/domains",
        &other,
        &json!({"domain": "go.brand.test"}),
    )
    .await
    .assert_error(409, "Domain go.brand.test is already registered");
    let unicode = post_json(&s, "/api/domains", &key, &json!({"domain": "bücher.test"})).await;
    assert_eq!(unicode.status, 201);
    assert_eq!(unicode.json()["domain"], "xn--bcher-kva.test");
    assert_eq!(unicode.json()["unicode"], "bücher.test");
    let list = s.get("/api/domains", &key).await.json();
    assert_eq!(list["domains"].as_array().unwrap().len(), 2);
    s.get(&format!("/api/domains?id={id}"), &other)
        .await
        .assert_error(404, "Domain not found");
    s.get("/api/domains?id=nonsense", &key)
        .await
        .assert_error(404, "Domain not found");

    // Not verified yet: no links on it; the check says why.
    let link_body = |code: &str| json!({"name": "Flyer", "targetUrl": "https://brand.test/summer", "shortCode": code, "domain": "go.brand.test"});
    let r = post_json(&s, "/api/links", &key, &link_body("SUMMER")).await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid domain: the domain is not verified yet")
    );
    let checked = post_json(&s, &format!("/api/domains/check?id={id}"), &key, &json!({})).await;
    assert_eq!(checked.status, 200, "{}", checked.text());
    let checked = checked.json();
    assert_eq!(checked["status"], "pending");
    assert_eq!(checked["lastCheck"]["result"], "nxDomain");
    assert!(
        checked["reason"]
            .as_str()
            .unwrap()
            .contains("_qr-verify.go.brand.test")
    );

    // The record, then verified; where the domain points is reported.
    dns.serve(
        &DnsZone::new()
            .a("qr.example", "192.0.2.10".parse().unwrap())
            .txt("_qr-verify.go.brand.test", &[&value])
            .cname("go.brand.test", "qr.example"),
    );
    let checked = post_json(&s, &format!("/api/domains/check?id={id}"), &key, &json!({}))
        .await
        .json();
    assert_eq!(checked["status"], "verified", "{checked}");
    assert_eq!(checked["acceptsLinks"], true);
    assert_eq!(checked["reason"], Value::Null);
    assert_eq!(checked["routing"]["state"], "pointsAtService", "{checked}");
    post_json(
        &s,
        &format!("/api/domains/check?id={id}"),
        &other,
        &json!({}),
    )
    .await
    .assert_error(404, "Domain not found");

    // The same code on the domain and on the service's address.
    let created = post_json(&s, "/api/links", &key, &link_body("SUMMER")).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let link = created.json();
    assert_eq!(link["domain"], "go.brand.test");
    assert_eq!(link["shortUrl"], "https://go.brand.test/SUMMER");
    let base = post_json(
        &s,
        "/api/links",
        &key,
        &json!({"name": "Base", "targetUrl": "https://example.com/base", "shortCode": "SUMMER"}),
    )
    .await;
    assert_eq!(base.status, 201, "{}", base.text());
    assert_eq!(base.json()["domain"], Value::Null);
    assert_eq!(base.json()["shortUrl"], "http://qr.example/r/SUMMER");
    post_json(&s, "/api/links", &key, &link_body("summer"))
        .await
        .assert_error(409, "shortCode summer is already taken; choose another");
    let r = post_json(&s, "/api/links", &other, &link_body("OTHER")).await;
    assert_eq!(r.status, 400);

    // Requests by host.
    for path in ["/SUMMER", "/summer", "/r/SUMMER"] {
        let r = on_domain(&s, "go.brand.test", "GET", path).await;
        assert_eq!(r.status, 302, "{path}: {}", r.text());
        assert_eq!(r.header("location"), Some("https://brand.test/summer"));
    }
    let r = on_domain(&s, "GO.brand.test:443", "GET", "/SUMMER").await;
    assert_eq!(r.header("location"), Some("https://brand.test/summer"));
    let r = s.send("GET", "/r/SUMMER", &[], "").await;
    assert_eq!(r.header("location"), Some("https://example.com/base"));
    assert_eq!(
        on_domain(&s, "nobody.test", "GET", "/SUMMER").await.status,
        404
    );
    let r = on_domain(&s, "xn--bcher-kva.test", "GET", "/SUMMER").await;
    assert_eq!(r.status, 404, "a pending domain serves nothing");
    assert_eq!(
        on_domain(&s, "go.brand.test", "GET", "/api/links")
            .await
            .status,
        404
    );
    assert_eq!(
        on_domain(&s, "go.brand.test", "GET", "/dashboard")
            .await
            .status,
        404
    );
    let home = on_domain(&s, "go.brand.test", "GET", "/").await;
    assert_eq!(home.status, 200);
    assert!(!home.text().to_lowercase().contains("qr platform"));

    // Misprints are orphan visits; settings redirect the root and unknown codes, and serve app files.
    let missing = on_domain(&s, "go.brand.test", "GET", "/SUMMRE").await;
    assert_eq!(missing.status, 404);
    assert_eq!(
        on_domain(&s, "go.brand.test", "HEAD", "/NOPE").await.status,
        404
    );
    let visits = s.get(&format!("/api/domains/visits?id={id}"), &key).await;
    assert_eq!(visits.status, 200, "{}", visits.text());
    let visits = visits.json();
    // `/dashboard` above was one too (a single segment); the HEAD was not counted.
    let recent: Vec<&str> = visits["recent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["path"].as_str().unwrap())
        .collect();
    assert_eq!(recent, ["/SUMMRE", "/dashboard"], "{visits}");
    assert_eq!(visits["recent"][0]["device"], "mobile");
    assert_eq!(visits["daily"][0]["visits"], 2);
    let settings = json!({
        "rootUrl": "https://brand.test/",
        "notFoundUrl": "https://brand.test/missing",
        "appleAppSiteAssociation": {"applinks": {"details": []}},
        "assetlinks": [{"relation": ["delegate_permission/common.handle_all_urls"], "target": {}}]
    });
    let r = s
        .send(
            "PUT",
            &format!("/api/domains?id={id}"),
            &[("x-api-key", &key), ("content-type", "application/json")],
            settings.to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["rootUrl"], "https://brand.test/");
    let r = s
        .send(
            "PUT",
            &format!("/api/domains?id={id}"),
            &[("x-api-key", &key), ("content-type", "application/json")],
            json!({"rootUrl": "javascript:alert(1)"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let r = on_domain(&s, "go.brand.test", "GET", "/").await;
    assert_eq!(
        (r.status, r.header("location")),
        (302, Some("https://brand.test/"))
    );
    let r = on_domain(&s, "go.brand.test", "GET", "/TYPO").await;
    assert_eq!(
        (r.status, r.header("location")),
        (302, Some("https://brand.test/missing"))
    );
    let apple = on_domain(
        &s,
        "go.brand.test",
        "GET",
        "/.well-known/apple-app-site-association",
    )
    .await;
    assert_eq!(apple.status, 200);
    assert_eq!(apple.header("content-type"), Some("application/json"));
    assert_eq!(apple.json()["applinks"]["details"], json!([]));
    let android = on_domain(&s, "go.brand.test", "GET", "/.well-known/assetlinks.json").await;
    assert_eq!(android.json()[0]["target"], json!({}));

    // The TLS check, from the loopback.
    let tls = |name: &str| format!("/domains/tls-check?domain={name}");
    assert_eq!(
        s.send("GET", &tls("go.brand.test"), &[], "").await.status,
        200
    );
    assert_eq!(
        s.send("GET", &tls("xn--bcher-kva.test"), &[], "")
            .await
            .status,
        404
    );
    assert_eq!(
        s.send("GET", &tls("nobody.test"), &[], "").await.status,
        404
    );

    // The scan on the domain was recorded for its link.
    let link_id = link["id"].as_str().unwrap();
    let analytics = s
        .get(&format!("/api/analytics?linkId={link_id}"), &key)
        .await
        .json();
    assert_eq!(analytics["analytics"]["totalScans"], 4, "{analytics}");

    // Removal waits for the links.
    s.send(
        "DELETE",
        &format!("/api/domains?id={id}"),
        &[("x-api-key", &key)],
        "",
    )
    .await
    .assert_error(
        409,
        "Domain go.brand.test is used by 1 link; move or delete them first",
    );
    let moved = s
        .send(
            "PUT",
            &format!("/api/links?id={link_id}"),
            &[("x-api-key", &key), ("content-type", "application/json")],
            json!({"domain": null, "shortCode": "SUMMER2"}).to_string(),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text());
    assert_eq!(moved.json()["shortUrl"], "http://qr.example/r/SUMMER2");
    let r = s
        .send(
            "DELETE",
            &format!("/api/domains?id={id}"),
            &[("x-api-key", &key)],
            "",
        )
        .await;
    assert_eq!(r.status, 204, "{}", r.text());
    assert_eq!(
        on_domain(&s, "go.brand.test", "GET", "/SUMMER")
            .await
            .status,
        404
    );
    s.stop().await;
}

#[tokio::test]
async fn a_silent_nameserver_is_reported_as_a_timeout() {
    let Some((_dns, s)) = server_with_dns(&DnsZone::new()).await else {
        return;
    };
    let (_, _, key) = s.account(Plan::Enterprise);
    let name = format!("go.{SILENT_DOMAIN}");
    let added = post_json(&s, "/api/domains", &key, &json!({"domain": name}))
        .await
        .json();
    let id = added["id"].as_str().unwrap();
    let started = std::time::Instant::now();
    let checked = post_json(&s, &format!("/api/domains/check?id={id}"), &key, &json!({})).await;
    assert_eq!(checked.status, 200, "{}", checked.text());
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let checked = checked.json();
    assert_eq!(checked["lastCheck"]["result"], "timeout", "{checked}");
    assert_eq!(checked["status"], "pending");
    assert!(
        checked["reason"]
            .as_str()
            .unwrap()
            .contains("did not answer in time")
    );
    s.stop().await;
}
