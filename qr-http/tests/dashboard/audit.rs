//! What the outside audits (Lighthouse) check, held by tests: a favicon and a description on every page, the API reference page built from the document, analytics that say "Unknown" for an unknown country, and a designer drawn as its script leaves it.

use crate::common;

use common::web::{Client, attribute_after, customer, start};
use serde_json::Value;

/// The pages of the site a visitor reaches without a session.
const VISITOR_PAGES: [&str; 5] = [
    "/",
    "/dashboard/signup",
    "/dashboard/login",
    "/dashboard/reset",
    "/docs/api",
];

/// The content of `<meta name="description">`, when there is one.
fn description(html: &str) -> Option<String> {
    attribute_after(html, "<meta name=\"description\" content=\"")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_has_an_icon_and_a_description() {
    let (s, smtp) = start(|_| {}).await;
    let mut visitor = Client::new(s.addr);
    // Browsers ask for /favicon.ico by themselves: a 404 there is a console error on every page.
    let ico = visitor.get("/favicon.ico").await;
    assert_eq!(ico.status, 200);
    assert_eq!(ico.header("content-type"), Some("image/x-icon"));
    assert_eq!(&ico.body[..4], &[0, 0, 1, 0], "an ICO file");
    assert_eq!(ico.header("cache-control"), Some("public, max-age=86400"));
    let head = s.send("HEAD", "/favicon.ico", &[], "").await;
    assert_eq!(head.status, 200);
    assert_eq!(
        s.send("POST", "/favicon.ico", &[], "").await.status,
        405,
        "read only"
    );
    let mut icon = None;
    for path in VISITOR_PAGES {
        let page = visitor.get(path).await;
        let html = page.text();
        let text = description(&html).unwrap_or_else(|| panic!("no description on {path}"));
        assert!(text.len() > 40, "{path}: {text:?}");
        assert!(
            html.contains("<link rel=\"icon\" href=\"/favicon.ico\""),
            "{path}"
        );
        icon = attribute_after(&html, "<link rel=\"icon\" href=\"/static/");
        assert!(icon.is_some(), "{path}: the SVG icon");
    }
    let svg = visitor.get(&format!("/static/{}", icon.unwrap())).await;
    assert_eq!(svg.status, 200);
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    assert!(svg.text().starts_with("<svg"), "{}", svg.text());
    // Logged-in pages carry one too (docs/api.md: they are complete for whoever audits them).
    let mut c = customer(&s, &smtp, "audit@example.com").await;
    for path in [
        "/",
        "/dashboard",
        "/dashboard/keys",
        "/dashboard/webhooks",
        "/dashboard/links",
        "/dashboard/design",
        "/dashboard/account",
        "/dashboard/nothing",
        "/docs/api",
    ] {
        let html = c.get(path).await.text();
        assert!(description(&html).is_some(), "no description on {path}");
        assert!(html.contains("<link rel=\"icon\""), "{path}");
    }
    s.stop().await;
}

/// The section of the reference page about one operation.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<section class=\"card operation\" id=\"op-{id}\""))
        .unwrap_or_else(|| panic!("no section of {id}"));
    let rest = &html[start..];
    let end = rest[1..].find("<section").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

/// A whole number as the page writes it: `2,953`.
fn grouped(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = if n < 0 { "-".to_owned() } else { String::new() };
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What the page says of a bound, as the document writes it.
fn worded(schema: &Value) -> Vec<String> {
    let n = |k: &str| schema[k].as_i64().map(grouped);
    let mut out = Vec::new();
    match (n("minimum"), n("maximum")) {
        (Some(a), Some(b)) => out.push(format!("from {a} to {b}")),
        (Some(a), None) => out.push(format!("at least {a}")),
        (None, Some(b)) => out.push(format!("at most {b}")),
        _ => {}
    }
    match (n("minLength"), n("maxLength")) {
        (Some(a), Some(b)) if a == b => out.push(format!("exactly {a} characters")),
        (Some(a), Some(b)) => out.push(format!("{a} to {b} characters")),
        (Some(a), None) => out.push(format!("at least {a} characters")),
        (None, Some(b)) => out.push(format!("at most {b} characters")),
        _ => {}
    }
    if let Some(values) = schema["enum"].as_array() {
        let all: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect();
        out.push(format!("one of: {}", all.join(", ")));
    }
    out
}

/// HTML-escapes text as askama does.
fn escaped(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_reference_shows_every_operation_and_parameter_with_its_bounds() {
    let (s, _smtp) = start(|_| {}).await;
    let mut visitor = Client::new(s.addr);
    let page = visitor.get("/docs/api").await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(
        page.header("content-security-policy"),
        Some(common::web::CSP)
    );
    let html = page.text();
    // No script but the site's own file, nothing from another host.
    assert_eq!(html.matches("<script").count(), 1, "only app.js");
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    let document = visitor.get("/api/openapi.json").await.json();
    let mut operations = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            operations += 1;
            let id = operation["operationId"].as_str().unwrap();
            let shown = section(&html, id);
            let title = format!("<code>{} {}</code>", method.to_uppercase(), escaped(path));
            assert!(shown.contains(&title), "{title}");
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap();
                assert!(
                    shown.contains(&format!("<code>{}</code>", escaped(name))),
                    "{id}: {name}"
                );
                for bound in worded(&parameter["schema"]) {
                    assert!(shown.contains(&escaped(&bound)), "{id}: {name}: {bound}");
                }
                if let Some(example) = parameter["example"].as_str() {
                    assert!(shown.contains(&escaped(example)), "{id}: {name}: {example}");
                }
            }
            for status in operation["responses"].as_object().unwrap().keys() {
                assert!(
                    shown.contains(&format!("<th scope=\"row\">{status}</th>")),
                    "{id}: {status}"
                );
            }
        }
    }
    assert!(operations > 20, "{operations} operations");
    for name in document["components"]["schemas"]
        .as_object()
        .unwrap()
        .keys()
    {
        assert!(html.contains(&format!("id=\"schema-{name}\"")), "{name}");
    }
    // The landing page and every page's footer lead to it; the JSON stays where it was.
    let landing = visitor.get("/").await.text();
    assert!(
        landing.matches("href=\"/docs/api\"").count() >= 3,
        "nav, text, footer"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_country_reads_unknown() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "geo@example.com").await;
    let csrf = c.csrf("/dashboard/links").await;
    c.post(
        "/dashboard/links",
        &[
            ("csrf", &csrf),
            ("name", "Poster"),
            ("targetUrl", "https://shop.example/poster"),
        ],
    )
    .await;
    let list = c.get("/dashboard/links").await.text();
    let id = attribute_after(&list, "href=\"/dashboard/links/")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let code = attribute_after(&list, &format!("http://{}/r/", s.addr)).unwrap();
    let code = code.split(['<', '?']).next().unwrap();
    let browser = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
    let hit = s
        .send("GET", &format!("/r/{code}"), &[("user-agent", browser)], "")
        .await;
    assert_eq!(hit.status, 302);
    // No GeoIP database: the scan's country is the domain's unknown one.
    let html = c.get(&format!("/dashboard/links/{id}")).await.text();
    let countries = &html[html.find("<h2>Countries</h2>").unwrap()..];
    let countries = &countries[..countries.find("</section>").unwrap()];
    assert!(countries.contains(">Unknown</th>"), "{countries}");
    assert!(!html.contains(">XX<"), "{html}");
    let cities = &html[html.find("<h2>Cities</h2>").unwrap()..];
    assert!(cities.contains(">Unknown</th>"), "no \"Unknown, XX\"");
    s.stop().await;
}

