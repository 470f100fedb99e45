//! `qr links import`: links from a CSV or JSON Lines file created for one account through the domain's bulk operation (the API's `POST /api/links/bulk`), with a progress bar and optionally a ZIP of their codes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use qr_domain::bulk::{BulkFailure, BulkRequest};
use qr_domain::service::BulkCaller;
use qr_domain::{AccountId, Link};
use qr_generate::batch::{BatchError, check_code_settings};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::batch::{
    InputFormat, detect, display, note_ignored, progress_bar, read_csv, read_input,
};
use crate::db::{self, AdminService};
use crate::error::{self, usage};
use crate::render_args::RenderArgs;

/// Links per bulk call: each is one write transaction, and the bar moves once per call. A
/// thousand keeps a transaction well under a second on SQLite (see docs/benchmarks.md).
const CHUNK: usize = 1_000;

/// The CSV columns, as the Link JSON names them (matched without regard to case).
const STRING_COLUMNS: &[&str] = &[
    "name",
    "targetUrl",
    "shortCode",
    "validFrom",
    "validUntil",
    "expiredUrl",
    "password",
];
/// Columns holding an integer or a boolean (any other text is passed on as text, for the
/// field's own error).
const VALUE_COLUMNS: &[&str] = &["maxScans", "disabled", "forwardQuery"];
/// Columns holding JSON, as in the API body.
const JSON_COLUMNS: &[&str] = &["rules", "variants", "utm"];
/// The members of `utm` that may also be columns of their own (`utm.source`).
const UTM_MEMBERS: &[&str] = &["source", "medium", "campaign", "term", "content"];
/// What separates tags in a `tags` cell (a comma would need quoting in every spreadsheet).
const TAG_SEPARATOR: char = '|';

/// `qr links import`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("who").required(true).args(["account", "email"])))]
pub struct ImportArgs {
    /// The CSV or JSON Lines file (`-` reads standard input). CSV columns are the Link JSON
    /// names: name, targetUrl, shortCode, tags (separated by `|`), validFrom, validUntil,
    /// maxScans, expiredUrl, disabled, password, forwardQuery, rules, variants and utm (JSON),
    /// or utm.source, utm.medium, utm.campaign, utm.term, utm.content.
    input: PathBuf,
    /// The account's id.
    #[arg(long, value_name = "ID")]
    account: Option<String>,
    /// The account's e-mail address.
    #[arg(long, value_parser = db::parse_email, value_name = "ADDRESS")]
    email: Option<String>,
    /// Also write a ZIP archive of the new links' codes (each encoding BASE_URL/r/CODE, named
    /// CODE.png), links.csv and errors.json; needs --base-url.
    #[arg(long, value_name = "OUT.zip")]
    zip: Option<PathBuf>,
    /// The input's format [default: from the extension (.csv; .jsonl, .ndjson, .json), else
    /// JSON Lines when the first non-blank character is `{`, else CSV].
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
    /// Print `{"links": [...], "errors": [...]}` as the API answers.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    render: RenderArgs,
}

#[derive(Serialize)]
struct Answer<'a> {
    links: Vec<&'a Link>,
    errors: &'a [BulkFailure],
}

