//! `qr links import`: links from a CSV or JSON Lines file created for one account through the domain's bulk operation (the API's `POST /api/links/bulk`), with a progress bar and optionally a ZIP of their codes; with `--from`, another service's export (`foreign`).

mod foreign;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use qr_domain::accounts::caller::Caller;
use qr_domain::links::bulk::{BulkFailure, BulkRequest, ItemError, ItemFailure};
use qr_domain::links::campaign::{FieldError, LinkField, UtmPart, rules};
use qr_domain::links::link::LinkError;
use qr_domain::service::BulkCaller;
use qr_domain::{AccountId, Link, LinkUpdate};
use qr_generate::batch::{BatchError, check_code_settings};
use qr_http::{BodyError, CAMPAIGN_FIELDS, bulk_data, bulk_item, campaign_field};
use serde::Serialize;
use serde_json::Value;

use crate::batch::{
    InputFormat, detect, display, note_ignored, progress_bar, read_csv, read_input,
};
use crate::db::{self, AdminService};
use crate::error::{self, usage};
use crate::render_args::RenderArgs;
use foreign::{ForeignImport, FromService};

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
/// Columns holding an integer, a boolean or `null`, as in the API body (any other text is
/// read as text, for the field's own error).
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
    /// or utm.source, utm.medium, utm.campaign, utm.term, utm.content. With --from, the
    /// other service's export as it downloads it.
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
    /// Print `{"links": [...], "errors": [...]}` as the API answers (with --from, also
    /// `alreadyImported` and `dryRun`).
    #[arg(long)]
    json: bool,
    /// Read another service's own export instead, keeping every link's short code exactly
    /// (a code this service cannot keep is refused with the reason, never changed), its
    /// target, title (as the name), tags and creation time. The whole file is one write
    /// transaction; running it again skips the links already imported.
    #[arg(long, value_enum, value_name = "SERVICE", conflicts_with_all = ["zip", "input_format"])]
    from: Option<FromService>,
    /// With --from: print what would be created and every refusal, writing nothing (exit 1
    /// when something would be refused).
    #[arg(long, requires = "from")]
    dry_run: bool,
    /// With --from: put every link on NAME, one of the account's domains that takes new links
    /// (see `qr domains`), else nothing is imported. Without it, a link goes onto its own
    /// domain in the export when the account has that domain, else onto the service's own
    /// address; the output says where each one lands.
    #[arg(long, requires = "from", value_name = "NAME")]
    domain: Option<String>,
    #[command(flatten)]
    render: RenderArgs,
}

