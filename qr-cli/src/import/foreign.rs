//! `qr links import --from bitly|rebrandly|shlink|yourls|kutt FILE [--domain NAME] [--dry-run]`: another service's own export read by qr-import and imported for one account keeping every printed code on the domain it lands on, or, with `--dry-run`, only reported.

use std::io::Write;
use std::path::Path;

use clap::ValueEnum;
use qr_domain::accounts::caller::Caller;
use qr_domain::domains::name::DomainName;
use qr_domain::domains::service::DomainError;
use qr_domain::service::BulkCaller;
use qr_domain::{Account, Link, LinkUpdate};
use qr_import::placement::place_name;
use qr_import::{DomainChoice, ImportItem, ImportReport, ItemOutcome, Source, import};
use serde::Serialize;

use crate::batch::{display, read_input};
use crate::db::AdminService;
use crate::error::usage;

/// The services whose exports `--from` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FromService {
    /// Bitly's CSV export of links (link, long_url, title, created_at, tags, custom_bitlinks).
    Bitly,
    /// Rebrandly's CSV export of links (slashtag, domain, destination, title, createdAt, tags).
    Rebrandly,
    /// `shlink short-url:list` output, or REST API pages of GET /rest/v3/short-urls (JSON).
    Shlink,
    /// YOURLS's action=stats API answer (JSON), or its yourls_url table as CSV.
    Yourls,
    /// Kutt's API pages of GET /api/v2/links (JSON).
    Kutt,
}

impl FromService {
    fn source(self) -> Source {
        match self {
            FromService::Bitly => Source::Bitly,
            FromService::Rebrandly => Source::Rebrandly,
            FromService::Shlink => Source::Shlink,
            FromService::Yourls => Source::Yourls,
            FromService::Kutt => Source::Kutt,
        }
    }
}

/// How the import is asked for.
pub(crate) struct ForeignImport<'a> {
    pub(crate) from: FromService,
    pub(crate) input: &'a Path,
    pub(crate) json: bool,
    pub(crate) base_url: Option<&'a str>,
    pub(crate) domain: DomainChoice,
}

/// `--domain NAME` as the import's choice (the domain's name rules, a usage error when it is
/// not a domain name), or each record's own domain without it.
pub(crate) fn domain_choice(raw: Option<&str>) -> anyhow::Result<DomainChoice> {
    match raw {
        None => Ok(DomainChoice::KeepEach),
        Some(raw) => DomainName::parse_any(raw)
            .map(DomainChoice::Every)
            .map_err(|e| usage(format!("--domain {raw:?}: {}", DomainError::Name(e)))),
    }
}

/// A refused record as `--json` lists it: the existing import's `errors` entries, with the
/// short URL as printed for `data` and the domain it would have landed on (`null`: the
/// service's own address).
#[derive(Serialize)]
struct Failure<'a> {
    index: usize,
    data: &'a str,
    error: &'a str,
    domain: Option<&'a str>,
}

/// A link a dry run would create: the Link JSON's fields known before it exists, its `domain`
/// as the Link JSON has it (`null`: the service's own address).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Planned<'a> {
    name: &'a str,
    short_code: &'a str,
    domain: Option<&'a str>,
    target_url: &'a str,
    tags: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
}

