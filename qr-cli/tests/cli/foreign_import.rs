//! `qr links import --from SERVICE FILE [--dry-run]`: one export per service (qr-import's testdata, written from each service's published format) imported into an SQLite database; every kept code is listed with its target, every refused one reported with its reason, and a dry run writes nothing.

use qr_test_support::servers::dnsmasq::{DnsZone, DnsmasqServer};
use serde_json::Value;

use crate::common::Workspace;

fn testdata(name: &str) -> String {
    format!(
        "{}/../qr-import/testdata/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The account's links by short code: (target, name, createdAt).
fn links_by_code(ws: &Workspace, email: &str) -> Vec<(String, String, String, String)> {
    let listed: Value =
        serde_json::from_str(&ws.ok(&["links", "list", "--email", email, "--json"])).unwrap();
    let mut links: Vec<_> = listed["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let text = |k: &str| l[k].as_str().unwrap_or_default().to_owned();
            (
                text("shortCode"),
                text("targetUrl"),
                text("name"),
                text("createdAt"),
            )
        })
        .collect();
    links.sort();
    links
}

struct Case {
    from: &'static str,
    file: &'static str,
    /// Every code that must be kept, with its target.
    kept: &'static [(&'static str, &'static str)],
    /// The refused record's short URL and the start of its reason.
    refused: (&'static str, &'static str),
}

const CASES: &[Case] = &[
    Case {
        from: "bitly",
        file: "bitly.csv",
        kept: &[
            ("1Qw", "https://example.org/old"),
            ("2Kq7MnP", "https://restaurant.example.com/menu"),
            ("3fGh8Jk", "https://example.org/manual.pdf"),
            (
                "3xYz9Ab",
                "https://shop.example.com/spring?utm_source=print",
            ),
            ("menu-card", "https://restaurant.example.com/menu"),
        ],
        refused: ("go.brand.example/flyer.2012", "invalid shortCode: "),
    },
    Case {
        from: "rebrandly",
        file: "rebrandly.csv",
        kept: &[
            ("Hours2023", "https://store.example.com/hours"),
            ("autumn-look", "https://fashion.example.com/autumn"),
        ],
        refused: ("links.brand.example/summer.sale", "invalid shortCode: "),
    },
    Case {
        from: "shlink",
        file: "shlink-list.txt",
        kept: &[
            ("12C18", "https://events.example.com/app"),
            ("xk2Lp", "https://docs.example.com/setup"),
        ],
        refused: ("shl.example/a.b", "invalid shortCode: "),
    },
    Case {
        from: "shlink",
        file: "shlink-page.json",
        kept: &[
            ("Qz7Wv", "https://blog.example.com/2023/release"),
            ("warranty-2022", "https://support.example.com/warranty"),
        ],
        refused: ("shl.example/ftp-mirror", "invalid targetUrl: "),
    },
    Case {
        from: "yourls",
        file: "yourls-stats.json",
        kept: &[
            ("flyer-2019", "https://events.example.org/2019/flyer"),
            ("ozh", "https://ozh.example.org/"),
        ],
        refused: ("sho.rt.example/b", "invalid shortCode: "),
    },
    Case {
        from: "yourls",
        file: "yourls_url.csv",
        kept: &[("promo-card", "https://shop.example.net/promo")],
        refused: ("2c", "invalid shortCode: "),
    },
    Case {
        from: "kutt",
        file: "kutt-links.json",
        kept: &[
            ("Poster_B", "https://gallery.example.com/poster-b"),
            ("conf24", "https://conference.example.com/2024"),
        ],
        refused: (
            "kutt.example/dashboard",
            "invalid shortCode: \"dashboard\" is reserved",
        ),
    },
];

#[test]
fn each_service_export_imports_keeping_its_codes() {
    for case in CASES {
        let ws = Workspace::new();
        ws.create_key("brand@example.com", "pro");
        let file = testdata(case.file);
        let args = [
            "links",
            "import",
            "--from",
            case.from,
            &file,
            "--email",
            "brand@example.com",
        ];
        let output = ws.qr(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        // A refused record makes the exit status 1; the others are imported all the same.
        assert_eq!(output.status.code(), Some(1), "{}: {stderr}", case.file);
        let (shown, reason) = case.refused;
        assert!(
            stderr.lines().any(|l| l.contains(reason)
                && l.ends_with(&format!("({shown}, onto the service's own address)"))),
            "{}: {stderr}",
            case.file
        );
        assert!(
            stderr.contains(&format!(
                "imported {}, already imported 0, refused 1",
                case.kept.len()
            )),
            "{}: {stderr}",
            case.file
        );
        let listed: Vec<(String, String)> = links_by_code(&ws, "brand@example.com")
            .into_iter()
            .map(|(code, target, _, _)| (code, target))
            .collect();
        let kept: Vec<(String, String)> = case
            .kept
            .iter()
            .map(|(c, t)| ((*c).to_owned(), (*t).to_owned()))
            .collect();
        assert_eq!(listed, kept, "{}", case.file);
    }
}

#[test]
fn titles_tags_and_creation_times_are_kept_and_a_second_run_skips_what_is_there() {
    let ws = Workspace::new();
    ws.create_key("brand@example.com", "pro");
    let file = testdata("shlink-page.json");
    let args = [
        "links",
        "import",
        "--from",
        "shlink",
        &file,
        "--email",
        "brand@example.com",
        "--json",
        "--base-url",
        "https://qr.example.com",
    ];
    let first = ws.qr(&args).output().unwrap();
    let answer: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(answer["dryRun"], false);
    let links = answer["links"].as_array().unwrap();
    assert_eq!(links.len(), 2);
    assert_eq!(links[0]["shortCode"], "warranty-2022");
    assert_eq!(links[0]["name"], "Warranty registration");
    assert_eq!(
        links[0]["tags"],
        serde_json::json!(["packaging", "support"])
    );
    assert_eq!(links[0]["createdAt"], "2022-04-05T12:03:09Z");
    // Without a title, the name is the short URL as printed.
    assert_eq!(links[1]["name"], "shl.example/Qz7Wv");
    let errors = answer["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["index"], 2);
    assert_eq!(errors[0]["data"], "shl.example/ftp-mirror");
    assert_eq!(
        errors[0]["error"],
        "invalid targetUrl: targetUrl must use http or https, not ftp"
    );

    let again = ws.qr(&args).output().unwrap();
    let answer: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert!(answer["links"].as_array().unwrap().is_empty());
    assert_eq!(answer["alreadyImported"].as_array().unwrap().len(), 2);
    assert_eq!(links_by_code(&ws, "brand@example.com").len(), 2);
}

#[test]
fn a_dry_run_prints_what_would_be_created_and_writes_nothing() {
    let ws = Workspace::new();
    ws.create_key("brand@example.com", "pro");
    let file = testdata("kutt-links.json");
    let output = ws
        .qr(&[
            "links",
            "import",
            "--from",
            "kutt",
            &file,
            "--email",
            "brand@example.com",
            "--dry-run",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stdout,
        "would-create\tconf24\t-\thttps://conference.example.com/2024\tConference badge\n\
         would-create\tPoster_B\t-\thttps://gallery.example.com/poster-b\tgo.brand.example/Poster_B\n"
    );
    assert!(
        stderr.contains(
            "qr: item 2: invalid shortCode: \"dashboard\" is reserved; choose another code (kutt.example/dashboard, onto the service's own address)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("(dry run: nothing written)"), "{stderr}");
    assert!(links_by_code(&ws, "brand@example.com").is_empty());

    // A code taken by another account is a conflict the dry run tells.
    ws.create_key("other@example.com", "pro");
    ws.ok(&[
        "links",
        "create",
        "--email",
        "other@example.com",
        "--name",
        "Theirs",
        "--url",
        "https://other.example/",
        "--short-code",
        "conf24",
    ]);
    let output = ws
        .qr(&[
            "links",
            "import",
            "--from",
            "kutt",
            &file,
            "--email",
            "brand@example.com",
            "--dry-run",
            "--json",
        ])
        .output()
        .unwrap();
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["dryRun"], true);
    assert_eq!(answer["links"].as_array().unwrap().len(), 1);
    assert_eq!(
        answer["errors"][0]["error"],
        "shortCode conf24 is already taken; choose another"
    );
    assert!(links_by_code(&ws, "brand@example.com").is_empty());
}

#[test]
fn wrong_files_and_flags_create_nothing() {
    let ws = Workspace::new();
    ws.create_key("brand@example.com", "pro");
    let kutt = testdata("kutt-links.json");
    // A Kutt file read as Bitly's CSV: no Bitlink column; nothing imported.
    let output = ws
        .qr(&[
            "links",
            "import",
            "--from",
            "bitly",
            &kutt,
            "--email",
            "brand@example.com",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is not Bitly's export: "), "{stderr}");
    // --dry-run and --domain belong to --from; --zip does not go with it; --domain takes a
    // domain name.
    for args in [
        vec![
            "links",
            "import",
            &kutt,
            "--email",
            "brand@example.com",
            "--dry-run",
        ],
        vec![
            "links",
            "import",
            &kutt,
            "--email",
            "brand@example.com",
            "--domain",
            "go.brand.test",
        ],
        vec![
            "links",
            "import",
            "--from",
            "kutt",
            &kutt,
            "--email",
            "brand@example.com",
            "--domain",
            "https://go.brand.test/",
        ],
        vec![
            "links",
            "import",
            "--from",
            "kutt",
            &kutt,
            "--email",
            "brand@example.com",
            "--zip",
            "z.zip",
        ],
        vec![
            "links",
            "import",
            "--from",
            "tinyurl",
            &kutt,
            "--email",
            "brand@example.com",
        ],
    ] {
        let output = ws.qr(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        if args.contains(&"--domain") && !args.contains(&"--from") {
            assert!(stderr.contains("--from <SERVICE>"), "{stderr}");
        }
        if args.contains(&"https://go.brand.test/") {
            assert!(
                stderr.contains("--domain \"https://go.brand.test/\": Invalid domain: "),
                "{stderr}"
            );
        }
    }
    assert!(links_by_code(&ws, "brand@example.com").is_empty());
}

/// The brand's customer domain in the `brand-*` exports.
const BRAND: &str = "go.brand.test";

/// `qr links import --from … [--dry-run] [--json] [--domain NAME]` for brand@example.com.
fn import(ws: &Workspace, from: &str, file: &str, more: &[&str]) -> std::process::Output {
    let file = testdata(file);
    let mut args = vec![
        "links",
        "import",
        "--from",
        from,
        &file,
        "--email",
        "brand@example.com",
    ];
    args.extend_from_slice(more);
    ws.qr(&args).output().unwrap()
}

#[test]
fn a_domain_that_takes_no_links_refuses_its_records_or_the_whole_import() {
    let ws = Workspace::new();
    ws.create_key("brand@example.com", "pro");
    ws.ok(&["domains", "add", BRAND, "--email", "brand@example.com"]);
    let pending = "invalid domain: the domain is not verified yet; create its TXT record and check it (POST /api/domains/check)";

    // Each record on its own domain: the account's, but pending; refused with the reason.
    let output = import(&ws, "kutt", "brand-kutt.json", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "qr: item 0: {pending} (go.brand.test/conf-26, onto go.brand.test)"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("imported 0, already imported 0, refused 2"),
        "{stderr}"
    );

    // Asked for: nothing is imported, in the domain layer's words; an unknown domain alike.
    for (asked, message) in [
        (
            BRAND,
            format!("error: nothing was imported: {BRAND}: the domain is not verified yet"),
        ),
        (
            "nope.test",
            "error: nothing was imported: nope.test: Domain not found".to_owned(),
        ),
    ] {
        for dry_run in [&[][..], &["--dry-run"][..]] {
            let mut more = vec!["--domain", asked];
            more.extend_from_slice(dry_run);
            let output = import(&ws, "bitly", "bitly.csv", &more);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains(&message), "{asked}: {stderr}");
            assert!(output.stdout.is_empty());
        }
    }
    assert!(links_by_code(&ws, "brand@example.com").is_empty());
}

#[test]
fn records_land_on_the_verified_domain_and_the_output_says_where() {
    let ws = Workspace::new();
    ws.create_key("brand@example.com", "pro");
    let added: Value = serde_json::from_str(&ws.ok(&[
        "domains",
        "add",
        BRAND,
        "--email",
        "brand@example.com",
        "--json",
    ]))
    .unwrap();
    let value = added["verification"]["value"].as_str().unwrap();
    let zone = DnsZone::new().txt("_qr-verify.go.brand.test", &[value]);
    let Some(dns) = DnsmasqServer::start("qr links import --domain", &zone) else {
        return;
    };
    let server = dns.address().to_string();
    let checked = ws
        .qr(&[
            "domains",
            "check",
            BRAND,
            "--email",
            "brand@example.com",
            "--dns-server",
            &server,
            "--json",
        ])
        .output()
        .unwrap();
    let checked: Value = serde_json::from_slice(&checked.stdout).unwrap();
    assert_eq!(checked["status"], "verified", "{checked}");

    // The dry run: each link's domain, `-` for the service's own address.
    let output = import(&ws, "bitly", "brand-bitly.csv", &["--dry-run"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        stdout,
        "would-create\tAbC12\tgo.brand.test\thttps://brand.example/menu\tMenu card\n\
         would-create\t4Hk2Lm9\t-\thttps://brand.example/spring\tSpring poster\n\
         would-create\tspring-menu\tgo.brand.test\thttps://brand.example/spring\tSpring poster\n"
    );
    let output = import(&ws, "bitly", "brand-bitly.csv", &["--dry-run", "--json"]);
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    let domains: Vec<Value> = answer["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["domain"].clone())
        .collect();
    assert_eq!(
        domains,
        [Value::from(BRAND), Value::Null, Value::from(BRAND)]
    );

    // The import: the short URLs are on the domain, the bit.ly hash on the service's address.
    let output = import(&ws, "bitly", "brand-bitly.csv", &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    let shown: Vec<&str> = stdout
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert_eq!(
        shown,
        [
            "https://go.brand.test/AbC12",
            "4Hk2Lm9",
            "https://go.brand.test/spring-menu"
        ]
    );

    // --json: each link with its domain; a conflict on the domain with the domain it is on.
    let output = import(
        &ws,
        "kutt",
        "brand-kutt.json",
        &["--json", "--domain", "GO.brand.test"],
    );
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    let links = answer["links"].as_array().unwrap();
    assert_eq!(links.len(), 2, "{answer}");
    assert!(links.iter().all(|l| l["domain"] == BRAND), "{answer}");
    let moved = r#"{"data": [{"address": "AbC12", "target": "https://elsewhere.example/", "domain": null}]}"#;
    let path = ws.path("moved.json");
    std::fs::write(&path, moved).unwrap();
    let output = ws
        .qr(&[
            "links",
            "import",
            "--from",
            "kutt",
            path.to_str().unwrap(),
            "--email",
            "brand@example.com",
            "--domain",
            BRAND,
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["errors"][0]["domain"], BRAND, "{answer}");
    assert_eq!(
        answer["errors"][0]["error"],
        "its code AbC12 is already your link \"Menu card\", which goes to https://brand.example/menu"
    );
}
