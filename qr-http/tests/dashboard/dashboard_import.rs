//! The Links page's import from another service through the real server, without a browser: the upload form posted as a browser posts it (multipart, CSRF-checked, size-bounded), a dry run that creates nothing, the import whose codes then redirect, the refused records with their reasons, and the records placed on the account's domains (each its own, or every one on the domain chosen) with where each lands.

use qr_domain::domains::name::DomainName;
use qr_domain::{Clock, Store};
use qr_sqlite::SqliteStore;

use crate::common;

use common::web::{Client, csrf_in, customer, element_text, start};

fn export(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../qr-import/testdata/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Posts the import form; the page's text with the quotes askama escapes read back.
async fn post_import(c: &mut Client, fields: &[(&str, &str)], file: &[u8]) -> (u16, String) {
    let r = c
        .post_multipart("/dashboard/links/import", fields, Some(("file", file)))
        .await;
    let html = r
        .text()
        .replace("&#39;", "'")
        .replace("&#34;", "\"")
        .replace("&quot;", "\"");
    (r.status, html)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uploaded_export_is_checked_then_imported_keeping_its_codes() {
    use qr_domain::Plan;
    let (s, smtp) = start(|c| c.self_service_plans = vec![Plan::Free, Plan::Pro]).await;
    let mut c = customer(&s, &smtp, "mover@example.com").await;

    // The Links page offers the form, every control labelled.
    let page = c.get("/dashboard/links").await.text();
    for (id, label) in [
        ("import-from", "Service"),
        ("import-domain", "Domain"),
        ("import-file", "Export file"),
        ("import-dry-run", ""),
    ] {
        assert!(page.contains(&format!("id=\"{id}\"")), "{id}");
        assert!(
            page.contains(&format!("<label for=\"{id}\">{label}")),
            "{id}"
        );
    }
    assert!(page.contains("action=\"/dashboard/links/import\" enctype=\"multipart/form-data\""));
    let csrf = csrf_in(&page);
    let kutt = export("kutt-links.json");

    // Without the session's CSRF token: refused, nothing read.
    let (status, _) = post_import(&mut c, &[("csrf", "forged"), ("from", "kutt")], &kutt).await;
    assert_eq!(status, 403);

    // Free has no custom codes: a dry run says so for every record, creating nothing.
    let fields = [("csrf", csrf.as_str()), ("from", "kutt"), ("dryRun", "1")];
    let (status, html) = post_import(&mut c, &fields, &kutt).await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("Dry run: nothing was created"), "{html}");
    assert!(html.contains("shortCode requires Starter plan"), "{html}");

    let r = c
        .post(
            "/dashboard/account/plan",
            &[("csrf", &csrf), ("plan", "pro")],
        )
        .await;
    assert_eq!(r.header("location"), Some("/dashboard/account?done=plan"));

    // Pro: the dry run lists what would be created and the refused code, and writes nothing.
    let (status, html) = post_import(&mut c, &fields, &kutt).await;
    assert_eq!(status, 200, "{html}");
    assert!(
        html.contains("2 links would be created, 0 already here, 1 refused."),
        "{html}"
    );
    assert!(
        html.contains("<code>kutt.example/dashboard</code>"),
        "{html}"
    );
    assert!(
        html.contains("invalid shortCode: \"dashboard\" is reserved; choose another code"),
        "{html}"
    );
    assert_eq!(c.get("/r/conf24").await.status, 404, "nothing written");

    // The import: the links are created, each code redirects to its target.
    let (status, html) = post_import(&mut c, &[("csrf", &csrf), ("from", "kutt")], &kutt).await;
    assert_eq!(status, 200, "{html}");
    let summary = "2 links created, 0 already here, 1 refused.";
    assert!(html.contains(summary), "{html}");
    assert!(html.contains("id=\"import-refused\""), "{html}");
    for (code, target) in [
        ("conf24", "https://conference.example.com/2024"),
        ("Poster_B", "https://gallery.example.com/poster-b"),
    ] {
        let r = c.get(&format!("/r/{code}")).await;
        assert_eq!(r.status, 302, "{code}");
        assert_eq!(r.header("location"), Some(target), "{code}");
    }
    let list = c.get("/dashboard/links").await.text();
    assert!(list.contains("Conference badge"), "{list}");
    assert!(list.contains("created 2024-02-14 08:30 UTC"), "{list}");

    // The same file again: nothing twice.
    let (_, html) = post_import(&mut c, &[("csrf", &csrf), ("from", "kutt")], &kutt).await;
    assert!(
        html.contains("0 links created, 2 already here, 1 refused."),
        "{html}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_uploads_are_refused_with_a_message() {
    // A server whose upload bound is larger than the import's own, so the dashboard's bound is
    // what refuses the largest file.
    let (s, smtp) = start(|c| c.limits.max_upload_body_bytes = 3 * 1024 * 1024).await;
    let mut c = customer(&s, &smtp, "wrong@example.com").await;
    let csrf = c.csrf("/dashboard/links/import").await;
    // (the form's service, the file, the message)
    let cases = [
        (
            "bitly",
            export("kutt-links.json"),
            "This is not Bitly's export: the header row has no column for the Bitlink (link)",
        ),
        (
            "tinyurl",
            export("bitly.csv"),
            "Choose the service the export comes from",
        ),
        (
            "yourls",
            vec![0xff, 0xfe, 0x00],
            "The file is not UTF-8 text",
        ),
        (
            "yourls",
            vec![b'x'; 2 * 1024 * 1024 + 1],
            "an import takes at most 2048 KiB",
        ),
    ];
    for (from, file, message) in cases {
        let fields = [("csrf", csrf.as_str()), ("from", from)];
        let (status, html) = post_import(&mut c, &fields, &file).await;
        assert_eq!(status, 422, "{message}: {html}");
        let shown = element_text(&html, "import-error").unwrap_or_default();
        assert!(shown.contains(message), "{shown:?}, expected {message:?}");
    }
}

/// Marks the domain verified in the server's database, as a successful DNS check does.
fn verify(s: &common::TestServer, name: &str) {
    let store = SqliteStore::open(&s.db).unwrap();
    let name = DomainName::parse_any(name).unwrap();
    store
        .write(|tx| {
            let mut domain = tx.domain_by_name(&name)?.unwrap();
            domain.verification.verified_at = Some(s.clock.now());
            tx.update_domain(&domain)
        })
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_land_on_the_accounts_domains_and_the_page_says_where() {
    use qr_domain::Plan;
    let (s, smtp) = start(|c| c.self_service_plans = vec![Plan::Free, Plan::Pro]).await;
    let mut c = customer(&s, &smtp, "brand@example.com").await;
    let csrf = c.csrf("/dashboard/links/import").await;
    let r = c
        .post(
            "/dashboard/account/plan",
            &[("csrf", &csrf), ("plan", "pro")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text());
    for name in ["go.brand.test", "wait.brand.test"] {
        let r = c
            .post("/dashboard/domains", &[("csrf", &csrf), ("domain", name)])
            .await;
        assert!(r.status < 400, "{name}: {}", r.text());
    }
    verify(&s, "go.brand.test");

    // The select: each record's own domain by default, then the domains that take new links.
    let page = c.get("/dashboard/links/import").await.text();
    let page = page.replace("&#39;", "'");
    assert!(
        page.contains("<option value=\"\" selected>Keep each record's domain</option>"),
        "{page}"
    );
    assert!(
        page.contains("<option value=\"go.brand.test\">Every link on go.brand.test</option>"),
        "{page}"
    );
    assert!(
        !page.contains("value=\"wait.brand.test\""),
        "a pending domain is not offered"
    );

    // Each record's own domain: the dry run says where each would land.
    let bitly = export("brand-bitly.csv");
    let dry = [("csrf", csrf.as_str()), ("from", "bitly"), ("dryRun", "1")];
    let (status, html) = post_import(&mut c, &dry, &bitly).await;
    assert_eq!(status, 200, "{html}");
    assert!(
        html.contains("<td><code>go.brand.test/AbC12</code></td><td>go.brand.test</td><td><code>https://go.brand.test/AbC12</code></td>"),
        "{html}"
    );
    assert!(
        html.contains("<td><code>bit.ly/4Hk2Lm9</code></td><td>the service's own address</td>"),
        "{html}"
    );

    // A record on the account's pending domain is refused with the reason, where it would land;
    // chosen, that domain refuses the whole file.
    let waiting = br#"{"data": [{"address": "later1", "target": "https://brand.example/later", "domain": "wait.brand.test"}]}"#;
    let keep = [("csrf", csrf.as_str()), ("from", "kutt"), ("domain", "")];
    let (_, html) = post_import(&mut c, &keep, waiting).await;
    assert!(
        html.contains("0 links created, 0 already here, 1 refused."),
        "{html}"
    );
    assert!(
        html.contains("<td><code>wait.brand.test/later1</code></td><td>wait.brand.test</td><td>invalid domain: the domain is not verified yet;"),
        "{html}"
    );
    let kutt = export("brand-kutt.json");
    let (_, html) = post_import(
        &mut c,
        &[
            ("csrf", &csrf),
            ("from", "kutt"),
            ("domain", "wait.brand.test"),
        ],
        &kutt,
    )
    .await;
    assert_eq!(
        element_text(&html, "import-error").as_deref(),
        Some(
            "nothing was imported: wait.brand.test: the domain is not verified yet; create its TXT record and check it (POST /api/domains/check)"
        )
    );
    for (value, message) in [
        (
            "nope.test",
            "nothing was imported: nope.test: Domain not found",
        ),
        ("not a host", "Invalid domain: "),
    ] {
        let fields = [("csrf", csrf.as_str()), ("from", "kutt"), ("domain", value)];
        let (status, html) = post_import(&mut c, &fields, &kutt).await;
        assert_eq!(status, 422, "{value}: {html}");
        let shown = element_text(&html, "import-error").unwrap_or_default();
        assert!(shown.starts_with(message), "{value}: {shown:?}");
        assert!(
            html.contains("<option value=\"\">Keep each"),
            "the choice is kept: {html}"
        );
    }

    // Forged CSRF with a domain: refused, nothing read.
    let forged = [
        ("csrf", "forged"),
        ("from", "bitly"),
        ("domain", "go.brand.test"),
    ];
    assert_eq!(post_import(&mut c, &forged, &bitly).await.0, 403);

    // Every record on the chosen domain, bit.ly's too; each code redirects on the domain.
    let every = [
        ("csrf", csrf.as_str()),
        ("from", "bitly"),
        ("domain", "go.brand.test"),
    ];
    let (status, html) = post_import(&mut c, &every, &bitly).await;
    assert_eq!(status, 200, "{html}");
    assert!(
        html.contains("3 links created, 0 already here, 0 refused."),
        "{html}"
    );
    assert!(
        html.contains("<option value=\"go.brand.test\" selected>"),
        "the choice is kept: {html}"
    );
    for (code, target) in [
        ("AbC12", "https://brand.example/menu"),
        ("4Hk2Lm9", "https://brand.example/spring"),
        ("spring-menu", "https://brand.example/spring"),
    ] {
        let r = common::send(
            s.addr,
            "GET",
            &format!("/{code}"),
            &[("host", "go.brand.test")],
            bytes::Bytes::new(),
        )
        .await;
        assert_eq!(r.status, 302, "{code}: {}", r.text());
        assert_eq!(r.header("location"), Some(target), "{code}");
    }
    assert_eq!(
        c.get("/r/4Hk2Lm9").await.status,
        404,
        "not on the service's address"
    );
}
