//! `/dashboard/links/import`: another service's export (Bitly, Rebrandly, Shlink, YOURLS, Kutt) uploaded from the Links page and imported keeping every printed code, onto each record's own domain or one of the account's domains chosen in the form, or only checked (dry run); the page lists the links created, those already here, and the records refused with their reasons, each with the domain it lands on.

use askama::Template;
use http::StatusCode;
use qr_domain::chrono::{DateTime, Utc};
use qr_domain::domains::domain::Domain;
use qr_domain::domains::name::DomainName;
use qr_domain::domains::service::DomainError;
use qr_domain::links::bulk::BulkError;
use qr_domain::service::BulkCaller;
use qr_domain::{Clock, Store};
use qr_import::placement::SERVICE_ADDRESS;
use qr_import::{DomainChoice, ImportError, ImportItem, ImportReport, ItemOutcome, Source, import};

use super::{Failure, Layout, User, ok, page, read_or_post, when};
use crate::Web;
use crate::request::Fields;
use crate::response::WebResponse;

/// The largest export the form takes: 2 MiB, the server's upload bound by default, holds a
/// full import of 10,000 Bitly rows (about 200 bytes each).
pub(crate) const MAX_IMPORT_FILE_BYTES: usize = 2 * 1024 * 1024;

/// A service the form's select offers: its form value, name and what file it wants.
pub(crate) struct SourceOption {
    pub(crate) value: &'static str,
    pub(crate) title: &'static str,
    pub(crate) accepts: &'static str,
}

/// Every source, for the select.
pub(crate) fn source_options() -> Vec<SourceOption> {
    Source::ALL
        .into_iter()
        .map(|s| SourceOption {
            value: s.name(),
            title: s.title(),
            accepts: s.accepts(),
        })
        .collect()
}

/// A domain the form's select offers: its ASCII name (the value) and its Unicode name.
pub(crate) struct DomainOption {
    pub(crate) value: String,
    pub(crate) label: String,
}

/// The account's domains that take new links at `now` (another would refuse the whole
/// import), for the select after its default, each record's own domain.
pub(crate) fn domain_options(domains: &[Domain], now: DateTime<Utc>) -> Vec<DomainOption> {
    domains
        .iter()
        .filter(|d| d.accepts_links(now))
        .map(|d| DomainOption {
            value: d.name.as_str().to_owned(),
            label: d.name.unicode(),
        })
        .collect()
}

/// One record as the result shows it.
struct Row {
    position: usize,
    shown: String,
    /// Where its code lands: a domain's Unicode name, or the service's own address.
    lands_on: String,
    short_url: String,
    name: String,
    target: String,
    created: String,
    link_id: String,
    reason: String,
}

impl Row {
    fn blank(item: &ImportItem) -> Self {
        Self {
            position: item.position,
            shown: item.shown.clone(),
            lands_on: item
                .lands_on
                .as_ref()
                .map_or_else(|| SERVICE_ADDRESS.to_owned(), DomainName::unicode),
            short_url: String::new(),
            name: String::new(),
            target: String::new(),
            created: String::new(),
            link_id: String::new(),
            reason: String::new(),
        }
    }
}

/// What the import did, grouped.
struct Outcome {
    dry_run: bool,
    created: Vec<Row>,
    already: Vec<Row>,
    refused: Vec<Row>,
}

#[derive(Template)]
#[template(path = "link_import.html")]
struct ImportPage {
    layout: Layout,
    csrf: String,
    sources: Vec<SourceOption>,
    chosen: String,
    dry_run: bool,
    import_domains: Vec<DomainOption>,
    /// The domain chosen (its ASCII name), empty for each record's own.
    import_domain: String,
    error: Option<String>,
    outcome: Option<Outcome>,
}

