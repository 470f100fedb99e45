//! Saved designs in the dashboard through the real server: saving the designer's look and logo as a design (its refusals by the save button), the designs page (previews cached and decoding, rename, default, no default, delete refused while a link names it), the link form's design select, the links' thumbnails drawn in their design, and another account's designs not found.

use crate::common;
use common::web::{Client, csrf_in, customer, element_text, set_plan, start};
use common::{decode_png, logo_png};
use qr_domain::Plan;

/// The id of the design named `name` on the designs page (`<li … id="design-ID">` before it).
fn design_id(page: &str, name: &str) -> String {
    let at = page
        .find(&format!("<h3>{name}"))
        .unwrap_or_else(|| panic!("{name} on the page"));
    let before = &page[..at];
    let start = before.rfind("id=\"design-").unwrap() + 11;
    before[start..start + before[start..].find('"').unwrap()].to_owned()
}

/// The `src` of the preview image of design `id`.
fn preview_src(page: &str, id: &str) -> String {
    let marker = format!("/dashboard/designs/{id}/preview.png?v=");
    let at = page.find(&marker).expect("the preview");
    page[at..at + page[at..].find('"').unwrap()].to_owned()
}

/// The link list's thumbnail of the link, lower-cased SVG.
async fn thumbnail(c: &mut Client, link_id: &str) -> String {
    let path = format!("/dashboard/links/{link_id}/qr.svg");
    c.get(&path).await.text().to_ascii_lowercase()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn designs_are_saved_from_the_designer_and_managed_on_their_page() {
    let (s, smtp) = start(|_| {}).await;
    let email = "brand@example.com";
    let mut c = customer(&s, &smtp, email).await;
    set_plan(&s, email, Plan::Pro);
    let csrf = c.csrf("/dashboard/links").await;
    let created = c
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf),
                ("name", "Poster"),
                ("targetUrl", "https://example.com/poster"),
            ],
        )
        .await;
    assert_eq!(created.status, 303, "{}", created.text());
    let links = c.get("/dashboard/links").await.text();
    // The thumbnail's address: `/dashboard/links/ID/qr.svg`.
    let link_id = {
        let end = links.find("/qr.svg").expect("a thumbnail");
        let start = links[..end].rfind('/').unwrap() + 1;
        links[start..end].to_owned()
    };
    let empty = c.get("/dashboard/designs").await.text();
    assert!(element_text(&empty, "no-designs").is_some(), "{empty}");

    // Saving: the name is required, by the save button; the form comes back as posted.
    let designer = c.get("/dashboard/design").await.text();
    let csrf = csrf_in(&designer);
    let look = [
        ("csrf", csrf.as_str()),
        ("data", "https://example.com/sample"),
        ("color", "#1a237e"),
        ("background", "#ffffff"),
        ("style", "dots"),
        ("margin", "4"),
        ("errorCorrection", "H"),
    ];
    let unnamed = c
        .post_multipart("/dashboard/design/save", &look, None)
        .await;
    let html = unnamed.text();
    assert_eq!(unnamed.status, 422, "{html}");
    assert_eq!(
        element_text(&html, "e-designName").as_deref(),
        Some("Invalid name: it must not be empty")
    );
    assert!(html.contains("name=\"style\" value=\"dots\" checked"));
    // Saved with its logo as the default: the look keeps what differs from the API's defaults.
    let named = [
        &look[..],
        &[("designName", "Navy"), ("designDefault", "true")],
    ]
    .concat();
    let saved = c
        .post_multipart(
            "/dashboard/design/save",
            &named,
            Some(("logo", &logo_png())),
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text());
    assert_eq!(
        saved.header("location"),
        Some("/dashboard/designs?done=design-saved")
    );
    let account = s
        .handle
        .app()
        .service()
        .account_by_email(&qr_domain::Email::parse(email).unwrap())
        .unwrap()
        .unwrap();
    let designs = s.handle.app().service().designs(account.id).unwrap();
    assert_eq!(designs.len(), 1);
    let pairs: Vec<(&str, &str)> = designs[0].look.pairs().collect();
    assert_eq!(
        pairs,
        [
            ("color", "1a237e"),
            ("errorCorrection", "H"),
            ("style", "dots")
        ]
    );
    assert!(designs[0].logo.is_some() && designs[0].is_default);

    // The page: a preview that scans and is cached, the default marked.
    let page = c.get("/dashboard/designs?done=design-saved").await.text();
    assert!(page.contains("The design was saved."), "{page}");
    let navy = design_id(&page, "Navy");
    assert!(page.contains("<h3>Navy <span class=\"pill\">default</span>"));
    let src = preview_src(&page, &navy);
    let preview = c.get(&src).await;
    assert_eq!(preview.status, 200);
    assert_eq!(decode_png(&preview.body), "https://qr.example/r/7K3M9Q");
    let etag = preview.header("etag").unwrap().to_owned();
    assert_eq!(c.get_with(&src, "if-none-match", &etag).await.status, 304);

    // The link without a design of its own is drawn in the default.
    assert!(thumbnail(&mut c, &link_id).await.contains("#1a237e"));
    let pdf = c
        .get(&format!("/dashboard/links/{link_id}/qr.pdf?download=1"))
        .await;
    assert_eq!(pdf.status, 200);
    assert!(pdf.body.starts_with(b"%PDF"));

    // A second design, chosen in the link's form.
    let teal = [
        ("csrf", csrf.as_str()),
        ("data", "x"),
        ("color", "#004d40"),
        ("designName", "Teal"),
    ];
    let saved = c
        .post_multipart("/dashboard/design/save", &teal, None)
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text());
    let page = c.get("/dashboard/designs").await.text();
    let teal = design_id(&page, "Teal");
    let edit = c
        .get(&format!("/dashboard/links/{link_id}/edit"))
        .await
        .text();
    assert!(
        edit.contains("<option value=\"\" selected>The account&#39;s default (Navy)</option>"),
        "{edit}"
    );
    assert!(edit.contains(&format!("<option value=\"{teal}\">Teal</option>")));
    let chosen = c
        .post(
            &format!("/dashboard/links/{link_id}/edit"),
            &[
                ("csrf", &csrf_in(&edit)),
                ("name", "Poster"),
                ("targetUrl", "https://example.com/poster"),
                ("design", &teal),
            ],
        )
        .await;
    assert_eq!(chosen.status, 303, "{}", chosen.text());
    assert!(thumbnail(&mut c, &link_id).await.contains("#004d40"));
    let unknown = c
        .post(
            &format!("/dashboard/links/{link_id}/edit"),
            &[
                ("csrf", &csrf),
                ("name", "Poster"),
                ("targetUrl", "https://example.com/poster"),
                ("design", "not-a-design"),
            ],
        )
        .await;
    assert_eq!(unknown.status, 422, "{}", unknown.text());
    assert_eq!(
        element_text(&unknown.text(), "link-design-error").as_deref(),
        Some("Design not found")
    );

    // Rename, default, no default; every refusal by its message.
    let renamed = c
        .post(
            &format!("/dashboard/designs/{navy}/rename"),
            &[("csrf", &csrf), ("name", "Navy blue")],
        )
        .await;
    assert_eq!(renamed.status, 303);
    let blank = c
        .post(
            &format!("/dashboard/designs/{navy}/rename"),
            &[("csrf", &csrf), ("name", " ")],
        )
        .await;
    assert_eq!(blank.status, 422);
    assert_eq!(
        element_text(&blank.text(), "design-error").as_deref(),
        Some("Navy blue: Invalid name: it must not be empty")
    );
    let made = c
        .post(
            &format!("/dashboard/designs/{teal}/default"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(made.status, 303);
    let page = c.get("/dashboard/designs").await.text();
    assert!(page.contains("<h3>Teal <span class=\"pill\">default</span>"));
    assert!(page.contains("<h3>Navy blue</h3>"));
    let none = c
        .post("/dashboard/designs/no-default", &[("csrf", &csrf)])
        .await;
    assert_eq!(none.status, 303);
    assert!(
        !s.handle
            .app()
            .service()
            .designs(account.id)
            .unwrap()
            .iter()
            .any(|d| d.is_default)
    );
    let in_use = c
        .post(
            &format!("/dashboard/designs/{teal}/delete"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(in_use.status, 409);
    assert_eq!(
        element_text(&in_use.text(), "design-error").as_deref(),
        Some("Design Teal is used by 1 link; change or delete them first")
    );
    let forged = c
        .post(
            &format!("/dashboard/designs/{navy}/delete"),
            &[("csrf", "forged")],
        )
        .await;
    assert_eq!(forged.status, 403);
    let deleted = c
        .post(
            &format!("/dashboard/designs/{navy}/delete"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(deleted.status, 303);

    // Another account sees none of it; on Free a logo is refused by the domain's message.
    let mut other = customer(&s, &smtp, "other@example.com").await;
    let other_csrf = other.csrf("/dashboard/design").await;
    assert_eq!(other.get(&preview_src(&page, &teal)).await.status, 404);
    let theirs = other
        .post(
            &format!("/dashboard/designs/{teal}/delete"),
            &[("csrf", &other_csrf)],
        )
        .await;
    assert_eq!(theirs.status, 404);
    let free_logo = other
        .post_multipart(
            "/dashboard/design/save",
            &[("csrf", &other_csrf), ("data", "x"), ("designName", "Mine")],
            Some(("logo", &logo_png())),
        )
        .await;
    assert_eq!(free_logo.status, 403, "{}", free_logo.text());
    assert!(free_logo.text().contains("Logos require Pro plan"));
    s.stop().await;
}
