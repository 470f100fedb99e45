//! `qr designs` end to end on a database file: creating with a look and a logo within the plan, listing as JSON, changing, the default, a link naming a design (`qr links create/update --design`), `qr links code` drawing the link's code in it, and deletion refused while the link names it.

use serde_json::Value;

use crate::common::{Workspace, decode_image, read};

const PRO: &str = "designer@example.com";

/// A 1x1 PNG.
const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

#[test]
fn designs_are_created_listed_changed_named_by_links_and_deleted() {
    let ws = Workspace::new();
    ws.create_key(PRO, "pro");
    ws.create_key("free@example.com", "free");
    let logo = ws.path("logo.png");
    std::fs::write(&logo, PIXEL_PNG).unwrap();
    let logo = logo.to_str().unwrap();

    // A logo needs Pro (exit 1); a look generate refuses is a usage error (exit 2).
    let free = ws
        .qr(&[
            "designs",
            "create",
            "Logo",
            "--email",
            "free@example.com",
            "--logo",
            logo,
        ])
        .output()
        .unwrap();
    assert_eq!(free.status.code(), Some(1), "{free:?}");
    assert!(String::from_utf8_lossy(&free.stderr).contains("Logos require Pro plan"));
    let bad = ws
        .qr(&[
            "designs",
            "create",
            "Bad",
            "--email",
            PRO,
            "--look",
            "color=#000",
        ])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("Invalid color"));

    let created: Value = serde_json::from_str(&ws.ok(&[
        "designs",
        "create",
        "Brand",
        "--email",
        PRO,
        "--look",
        "color=1a237e",
        "--look",
        "style=dots",
        "--logo",
        logo,
        "--default",
        "--json",
    ]))
    .unwrap();
    assert_eq!(created["name"], "Brand");
    assert_eq!(created["look"]["color"], "1a237e");
    assert_eq!(created["logo"]["mediaType"], "image/png");
    assert_eq!(created["isDefault"], true);
    let id = created["id"].as_str().unwrap().to_owned();

    let list: Value =
        serde_json::from_str(&ws.ok(&["designs", "list", "--email", PRO, "--json"])).unwrap();
    assert_eq!(list["designs"].as_array().unwrap().len(), 1);
    let shown = ws.ok(&["designs", "show", &id, "--email", PRO]);
    assert!(shown.contains("color=1a237e style=dots"), "{shown}");
    let changed: Value = serde_json::from_str(&ws.ok(&[
        "designs",
        "set",
        &id,
        "--email",
        PRO,
        "--name",
        "Brand 2",
        "--no-logo",
        "--json",
    ]))
    .unwrap();
    assert_eq!(changed["name"], "Brand 2");
    assert_eq!(changed["logo"], Value::Null);
    ws.ok(&["designs", "default", "--none", "--email", PRO]);
    let shown: Value =
        serde_json::from_str(&ws.ok(&["designs", "show", &id, "--email", PRO, "--json"])).unwrap();
    assert_eq!(shown["isDefault"], false);

    // A link names it; another account cannot see it.
    let link = ws.ok(&[
        "links",
        "create",
        "--email",
        PRO,
        "--name",
        "Flyer",
        "--url",
        "https://example.com/",
        "--design",
        &id,
        "--json",
    ]);
    let link: Value = serde_json::from_str(&link).unwrap();
    assert_eq!(link["design"], id.as_str());
    let theirs = ws
        .qr(&["designs", "show", &id, "--email", "free@example.com"])
        .output()
        .unwrap();
    assert_eq!(theirs.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&theirs.stderr).contains("Design not found"));
    let refused = ws
        .qr(&["designs", "delete", &id, "--email", PRO])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("Design Brand 2 is used by 1 link; change or delete them first"),
        "{refused:?}"
    );
    let link_id = link["id"].as_str().unwrap();

    // `qr links code`: the short URL in the design (SVG shows its colour), a flag over it.
    let short_url = format!(
        "https://q.example/r/{}",
        link["shortCode"].as_str().unwrap()
    );
    let svg = ws.path("flyer.svg");
    let svg_path = svg.to_str().unwrap();
    let base = ["--base-url", "https://q.example/"];
    ws.ok(&[&["links", "code", link_id, "-o", svg_path][..], &base].concat());
    let text = String::from_utf8(read(&svg)).unwrap();
    assert!(text.to_ascii_lowercase().contains("#1a237e"), "{text}");
    assert_eq!(decode_image(&read(&svg)), short_url);
    let png = ws.path("flyer.png");
    let png_path = png.to_str().unwrap();
    ws.ok(&[
        &[
            "links", "code", link_id, "-o", png_path, "--color", "000000",
        ][..],
        &base,
    ]
    .concat());
    assert_eq!(decode_image(&read(&png)), short_url);
    let no_base = ws
        .qr(&["links", "code", link_id, "-o", png_path])
        .env_remove("QR_BASE_URL")
        .output()
        .unwrap();
    assert_eq!(no_base.status.code(), Some(2), "{no_base:?}");

    ws.ok(&["links", "update", link_id, "--email", PRO, "--no-design"]);
    ws.ok(&["designs", "delete", &id, "--email", PRO]);
    let list: Value =
        serde_json::from_str(&ws.ok(&["designs", "list", "--email", PRO, "--json"])).unwrap();
    assert_eq!(list["designs"], serde_json::json!([]));
}
