//! `qr print` end to end on a database file: an account's links by id, by tag and all on label sheets (each cell decoded after pdftoppm), data items from a CSV file on a custom grid, and the refusals (plan, another account's link, usage errors).

use qr_generate::print::LabelStock;
use serde_json::Value;

use crate::common::{Workspace, read};

const PRO: &str = "printer@example.com";
const BASE: &str = "http://qr.example";

/// A link of `email`'s: its id and short URL.
fn link(ws: &Workspace, email: &str, name: &str, tag: Option<&str>) -> (String, String) {
    let url = format!("https://example.com/{name}");
    let mut args = vec![
        "links", "create", "--email", email, "--name", name, "--url", &url, "--json",
    ];
    if let Some(tag) = tag {
        args.extend(["--tag", tag]);
    }
    let created: Value = serde_json::from_str(&ws.ok(&args)).unwrap();
    let code = created["shortCode"].as_str().unwrap().to_owned();
    (
        created["id"].as_str().unwrap().to_owned(),
        format!("{BASE}/r/{code}"),
    )
}

/// The codes in the first `cells` cells of an L7160 sheet's first page, or nothing when
/// pdftoppm is missing.
fn cells(pdf: &[u8], cells: usize) -> Option<Vec<Option<String>>> {
    let grid = LabelStock::L7160.grid();
    let cells: Vec<_> = (0..cells).map(|i| grid.cell(i)).collect();
    qr_test_support::read_pdf_cells(pdf, &cells)
}

#[test]
fn links_and_items_print_on_label_sheets() {
    let ws = Workspace::new();
    ws.create_key(PRO, "pro");
    ws.create_key("free@example.com", "free");
    ws.create_key("other@example.com", "pro");
    let (menu, menu_url) = link(&ws, PRO, "menu", Some("tables"));
    let (wine, wine_url) = link(&ws, PRO, "wine", None);
    let (theirs, _) = link(&ws, "other@example.com", "theirs", None);
    let out = ws.path("sheet.pdf");
    let out_arg = out.to_str().unwrap();

    // By id, in the order given, with the short URLs under the codes.
    ws.ok(&[
        "print",
        "--email",
        PRO,
        "--id",
        &wine,
        "--id",
        &menu,
        "--base-url",
        BASE,
        "-o",
        out_arg,
    ]);
    let pdf = read(&out);
    assert!(pdf.starts_with(b"%PDF-1.4"));
    if let Some(read) = cells(&pdf, 3) {
        assert_eq!(
            read,
            vec![Some(wine_url.clone()), Some(menu_url.clone()), None]
        );
    }
    // By tag, with names and crop marks; all links.
    ws.ok(&[
        "print",
        "--email",
        PRO,
        "--tag",
        "tables",
        "--caption",
        "name",
        "--crop-marks",
        "--base-url",
        BASE,
        "-o",
        out_arg,
    ]);
    if let Some(read) = cells(&read(&out), 2) {
        assert_eq!(read, vec![Some(menu_url.clone()), None]);
    }
    ws.ok(&[
        "print",
        "--email",
        PRO,
        "--all",
        "--base-url",
        BASE,
        "-o",
        out_arg,
    ]);
    if let Some(read) = cells(&read(&out), 3) {
        let mut found: Vec<_> = read[..2].to_vec();
        found.sort();
        let mut expected = vec![Some(menu_url.clone()), Some(wine_url.clone())];
        expected.sort();
        assert_eq!((found, read[2].clone()), (expected, None));
    }

    // Data items from a CSV file on a custom Letter grid.
    let items = ws.path("items.csv");
    std::fs::write(&items, "data,color\nBOX-1,1a237e\nBOX-2,\nBOX-3,004d40\n").unwrap();
    ws.ok(&[
        "print",
        "--email",
        PRO,
        "--items",
        items.to_str().unwrap(),
        "--paper",
        "letter",
        "--columns",
        "3",
        "--rows",
        "5",
        "--gutter-x",
        "4",
        "-o",
        out_arg,
    ]);
    let text = String::from_utf8_lossy(&read(&out)).into_owned();
    assert!(text.contains("/MediaBox[0 0 612 792]"), "Letter");

    // Refusals: the plan (exit 1), another account's link (exit 1), usage errors (exit 2).
    let refused = |args: &[&str], code: i32, message: &str| {
        let output = ws.qr(args).output().unwrap();
        assert_eq!(output.status.code(), Some(code), "{args:?}: {output:?}");
        // The CLI starts its messages in lower case (`qr: error: link not found`).
        let stderr = String::from_utf8_lossy(&output.stderr).to_lowercase();
        assert!(
            stderr.contains(&message.to_lowercase()),
            "{args:?}: {stderr}"
        );
    };
    refused(
        &[
            "print",
            "--email",
            "free@example.com",
            "--items",
            items.to_str().unwrap(),
            "-o",
            out_arg,
        ],
        1,
        "Batch generation requires Pro plan",
    );
    refused(
        &[
            "print",
            "--email",
            PRO,
            "--id",
            &theirs,
            "--base-url",
            BASE,
            "-o",
            out_arg,
        ],
        1,
        "Link not found",
    );
    refused(
        &["print", "--email", PRO, "--all", "-o", out_arg],
        2,
        "printing links needs --base-url",
    );
    refused(
        &[
            "print",
            "--email",
            PRO,
            "--all",
            "--layout",
            "L7160",
            "--paper",
            "letter",
            "--base-url",
            BASE,
            "-o",
            out_arg,
        ],
        2,
        "Invalid paper: L7160 labels come on a4 paper, not letter",
    );
    refused(
        &[
            "print",
            "--email",
            PRO,
            "--all",
            "--layout",
            "custom",
            "--base-url",
            BASE,
            "-o",
            out_arg,
        ],
        2,
        "--layout custom needs --columns and --rows",
    );
}
