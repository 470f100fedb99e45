//! The dashboard's pages through the real server: links with their codes and analytics, the designer, the account page, and a closed sign-up.

use crate::common;

use common::web::{
    Client, PASSWORD, attribute_after, create_key, csrf_in, customer, element_text, follow, log_in,
    mail, set_plan, start,
};
use common::{decode_png, logo_png};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_codes_analytics_and_deletion() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "m@example.com").await;
    let csrf = c.csrf("/dashboard/links").await;
    let bad = c
        .post(
            "/dashboard/links",
            &[("csrf", &csrf), ("name", "Flyer"), ("targetUrl", "ftp://x")],
        )
        .await;
    assert_eq!(bad.status, 422);
    assert!(
        bad.text()
            .contains("The target address must use http or https"),
        "{}",
        bad.text()
    );
    let r = c
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf),
                ("name", "Spring flyer"),
                ("targetUrl", "https://shop.example/spring"),
            ],
        )
        .await;
    assert_eq!(
        r.header("location"),
        Some("/dashboard/links?done=link-created")
    );
    let list = c.get("/dashboard/links?q=SPRING").await.text();
    assert!(list.contains("Spring flyer"));
    assert!(
        c.get("/dashboard/links?q=autumn")
            .await
            .text()
            .contains("No link matches")
    );
    let id = attribute_after(&list, "href=\"/dashboard/links/")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let png = c
        .get(&format!("/dashboard/links/{id}/qr.png?download=1"))
        .await;
    assert_eq!(
        png.header("content-disposition")
            .map(|d| d.starts_with("attachment")),
        Some(true)
    );
    let url = decode_png(&png.body);
    assert!(url.starts_with(&format!("http://{}/r/", s.addr)), "{url}");
    let svg = c.get(&format!("/dashboard/links/{id}/qr.svg")).await;
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    // A scan shows in the analytics and the CSV.
    let code = url.rsplit('/').next().unwrap();
    let phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    let hit = s
        .send("GET", &format!("/r/{code}"), &[("user-agent", phone)], "")
        .await;
    assert_eq!(hit.header("location"), Some("https://shop.example/spring"));
    let analytics = c.get(&format!("/dashboard/links/{id}")).await;
    assert_eq!(
        element_text(&analytics.text(), "total-scans").as_deref(),
        Some("1")
    );
    assert!(
        analytics
            .text()
            .contains("Your plan keeps scans for 30 days")
    );
    let csv = c
        .get(&format!("/dashboard/links/{id}/scans.csv"))
        .await
        .text();
    assert!(
        csv.starts_with("id,timestamp,country,city,device,browser,os,referrer\n")
            && csv.contains(",mobile,Safari,iOS,"),
        "{csv}"
    );
    assert_eq!(
        c.get(&format!("/dashboard/links/{id}?startDate=nonsense"))
            .await
            .status,
        422
    );
    // Edit, then delete with its warning.
    let csrf = c.csrf(&format!("/dashboard/links/{id}/edit")).await;
    let r = c
        .post(
            &format!("/dashboard/links/{id}/edit"),
            &[
                ("csrf", &csrf),
                ("name", "Summer flyer"),
                ("targetUrl", "https://shop.example/summer"),
            ],
        )
        .await;
    assert_eq!(r.status, 303);
    let confirm = c.get(&format!("/dashboard/links/{id}/delete")).await.text();
    assert!(confirm.contains("Every printed QR code of this link stops working"));
    let r = c
        .post(
            &format!("/dashboard/links/{id}/delete"),
            &[("csrf", &csrf_in(&confirm))],
        )
        .await;
    assert_eq!(
        r.header("location"),
        Some("/dashboard/links?done=link-deleted")
    );
    assert_eq!(
        s.send("GET", &format!("/r/{code}"), &[], "").await.status,
        410
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_designer_offers_every_documented_parameter() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "d@example.com").await;
    let page = c.get("/dashboard/design").await.text();
    let doc = s.send("GET", "/api/openapi.json", &[], "").await.json();
    let params = doc["paths"]["/api/generate"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .clone();
    assert!(params.len() >= 9);
    for p in &params {
        let name = p["name"].as_str().unwrap();
        assert!(
            page.contains(&format!("name=\"{name}\""))
                || (name == "logo" && page.contains("Logos are part of the Pro")),
            "no control for {name}"
        );
    }
    let csrf = csrf_in(&page);
    let fields = [
        ("csrf", csrf.as_str()),
        ("data", "https://example.com/menu"),
        ("size", "400"),
        ("color", "#1a237e"),
        ("errorCorrection", "Q"),
        ("format", "png"),
    ];
    let preview = c
        .post_multipart("/dashboard/design/preview", &fields, None)
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    assert_eq!(decode_png(&preview.body), "https://example.com/menu");
    let bad = c
        .post_multipart(
            "/dashboard/design/preview",
            &[("csrf", &csrf), ("data", "x"), ("size", "9999")],
            None,
        )
        .await;
    assert_eq!((bad.status, bad.text().as_str()), (422, "Invalid size"));
    let no_js = c.post_multipart("/dashboard/design", &fields, None).await;
    assert!(no_js.text().contains("src=\"data:image/png;base64,"));
    let logo = c
        .post_multipart(
            "/dashboard/design/preview",
            &fields,
            Some(("logo", &logo_png())),
        )
        .await;
    assert_eq!(logo.status, 403, "logos need Pro");
    let download = c
        .post_multipart("/dashboard/design/download", &fields, None)
        .await;
    assert_eq!(
        download.header("content-disposition"),
        Some("attachment; filename=\"qr-code.png\"")
    );
    // On Pro the logo is drawn.
    let id = set_plan(&s, "d@example.com", qr_domain::Plan::Pro);
    let logo = c
        .post_multipart(
            "/dashboard/design/preview",
            &fields,
            Some(("logo", &logo_png())),
        )
        .await;
    assert_eq!(logo.status, 200, "{}", logo.text());
    assert_eq!(decode_png(&logo.body), "https://example.com/menu");
    let usage = s.handle.app().service().usage_of(id).unwrap();
    assert_eq!(
        usage.usage.current, 0,
        "dashboard renders are not API requests"
    );
    s.stop().await;
}

