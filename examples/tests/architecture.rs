//! The dependency table of `docs/ARCHITECTURE.md` equals the workspace's manifests, so the map a newcomer reads first cannot drift from the crate graph.
//!
//! The table lists, for every workspace member, the workspace crates in its `[dependencies]`
//! (dev-dependencies are test scaffolding and left out). Both sides are read as text: a
//! manifest's dependency keys are the first word of each line in that section, which is all the
//! workspace's manifests use (`qr-core.workspace = true`, `qr-core = { path = … }`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The workspace root (this crate lives in `examples/`).
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("examples/ has a parent")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The members named in the root manifest's `members = [...]`.
fn members() -> Vec<String> {
    let manifest = read(&root().join("Cargo.toml"));
    let start = manifest.find("members = [").expect("a members list") + "members = [".len();
    let end = start + manifest[start..].find(']').expect("the list's end");
    manifest[start..end]
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty())
        .collect()
}

/// A manifest's package name and the workspace crates (names starting `qr-`) it depends on.
fn edges(member: &str) -> (String, BTreeSet<String>) {
    let manifest = read(&root().join(member).join("Cargo.toml"));
    let mut section = "";
    let mut name = None;
    let mut deps = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let key = line
            .split(|c: char| c == '=' || c == '.' || c.is_whitespace())
            .next()
            .unwrap_or("");
        match section {
            "[package]" if key == "name" && name.is_none() => {
                name = line.split('"').nth(1).map(str::to_owned);
            }
            "[dependencies]" if key.starts_with("qr-") => {
                deps.insert(key.to_owned());
            }
            _ => {}
        }
    }
    (name.expect("a package name"), deps)
}

/// The rows of the table under `## Crate graph` in ARCHITECTURE.md: "| `crate` | `a`, `b` |"
/// (a dash for none).
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let doc = read(&root().join("docs/ARCHITECTURE.md"));
    let start = doc.find("## Crate graph").expect("a Crate graph section");
    let section = &doc[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            let name = cells[0].trim_matches('`').to_owned();
            let deps = cells[1]
                .split(',')
                .map(|d| d.trim().trim_matches('`').to_owned())
                .filter(|d| d.starts_with("qr-"))
                .collect();
            (name, deps)
        })
        .collect()
}

#[test]
fn the_documented_crate_graph_is_the_manifests() {
    let actual: BTreeMap<String, BTreeSet<String>> = members().iter().map(|m| edges(m)).collect();
    assert!(actual.len() >= 12, "members read: {actual:?}");
    assert_eq!(
        documented(),
        actual,
        "docs/ARCHITECTURE.md's crate graph table differs from the manifests' [dependencies]"
    );
}
