//! `qr domains` end to end on a database file, checked against a real DNS server (dnsmasq on a loopback port): adding within the plan, listing as JSON, checking before and after the TXT record exists, a link put on the domain and its short URL, and removal refused while the link uses it; app schemes set, shown and refused.

use qr_test_support::servers::dnsmasq::{DnsZone, DnsmasqServer};
use serde_json::Value;

use crate::common::Workspace;

const PRO: &str = "brand@example.com";

#[test]
fn domains_are_added_listed_checked_against_dns_used_by_links_and_removed() {
    let ws = Workspace::new();
    ws.create_key(PRO, "pro");
    ws.create_key("free@example.com", "free");

    // Free has no domains; a URL is not a name (a usage error).
    let free = ws
        .qr(&[
            "domains",
            "add",
            "go.free.test",
            "--email",
            "free@example.com",
        ])
        .output()
        .unwrap();
    assert_eq!(free.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&free.stderr).contains("Custom domains require Starter plan"),
        "{free:?}"
    );
    let url = ws
        .qr(&["domains", "add", "https://go.brand.test/", "--email", PRO])
        .output()
        .unwrap();
    assert_eq!(url.status.code(), Some(2), "{url:?}");

    let added: Value = serde_json::from_str(&ws.ok(&[
        "domains",
        "add",
        "Go.Brand.test",
        "--email",
        PRO,
        "--json",
    ]))
    .unwrap();
    assert_eq!(added["domain"], "go.brand.test");
    assert_eq!(added["status"], "pending");
    assert_eq!(added["verification"]["name"], "_qr-verify.go.brand.test");
    let value = added["verification"]["value"].as_str().unwrap().to_owned();
    assert!(value.starts_with("qr-verify="), "{value}");

    let list: Value =
        serde_json::from_str(&ws.ok(&["domains", "list", "--email", PRO, "--json"])).unwrap();
    let domains = list["domains"].as_array().unwrap();
    assert_eq!(domains.len(), 1);
    assert_eq!(domains[0]["id"], added["id"]);

    let Some(dns) = DnsmasqServer::start("qr domains check", &DnsZone::new()) else {
        return;
    };
    let server = dns.address().to_string();
    let check = |ws: &Workspace| {
        ws.qr(&[
            "domains",
            "check",
            "go.brand.test",
            "--email",
            PRO,
            "--dns-server",
            &server,
            "--domain-target",
            "qr.service.test",
            "--json",
        ])
        .output()
        .unwrap()
    };
    // No record yet: pending with the reason, exit 1.
    let pending = check(&ws);
    assert_eq!(pending.status.code(), Some(1), "{pending:?}");
    let shown: Value = serde_json::from_slice(&pending.stdout).unwrap();
    assert_eq!(shown["status"], "pending");
    assert_eq!(shown["lastCheck"]["outcome"]["result"], "nxDomain");
    assert!(String::from_utf8_lossy(&pending.stderr).contains("does not exist (NXDOMAIN)"));

    // With the record, and the domain an alias of the service: verified, pointing at it.
    dns.serve(
        &DnsZone::new()
            .txt("_qr-verify.go.brand.test", &[&value])
            .cname("go.brand.test", "qr.service.test")
            .a("qr.service.test", "127.0.0.1".parse().unwrap()),
    );
    let verified = check(&ws);
    assert!(verified.status.success(), "{verified:?}");
    let shown: Value = serde_json::from_slice(&verified.stdout).unwrap();
    assert_eq!(shown["status"], "verified");
    assert_eq!(shown["routing"]["state"], "pointsAtService");

    // A link on it has its short URL there.
    let link = ws.ok(&[
        "links",
        "create",
        "--email",
        PRO,
        "--name",
        "Box",
        "--url",
        "https://shop.example/box",
        "--domain",
        "go.brand.test",
    ]);
    let id = field(&link, "id");
    let code = field(&link, "short code");
    assert_eq!(
        field(&link, "short URL"),
        format!("https://go.brand.test/{code}")
    );

    // Removal is refused while the link uses it.
    let refused = ws
        .qr(&["domains", "remove", "go.brand.test", "--email", PRO])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("Domain go.brand.test is used by 1 link; move or delete them first"),
        "{refused:?}"
    );
    let moved = ws.ok(&["links", "update", &id, "--email", PRO, "--no-domain"]);
    assert!(!moved.contains("go.brand.test"), "{moved}");
    ws.ok(&["domains", "remove", "go.brand.test", "--email", PRO]);
    let list: Value =
        serde_json::from_str(&ws.ok(&["domains", "list", "--email", PRO, "--json"])).unwrap();
    assert_eq!(list["domains"], serde_json::json!([]));
}

#[test]
fn app_schemes_are_set_by_repeating_the_flag_shown_and_refused_as_usage_errors() {
    let ws = Workspace::new();
    ws.create_key(PRO, "pro");
    ws.ok(&["domains", "add", "go.brand.test", "--email", PRO]);
    let set = |extra: &[&str]| {
        let mut args = vec!["domains", "set", "go.brand.test", "--email", PRO];
        args.extend_from_slice(extra);
        ws.qr(&args).output().unwrap()
    };
    let saved = set(&[
        "--app-scheme",
        "BrandApp",
        "--app-scheme",
        "otherapp",
        "--json",
    ]);
    assert!(saved.status.success(), "{saved:?}");
    let shown: Value = serde_json::from_slice(&saved.stdout).unwrap();
    assert_eq!(
        shown["settings"]["appSchemes"],
        serde_json::json!(["brandapp", "otherapp"])
    );
    let unchanged = set(&[]);
    assert_eq!(
        field(&String::from_utf8_lossy(&unchanged.stdout), "app schemes"),
        "brandapp, otherapp"
    );
    let refused = set(&["--app-scheme", "javascript"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(
            "Invalid appSchemes[0]: javascript is refused: it runs script in the page that opens it"
        ),
        "{refused:?}"
    );
    let cleared = set(&["--app-scheme", ""]);
    assert_eq!(
        field(&String::from_utf8_lossy(&cleared.stdout), "app schemes"),
        "-"
    );
}

/// The value of `name` in `field: value` output.
fn field(output: &str, name: &str) -> String {
    output
        .lines()
        .find_map(|line| {
            line.strip_prefix(name)
                .and_then(|rest| rest.trim_start().strip_prefix(':'))
        })
        .unwrap_or_else(|| panic!("no {name} in {output}"))
        .trim()
        .to_owned()
}