impl<'a> Planned<'a> {
    fn of(update: &'a LinkUpdate) -> Self {
        Self {
            name: update.name.as_ref().map_or("", |n| n.as_str()),
            short_code: update.short_code.as_ref().map_or("", |c| c.as_str()),
            domain: update
                .domain
                .as_ref()
                .and_then(|d| d.as_ref())
                .map(|d| d.as_str()),
            target_url: update.target_url.as_ref().map_or("", |t| t.as_str()),
            tags: update.tags.iter().flatten().map(|t| t.as_str()).collect(),
            created_at: update
                .created_at
                .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer<'a, L: Serialize> {
    links: Vec<L>,
    errors: Vec<Failure<'a>>,
    already_imported: Vec<&'a Link>,
    dry_run: bool,
}

/// Imports (or, with `dry_run`, reports) the file's links for `account`; exit 1 when any
/// record is refused, on a dry run too, so a script can check a file before importing it.
pub(crate) fn run(
    service: &AdminService,
    account: &Account,
    ask: ForeignImport<'_>,
    dry_run: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let source = ask.from.source();
    let text = read_input(ask.input)?;
    let records = source.read(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not {}'s export: {e}",
            display(ask.input),
            source.title()
        )
    })?;
    let report = if dry_run {
        import::dry_run(service, account, &records, &ask.domain)?
    } else {
        // The operator's import, as `qr links import` without --from: the account's link limit
        // and link features apply, the plan's bulk size does not.
        import::run(
            service,
            account,
            &Caller::operator(account.id),
            &records,
            &ask.domain,
            BulkCaller::Operator,
        )?
    };
    if ask.json {
        write_json(&report, out)?;
    } else {
        write_text(&report, ask.base_url, out)?;
    }
    for (index, item) in report.items.iter().enumerate() {
        match &item.outcome {
            ItemOutcome::Refused(reason) => {
                eprintln!("qr: item {index}: {reason} ({})", was_and_lands(item))
            }
            ItemOutcome::AlreadyImported(link) => eprintln!(
                "qr: item {index}: already imported as link {} ({})",
                link.id,
                was_and_lands(item)
            ),
            ItemOutcome::Created(_) | ItemOutcome::WouldCreate(_) => {}
        }
    }
    let verb = if dry_run { "would import" } else { "imported" };
    eprintln!(
        "qr: {verb} {}, already imported {}, refused {}{}",
        report.created(),
        report.already_imported(),
        report.refused(),
        if dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    );
    if report.refused() > 0 {
        anyhow::bail!(
            "{} of {} records were refused; their codes stay where they are",
            report.refused(),
            report.items.len()
        );
    }
    Ok(())
}

/// A record as stderr names it: its short URL as printed and where it lands here.
fn was_and_lands(item: &ImportItem) -> String {
    format!(
        "{}, onto {}",
        item.shown,
        place_name(item.lands_on.as_ref())
    )
}

/// One line per created link (id, short URL, name), as `qr links import` prints: the short
/// URL names the domain (`https://go.brand.example/CODE`), else it is on the service's own
/// address (`BASE/r/CODE`, or the code alone without a base URL); on a dry run, one line per
/// link that would be created (`would-create`, code, domain or `-` for the service's own
/// address, target, name).
fn write_text(
    report: &ImportReport,
    base_url: Option<&str>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let base = base_url.map(|b| b.trim_end_matches('/'));
    for item in &report.items {
        let domain = item.lands_on.as_ref().map_or("-", |d| d.as_str());
        match &item.outcome {
            ItemOutcome::Created(link) => {
                let shown = match (base, &link.domain) {
                    (Some(base), _) => link.short_url(base),
                    // A link on a domain has its address without the service's base URL.
                    (None, Some(_)) => link.short_url(""),
                    (None, None) => link.short_code.to_string(),
                };
                writeln!(out, "{}\t{shown}\t{}", link.id, link.name)?;
            }
            ItemOutcome::WouldCreate(update) => {
                let planned = Planned::of(update);
                writeln!(
                    out,
                    "would-create\t{}\t{domain}\t{}\t{}",
                    planned.short_code, planned.target_url, planned.name
                )?;
            }
            ItemOutcome::AlreadyImported(_) | ItemOutcome::Refused(_) => {}
        }
    }
    Ok(())
}

fn write_json(report: &ImportReport, out: &mut dyn Write) -> anyhow::Result<()> {
    let errors = report
        .items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| match &item.outcome {
            ItemOutcome::Refused(reason) => Some(Failure {
                index,
                data: &item.shown,
                error: reason,
                domain: item.lands_on.as_ref().map(|d| d.as_str()),
            }),
            _ => None,
        })
        .collect();
    let already_imported = report
        .items
        .iter()
        .filter_map(|item| match &item.outcome {
            ItemOutcome::AlreadyImported(link) => Some(&**link),
            _ => None,
        })
        .collect();
    if report.dry_run {
        let links: Vec<Planned<'_>> = report
            .items
            .iter()
            .filter_map(|item| match &item.outcome {
                ItemOutcome::WouldCreate(update) => Some(Planned::of(update)),
                _ => None,
            })
            .collect();
        crate::output::write_json(
            out,
            &Answer {
                links,
                errors,
                already_imported,
                dry_run: true,
            },
        )
    } else {
        let links: Vec<&Link> = report
            .items
            .iter()
            .filter_map(|item| match &item.outcome {
                ItemOutcome::Created(link) => Some(&**link),
                _ => None,
            })
            .collect();
        crate::output::write_json(
            out,
            &Answer {
                links,
                errors,
                already_imported,
                dry_run: false,
            },
        )
    }
}
