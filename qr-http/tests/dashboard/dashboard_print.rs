//! Label sheets from the dashboard through the real server: the form's defaults, a sheet of the links with a tag as a PDF download (its cells read back after pdftoppm), the plan's rule, and refusals by their messages.

use crate::common;
use common::web::{Client, csrf_in, customer, element_text, set_plan, start};
use qr_domain::Plan;
use qr_generate::print::LabelStock;

/// Creates a link through the dashboard's form with `tags`.
async fn link(c: &mut Client, csrf: &str, name: &str, tags: &str) {
    let created = c
        .post(
            "/dashboard/links",
            &[
                ("csrf", csrf),
                ("name", name),
                ("targetUrl", "https://example.com/menu"),
                ("campaign", "1"),
                ("tags", tags),
            ],
        )
        .await;
    assert_eq!(created.status, 303, "{}", created.text());
}

/// Posts the print form with `fields`.
async fn print(c: &mut Client, csrf: &str, fields: &[(&str, &str)]) -> common::Resp {
    let mut all = vec![("csrf", csrf)];
    all.extend_from_slice(fields);
    c.post("/dashboard/links/print", &all).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn label_sheets_of_links_are_downloaded_as_pdf() {
    let (s, smtp) = start(|_| {}).await;
    let email = "printer@example.com";
    let mut c = customer(&s, &smtp, email).await;
    let csrf = c.csrf("/dashboard/links").await;
    link(&mut c, &csrf, "Table 1", "menu").await;
    link(&mut c, &csrf, "Table 2", "menu").await;
    link(&mut c, &csrf, "Door", "").await;
    let links = c.get("/dashboard/links").await.text();
    assert!(
        links.contains("href=\"/dashboard/links/print\""),
        "the entry"
    );

    // Below Pro the page says so and a post is refused with the plan's message.
    let form = c.get("/dashboard/links/print").await;
    assert_eq!(form.status, 200);
    let html = form.text();
    assert_eq!(
        element_text(&html, "print-bound").as_deref(),
        Some("Label sheets are part of the Pro and Enterprise plans.")
    );
    let csrf = csrf_in(&html);
    let fields = |layout: &'static str, tag: &'static str| {
        vec![
            ("layout", layout),
            ("paper", "a4"),
            ("columns", "3"),
            ("rows", "5"),
            ("caption", "data"),
            ("tag", tag),
        ]
    };
    let refused = print(&mut c, &csrf, &fields("L7160", "menu")).await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        element_text(&refused.text(), "print-error").as_deref(),
        Some("Batch generation requires Pro plan")
    );

    let account = set_plan(&s, email, Plan::Pro);
    let sheet = print(&mut c, &csrf, &fields("L7163", "menu")).await;
    assert_eq!(sheet.status, 200, "{}", sheet.text());
    assert_eq!(sheet.header("content-type"), Some("application/pdf"));
    assert!(
        sheet
            .header("content-disposition")
            .is_some_and(|d| d.starts_with("attachment; filename=")),
        "a download"
    );
    assert!(sheet.body.starts_with(b"%PDF"));
    // The two tagged links in their cells, oldest first, and nothing in the third.
    let grid = LabelStock::L7163.grid();
    let cells: Vec<_> = (0..3).map(|i| grid.cell(i)).collect();
    if let Some(read) = qr_test_support::read_pdf_cells(&sheet.body, &cells) {
        let mut tagged: Vec<_> = s
            .handle
            .app()
            .service()
            .links(account)
            .unwrap()
            .into_iter()
            .filter(|l| !l.tags.is_empty())
            .collect();
        tagged.sort_by_key(|l| l.created_at);
        let base = s.handle.app().base_url().to_owned();
        let expected: Vec<Option<String>> = tagged
            .iter()
            .map(|l| Some(l.short_url(&base)))
            .chain([None])
            .collect();
        assert_eq!(read, expected);
    }

    for (extra, message) in [
        (
            fields("custom", "menu")
                .into_iter()
                .map(|(k, v)| if k == "columns" { (k, "11") } else { (k, v) })
                .collect::<Vec<_>>(),
            "Invalid grid.columns: it must be a whole number from 1 to 10",
        ),
        (
            fields("L7160", "none-such"),
            "Nothing to print: the selection holds no links",
        ),
        (
            fields("L9999", ""),
            "Invalid layout: use L7160, L7163, 5160 or custom",
        ),
    ] {
        let r = print(&mut c, &csrf, &extra).await;
        assert_eq!(r.status, 422, "{message}");
        assert_eq!(
            element_text(&r.text(), "print-error").as_deref(),
            Some(message)
        );
    }
    let forged = c
        .post(
            "/dashboard/links/print",
            &[("csrf", "forged"), ("layout", "L7160")],
        )
        .await;
    assert_eq!(forged.status, 403);
    s.stop().await;
}