/// One input item: its fields as read (or why they were refused), and its `targetUrl` as given.
#[derive(Debug)]
struct Item {
    fields: Result<LinkUpdate, ItemError>,
    data: String,
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
    if let Some(from) = args.from {
        let account = account_of(service, &args)?;
        let ask = ForeignImport {
            from,
            input: &args.input,
            json: args.json,
            base_url,
            domain: foreign::domain_choice(args.domain.as_deref())?,
        };
        return foreign::run(service, &account, ask, args.dry_run, out);
    }
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
    let account = account_of(service, &args)?;
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
                &Caller::operator(account.id),
                BulkRequest {
                    items: chunk.iter().map(|i| i.fields.clone()).collect(),
                    data: chunk.iter().map(|i| i.data.clone()).collect(),
                    // Without an idempotency key nothing is compared with it.
                    fingerprint: [0; 32],
                },
                None,
                BulkCaller::Operator,
            )
            .with_context(|| {
                format!(
                    "the import stopped at item {offset}; {} links were created before it",
                    created.len()
                )
            })?;
        created.extend(outcome.created.into_iter().map(|(i, l)| (offset + i, l)));
        failures.extend(outcome.failures.iter().map(|f| BulkFailure {
            index: offset + f.index,
            ..worded(f)
        }));
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();

    if let (Some(path), Some(base)) = (&args.zip, &base) {
        // Each code in its link's design, the --format/--size/… flags over the design's look.
        let codes = created
            .iter()
            .map(|(_, link)| {
                service
                    .code_of_link(&account, link, base, settings.given())
                    .map_err(|e| e.to_string())
            })
            .collect();
        let short_url = |l: &Link| l.short_url(base);
        let zip = qr_export::bulk::links_archive(&created, codes, &short_url, &failures)?;
        std::fs::write(path, zip).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        output_json(out, &created, &failures)?;
    } else {
        for (_, link) in &created {
            let shown = match &base {
                Some(base) => link.short_url(base),
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

/// The account `--account` or `--email` names.
fn account_of(service: &AdminService, args: &ImportArgs) -> anyhow::Result<qr_domain::Account> {
    match (&args.account, &args.email) {
        (Some(raw), _) => {
            let id = raw
                .trim()
                .parse::<AccountId>()
                .map_err(|_| usage(format!("invalid --account {raw:?}: an account id (a UUID)")))?;
            Ok(service.account(id)?)
        }
        (None, Some(email)) => db::account_by_email(service, email),
        (None, None) => Err(usage("pass --account ID or --email ADDRESS")),
    }
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

/// A failed item as `POST /api/links/bulk` answers it, which the import's output repeats: its
/// error worded by its variant.
fn worded(failure: &ItemFailure) -> BulkFailure {
    let error = match &failure.error {
        ItemError::Unread { message } => message.clone(),
        ItemError::Field { field, rule } => format!("Invalid {field}: {rule}"),
        ItemError::LimitReached { plan, limit } => format!(
            "Link limit reached: the {plan} plan allows {limit} links; delete a link or upgrade the plan"
        ),
        e @ (ItemError::PlanRequired { .. } | ItemError::CodeTaken { .. }) => e.to_string(),
        ItemError::Unavailable => "Could not create the link; retry the request".to_owned(),
        ItemError::Hash => "Internal server error".to_owned(),
    };
    BulkFailure {
        index: failure.index,
        data: failure.data.clone(),
        error,
    }
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

/// A value or JSON cell as the API body's value: JSON when it is JSON, else its text.
fn cell_json(cell: &str) -> Value {
    serde_json::from_str(cell.trim()).unwrap_or_else(|_| Value::String(cell.to_owned()))
}

/// A CSV row's fields (its non-empty cells, by field) read as `POST /api/links` reads a body:
/// `name` and `targetUrl` required, then the campaign fields in the API's order; tags split on
/// `|`; `utm.*` columns make the UTM settings unless the row has a `utm` cell.
fn read_row(cells: &BTreeMap<&str, &str>) -> Result<LinkUpdate, ItemError> {
    let required = |name: &'static str| {
        cells
            .get(name)
            .copied()
            .ok_or(ItemError::from(BodyError::Missing(name)))
    };
    let name = required("name")?;
    let target = required("targetUrl")?;
    let mut u = LinkUpdate::parse(Some(name), Some(target))?;
    let field_error = |e: FieldError| ItemError::from(LinkError::Field(e));
    let instant = |field: LinkField, text: &str| {
        rules::instant(text).map_err(|rule| field_error(FieldError::new(field, rule)))
    };
    for field in CAMPAIGN_FIELDS {
        let Some(cell) = cells.get(field).copied() else {
            if field == "utm" {
                let utm: Vec<(UtmPart, &str)> = UtmPart::ALL
                    .into_iter()
                    .filter_map(|part| {
                        let column = format!("utm.{}", part.name());
                        cells.get(column.as_str()).map(|v| (part, *v))
                    })
                    .collect();
                if !utm.is_empty() {
                    u.set_utm(Some(&utm)).map_err(field_error)?;
                }
            }
            continue;
        };
        match field {
            "shortCode" => u.set_short_code(cell).map_err(field_error)?,
            "tags" => {
                let tags: Vec<&str> = cell
                    .split(TAG_SEPARATOR)
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .collect();
                u.set_tags(&tags).map_err(field_error)?;
            }
            "validFrom" => u.set_valid_from(Some(instant(LinkField::ValidFrom, cell)?)),
            "validUntil" => u.set_valid_until(Some(instant(LinkField::ValidUntil, cell)?)),
            "expiredUrl" => u.set_expired_url(Some(cell)).map_err(field_error)?,
            "password" => u.set_password(Some(cell)).map_err(field_error)?,
            json => campaign_field(&mut u, json, &cell_json(cell))?,
        }
    }
    Ok(u)
}

/// Reads CSV rows into items; empty cells are absent fields; blank rows are skipped.
fn csv_items(text: &str) -> anyhow::Result<Vec<Item>> {
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
        let mut cells = BTreeMap::new();
        for (field, cell) in fields.iter().zip(record.iter()) {
            if let (Some(field), false) = (field, cell.is_empty()) {
                // The last column of a field wins.
                cells.insert(field.as_str(), cell);
            }
        }
        items.push(Item {
            data: cells
                .get("targetUrl")
                .map(|t| (*t).to_owned())
                .unwrap_or_default(),
            fields: read_row(&cells),
        });
    }
    Ok(items)
}

/// Reads JSON Lines: each line one link object exactly as in an API body, read by the API's
/// reader; a line that is not JSON stops the import with its number (nothing is created).
fn jsonl_items(text: &str) -> anyhow::Result<Vec<Item>> {
    let mut items = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .with_context(|| format!("line {} is not valid JSON", number + 1))?;
        items.push(Item {
            fields: bulk_item(&value),
            data: bulk_data(&value),
        });
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
        let menu = items[0].fields.as_ref().unwrap();
        assert_eq!(menu.name.as_ref().unwrap().as_str(), "Menu");
        let tags: Vec<_> = menu.tags.iter().flatten().map(|t| t.as_str()).collect();
        assert_eq!(tags, ["print", "spring"]);
        assert_eq!(menu.max_scans, Some(Some(25)));
        assert_eq!(menu.disabled, Some(true));
        let utm = menu.utm.clone().flatten().unwrap();
        assert_eq!(utm.source.as_deref(), Some("poster"));
        assert_eq!(menu.rules.as_ref().unwrap().len(), 1);
        assert_eq!(items[0].data, "https://example.com/m");
        // The first refusal in the API's order: maxScans before disabled.
        assert_eq!(
            items[1].fields.clone().unwrap_err().to_string(),
            "invalid maxScans: it must be an integer from 1 to 1000000000000"
        );
        assert!(csv_items("name,url\nx,y\n").is_err());
    }

    #[test]
    fn json_lines_are_link_objects() {
        let items =
            jsonl_items("{\"name\":\"a\",\"targetUrl\":\"https://e.com\"}\n\n[1]\n").unwrap();
        assert_eq!(items.len(), 2);
        assert!(items[0].fields.is_ok());
        assert_eq!(
            worded(&ItemFailure {
                index: 1,
                data: items[1].data.clone(),
                error: items[1].fields.clone().unwrap_err(),
            })
            .error,
            "Invalid link: it must be a JSON object"
        );
        let err = jsonl_items("{\"name\":\"a\"}\n{oops\n").unwrap_err();
        assert!(format!("{err:#}").contains("line 2"), "{err:#}");
    }
}
