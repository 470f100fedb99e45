//! The Links page's import from another service through the real server, without a browser: the upload form posted as a browser posts it (multipart, CSRF-checked, size-bounded), a dry run that creates nothing, the import whose codes then redirect, and the refused records with their reasons.

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
