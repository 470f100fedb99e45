//! The dashboard's link forms through the real server: every campaign field set, shown, cleared and refused by field as the API validates it, the plan's gates, and the list's badges, checked through the API and the short URL.

use crate::common;

use common::web::{Client, create_key, csrf_in, customer, element_text, start};
use serde_json::json;

/// The link form's campaign fields as a browser posts them: `base` plus `extra`, where a field of
/// `extra` replaces the one of the same name in `base`.
fn campaign_form<'a>(
    base: &[(&'a str, &'a str)],
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut fields: Vec<(&str, &str)> = base
        .iter()
        .filter(|(k, _)| !extra.iter().any(|(e, _)| e == k))
        .copied()
        .collect();
    fields.extend_from_slice(extra);
    fields
}

/// Posts `fields` and expects 422 with `message` in the element `id`, which a field names in its
/// `aria-describedby`.
async fn refused(c: &mut Client, path: &str, fields: &[(&str, &str)], id: &str, message: &str) {
    let r = c.post(path, fields).await;
    let html = r.text();
    assert_eq!(r.status, 422, "{fields:?}: {html}");
    let shown =
        element_text(&html, id).unwrap_or_else(|| panic!("no #{id} for {fields:?}: {html}"));
    assert!(
        shown.contains(message),
        "#{id}: {shown:?}, expected {message:?}"
    );
    assert!(
        html.contains(&format!("aria-describedby=\"{id}\"")) || html.contains(&format!(" {id}\"")),
        "no field is described by #{id}"
    );
    // A group's error (of every rule, of the split) describes its fieldset; a field's marks it.
    assert!(
        html.contains("aria-invalid=\"true\"")
            || id == "link-rules-error"
            || id == "link-variants-error"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_forms_set_every_campaign_field_as_the_api_does() {
    use qr_domain::Plan;
    let (s, smtp) = start(|c| c.self_service_plans = vec![Plan::Free, Plan::Pro]).await;
    let mut c = customer(&s, &smtp, "campaign@example.com").await;
    let (_, key) = create_key(&mut c, "checks").await;
    let api_link = |code: &str| format!("/api/links?search={code}");

    // Free: the gated fields are disabled with the plan that has them; posted anyway, the
    // domain's 403 message shows by the field.
    let page = c.get("/dashboard/links").await.text();
    assert!(
        page.contains("<details class=\"campaign\" id=\"campaign\">"),
        "closed by default"
    );
    assert!(page.contains("id=\"link-short-code-plan\">Needs the Starter plan."));
    assert!(page.contains("id=\"link-rules\" disabled"));
    assert!(page.contains("id=\"link-password-plan\">Needs the Pro plan."));
    let csrf = csrf_in(&page);
    let free = [
        ("csrf", csrf.as_str()),
        ("name", "Free flyer"),
        ("targetUrl", "https://shop.example/free"),
        ("campaign", "1"),
    ];
    refused(
        &mut c,
        "/dashboard/links",
        &campaign_form(
            &free,
            &[
                ("rules[0].when.device", "mobile"),
                ("rules[0].targetUrl", "https://m.example"),
            ],
        ),
        "link-rules-error",
        "rules requires Pro plan",
    )
    .await;
    refused(
        &mut c,
        "/dashboard/links",
        &campaign_form(&free, &[("shortCode", "free-code")]),
        "link-short-code-error",
        "shortCode requires Starter plan",
    )
    .await;
    // What every plan has: tags, pause, UTM, query forwarding.
    let r = c
        .post(
            "/dashboard/links",
            &campaign_form(
                &free,
                &[
                    ("tags", "a, b"),
                    ("disabled", "true"),
                    ("utm.source", "flyer"),
                    ("forwardQuery", "true"),
                ],
            ),
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let list = c.get("/dashboard/links").await.text();
    assert!(
        list.contains("<span class=\"pill warn\">paused</span>"),
        "{list}"
    );
    assert!(list.contains("<span class=\"pill tag\">b</span>"));

    // Pro: every field at once, checked through the API.
    let r = c
        .post(
            "/dashboard/account/plan",
            &[("csrf", &csrf), ("plan", "pro")],
        )
        .await;
    assert_eq!(r.header("location"), Some("/dashboard/account?done=plan"));
    let long_utm = "u".repeat(201);
    let base = [
        ("csrf", csrf.as_str()),
        ("name", "Spring flyer"),
        ("targetUrl", "https://shop.example/spring"),
        ("campaign", "1"),
        ("shortCode", "Spring-25"),
        ("tags", "print, spring,"),
        ("validFrom", "2024-05-01T08:00"),
        ("validUntil", "2030-01-01T00:00"),
        ("maxScans", "500"),
        ("expiredUrl", "https://shop.example/ended"),
        ("password", "open sesame"),
        ("utm.source", "poster"),
        ("utm.medium", "print"),
        ("utm.campaign", "spring"),
        ("utm.term", "shoes"),
        ("utm.content", "a4"),
        ("forwardQuery", "true"),
        ("rules[0].when.device", "mobile"),
        ("rules[0].when.os", "ios"),
        ("rules[0].when.country", "de"),
        ("rules[0].when.language", "de"),
        ("rules[0].targetUrl", "https://shop.example/app"),
        ("rules[1].when.device", ""),
        ("rules[1].targetUrl", ""),
        ("rules[2].when.country", "at"),
        ("rules[2].targetUrl", "https://shop.example/at"),
        ("variants[0].targetUrl", "https://shop.example/a"),
        ("variants[0].weight", "1"),
        ("variants[1].targetUrl", "https://shop.example/b"),
        ("variants[1].weight", "3"),
        ("variants[2].targetUrl", ""),
        ("variants[2].weight", ""),
    ];
    let r = c.post("/dashboard/links", &base).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let links = s.get(&api_link("Spring-25"), &key).await.json();
    let link = &links["links"][0];
    for (field, want) in [
        ("shortCode", json!("Spring-25")),
        ("tags", json!(["print", "spring"])),
        ("validFrom", json!("2024-05-01T08:00:00Z")),
        ("validUntil", json!("2030-01-01T00:00:00Z")),
        ("maxScans", json!(500)),
        ("expiredUrl", json!("https://shop.example/ended")),
        ("disabled", json!(false)),
        ("hasPassword", json!(true)),
        (
            "utm",
            json!({"source": "poster", "medium": "print", "campaign": "spring", "term": "shoes", "content": "a4"}),
        ),
        ("forwardQuery", json!(true)),
        (
            "rules",
            json!([
                {"when": {"device": "mobile", "os": "ios", "country": "DE", "language": "de"}, "targetUrl": "https://shop.example/app"},
                {"when": {"country": "AT"}, "targetUrl": "https://shop.example/at"}
            ]),
        ),
        (
            "variants",
            json!([{"targetUrl": "https://shop.example/a", "weight": 1}, {"targetUrl": "https://shop.example/b", "weight": 3}]),
        ),
    ] {
        assert_eq!(link[field], want, "{field} of {link}");
    }
    let id = link["id"].as_str().unwrap().to_owned();
    let code = link["shortCode"].as_str().unwrap().to_owned();
    // The password works at the short URL.
    assert_eq!(
        s.send("GET", &format!("/r/{code}"), &[], "").await.status,
        200
    );
    let unlocked = s
        .send(
            "POST",
            &format!("/r/{code}"),
            &[("content-type", "application/x-www-form-urlencoded")],
            "password=open+sesame",
        )
        .await;
    assert_eq!(unlocked.status, 303);
    let to = unlocked.header("location").unwrap();
    assert!(
        to.starts_with("https://shop.example/a?utm_source=poster")
            || to.starts_with("https://shop.example/b?utm_source=poster"),
        "{to}"
    );

    // The edit page shows every value (never the password) and two blank rows under the rules.
    let path = format!("/dashboard/links/{id}/edit");
    let edit = c.get(&path).await.text();
    for shown in [
        "<details class=\"campaign\" id=\"campaign\" open>",
        "name=\"shortCode\" value=\"Spring-25\"",
        "name=\"tags\" value=\"print, spring\"",
        "name=\"validFrom\" type=\"datetime-local\" value=\"2024-05-01T08:00\"",
        "name=\"maxScans\" inputmode=\"numeric\" value=\"500\"",
        "id=\"link-password-state\">A password is set.",
        "name=\"rules[1].when.country\" value=\"AT\"",
        "<option value=\"ios\" selected>iOS</option>",
        "name=\"rules[3].targetUrl\" type=\"text\" inputmode=\"url\" autocomplete=\"off\" spellcheck=\"false\" maxlength=\"2048\" value=\"\"",
        "name=\"variants[1].weight\" inputmode=\"numeric\" value=\"3\"",
        "name=\"utm.term\" value=\"shoes\"",
    ] {
        assert!(edit.contains(shown), "{shown} not in {edit}");
    }
    assert!(!edit.contains("name=\"rules[4]") && !edit.contains("open sesame"));

    // Errors, each by its field, with 422; the rows numbered as the filled rows.
    let other = c
        .post(
            "/dashboard/links",
            &campaign_form(&free, &[("shortCode", "taken-1")]),
        )
        .await;
    assert_eq!(other.status, 303);
    let edit_base = campaign_form(&base, &[("name", "Spring flyer")]);
    let tag = format!("ok, {}", "t".repeat(51));
    for (extra, id, message) in [
        (
            vec![("shortCode", "ab")],
            "link-short-code-error",
            "It must be 3 to 64 characters of letters",
        ),
        (
            vec![("shortCode", "TAKEN-1")],
            "link-short-code-error",
            "The code TAKEN-1 is already taken; choose another",
        ),
        (
            vec![("tags", tag.as_str())],
            "link-tags-error",
            "A tag must have 1 to 50 characters (got 51)",
        ),
        (
            vec![("validFrom", "2031-01-01T00:00")],
            "link-valid-until-error",
            "It must be after the start",
        ),
        (
            vec![("validFrom", "soon")],
            "link-valid-from-error",
            "It must be an ISO 8601 UTC timestamp",
        ),
        (
            vec![("maxScans", "0")],
            "link-max-scans-error",
            "It must be an integer from 1 to 1000000000000",
        ),
        (
            vec![("expiredUrl", "ftp://x")],
            "link-expired-url-error",
            "The URL must use http or https, not ftp",
        ),
        (
            vec![("password", "abc")],
            "link-password-error",
            "It must have 4 to 128 characters (got 3)",
        ),
        (
            vec![("utm.source", long_utm.as_str())],
            "link-utm-source-error",
            "It must have 1 to 200 characters (got 201)",
        ),
        (
            vec![
                ("rules[0].when.device", ""),
                ("rules[0].when.os", ""),
                ("rules[0].when.country", ""),
                ("rules[0].when.language", ""),
                ("rules[0].targetUrl", ""),
                ("rules[2].when.country", "Germany"),
            ],
            "link-rules-0-country-error",
            "Rule 1: It must be a two-letter ISO 3166-1 country code",
        ),
        (
            vec![("rules[2].when.country", "")],
            "link-rules-1-error",
            "Rule 2: It must be an object with at least one of device",
        ),
        (
            vec![("rules[2].targetUrl", "javascript:alert(1)")],
            "link-rules-1-target-error",
            "must not use javascript",
        ),
        (
            vec![("variants[1].targetUrl", ""), ("variants[1].weight", "")],
            "link-variants-error",
            "A split has 2 to 10 variants (got 1)",
        ),
        (
            vec![("variants[1].weight", "x")],
            "link-variants-1-weight-error",
            "It must be an integer from 1 to 1000",
        ),
        (vec![("name", "")], "name-error", "Name must not be empty"),
    ] {
        refused(
            &mut c,
            &path,
            &campaign_form(&edit_base, &extra),
            id,
            message,
        )
        .await;
    }
    // A refused form shows what was typed, the password excepted.
    let r = c
        .post(
            &path,
            &campaign_form(
                &edit_base,
                &[("maxScans", "many"), ("password", "secret word")],
            ),
        )
        .await;
    assert_eq!(r.status, 422);
    let html = r.text();
    assert!(html.contains("value=\"many\"") && !html.contains("secret word"));
    // Without the session's CSRF token nothing changes.
    let r = c
        .post(
            &path,
            &campaign_form(&edit_base, &[("csrf", "0"), ("disabled", "true")]),
        )
        .await;
    assert_eq!(r.status, 403);

    // Removing and clearing: the form as the browser sends it with boxes unticked.
    let cleared = campaign_form(
        &base,
        &[
            ("tags", ""),
            ("validUntil", ""),
            ("maxScans", ""),
            ("expiredUrl", ""),
            ("password", ""),
            ("removePassword", "true"),
            ("disabled", "true"),
            ("utm.source", ""),
            ("utm.medium", ""),
            ("utm.campaign", ""),
            ("utm.term", ""),
            ("utm.content", ""),
            ("rules[0].when.device", ""),
            ("rules[0].when.os", ""),
            ("rules[0].when.country", ""),
            ("rules[0].when.language", ""),
            ("rules[0].targetUrl", ""),
            ("variants[0].targetUrl", ""),
            ("variants[0].weight", ""),
            ("variants[1].targetUrl", ""),
            ("variants[1].weight", ""),
        ],
    )
    .into_iter()
    .filter(|(k, _)| *k != "forwardQuery")
    .collect::<Vec<_>>();
    let r = c.post(&path, &cleared).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let link = &s.get(&api_link("Spring-25"), &key).await.json()["links"][0];
    for (field, want) in [
        ("tags", json!([])),
        ("validFrom", json!("2024-05-01T08:00:00Z")),
        ("validUntil", json!(null)),
        ("maxScans", json!(null)),
        ("expiredUrl", json!(null)),
        ("disabled", json!(true)),
        ("hasPassword", json!(false)),
        ("utm", json!(null)),
        ("forwardQuery", json!(false)),
        (
            "rules",
            json!([{"when": {"country": "AT"}, "targetUrl": "https://shop.example/at"}]),
        ),
        ("variants", json!([])),
    ] {
        assert_eq!(link[field], want, "{field} of {link}");
    }
    let list = c.get("/dashboard/links?q=spring").await.text();
    assert!(
        list.contains("<span class=\"pill warn\">paused</span>")
            && list.contains("<span class=\"pill\">scheduled</span>")
    );
    assert!(!list.contains("<span class=\"pill\">password</span>"));
    // A post with only name and target (no `campaign` field) changes nothing else.
    let r = c
        .post(
            &path,
            &[
                ("csrf", &csrf),
                ("name", "Renamed"),
                ("targetUrl", "https://shop.example/spring"),
            ],
        )
        .await;
    assert_eq!(r.status, 303);
    let link = &s.get(&api_link("Spring-25"), &key).await.json()["links"][0];
    assert_eq!(
        (link["name"].as_str(), link["disabled"].as_bool()),
        (Some("Renamed"), Some(true))
    );
    s.stop().await;
}
