//! The designer for people through the real server: presets and a picked link applied without the script, pictures of every shape and frame (cached, decoding in all four readers), downloads in every format and the contrast advice.

use crate::common;
use common::web::{csrf_in, customer, set_plan, start};
use common::{decode_png, logo_png};
use qr_test_support::decoders::{Decoder, decode_all};

/// Every picture the designer shows: the module shapes, finder shapes and frames, then the
/// presets, as the page links them.
fn swatch_paths(page: &str) -> Vec<String> {
    let mut paths: Vec<String> = page
        .match_indices("src=\"/dashboard/design/swatch/")
        .map(|(at, _)| {
            let rest = &page[at + 5..];
            rest[..rest.find('"').unwrap()].to_owned()
        })
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shapes_frames_and_presets_are_pictures_every_reader_decodes() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "swatches@example.com").await;
    let page = c.get("/dashboard/design").await.text();
    let paths = swatch_paths(&page);
    // 7 module shapes, 3 finder shapes, 4 frames and 6 presets.
    assert_eq!(paths.len(), 7 + 3 + 4 + 6, "{paths:?}");
    for kind in [
        "style/dots",
        "finderStyle/circle",
        "frame/banner-bottom",
        "preset/sunset",
    ] {
        assert!(
            paths.iter().any(|p| p.contains(kind)),
            "no picture of {kind}"
        );
    }
    // Each picture is a radio button's label, with the value's name as text.
    assert!(page.contains("name=\"style\" value=\"classy-rounded\""));
    let mut images = Vec::new();
    for path in &paths {
        let r = c.get(path).await;
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("image/png"));
        assert_eq!(r.header("cache-control"), Some("private, max-age=86400"));
        let etag = r.header("etag").expect("an ETag").to_owned();
        let again = c.get_with(path, "if-none-match", &etag).await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty());
        images.push(qr_test_support::png_luma(&r.body));
    }
    // Every picture scans in the four readers (the outside ones where installed): a preset is
    // only offered if its look reads everywhere.
    for (path, readings) in paths.iter().zip(decode_all("designer swatches", &images)) {
        for (decoder, reading) in Decoder::ALL.iter().zip(readings) {
            if let Some(reading) = reading {
                assert_eq!(
                    reading
                        .as_deref()
                        .map(String::from_utf8_lossy)
                        .ok()
                        .as_deref(),
                    Some("https://qr.example/r/7K3M9Q"),
                    "{path} in {}",
                    decoder.name()
                );
            }
        }
    }
    for missing in [
        "/dashboard/design/swatch/style/stars.png",
        "/dashboard/design/swatch/gradient/linear.png",
        "/dashboard/design/swatch/preset/none.png",
        "/dashboard/design/swatch/style/dots.svg",
    ] {
        assert_eq!(c.get(missing).await.status, 404, "{missing}");
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presets_links_and_downloads_work_without_the_script() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "presets@example.com").await;
    let csrf = c.csrf("/dashboard/links").await;
    let created = c
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf),
                ("name", "Menu card"),
                ("targetUrl", "https://example.com/menu"),
            ],
        )
        .await;
    assert!(created.status < 400, "{}", created.text());
    let page = c.get("/dashboard/design").await.text();
    let csrf = csrf_in(&page);
    // The picker's option: `<option value="ID" data-url="SHORT_URL"`.
    let option = page
        .split("<option value=\"")
        .find(|o| o.contains("\" data-url=\""))
        .expect("the link in the picker");
    let link_id = option[..option.find('"').unwrap()].to_owned();
    let short_url = {
        let at = option.find("data-url=\"").unwrap() + 10;
        option[at..at + option[at..].find('"').unwrap()].to_owned()
    };
    assert!(short_url.contains("/r/"), "{short_url}");
    // A preset (the button's value) sets its looks; a picked link is the content.
    let applied = c
        .post_multipart(
            "/dashboard/design",
            &[
                ("csrf", &csrf),
                ("data", "typed text"),
                ("link", &link_id),
                ("style", "square"),
                ("preset", "dots"),
            ],
            None,
        )
        .await;
    let html = applied.text();
    assert_eq!(applied.status, 200, "{html}");
    assert!(
        html.contains("name=\"style\" value=\"dots\" checked"),
        "the preset's style"
    );
    assert!(html.contains("name=\"finderStyle\" value=\"circle\" checked"));
    assert!(
        html.contains(&format!(">{short_url}</textarea>")),
        "the link's address"
    );
    let preview = c
        .post_multipart(
            "/dashboard/design/preview",
            &[
                ("csrf", &csrf),
                ("data", "typed text"),
                ("link", &link_id),
                ("preset", "dots"),
            ],
            None,
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    assert_eq!(decode_png(&preview.body), short_url);
    // Another account's link is not found.
    let mut other = customer(&s, &smtp, "other@example.com").await;
    let other_csrf = other.csrf("/dashboard/design").await;
    let refused = other
        .post_multipart(
            "/dashboard/design/preview",
            &[("csrf", &other_csrf), ("link", &link_id)],
            None,
        )
        .await;
    assert_eq!(
        (refused.status, refused.text().as_str()),
        (404, "Link not found")
    );
    // Every format from the one form: the download button's value.
    for (format, starts) in [
        ("png", &b"\x89PNG"[..]),
        ("svg", b"<svg"),
        ("pdf", b"%PDF"),
        ("eps", b"%!PS"),
    ] {
        let file = c
            .post_multipart(
                "/dashboard/design/download",
                &[
                    ("csrf", &csrf),
                    ("data", "https://example.com/d"),
                    ("format", "png"),
                    ("download", format),
                ],
                None,
            )
            .await;
        assert_eq!(file.status, 200, "{format}");
        assert_eq!(
            file.header("content-disposition"),
            Some(format!("attachment; filename=\"qr-code.{format}\"").as_str())
        );
        assert!(file.body.starts_with(starts), "{format}");
    }
    // A logo's code on Pro: raised to H by the server too, and it scans.
    set_plan(&s, "presets@example.com", qr_domain::Plan::Pro);
    let logo = c
        .post_multipart(
            "/dashboard/design/preview",
            &[
                ("csrf", &csrf),
                ("data", "https://example.com/logo"),
                ("errorCorrection", "L"),
                ("logoSize", "25"),
            ],
            Some(("logo", &logo_png())),
        )
        .await;
    assert_eq!(logo.status, 200, "{}", logo.text());
    assert_eq!(decode_png(&logo.body), "https://example.com/logo");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn low_contrast_and_inverted_colours_get_advice() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "contrast@example.com").await;
    let csrf = c.csrf("/dashboard/design").await;
    let grey = [
        ("csrf", csrf.as_str()),
        ("data", "https://example.com/grey"),
        ("color", "#8a8a8a"),
    ];
    let live = c
        .post_multipart("/dashboard/design/preview", &grey, None)
        .await;
    assert_eq!(live.status, 200);
    assert_eq!(
        live.header("x-design-advice"),
        Some(
            "Low contrast (3.45:1): the code may not scan in dim light or on worn prints; aim for at least 4.50:1."
        )
    );
    let page = c
        .post_multipart("/dashboard/design", &grey, None)
        .await
        .text();
    assert!(page.contains("<p class=\"warning\" id=\"contrast-warning\">Low contrast (3.45:1)"));
    let fine = c
        .post_multipart(
            "/dashboard/design/preview",
            &[("csrf", &csrf), ("data", "https://example.com/black")],
            None,
        )
        .await;
    assert_eq!(fine.header("x-design-advice"), None);
    let page = c
        .post_multipart(
            "/dashboard/design",
            &[("csrf", &csrf), ("data", "https://example.com/black")],
            None,
        )
        .await
        .text();
    assert!(page.contains("<p class=\"warning\" id=\"contrast-warning\" hidden>"));
    s.stop().await;
}