/// `GET` shows the form; `POST` imports the uploaded export (or checks it, on a dry run).
pub(super) fn import<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    let account = &user.ctx.account;
    let domains = web.service.domains(account.id)?;
    let mut view = ImportPage {
        layout: user.layout("Import links", "links"),
        csrf: user.csrf(),
        sources: source_options(),
        chosen: String::new(),
        dry_run: false,
        import_domains: domain_options(&domains, web.service.now()),
        import_domain: String::new(),
        error: None,
        outcome: None,
    };
    if user.req.is_read() {
        return ok(&view);
    }
    let form = user.form()?;
    view.chosen = form.text("from").to_owned();
    view.dry_run = form.get("dryRun").is_some();
    form.text("domain").clone_into(&mut view.import_domain);
    let imported = read_export(&form).and_then(|(source, text)| {
        let choice = domain_choice(&view.import_domain)?;
        let records = source
            .read(&text)
            .map_err(|e| format!("This is not {}'s export: {e}", source.title()))?;
        let report = if view.dry_run {
            import::dry_run(&web.service, account, &records, &choice)
        } else {
            // As the CLI's import: the link limit and link features apply, the API's bulk
            // size does not (docs/api.md).
            import::run(
                &web.service,
                account,
                &user.ctx.caller(user.req.client_ip),
                &records,
                &choice,
                BulkCaller::Operator,
            )
        };
        Ok(report)
    });
    match imported {
        Ok(Ok(report)) => {
            view.outcome = Some(outcome(web, &report));
            ok(&view)
        }
        Ok(Err(ImportError::Store(e) | ImportError::Bulk(BulkError::Store(e)))) => Err(e.into()),
        Ok(Err(e)) => {
            view.error = Some(e.to_string());
            page(StatusCode::UNPROCESSABLE_ENTITY, &view)
        }
        Err(message) => {
            view.error = Some(message);
            page(StatusCode::UNPROCESSABLE_ENTITY, &view)
        }
    }
}

/// The form's domain: empty keeps each record's own domain; a name must be a domain name (the
/// domain's message), and the import checks it is the account's and takes new links.
fn domain_choice(value: &str) -> Result<DomainChoice, String> {
    if value.is_empty() {
        return Ok(DomainChoice::KeepEach);
    }
    DomainName::parse_any(value)
        .map(DomainChoice::Every)
        .map_err(|e| DomainError::Name(e).to_string())
}

/// The chosen source and the uploaded file as text, or what is wrong with them.
fn read_export(form: &Fields) -> Result<(Source, String), String> {
    let source: Source = form
        .text("from")
        .parse()
        .map_err(|_| "Choose the service the export comes from".to_owned())?;
    let file = form
        .file("file")
        .ok_or_else(|| "Choose the export file to import".to_owned())?;
    if file.bytes.len() > MAX_IMPORT_FILE_BYTES {
        return Err(format!(
            "The file is {} KiB; an import takes at most {} KiB: split it",
            file.bytes.len().div_ceil(1024),
            MAX_IMPORT_FILE_BYTES / 1024
        ));
    }
    let text = String::from_utf8(file.bytes.clone()).map_err(|_| {
        "The file is not UTF-8 text (save the export as UTF-8 CSV or JSON)".to_owned()
    })?;
    Ok((source, text))
}

fn outcome<S: Store, C: Clock>(web: &Web<S, C>, report: &ImportReport) -> Outcome {
    let mut result = Outcome {
        dry_run: report.dry_run,
        created: Vec::new(),
        already: Vec::new(),
        refused: Vec::new(),
    };
    for item in &report.items {
        let mut row = Row::blank(item);
        match &item.outcome {
            ItemOutcome::Created(link) | ItemOutcome::AlreadyImported(link) => {
                row.short_url = web.short_url(link);
                row.name = link.name.as_str().to_owned();
                row.target = link.target_url.as_str().to_owned();
                row.created = when(link.created_at);
                row.link_id = link.id.to_string();
                if matches!(item.outcome, ItemOutcome::Created(_)) {
                    result.created.push(row);
                } else {
                    result.already.push(row);
                }
            }
            ItemOutcome::WouldCreate(update) => {
                if let Some(code) = &update.short_code {
                    row.short_url = match &item.lands_on {
                        Some(domain) => format!("https://{}/{code}", domain.as_str()),
                        None => format!("{}/r/{code}", web.base_url),
                    };
                }
                row.name = update
                    .name
                    .as_ref()
                    .map(|n| n.as_str().to_owned())
                    .unwrap_or_default();
                row.target = update
                    .target_url
                    .as_ref()
                    .map(|t| t.as_str().to_owned())
                    .unwrap_or_default();
                row.created = update.created_at.map(when).unwrap_or_default();
                result.created.push(row);
            }
            ItemOutcome::Refused(reason) => {
                row.reason = reason.clone();
                result.refused.push(row);
            }
        }
    }
    result
}
