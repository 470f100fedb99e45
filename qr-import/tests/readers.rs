//! Every reader on its test file (testdata/, written from each service's published format): the codes, domains, targets, titles, tags and creation times it finds, and the records it cannot read.

use qr_import::{ForeignLink, ReadError, Source};

fn file(name: &str) -> String {
    let path = format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn links(source: Source, name: &str) -> Vec<ForeignLink> {
    source
        .read(&file(name))
        .unwrap()
        .into_iter()
        .map(|r| r.link.unwrap())
        .collect()
}

fn shown(links: &[ForeignLink]) -> Vec<String> {
    links.iter().map(ForeignLink::shown).collect()
}

fn time(link: &ForeignLink) -> String {
    link.created_at.unwrap().to_rfc3339()
}

#[test]
fn bitly_rows_give_every_printed_code() {
    let links = links(Source::Bitly, "bitly.csv");
    assert_eq!(
        shown(&links),
        [
            "bit.ly/3xYz9Ab",
            "go.brand.example/menu-card",
            "bit.ly/2Kq7MnP",
            "bit.ly/3fGh8Jk",
            "bit.ly/1Qw",
            "go.brand.example/flyer.2012",
        ]
    );
    let first = &links[0];
    assert_eq!(
        first.target,
        "https://shop.example.com/spring?utm_source=print"
    );
    assert_eq!(first.title.as_deref(), Some("Spring catalogue 2021"));
    assert_eq!(first.tags, ["print", "spring"]);
    assert_eq!(time(first), "2021-03-04T09:15:27+00:00");
    // The custom back-half and the hash are one Bitlink: same target, title and tags.
    assert_eq!(links[1].target, links[2].target);
    assert_eq!(links[2].title.as_deref(), Some("Table menu"));
    assert_eq!(links[3].title, None);
}

#[test]
fn rebrandly_rows_give_slashtag_and_domain() {
    let links = links(Source::Rebrandly, "rebrandly.csv");
    assert_eq!(
        shown(&links),
        [
            "rebrand.ly/autumn-look",
            "links.brand.example/Hours2023",
            "links.brand.example/summer.sale",
        ]
    );
    assert_eq!(links[0].tags, ["catalogue", "autumn"]);
    assert_eq!(
        links[0].title.as_deref(),
        Some("Autumn collection lookbook")
    );
    assert_eq!(time(&links[1]), "2023-01-10T16:20:31+00:00");
    assert!(links[1].tags.is_empty());
}

#[test]
fn shlink_table_and_api_pages() {
    let table = links(Source::Shlink, "shlink-list.txt");
    assert_eq!(
        shown(&table),
        [
            "s.brand.example/12C18",
            "shl.example/xk2Lp",
            "shl.example/a.b"
        ]
    );
    assert_eq!(table[0].tags, ["events", "mobile"]);
    assert_eq!(time(&table[0]), "2021-05-17T08:11:12+00:00");
    assert_eq!(table[1].title, None);
    assert_eq!(table[0].target, "https://events.example.com/app");

    let page = links(Source::Shlink, "shlink-page.json");
    assert_eq!(
        shown(&page),
        [
            "s.brand.example/warranty-2022",
            "shl.example/Qz7Wv",
            "shl.example/ftp-mirror",
        ]
    );
    assert_eq!(page[0].tags, ["packaging", "support"]);
    assert_eq!(page[0].title.as_deref(), Some("Warranty registration"));
    assert_eq!(time(&page[0]), "2022-04-05T12:03:09+00:00");
    // Several pages in one file are read in order.
    let two = format!("[{0},{0}]", file("shlink-page.json"));
    assert_eq!(Source::Shlink.read(&two).unwrap().len(), 6);
}

#[test]
fn yourls_stats_and_table() {
    let stats = links(Source::Yourls, "yourls-stats.json");
    // In `link_N` order, not the keys' text order (link_10 after link_2).
    assert_eq!(
        shown(&stats),
        [
            "sho.rt.example/ozh",
            "sho.rt.example/b",
            "sho.rt.example/flyer-2019"
        ]
    );
    assert_eq!(time(&stats[0]), "2014-02-11T16:45:03+00:00");
    assert_eq!(stats[2].title.as_deref(), Some("Flyer 2019"));

    let table = links(Source::Yourls, "yourls_url.csv");
    assert_eq!(shown(&table), ["promo-card", "2c"]);
    assert_eq!(table[0].domain, None);
    assert_eq!(table[0].target, "https://shop.example.net/promo");
}

#[test]
fn kutt_pages() {
    let links = links(Source::Kutt, "kutt-links.json");
    assert_eq!(
        shown(&links),
        [
            "kutt.example/conf24",
            "go.brand.example/Poster_B",
            "kutt.example/dashboard"
        ]
    );
    assert_eq!(links[0].title.as_deref(), Some("Conference badge"));
    assert_eq!(links[1].title, None);
    assert_eq!(time(&links[1]), "2023-11-05T17:04:12+00:00");
    let data_only = serde_json_array_of_data(&file("kutt-links.json"));
    assert_eq!(Source::Kutt.read(&data_only).unwrap().len(), 3);
}

/// The `data` array of a Kutt page alone, as a script collecting pages might save it.
fn serde_json_array_of_data(page: &str) -> String {
    let start = page.find('[').unwrap();
    let end = page.rfind(']').unwrap();
    page[start..=end].to_owned()
}

#[test]
fn unreadable_records_and_files() {
    let records = Source::Bitly
        .read("link,long_url,created_at\nbit.ly/abc,,2020-01-01\nbit.ly/def,https://e.com,soon\n")
        .unwrap();
    assert_eq!(
        records[0].link.as_ref().unwrap_err().reason,
        "it has no target URL"
    );
    assert_eq!(records[0].shown(), "bit.ly/abc");
    assert_eq!(
        records[1].link.as_ref().unwrap_err().reason,
        "its creation time \"soon\" is not a date and time"
    );
    assert_eq!(
        Source::Bitly
            .read("url,name\nhttps://e.com,x\n")
            .unwrap_err()
            .to_string(),
        "the header row has no column for the Bitlink (link) (it has: url, name)"
    );
    assert!(matches!(
        Source::Kutt.read("{\"links\": []}"),
        Err(ReadError::Shape(_))
    ));
    assert!(matches!(
        Source::Shlink.read("{oops"),
        Err(ReadError::Json(_))
    ));
    assert_eq!(Source::Yourls.read(" \n"), Err(ReadError::Empty));
    assert_eq!("Kutt".parse::<Source>(), Ok(Source::Kutt));
    assert!("tinyurl".parse::<Source>().is_err());
    let many = format!(
        "keyword,url\n{}",
        (0..10_001)
            .map(|i| format!("k{i},https://e.com/{i}\n"))
            .collect::<String>()
    );
    assert_eq!(Source::Yourls.read(&many), Err(ReadError::TooMany(10_001)));
}