/// The colour of a PNG's pixel (any colour type, alpha ignored).
fn rgb_at(png_bytes: &[u8], x: usize, y: usize) -> [u8; 3] {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    let at = (y * info.width as usize + x) * channels;
    match channels {
        1 | 2 => [buffer[at]; 3],
        _ => [buffer[at], buffer[at + 1], buffer[at + 2]],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_designer_leaves_colours_without_a_default_to_it() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "f@example.com").await;
    let page = c.get("/dashboard/design").await.text();
    // Nothing chosen yet: every colour without a fixed default has its box, ticked and labelled.
    for (name, label) in [
        ("finderColor", "Same as the modules&#39; paint"),
        ("frameColor", "Same as color"),
        ("color2", "Not set"),
    ] {
        let tag = format!(
            "<label class=\"check\" for=\"d-{name}\"><input type=\"checkbox\" id=\"d-{name}\" name=\"default\" value=\"{name}\" checked> "
        );
        assert!(
            page.contains(&format!("{tag}{label}</label>")),
            "{name}: {page}"
        );
    }
    assert!(!page.contains("id=\"d-color\""), "color has a default");
    assert!(
        !page.contains("id=\"d-background\""),
        "background has a default"
    );
    let csrf = csrf_in(&page);
    // 26 bytes at M: version 2, 25 + 2 x 4 modules of 10 px; (75, 75) is the middle of the
    // top-left finder's centre.
    let base = [
        ("csrf", csrf.as_str()),
        ("data", "https://example.com/finder"),
        ("size", "330"),
        ("margin", "4"),
        ("format", "png"),
        ("color", "#1a237e"),
        ("finderColor", "#c62828"),
        ("frameColor", "#00695c"),
    ];
    let ticked = [&base[..], &[("default", "finderColor")]].concat();
    let preview = c
        .post_multipart("/dashboard/design/preview", &ticked, None)
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    assert_eq!(decode_png(&preview.body), "https://example.com/finder");
    assert_eq!(
        rgb_at(&preview.body, 75, 75),
        [0x1a, 0x23, 0x7e],
        "the finders follow color"
    );
    let chosen = c
        .post_multipart("/dashboard/design/preview", &base, None)
        .await;
    assert_eq!(chosen.status, 200, "{}", chosen.text());
    assert_eq!(decode_png(&chosen.body), "https://example.com/finder");
    assert_eq!(
        rgb_at(&chosen.body, 75, 75),
        [0xc6, 0x28, 0x28],
        "the chosen finder colour"
    );
    // Without JavaScript the page comes back as it was sent: the ticked box ticked and the picker
    // keeping its colour; a colour sent with its box cleared, cleared.
    let again = [&ticked[..], &[("default", "frameColor")]].concat();
    let no_js = c.post_multipart("/dashboard/design", &again, None).await;
    assert_eq!(no_js.status, 200);
    let no_js = no_js.text();
    assert!(no_js.contains("id=\"d-finderColor\" name=\"default\" value=\"finderColor\" checked>"));
    assert!(
        no_js
            .contains("id=\"f-finderColor\" name=\"finderColor\" type=\"color\" value=\"#c62828\"")
    );
    assert!(no_js.contains("value=\"frameColor\" checked>"));
    assert!(
        no_js.contains("id=\"d-color2\" name=\"default\" value=\"color2\" checked>"),
        "not sent: the default"
    );
    let download = c
        .post_multipart("/dashboard/design/download", &base, None)
        .await;
    assert_eq!(rgb_at(&download.body, 75, 75), [0xc6, 0x28, 0x28]);
    let no_js = c
        .post_multipart("/dashboard/design", &base, None)
        .await
        .text();
    assert!(
        no_js.contains("value=\"finderColor\">"),
        "sent with the box cleared"
    );
    assert!(no_js.contains("value=\"frameColor\">"));
    // color2 left unset with a gradient: the API's refusal, by color2's picker.
    let gradient = [
        &ticked[..],
        &[
            ("gradient", "linear"),
            ("color2", "#6a1b9a"),
            ("default", "color2"),
        ],
    ]
    .concat();
    let refused = c.post_multipart("/dashboard/design", &gradient, None).await;
    assert_eq!(refused.status, 422);
    let refused = refused.text();
    assert!(
        refused.contains("id=\"e-color2\">Invalid color2</p>"),
        "{refused}"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_designer_makes_content_types_micro_codes_and_print_formats() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "t@example.com").await;
    let page = c.get("/dashboard/design").await.text();
    // The type selector starts with "no type" (the content box), and each field names its types.
    assert!(page.contains("<option value=\"\""), "an empty type choice");
    assert!(page.contains("data-types=\"wifi\""));
    assert!(page.contains("data-types=\"vcard mecard\""));
    assert!(page.contains("placeholder=\"Home Wi-Fi\""));
    let csrf = csrf_in(&page);
    // A form sends every field, empty ones included: an empty content box is no data.
    let wifi = [
        ("csrf", csrf.as_str()),
        ("data", ""),
        ("type", "wifi"),
        ("ssid", "Guest"),
        ("password", "welcome-2025"),
        ("latitude", ""),
        ("format", "png"),
        ("verify", "true"),
    ];
    let preview = c
        .post_multipart("/dashboard/design/preview", &wifi, None)
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    assert_eq!(
        decode_png(&preview.body),
        "WIFI:T:WPA;S:Guest;P:welcome-2025;;"
    );
    let bad = c
        .post_multipart(
            "/dashboard/design/preview",
            &[
                ("csrf", &csrf),
                ("type", "wifi"),
                ("ssid", "Guest"),
                ("password", "short"),
            ],
            None,
        )
        .await;
    assert_eq!(bad.status, 422);
    assert!(
        bad.text().starts_with("Invalid password: "),
        "{}",
        bad.text()
    );
    // The no-script page puts the refusal next to its field.
    let no_js = c
        .post_multipart(
            "/dashboard/design",
            &[
                ("csrf", &csrf),
                ("type", "wifi"),
                ("ssid", "Guest"),
                ("password", "short"),
            ],
            None,
        )
        .await
        .text();
    assert!(no_js.contains("id=\"e-password\""), "{no_js}");
    // PDF is previewed as PNG and downloaded as PDF.
    let pdf = [
        ("csrf", csrf.as_str()),
        ("data", "https://example.com/print"),
        ("format", "pdf"),
        ("printSize", "30"),
    ];
    let preview = c
        .post_multipart("/dashboard/design/preview", &pdf, None)
        .await;
    assert_eq!(preview.header("content-type"), Some("image/png"));
    assert_eq!(decode_png(&preview.body), "https://example.com/print");
    let download = c
        .post_multipart("/dashboard/design/download", &pdf, None)
        .await;
    assert_eq!(download.header("content-type"), Some("application/pdf"));
    assert_eq!(
        download.header("content-disposition"),
        Some("attachment; filename=\"qr-code.pdf\"")
    );
    assert!(download.body.starts_with(b"%PDF-"));
    // A Micro QR code, and its refusal of a style.
    let micro = [
        ("csrf", csrf.as_str()),
        ("data", "12345"),
        ("symbol", "micro"),
        ("format", "svg"),
    ];
    let preview = c
        .post_multipart("/dashboard/design/preview", &micro, None)
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    assert_eq!(preview.header("content-type"), Some("image/svg+xml"));
    let styled = c
        .post_multipart(
            "/dashboard/design/preview",
            &[&micro[..], &[("style", "dots")]].concat(),
            None,
        )
        .await;
    assert_eq!(styled.status, 422);
    assert!(styled.text().starts_with("Invalid style for symbol=micro"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_account_page_changes_address_password_sessions_and_deletes() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "old@example.com").await;
    let mut other_browser = Client::new(s.addr);
    log_in(&mut other_browser, "old@example.com", PASSWORD).await;
    let page = c.get("/dashboard/account").await.text();
    assert_eq!(page.matches("<tr><td>").count(), 2, "two sessions listed");
    let csrf = csrf_in(&page);
    let wrong = c
        .post(
            "/dashboard/account/password",
            &[
                ("csrf", &csrf),
                ("current", "nope nope nope"),
                ("password", "a new long password"),
            ],
        )
        .await;
    assert_eq!(wrong.status, 403);
    assert!(wrong.text().contains("The password is not correct"));
    let r = c
        .post(
            "/dashboard/account/password",
            &[
                ("csrf", &csrf),
                ("current", PASSWORD),
                ("password", "a new long password"),
            ],
        )
        .await;
    assert_eq!(r.status, 303);
    assert_eq!(
        other_browser.get("/dashboard").await.status,
        303,
        "the other session ended"
    );
    assert_eq!(c.get("/dashboard").await.status, 200, "this one goes on");
    let r = c
        .post(
            "/dashboard/account/email",
            &[
                ("csrf", &csrf),
                ("email", "new@example.com"),
                ("password", "a new long password"),
            ],
        )
        .await;
    assert_eq!(
        r.header("location"),
        Some("/dashboard/account?done=email-sent")
    );
    let link = mail(&smtp, "new@example.com", "Confirm your new")
        .link_containing("/dashboard/account/email")
        .unwrap();
    let r = follow(&mut c, &link, "/dashboard/account/email/confirm").await;
    assert_eq!(r.header("location"), Some("/dashboard/account?done=email"));
    assert!(
        c.get("/dashboard/account")
            .await
            .text()
            .contains("new@example.com")
    );
    let csrf = c.csrf("/dashboard/keys").await;
    let (_, key) = create_key(&mut c, "k").await;
    c.post(
        "/dashboard/links",
        &[
            ("csrf", &csrf),
            ("name", "n"),
            ("targetUrl", "https://example.com/"),
        ],
    )
    .await;
    let wrong = c
        .post(
            "/dashboard/account/delete",
            &[("csrf", &csrf), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(wrong.status, 403);
    let r = c
        .post(
            "/dashboard/account/delete",
            &[("csrf", &csrf), ("password", "a new long password")],
        )
        .await;
    assert_eq!(r.status, 303);
    s.get("/api/health", &key)
        .await
        .assert_error(401, "Invalid API key");
    assert_eq!(
        log_in(&mut c, "new@example.com", "a new long password")
            .await
            .status,
        401
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_sign_up_and_log_out_everywhere() {
    let (s, smtp) = start(|c| c.signup_open = false).await;
    let mut c = Client::new(s.addr);
    let page = c.get("/dashboard/signup").await.text();
    assert!(page.contains("Sign-up is closed"));
    assert!(!c.get("/").await.text().contains("Create a free account"));
    let csrf = csrf_in(&c.get("/dashboard/login").await.text());
    let r = c
        .post(
            "/dashboard/signup",
            &[
                ("csrf", &csrf),
                ("email", "x@example.com"),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("Sign-up is closed"));
    // The operator's accounts still log in; "log out everywhere" ends every session.
    let svc = s.handle.app().service();
    let a = svc
        .create_account("op@example.com", qr_domain::Plan::Starter)
        .unwrap();
    let owner = svc.owner_of(a.id).unwrap().unwrap();
    let (_, token) = svc
        .issue_token(owner.id, qr_domain::TokenPurpose::Reset)
        .unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    let mut one = Client::new(s.addr);
    let mut two = Client::new(s.addr);
    log_in(&mut one, "op@example.com", PASSWORD).await;
    log_in(&mut two, "op@example.com", PASSWORD).await;
    let csrf = one.csrf("/dashboard/account").await;
    let r = one
        .post("/dashboard/account/sessions", &[("csrf", &csrf)])
        .await;
    assert_eq!(r.header("location"), Some("/dashboard/login"));
    assert_eq!(two.get("/dashboard").await.status, 303);
    assert_eq!(one.get("/dashboard").await.status, 303);
    assert!(smtp.received().is_empty());
    s.stop().await;
}