/// The `<div class="field …">` tag of the control whose input has `id`.
fn field_tag<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let start = html[..at].rfind("<div class=\"field").unwrap();
    &html[start..start + html[start..].find('>').unwrap()]
}

/// The designer is drawn as its script leaves it at start (the content box without a type, a
/// type's own fields with it), so the script moves nothing: hiding the content types' fields
/// after the first paint was a 0.23 layout shift.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_designer_is_drawn_as_its_script_leaves_it() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "design@example.com").await;
    let html = c.get("/dashboard/design").await.text();
    assert!(!field_tag(&html, "f-data").contains("hidden"));
    for id in ["f-ssid", "f-latitude"] {
        assert!(field_tag(&html, id).ends_with(" hidden"), "{id}");
        let input = &html[html.find(&format!("id=\"{id}\"")).unwrap()..];
        assert!(
            input[..input.find('>').unwrap()].contains(" disabled"),
            "{id}"
        );
    }
    assert!(!field_tag(&html, "f-size").contains("hidden"));
    // Without the script: a type chosen and previewed shows its fields and hides the content.
    let csrf = common::web::csrf_in(&html);
    let form = c
        .post_multipart(
            "/dashboard/design",
            &[
                ("csrf", csrf.as_str()),
                ("type", "wifi"),
                ("ssid", "Guest"),
                ("password", "welcome-2025"),
            ],
            None,
        )
        .await
        .text();
    assert!(field_tag(&form, "f-data").ends_with(" hidden"));
    assert!(!field_tag(&form, "f-ssid").contains("hidden"));
    assert!(field_tag(&form, "f-latitude").ends_with(" hidden"));
    s.stop().await;
}