/// Runs `qr links import`: every valid row becomes a link (the plan's link limit and link
/// fields apply, as through the API; the plan's bulk size does not, as `qr batch` has no item
/// limit), the others are reported by index; exit 1 when some failed.
pub fn run(
    service: &AdminService,
    args: ImportArgs,
    base_url: Option<&str>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let settings = check_code_settings(args.render.params()).map_err(|e| match e {
        BatchError::InvalidQrcodes { error: inner, .. } => usage(format!(
            "invalid code setting: {}",
            error::with_sources(&inner)
        )),
        other => anyhow::Error::new(other),
    })?;
    let base = match (&args.zip, base_url) {
        (Some(_), None) => {
            return Err(usage(
                "--zip needs --base-url (or QR_BASE_URL): each code encodes BASE_URL/r/CODE",
            ));
        }
        (_, base) => base.map(|b| b.trim_end_matches('/').to_owned()),
    };
    let account = match (&args.account, &args.email) {
        (Some(raw), _) => {
            let id = raw
                .trim()
                .parse::<AccountId>()
                .map_err(|_| usage(format!("invalid --account {raw:?}: an account id (a UUID)")))?;
            service.account(id)?
        }
        (None, Some(email)) => db::account_by_email(service, email)?,
        (None, None) => return Err(usage("pass --account ID or --email ADDRESS")),
    };
    let input = read_input(&args.input)?;
    let items = match args
        .input_format
        .unwrap_or_else(|| detect(&args.input, &input))
    {
        InputFormat::Csv => csv_items(&input)?,
        InputFormat::Jsonl => jsonl_items(&input)?,
    };
    if items.is_empty() {
        anyhow::bail!("{} has no links", display(&args.input));
    }

    let started = Instant::now();
    let bar = progress_bar(items.len(), "links");
    let mut created: Vec<(usize, Link)> = Vec::with_capacity(items.len());
    let mut failures = Vec::new();
    for (chunk_number, chunk) in items.chunks(CHUNK).enumerate() {
        let offset = chunk_number * CHUNK;
        let outcome = service
            .create_links_bulk(
                &account,
                BulkRequest::from_items(chunk),
                None,
                BulkCaller::Operator,
                &qr_http::link_error_message,
            )
            .with_context(|| {
                format!(
                    "the import stopped at item {offset}; {} links were created before it",
                    created.len()
                )
            })?;
        created.extend(outcome.created.into_iter().map(|(i, l)| (offset + i, l)));
        failures.extend(outcome.failures.into_iter().map(|f| BulkFailure {
            index: offset + f.index,
            ..f
        }));
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();

    if let (Some(path), Some(base)) = (&args.zip, &base) {
        let short_url = |l: &Link| format!("{base}/r/{}", l.short_code);
        let zip = qr_export::bulk::links_archive(&created, &short_url, &failures, &settings)?;
        std::fs::write(path, zip).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        output_json(out, &created, &failures)?;
    } else {
        for (_, link) in &created {
            let shown = match &base {
                Some(base) => format!("{base}/r/{}", link.short_code),
                None => link.short_code.to_string(),
            };
            writeln!(out, "{}\t{shown}\t{}", link.id, link.name)?;
        }
    }
    for f in &failures {
        eprintln!("qr: item {}: {} ({})", f.index, f.error, f.data);
    }
    let wrote = args
        .zip
        .as_ref()
        .map(|p| format!(", wrote {}", p.display()))
        .unwrap_or_default();
    eprintln!(
        "qr: imported {}, failed {}, in {:.2} s{wrote}",
        created.len(),
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    if let Some(first) = failures.first() {
        anyhow::bail!(
            "{} of {} links failed (the first: item {}, {})",
            failures.len(),
            items.len(),
            first.index,
            first.error
        );
    }
    Ok(())
}

fn output_json(
    out: &mut dyn Write,
    created: &[(usize, Link)],
    failures: &[BulkFailure],
) -> anyhow::Result<()> {
    crate::output::write_json(
        out,
        &Answer {
            links: created.iter().map(|(_, l)| l).collect(),
            errors: failures,
        },
    )
}

/// The field a CSV header names (case-insensitively), or `None` for a column to ignore.
fn column_field(header: &str) -> Option<String> {
    let header = header.trim();
    if let Some(member) = header
        .strip_prefix("utm.")
        .or_else(|| header.strip_prefix("UTM."))
    {
        return UTM_MEMBERS
            .iter()
            .find(|m| m.eq_ignore_ascii_case(member))
            .map(|m| format!("utm.{m}"));
    }
    STRING_COLUMNS
        .iter()
        .chain(VALUE_COLUMNS)
        .chain(JSON_COLUMNS)
        .chain(&["tags"])
        .find(|c| c.eq_ignore_ascii_case(header))
        .map(|c| (*c).to_owned())
}

/// A CSV cell as the JSON value of its field: tags split on `|`, numbers and booleans read
/// when they are one, JSON columns parsed (else kept as text, which the field refuses).
fn cell_value(field: &str, cell: &str) -> Value {
    match field {
        "tags" => Value::Array(
            cell.split(TAG_SEPARATOR)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(|t| Value::String(t.to_owned()))
                .collect(),
        ),
        f if VALUE_COLUMNS.contains(&f) || JSON_COLUMNS.contains(&f) => {
            serde_json::from_str(cell.trim()).unwrap_or_else(|_| Value::String(cell.to_owned()))
        }
        _ => Value::String(cell.to_owned()),
    }
}

/// Reads CSV rows into link objects; empty cells are absent fields; blank rows are skipped.
fn csv_items(text: &str) -> anyhow::Result<Vec<Value>> {
    let (headers, rows) = read_csv(text)?;
    let fields: Vec<Option<String>> = headers.iter().map(|h| column_field(h)).collect();
    for required in ["name", "targetUrl"] {
        if !fields.iter().any(|f| f.as_deref() == Some(required)) {
            return Err(usage(format!(
                "the CSV header row has no {required} column (it has: {}); the columns are the Link JSON names",
                headers.join(", ")
            )));
        }
    }
    note_ignored(&headers, &fields);
    let mut items = Vec::new();
    for record in rows {
        let mut object = Map::new();
        let mut utm = BTreeMap::new();
        for (field, cell) in fields.iter().zip(record.iter()) {
            let (Some(field), false) = (field, cell.is_empty()) else {
                continue;
            };
            match field.strip_prefix("utm.") {
                Some(member) => {
                    utm.insert(member.to_owned(), Value::String(cell.to_owned()));
                }
                None => {
                    object.insert(field.clone(), cell_value(field, cell));
                }
            }
        }
        if !utm.is_empty() && !object.contains_key("utm") {
            object.insert("utm".to_owned(), Value::Object(utm.into_iter().collect()));
        }
        items.push(Value::Object(object));
    }
    Ok(items)
}

/// Reads JSON Lines: each line one link object exactly as in an API body; a line that is not
/// JSON stops the import with its number (nothing is created).
fn jsonl_items(text: &str) -> anyhow::Result<Vec<Value>> {
    let mut items = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        items.push(
            serde_json::from_str(line)
                .with_context(|| format!("line {} is not valid JSON", number + 1))?,
        );
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_columns_are_the_link_fields() {
        let items = csv_items(
            "Name,TARGETURL,tags,maxScans,disabled,utm.source,rules,note\n\
             Menu,https://example.com/m,print | spring,25,true,poster,\"[{\"\"when\"\":{\"\"os\"\":\"\"ios\"\"},\"\"targetUrl\"\":\"\"https://a.example/\"\"}]\",x\n\
             ,,,,,,,\n\
             Bad,https://example.com/b,,lots,maybe,,,\n",
        )
        .unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[0],
            serde_json::json!({"name": "Menu", "targetUrl": "https://example.com/m",
                "tags": ["print", "spring"], "maxScans": 25, "disabled": true,
                "utm": {"source": "poster"},
                "rules": [{"when": {"os": "ios"}, "targetUrl": "https://a.example/"}]})
        );
        assert_eq!(items[1]["maxScans"], "lots");
        assert_eq!(items[1]["disabled"], "maybe");
        assert!(csv_items("name,url\nx,y\n").is_err());
    }

    #[test]
    fn json_lines_are_link_objects() {
        let items =
            jsonl_items("{\"name\":\"a\",\"targetUrl\":\"https://e.com\"}\n\n[1]\n").unwrap();
        assert_eq!(items.len(), 2);
        let err = jsonl_items("{\"name\":\"a\"}\n{oops\n").unwrap_err();
        assert!(format!("{err:#}").contains("line 2"), "{err:#}");
    }
}
