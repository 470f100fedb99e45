//! The dashboard's Domains page through the real server: the plan's refusal on Free, adding a domain and seeing the TXT record to create, invalid names and settings refused with the domain's message, checking without a DNS client, links put on a verified domain with their short URL and code on it, removal refused while a link uses the domain, orphan visits, another account's domain unreachable, and every form CSRF-checked.

use qr_domain::domains::name::DomainName;
use qr_domain::service::Visit;
use qr_domain::{Clock, Plan, Store};
use qr_sqlite::SqliteStore;

use crate::common;

use common::web::{Client, csrf_in, customer, element_text, start};

/// Posts the add form.
async fn add(c: &mut Client, name: &str) -> common::Resp {
    let csrf = c.csrf("/dashboard/domains").await;
    c.post("/dashboard/domains", &[("csrf", &csrf), ("domain", name)])
        .await
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

/// Posts `fields` to `path`.
async fn post(c: &mut Client, path: &str, fields: &[(&str, String)]) -> common::Resp {
    let pairs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    c.post(path, &pairs).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_domains_page_adds_shows_configures_and_removes_a_domain() {
    let (s, smtp) = start(|c| c.self_service_plans = vec![Plan::Free, Plan::Pro]).await;
    let mut c = customer(&s, &smtp, "brand@example.com").await;

    // Free: the page names the plan needed, and the add form is refused with it.
    let page = c.get("/dashboard/domains").await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(
        html.contains("aria-current=\"page\">Domains</a>"),
        "the nav entry"
    );
    assert_eq!(
        element_text(&html, "domain-plan").as_deref(),
        Some("Custom domains require Starter plan.")
    );
    let r = add(&mut c, "go.brand.test").await;
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        element_text(&r.text(), "domain-error").as_deref(),
        Some("Custom domains require Starter plan")
    );

    // A form without the session's token is refused.
    let r = c
        .post(
            "/dashboard/domains",
            &[("csrf", "forged"), ("domain", "go.brand.test")],
        )
        .await;
    assert_eq!(r.status, 403);

    let csrf = c.csrf("/dashboard/account").await;
    let r = c
        .post(
            "/dashboard/account/plan",
            &[("csrf", &csrf), ("plan", "pro")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text());

    // An invalid name: 422 with the domain's message, the typed text kept.
    let r = add(&mut c, "https://go.brand.test/x").await;
    assert_eq!(r.status, 422);
    let html = r.text();
    assert_eq!(
        element_text(&html, "domain-error").as_deref(),
        Some(
            "Invalid domain: give the host name alone, without a scheme, port or path (for example go.brand.com)"
        )
    );
    assert!(html.contains("value=\"https://go.brand.test/x\""));

    // Added: its page shows the TXT record to create.
    let r = add(&mut c, "Bücher.Brand.test").await;
    assert_eq!(r.status, 303, "{}", r.text());
    let location = r.header("location").unwrap().to_owned();
    assert!(location.ends_with("?done=domain-added"), "{location}");
    let id = location
        .trim_start_matches("/dashboard/domains/")
        .split('?')
        .next()
        .unwrap()
        .to_owned();
    let html = c.get(&location).await.text();
    assert_eq!(
        element_text(&html, "domain-txt-name").as_deref(),
        Some("_qr-verify.xn--bcher-kva.brand.test")
    );
    let value = element_text(&html, "domain-txt-value").unwrap();
    assert!(
        value.starts_with("qr-verify=") && value.len() > 30,
        "{value}"
    );
    assert_eq!(
        element_text(&html, "domain-status").as_deref(),
        Some("pending")
    );
    assert!(
        html.contains("(bücher.brand.test)"),
        "the Unicode form beside the ASCII one"
    );
    assert!(html.contains("The domain was added."));

    // Listed, in both forms.
    let list = c.get("/dashboard/domains").await.text();
    assert!(
        list.contains("<code>xn--bcher-kva.brand.test</code>"),
        "{list}"
    );
    assert!(list.contains("bücher.brand.test"));
    assert!(list.contains("<span class=\"pill pending\">pending</span>"));

    // The same name again: taken.
    let r = add(&mut c, "xn--bcher-kva.brand.test").await;
    assert_eq!(r.status, 422);
    assert_eq!(
        element_text(&r.text(), "domain-error").as_deref(),
        Some("Domain xn--bcher-kva.brand.test is already registered")
    );

    // Checking against a nameserver that never answers (the harness's) says so; the domain
    // stays pending.
    let page = format!("/dashboard/domains/{id}");
    let csrf = c.csrf(&page).await;
    let r = c.post(&format!("{page}/check"), &[("csrf", &csrf)]).await;
    assert!(matches!(r.status, 200 | 303), "{} {}", r.status, r.text());
    let html = c.get(&page).await.text();
    assert!(html.contains("did not answer in time"), "{html}");
    assert_eq!(
        element_text(&html, "domain-status").as_deref(),
        Some("pending")
    );

    // Settings: an invalid file refused with its message, valid ones saved and shown.
    let settings = |apple: &'static str| {
        vec![
            ("csrf", csrf.clone()),
            ("rootUrl", "https://brand.example/".to_owned()),
            ("notFoundUrl", "https://brand.example/missing".to_owned()),
            ("appleAppSiteAssociation", apple.to_owned()),
            ("assetlinks", "[]".to_owned()),
        ]
    };
    let r = post(&mut c, &page, &settings("[1]")).await;
    assert_eq!(r.status, 422, "{}", r.text());
    let html = r.text();
    assert_eq!(
        element_text(&html, "domain-error").as_deref(),
        Some("Invalid appleAppSiteAssociation: this app association file must be a JSON object")
    );
    assert!(
        html.contains("value=\"https://brand.example/missing\""),
        "typed values kept"
    );
    let r = post(&mut c, &page, &settings(r#"{"applinks":{"details":[]}}"#)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let html = c.get(&page).await.text();
    assert!(html.contains("value=\"https://brand.example/\""));
    assert!(
        html.contains("{&#34;applinks&#34;:{&#34;details&#34;:[]}}")
            || html.contains("{&quot;applinks&quot;"),
        "{html}"
    );

    // A pending domain is not offered to links, and posting it anyway is refused by the field.
    let links = c.get("/dashboard/links").await.text();
    assert!(
        !links.contains("id=\"link-domain\""),
        "no domain takes links yet"
    );
    let r = c
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf_in(&links)),
                ("name", "Box"),
                ("targetUrl", "https://shop.example/box"),
                ("domain", "xn--bcher-kva.brand.test"),
            ],
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(
        element_text(&r.text(), "link-domain-error").is_some(),
        "{}",
        r.text()
    );

    // Verified: offered by its Unicode name; a link on it has its short URL and code there.
    verify(&s, "xn--bcher-kva.brand.test");
    let links = c.get("/dashboard/links").await.text();
    assert!(
        links.contains("<option value=\"xn--bcher-kva.brand.test\">bücher.brand.test</option>"),
        "{links}"
    );
    let r = c
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf_in(&links)),
                ("name", "Box"),
                ("targetUrl", "https://shop.example/box"),
                ("domain", "xn--bcher-kva.brand.test"),
            ],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let links = c.get("/dashboard/links").await.text();
    let short = links
        .split("<code class=\"short\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap()
        .to_owned();
    assert!(
        short.starts_with("https://xn--bcher-kva.brand.test/"),
        "{short}"
    );
    let link_id = common::web::attribute_after(&links, "href=\"/dashboard/links/")
        .unwrap()
        .split(['/', '"'])
        .next()
        .unwrap()
        .to_owned();
    let png = c
        .get(&format!("/dashboard/links/{link_id}/qr.png?download=1"))
        .await;
    assert_eq!(
        common::decode_png(&png.body),
        short,
        "the code holds the domain's URL"
    );
    // Saving the edit form unchanged keeps the domain.
    let edit = c
        .get(&format!("/dashboard/links/{link_id}/edit"))
        .await
        .text();
    assert!(
        edit.contains("<option value=\"xn--bcher-kva.brand.test\" selected>"),
        "{edit}"
    );

    // Removal is refused while the link uses it, with how many.
    let csrf = c.csrf(&page).await;
    let r = c.post(&format!("{page}/delete"), &[("csrf", &csrf)]).await;
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(
        element_text(&r.text(), "domain-error").as_deref(),
        Some("Domain xn--bcher-kva.brand.test is used by 1 link; move or delete them first")
    );

    // Orphan visits show per day and one by one.
    let svc = s.handle.app().service();
    svc.record_orphan_visit(
        id.parse().unwrap(),
        "/MISPRINT",
            &Visit {
                user_agent: Some("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36".to_owned()),
                ..Visit::default()
            },
    )
    .unwrap();
    let html = c.get(&page).await.text();
    assert_eq!(element_text(&html, "orphan-total").as_deref(), Some("1"));
    assert!(html.contains("<td><code>/MISPRINT</code></td>"), "{html}");

    // Another account sees none of it.
    let mut other = customer(&s, &smtp, "other@example.com").await;
    assert_eq!(other.get(&page).await.status, 404);
    let csrf = other.csrf("/dashboard/domains").await;
    let r = other
        .post(&format!("{page}/delete"), &[("csrf", &csrf)])
        .await;
    assert_eq!(r.status, 404);

    // Once the link is back on the service's address, the domain goes.
    let edit = c
        .get(&format!("/dashboard/links/{link_id}/edit"))
        .await
        .text();
    let r = c
        .post(
            &format!("/dashboard/links/{link_id}/edit"),
            &[
                ("csrf", &csrf_in(&edit)),
                ("name", "Box"),
                ("targetUrl", "https://shop.example/box"),
                ("domain", ""),
            ],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let csrf = c.csrf(&page).await;
    let r = c.post(&format!("{page}/delete"), &[("csrf", &csrf)]).await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(
        r.header("location"),
        Some("/dashboard/domains?done=domain-deleted")
    );
    assert!(
        c.get("/dashboard/domains")
            .await
            .text()
            .contains("No domains yet.")
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_schemes_are_set_on_the_domain_page_and_rules_open_them() {
    let (s, smtp) = start(|c| c.self_service_plans = vec![Plan::Free, Plan::Pro]).await;
    let mut c = customer(&s, &smtp, "apps@example.com").await;
    let csrf = c.csrf("/dashboard/account").await;
    let r = c
        .post(
            "/dashboard/account/plan",
            &[("csrf", &csrf), ("plan", "pro")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let r = add(&mut c, "go.brand.test").await;
    assert_eq!(r.status, 303, "{}", r.text());
    let page = r
        .header("location")
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_owned();
    verify(&s, "go.brand.test");

    // The field, labelled; a refused scheme answers 422 with the domain's message, the typed
    // text kept; saved schemes show lower case.
    let html = c.get(&page).await.text();
    assert!(
        html.contains("<label for=\"domain-app-schemes\">App schemes</label>"),
        "{html}"
    );
    let csrf = c.csrf(&page).await;
    let save = |schemes: &str| vec![("csrf", csrf.clone()), ("appSchemes", schemes.to_owned())];
    let r = post(&mut c, &page, &save("brandapp, javascript")).await;
    assert_eq!(r.status, 422, "{}", r.text());
    let html = r.text();
    assert_eq!(
        element_text(&html, "domain-error").as_deref(),
        Some(
            "Invalid appSchemes[1]: javascript is refused: it runs script in the page that opens it"
        )
    );
    assert!(html.contains("value=\"brandapp, javascript\""), "{html}");
    let r = post(&mut c, &page, &save("BrandApp otherapp")).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let html = c.get(&page).await.text();
    assert!(html.contains("value=\"brandapp, otherapp\""), "{html}");

    // The link form's rule target takes app URLs (a url input would refuse none of them in
    // the browser, but says web address); a custom scheme needs the domain.
    let links = c.get("/dashboard/links").await.text();
    assert!(
        links.contains("name=\"rules[0].targetUrl\" type=\"text\" inputmode=\"url\""),
        "{links}"
    );
    let rule_link = |domain: &'static str| {
        let csrf = csrf_in(&links);
        vec![
            ("csrf", csrf),
            ("name", "App".to_owned()),
            ("targetUrl", "https://brand.example/".to_owned()),
            ("domain", domain.to_owned()),
            ("campaign", "1".to_owned()),
            ("shortCode", "OPEN-APP".to_owned()),
            ("rules[0].when.device", "mobile".to_owned()),
            ("rules[0].targetUrl", "BrandApp://product/42".to_owned()),
        ]
    };
    let r = post(&mut c, "/dashboard/links", &rule_link("")).await;
    assert_eq!(r.status, 422, "{}", r.text());
    // The form capitalises the domain's message, as every row error.
    let error = element_text(&r.text(), "link-rules-0-target-error")
        .unwrap_or_default()
        .to_lowercase();
    assert!(
        error.contains("brandapp: is an app scheme") && error.contains("appschemes"),
        "{error}"
    );
    let r = post(&mut c, "/dashboard/links", &rule_link("go.brand.test")).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let r = s
        .send(
            "GET",
            "/OPEN-APP",
            &[
                ("host", "go.brand.test"),
                ("user-agent", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"),
            ],
            "",
        )
        .await;
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some("brandapp://product/42"));
}
