//! Saved designs and links' own codes through real requests: `/api/designs` (create, list, show, change, default, remove, every refusal, tenant isolation), the links' `design` field, and `GET /api/links/qr` (the link's shortUrl decoded back from the image in its design, the account default, overrides, a domain link, ETag and quota as generate).

use base64::Engine as _;
use qr_domain::links::link::{Link, LinkName, TargetUrl};
use qr_domain::links::shortcode::ShortCode;
use qr_domain::store::Store;
use qr_domain::{LinkId, Plan};
use qr_sqlite::SqliteStore;
use serde_json::{Value, json};

use crate::common::{TestServer, decode_png, logo_png};

async fn send_json(
    s: &TestServer,
    method: &str,
    path: &str,
    key: &str,
    body: &Value,
) -> crate::common::Resp {
    s.send(
        method,
        path,
        &[("x-api-key", key), ("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

fn logo_data() -> String {
    base64::engine::general_purpose::STANDARD.encode(logo_png())
}

#[tokio::test]
async fn designs_are_saved_listed_changed_and_removed_per_account() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, free) = s.account(Plan::Free);
    let (_, _, key) = s.account(Plan::Pro);
    let (_, _, other) = s.account(Plan::Pro);

    // Refusals, each with its message.
    for (body, status, message) in [
        (json!({}), 400, "name is required"),
        (
            json!({"name": " "}),
            400,
            "Invalid name: it must not be empty",
        ),
        (json!({"name": 7}), 400, "Invalid name: it must be a string"),
        (
            json!({"name": "a".repeat(101)}),
            400,
            "Invalid name: at most 100 characters allowed",
        ),
        (
            json!({"name": "B", "colour": "000000"}),
            400,
            "Unknown field colour: expected name, look, logo, isDefault",
        ),
        (
            json!({"name": "B", "look": {"color": "#000"}}),
            400,
            "Invalid color",
        ),
        (
            json!({"name": "B", "look": {"margin": 11}}),
            400,
            "Invalid margin",
        ),
        (
            json!({"name": "B", "look": {"gradient": "linear"}}),
            400,
            "Invalid color2",
        ),
        (
            json!({"name": "B", "look": {"color": ["000"]}}),
            400,
            "Invalid look.color: it must be a string, number or boolean",
        ),
        (
            json!({"name": "B", "look": []}),
            400,
            "Invalid look: it must be an object",
        ),
        (
            json!({"name": "B", "logo": {"mediaType": "image/png", "data": "R0lGODlh"}}),
            400,
            "Logo must be a PNG or JPEG image",
        ),
        (
            json!({"name": "B", "logo": {"data": "not base64!"}}),
            400,
            "Invalid logo: data is not base64",
        ),
        (
            json!({"name": "B", "logo": "https://example.com/logo.png"}),
            400,
            "Invalid logo: it must be {\"mediaType\", \"data\"} with base64 data, a data: URL, or null",
        ),
        (
            json!({"name": "B", "isDefault": "yes"}),
            400,
            "Invalid isDefault: it must be a boolean",
        ),
    ] {
        send_json(&s, "POST", "/api/designs", &key, &body)
            .await
            .assert_error(status, message);
    }
    let size = send_json(
        &s,
        "POST",
        "/api/designs",
        &key,
        &json!({"name": "B", "look": {"size": 500}}),
    )
    .await;
    assert_eq!(size.status, 400);
    assert!(
        size.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Unknown look parameter: size; a design holds color, background"),
        "{}",
        size.text()
    );
    send_json(
        &s,
        "POST",
        "/api/designs",
        &free,
        &json!({"name": "Logo", "logo": {"mediaType": "image/png", "data": logo_data()}}),
    )
    .await
    .assert_error(403, "Logos require Pro plan");

    // Creation, with a logo as a data: URL, the look's numbers as text.
    let created = send_json(
        &s,
        "POST",
        "/api/designs",
        &key,
        &json!({
            "name": "  Brand ",
            "look": {"color": "1a237e", "style": "dots", "margin": 2},
            "logo": format!("data:image/png;base64,{}", logo_data()),
            "isDefault": true,
        }),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let brand = created.json();
    assert_eq!(brand["name"], "Brand");
    assert_eq!(
        brand["look"],
        json!({"color": "1a237e", "style": "dots", "margin": "2"})
    );
    assert_eq!(brand["logo"]["mediaType"], "image/png");
    assert_eq!(brand["logo"]["bytes"], logo_png().len());
    assert!(
        brand["logo"].get("data").is_none(),
        "no data in a list or write answer"
    );
    assert_eq!(brand["isDefault"], true);
    let brand_id = brand["id"].as_str().unwrap().to_owned();
    let plain = send_json(&s, "POST", "/api/designs", &key, &json!({"name": "Autumn"})).await;
    assert_eq!(plain.status, 201);
    let plain_id = plain.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(plain.json()["logo"], Value::Null);
    assert_eq!(plain.json()["look"], json!({}));

    let list = s.get("/api/designs", &key).await;
    assert_eq!(list.status, 200);
    let list = list.json();
    let names: Vec<&str> = list["designs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Autumn", "Brand"]);
    let one = s.get(&format!("/api/designs?id={brand_id}"), &key).await;
    assert_eq!(one.status, 200);
    assert_eq!(one.json()["logo"]["data"], logo_data());

    // Tenant isolation and malformed ids.
    s.get(&format!("/api/designs?id={brand_id}"), &other)
        .await
        .assert_error(404, "Design not found");
    s.get("/api/designs?id=nonsense", &key)
        .await
        .assert_error(404, "Design not found");
    s.get("/api/designs?id=", &key)
        .await
        .assert_error(400, "id parameter required");
    assert_eq!(
        s.get("/api/designs", &other).await.json(),
        json!({"designs": []})
    );
    send_json(
        &s,
        "PUT",
        &format!("/api/designs?id={brand_id}"),
        &other,
        &json!({"name": "Mine"}),
    )
    .await
    .assert_error(404, "Design not found");
    s.send(
        "DELETE",
        &format!("/api/designs?id={brand_id}"),
        &[("x-api-key", &other)],
        "",
    )
    .await
    .assert_error(404, "Design not found");

    // Changes: the default moves, the look is replaced whole, the logo removed.
    let changed = send_json(
        &s,
        "PUT",
        &format!("/api/designs?id={plain_id}"),
        &key,
        &json!({"isDefault": true, "look": {"frame": "box", "frameText": "SCAN ME"}}),
    )
    .await;
    assert_eq!(changed.status, 200, "{}", changed.text());
    assert_eq!(changed.json()["isDefault"], true);
    let brand = s
        .get(&format!("/api/designs?id={brand_id}"), &key)
        .await
        .json();
    assert_eq!(brand["isDefault"], false, "one default per account");
    let changed = send_json(
        &s,
        "PUT",
        &format!("/api/designs?id={brand_id}"),
        &key,
        &json!({"logo": null, "look": {"color": "004d40"}}),
    )
    .await
    .json();
    assert_eq!(changed["logo"], Value::Null);
    assert_eq!(changed["look"], json!({"color": "004d40"}));

    // Links name a design of their own account.
    let link = send_json(
        &s,
        "POST",
        "/api/links",
        &key,
        &json!({"name": "Flyer", "targetUrl": "https://example.com/", "design": brand_id}),
    )
    .await;
    assert_eq!(link.status, 201, "{}", link.text());
    assert_eq!(link.json()["design"], brand_id.as_str());
    let link_id = link.json()["id"].as_str().unwrap().to_owned();
    let plain_link = send_json(
        &s,
        "POST",
        "/api/links",
        &key,
        &json!({"name": "Plain", "targetUrl": "https://example.com/"}),
    )
    .await;
    assert_eq!(
        plain_link.json()["design"],
        Value::Null,
        "always in the JSON"
    );
    for design in [json!(brand_id), json!("nonsense"), json!(7)] {
        send_json(
            &s,
            "POST",
            "/api/links",
            &other,
            &json!({"name": "Theirs", "targetUrl": "https://example.com/", "design": design}),
        )
        .await
        .assert_error(400, "Design not found");
    }
    send_json(
        &s,
        "PUT",
        &format!("/api/links?id={link_id}"),
        &key,
        &json!({"design": uuid_of_other(&s, &other).await}),
    )
    .await
    .assert_error(400, "Design not found");

    // Removal: refused while a link names the design.
    s.send(
        "DELETE",
        &format!("/api/designs?id={brand_id}"),
        &[("x-api-key", &key)],
        "",
    )
    .await
    .assert_error(
        409,
        "Design Brand is used by 1 link; change or delete them first",
    );
    let cleared = send_json(
        &s,
        "PUT",
        &format!("/api/links?id={link_id}"),
        &key,
        &json!({"design": null}),
    )
    .await;
    assert_eq!(cleared.json()["design"], Value::Null);
    let deleted = s
        .send(
            "DELETE",
            &format!("/api/designs?id={brand_id}"),
            &[("x-api-key", &key)],
            "",
        )
        .await;
    assert_eq!(deleted.status, 204);
    s.get(&format!("/api/designs?id={brand_id}"), &key)
        .await
        .assert_error(404, "Design not found");
    s.stop().await;
}

/// The id of a design `key`'s account creates.
async fn uuid_of_other(s: &TestServer, key: &str) -> String {
    let r = send_json(s, "POST", "/api/designs", key, &json!({"name": "Theirs"})).await;
    assert_eq!(r.status, 201);
    r.json()["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_links_code_encodes_its_short_url_in_its_design() {
    let s = TestServer::start(|c| c.base_url = Some("http://qr.example".to_owned())).await;
    let (account, _, key) = s.account(Plan::Pro);
    let (_, _, other) = s.account(Plan::Pro);
    let design = send_json(
        &s,
        "POST",
        "/api/designs",
        &key,
        &json!({"name": "Navy", "look": {"color": "1a237e", "margin": 2},
                "logo": {"mediaType": "image/png", "data": logo_data()}}),
    )
    .await
    .json();
    let design_id = design["id"].as_str().unwrap().to_owned();
    let link = send_json(
        &s,
        "POST",
        "/api/links",
        &key,
        &json!({"name": "Flyer", "targetUrl": "https://example.com/", "design": design_id}),
    )
    .await
    .json();
    let (id, short_url) = (
        link["id"].as_str().unwrap().to_owned(),
        link["shortUrl"].as_str().unwrap().to_owned(),
    );
    assert!(short_url.starts_with("http://qr.example/r/"), "{short_url}");

    let png = s.get(&format!("/api/links/qr?id={id}"), &key).await;
    assert_eq!(png.status, 200, "{}", png.text());
    assert_eq!(png.header("content-type"), Some("image/png"));
    assert_eq!(decode_png(&png.body), short_url);
    // The same image as generate draws for the same parameters and logo.
    let svg = s
        .get(&format!("/api/links/qr?id={id}&format=svg"), &key)
        .await;
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    let svg_text = svg.text();
    assert!(
        svg_text.to_ascii_lowercase().contains("#1a237e"),
        "the design's colour"
    );
    assert!(
        svg_text.contains("data:image/png;base64,"),
        "the design's logo"
    );
    let over = s
        .get(
            &format!("/api/links/qr?id={id}&format=svg&color=004d40"),
            &key,
        )
        .await
        .text()
        .to_ascii_lowercase();
    assert!(
        over.contains("#004d40") && !over.contains("#1a237e"),
        "the query overrides"
    );
    let pdf = s
        .get(&format!("/api/links/qr?id={id}&format=pdf"), &key)
        .await;
    assert_eq!(pdf.header("content-type"), Some("application/pdf"));
    let large = s
        .get(&format!("/api/links/qr?id={id}&size=800"), &key)
        .await;
    assert_eq!(decode_png(&large.body), short_url);

    // ETag and quota as generate.
    let etag = png.header("etag").unwrap().to_owned();
    let again = s
        .send(
            "GET",
            &format!("/api/links/qr?id={id}"),
            &[("x-api-key", &key), ("if-none-match", &etag)],
            "",
        )
        .await;
    assert_eq!(again.status, 304);
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    let (_, _, free) = s.account(Plan::Free);
    let free_link = send_json(
        &s,
        "POST",
        "/api/links",
        &free,
        &json!({"name": "Free", "targetUrl": "https://example.com/"}),
    )
    .await
    .json();
    let free_id = free_link["id"].as_str().unwrap().to_owned();
    // The test clock stands still: a second passes between requests (Free allows 2 a second).
    s.clock.advance(chrono::Duration::seconds(1));
    let first = s.get(&format!("/api/links/qr?id={free_id}"), &free).await;
    s.clock.advance(chrono::Duration::seconds(1));
    let second = s.get(&format!("/api/links/qr?id={free_id}"), &free).await;
    assert_eq!((first.status, second.status), (200, 200));
    let remaining = |r: &crate::common::Resp| -> i64 {
        r.header("x-ratelimit-remaining").unwrap().parse().unwrap()
    };
    assert_eq!(
        remaining(&first) - 1,
        remaining(&second),
        "each code is counted"
    );
    assert_eq!(
        decode_png(&second.body),
        free_link["shortUrl"].as_str().unwrap()
    );

    // The account's default design, else the plain code.
    let plain = send_json(
        &s,
        "POST",
        "/api/links",
        &key,
        &json!({"name": "Plain", "targetUrl": "https://example.com/"}),
    )
    .await
    .json();
    let plain_id = plain["id"].as_str().unwrap().to_owned();
    let plain_svg = s
        .get(&format!("/api/links/qr?id={plain_id}&format=svg"), &key)
        .await
        .text()
        .to_ascii_lowercase();
    assert!(!plain_svg.contains("#1a237e"), "no default yet: plain");
    send_json(
        &s,
        "PUT",
        &format!("/api/designs?id={design_id}"),
        &key,
        &json!({"isDefault": true}),
    )
    .await;
    let default_svg = s
        .get(&format!("/api/links/qr?id={plain_id}&format=svg"), &key)
        .await
        .text()
        .to_ascii_lowercase();
    assert!(default_svg.contains("#1a237e"), "the default design");

    // A link on a customer's domain encodes https://<domain>/<code>.
    let code = ShortCode::try_from("SUMMER".to_owned()).unwrap();
    let on_domain = Link {
        id: LinkId::random(),
        account_id: account,
        name: LinkName::parse("On domain").unwrap(),
        short_code: code,
        domain: Some(qr_domain::domains::name::DomainName::parse_any("go.brand.test").unwrap()),
        design: None,
        target_url: TargetUrl::parse("https://example.com/").unwrap(),
        scan_count: 0,
        created_at: crate::common::at("2024-01-01T00:00:00Z"),
        updated_at: crate::common::at("2024-01-01T00:00:00Z"),
        tags: Vec::new(),
        options: Default::default(),
    };
    SqliteStore::open(&s.db)
        .unwrap()
        .write(|tx| tx.insert_link(&on_domain))
        .unwrap();
    let domain_png = s
        .get(&format!("/api/links/qr?id={}", on_domain.id), &key)
        .await;
    assert_eq!(domain_png.status, 200, "{}", domain_png.text());
    assert_eq!(decode_png(&domain_png.body), "https://go.brand.test/SUMMER");

    // Every image read by the four decoders (rqrr, rxing, ZXingReader, zbarimg): the design
    // with its logo (PNG at two sizes, SVG) and the domain link.
    let readings = qr_test_support::decoders::decode_all(
        "link codes",
        &[&png, &large, &svg, &domain_png].map(|r| qr_test_support::image_luma(&r.body)),
    );
    let expected = [
        short_url.as_str(),
        &short_url,
        &short_url,
        "https://go.brand.test/SUMMER",
    ];
    for (image, (reading, want)) in readings.iter().zip(expected).enumerate() {
        for (decoder, read) in qr_test_support::decoders::Decoder::ALL.iter().zip(reading) {
            if let Some(read) = read {
                assert_eq!(
                    read.as_deref()
                        .map(String::from_utf8_lossy)
                        .map_err(String::as_str),
                    Ok(want.into()),
                    "image {image} in {decoder}"
                );
            }
        }
    }

    // Refusals.
    s.get(&format!("/api/links/qr?id={id}"), &other)
        .await
        .assert_error(404, "Link not found");
    s.get("/api/links/qr?id=nonsense", &key)
        .await
        .assert_error(404, "Link not found");
    s.get("/api/links/qr", &key)
        .await
        .assert_error(400, "id parameter required");
    s.get(&format!("/api/links/qr?id={id}&data=x"), &key)
        .await
        .assert_error(
            400,
            "data is not a parameter of a link's code: it encodes the link's shortUrl in its design",
        );
    s.get(&format!("/api/links/qr?id={id}&size=49"), &key)
        .await
        .assert_error(400, "Invalid size");
    s.stop().await;
}
