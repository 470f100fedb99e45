//! `POST /api/print` through real requests: links by id, tag and all (each code decoded from its cell after pdftoppm, in its design), data items on a custom grid, and every refusal (400 body and bounds, 403 plan, 404 another account's link, 429 the batch rate).

use qr_domain::Plan;
use qr_generate::print::LabelStock;
use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

async fn print(s: &TestServer, key: &str, body: &Value) -> Resp {
    s.send(
        "POST",
        "/api/print",
        &[("x-api-key", key), ("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

async fn link(s: &TestServer, key: &str, body: Value) -> Value {
    let r = s
        .send(
            "POST",
            "/api/links",
            &[("x-api-key", key), ("content-type", "application/json")],
            body.to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

/// The codes read from the first cells of an L7160 sheet's first page (`None`: a cell without
/// a code), or nothing when pdftoppm is missing.
fn read_l7160_cells(pdf: &[u8], cells: usize) -> Option<Vec<Option<String>>> {
    let grid = LabelStock::L7160.grid();
    let cells: Vec<_> = (0..cells).map(|i| grid.cell(i)).collect();
    qr_test_support::read_pdf_cells(pdf, &cells)
}

#[tokio::test]
async fn links_print_on_label_sheets_in_their_designs() {
    let s = TestServer::start(|c| c.base_url = Some("http://qr.example".to_owned())).await;
    let (_, _, key) = s.account(Plan::Pro);
    let (_, _, other) = s.account(Plan::Pro);
    let design = s
        .send(
            "POST",
            "/api/designs",
            &[("x-api-key", &key), ("content-type", "application/json")],
            json!({"name": "Dots", "look": {"style": "dots", "color": "1a237e"}}).to_string(),
        )
        .await
        .json();
    let first = link(
        &s,
        &key,
        json!({"name": "Menu", "targetUrl": "https://example.com/menu", "tags": ["spring"],
               "design": design["id"]}),
    )
    .await;
    let second = link(
        &s,
        &key,
        json!({"name": "Wine list", "targetUrl": "https://example.com/wine"}),
    )
    .await;
    let third = link(
        &s,
        &key,
        json!({"name": "Terrace", "targetUrl": "https://example.com/terrace", "tags": ["spring"]}),
    )
    .await;
    let short = |l: &Value| l["shortUrl"].as_str().unwrap().to_owned();
    let id = |l: &Value| l["id"].as_str().unwrap().to_owned();

    // By id, in the order given.
    let r = print(&s, &key, &json!({"links": [id(&third), id(&first)]})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/pdf"));
    assert_eq!(
        r.header("content-disposition"),
        Some("attachment; filename=qrcodes-L7160.pdf")
    );
    assert!(r.body.starts_with(b"%PDF-1.4"));
    let text = String::from_utf8_lossy(&r.body);
    assert!(
        text.contains("/D 7 0 R") || text.contains("/Type/XObject/Subtype/Form"),
        "the dots design's forms"
    );
    if let Some(cells) = read_l7160_cells(&r.body, 3) {
        assert_eq!(cells, vec![Some(short(&third)), Some(short(&first)), None]);
    }

    // By tag and all links (oldest first: links made in the same instant in any order), with
    // crop marks and names.
    let sorted = |cells: &[Option<String>]| {
        let mut cells = cells.to_vec();
        cells.sort();
        cells
    };
    let tagged = print(&s, &key, &json!({"tag": "spring", "caption": "name"})).await;
    assert_eq!(tagged.status, 200, "{}", tagged.text());
    if let Some(cells) = read_l7160_cells(&tagged.body, 3) {
        assert_eq!(cells[2], None);
        assert_eq!(
            sorted(&cells[..2]),
            sorted(&[Some(short(&first)), Some(short(&third))])
        );
    }
    let all = print(&s, &key, &json!({"allLinks": true, "cropMarks": true})).await;
    assert_eq!(all.status, 200, "{}", all.text());
    if let Some(cells) = read_l7160_cells(&all.body, 4) {
        assert_eq!(cells[3], None);
        assert_eq!(
            sorted(&cells[..3]),
            sorted(&[&first, &second, &third].map(|l| Some(short(l))))
        );
    }

    // Another account's link is not found; a tag no link carries prints nothing.
    print(&s, &other, &json!({"links": [id(&first)]}))
        .await
        .assert_error(404, "Link not found");
    print(&s, &key, &json!({"links": ["not-an-id"]}))
        .await
        .assert_error(404, "Link not found");
    print(&s, &key, &json!({"tag": "winter"}))
        .await
        .assert_error(400, "Nothing to print: the selection holds no links");
    s.stop().await;
}

#[tokio::test]
async fn data_items_print_on_a_custom_grid() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    let items: Vec<Value> = (0..12)
        .map(|i| json!({"data": format!("ITEM-{i}"), "caption": format!("Box {i}")}))
        .collect();
    let r = print(
        &s,
        &key,
        &json!({"layout": "custom", "paper": "letter",
                "grid": {"columns": 3, "rows": 4, "marginX": 12.5, "gutterX": 5, "gutterY": 5},
                "items": items, "defaults": {"color": "004d40"}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.header("content-disposition"),
        Some("attachment; filename=qrcodes-custom.pdf")
    );
    let text = String::from_utf8_lossy(&r.body);
    assert!(text.contains("/MediaBox[0 0 612 792]"), "Letter");
    assert!(text.contains("/Count 1>>"));
    s.stop().await;
}

#[tokio::test]
async fn print_is_refused_with_the_batch_rules() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, free) = s.account(Plan::Free);
    let (_, _, pro) = s.account(Plan::Pro);
    let one = json!({"items": [{"data": "a"}]});
    print(&s, &free, &one)
        .await
        .assert_error(403, "Batch generation requires Pro plan");
    let many: Vec<Value> = (0..101).map(|i| json!({"data": i.to_string()})).collect();
    print(&s, &pro, &json!({"items": many}))
        .await
        .assert_error(400, "Maximum 100 items allowed");
    for (body, message) in [
        (
            json!({}),
            "Give exactly one of items, links, tag or allLinks",
        ),
        (
            json!({"layout": "L7163", "paper": "letter", "allLinks": true}),
            "Invalid paper: L7163 labels come on a4 paper, not letter",
        ),
        (
            json!({"layout": "custom", "grid": {"columns": 2, "rows": 30}, "allLinks": true}),
            "Invalid grid.rows: it must be a whole number from 1 to 20",
        ),
        (
            json!({"items": [{"data": "a"}, {"data": "b", "color": "fff"}]}),
            "Invalid items[1]: Contrast too low: color on the background is 1:1, at least 3:1 is needed for the code to scan",
        ),
    ] {
        let r = print(&s, &pro, &body).await;
        assert_eq!(r.status, 400, "{body}: {}", r.text());
        assert_eq!(r.json()["message"], message, "{body}");
    }
    let bad = s
        .send("POST", "/api/print", &[("x-api-key", &pro)], "{")
        .await;
    assert_eq!(bad.status, 400);
    assert!(
        bad.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid JSON body: ")
    );
    s.stop().await;
}

#[tokio::test]
async fn print_counts_against_the_batch_rate() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, pro) = s.account(Plan::Pro);
    // Pro allows 10 batch requests a minute; print is one of them.
    for _ in 0..10 {
        assert_eq!(print(&s, &pro, &json!({})).await.status, 400);
    }
    print(&s, &pro, &json!({}))
        .await
        .assert_error(429, "Rate limit exceeded");
    s.stop().await;
}
