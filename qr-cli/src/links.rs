//! `qr links`: list, show, create, update and delete an account's dynamic links, and write a link's code in its design.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use clap::{Args, Subcommand};
use qr_domain::accounts::caller::Caller;
use qr_domain::designs::link_code::LinkCodeError;
use qr_domain::links::listing::LinkListQuery;
use qr_domain::{Link, LinkUpdate};
use serde::Serialize;
use serde_json::Value;

use crate::db::{self, Create, DbArgs};
use crate::link_args::CampaignArgs;
use crate::output::{self, Table};
use crate::render_args::RenderArgs;

/// `qr links`.
#[derive(Debug, Args)]
pub struct LinksArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The service's public address; when set, the short URL (BASE_URL/r/CODE) is shown.
    #[arg(long, env = "QR_BASE_URL", global = true, value_name = "URL")]
    base_url: Option<String>,
    #[command(subcommand)]
    command: LinksCommand,
}

#[derive(Debug, Subcommand)]
enum LinksCommand {
    /// Lists an account's links: all, oldest first; with --tag, --search, --limit or --cursor,
    /// newest first a page at a time, as `GET /api/links` does.
    List {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Only links with this tag (exactly as written).
        #[arg(long, value_name = "TAG")]
        tag: Option<String>,
        /// Only links whose name, target URL or short code contain this text (ASCII letters in
        /// any case).
        #[arg(long, value_name = "TEXT")]
        search: Option<String>,
        /// Links per page, 1 to 1000 (without it, up to 10,000).
        #[arg(long, value_name = "N")]
        limit: Option<String>,
        /// The page after this cursor (`nextCursor` of the previous page).
        #[arg(long, value_name = "CURSOR")]
        cursor: Option<String>,
        /// Print `{"links": [...]}` as the API does.
        #[arg(long)]
        json: bool,
    },
    /// Shows one link.
    Show {
        /// The link's id.
        id: String,
        /// Look for the link only in this account (by default every account is searched).
        #[arg(long, value_parser = db::parse_email)]
        email: Option<String>,
        /// Print the link as the API does.
        #[arg(long)]
        json: bool,
    },
    /// Creates a link with a new short code, within the plan's link limit.
    Create {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The link's friendly name (1 to 200 characters).
        #[arg(long)]
        name: String,
        /// Where the short URL redirects: an absolute http or https URL.
        #[arg(long, alias = "target-url", value_name = "URL")]
        url: String,
        #[command(flatten)]
        campaign: CampaignArgs,
        /// Print the link as the API does.
        #[arg(long)]
        json: bool,
    },
    /// Changes the fields given: name, target URL, campaign fields; the short code, and so every
    /// printed code, stays unless --short-code changes it (the old code then answers 410).
    Update {
        /// The link's id.
        id: String,
        /// Look for the link only in this account (by default every account is searched).
        #[arg(long, value_parser = db::parse_email)]
        email: Option<String>,
        /// A new name.
        #[arg(long)]
        name: Option<String>,
        /// A new target URL.
        #[arg(long, alias = "target-url", value_name = "URL")]
        url: Option<String>,
        #[command(flatten)]
        campaign: CampaignArgs,
        /// Print the link as the API does.
        #[arg(long)]
        json: bool,
    },
    /// Writes a link's code as `GET /api/links/qr` draws it: its short URL in the link's design
    /// (else the account's default design, else the plain code), the flags given overriding
    /// the design's look. Needs --base-url.
    Code {
        /// The link's id.
        id: String,
        /// Look for the link only in this account (by default every account is searched).
        #[arg(long, value_parser = db::parse_email)]
        email: Option<String>,
        /// The image file (`-`: standard output); its extension gives the format unless
        /// --format does.
        #[arg(long, short = 'o', value_name = "FILE")]
        output: PathBuf,
        #[command(flatten)]
        render: RenderArgs,
    },
    /// Creates many links from a CSV or JSON Lines file, as `POST /api/links/bulk` does, with a
    /// progress bar; optionally writes a ZIP of their codes.
    Import(Box<crate::import::ImportArgs>),
    /// Deletes a link and its scans for good: codes pointing to it stop working, and its short
    /// code is never issued again.
    Delete {
        /// The link's id.
        id: String,
        /// Look for the link only in this account (by default every account is searched).
        #[arg(long, value_parser = db::parse_email)]
        email: Option<String>,
    },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LinkList<'a> {
    links: &'a [Link],
    /// Present when there is a next page, as in `GET /api/links`.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

/// Runs `qr links`.
pub fn run(args: LinksArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    let base = args.base_url.as_deref();
    match args.command {
        LinksCommand::List {
            email,
            tag,
            search,
            limit,
            cursor,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let (links, next_cursor) =
                if tag.is_none() && search.is_none() && limit.is_none() && cursor.is_none() {
                    (service.links(account.id)?, None)
                } else {
                    let query = LinkListQuery::parse(
                        search.as_deref(),
                        tag.as_deref(),
                        limit.as_deref(),
                        cursor.as_deref(),
                    )
                    .map_err(|e| crate::error::usage(e.to_string()))?;
                    let page = service.list_links(account.id, &query)?;
                    (page.links, page.next_cursor.map(|c| c.to_string()))
                };
            if json {
                return output::write_json(
                    out,
                    &LinkList {
                        links: &links,
                        next_cursor,
                    },
                );
            }
            if let Some(cursor) = &next_cursor {
                eprintln!("qr: more links follow: --cursor {cursor}");
            }
            let mut table = Table::new(&[
                "ID",
                "NAME",
                "SHORT CODE",
                "TARGET URL",
                "SCANS",
                "CREATED",
                "UPDATED",
            ]);
            for l in &links {
                table.row(vec![
                    l.id.to_string(),
                    l.name.to_string(),
                    l.short_code.to_string(),
                    l.target_url.to_string(),
                    l.scan_count.to_string(),
                    output::time(l.created_at),
                    output::time(l.updated_at),
                ]);
            }
            Ok(table.write(out)?)
        }
        LinksCommand::Show { id, email, json } => {
            let (_, link) = db::find_link(&service, email.as_deref(), &id)?;
            print_link(&link, base, json, out)
        }
        LinksCommand::Create {
            email,
            name,
            url,
            campaign,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let campaign = campaign.read()?;
            let mut fields = LinkUpdate::parse(Some(&name), Some(&url))?;
            campaign.apply(&mut fields)?;
            let link = service.create_link_with(&Caller::operator(account.id), fields)?;
            print_link(&link, base, json, out)
        }
        LinksCommand::Update {
            id,
            email,
            name,
            url,
            campaign,
            json,
        } => {
            let campaign = campaign.read()?;
            let mut update = LinkUpdate::parse(name.as_deref(), url.as_deref())?;
            campaign.apply(&mut update)?;
            if update.is_empty() {
                return Err(crate::error::usage(
                    "nothing to change: give --name, --url or a campaign flag (see --help)",
                ));
            }
            let (account, link) = db::find_link(&service, email.as_deref(), &id)?;
            let link = service.update_link(&Caller::operator(account.id), link.id, &update)?;
            print_link(&link, base, json, out)
        }
        LinksCommand::Code {
            id,
            email,
            output,
            render,
        } => {
            let base = base.ok_or_else(|| {
                crate::error::usage("qr links code needs --base-url (or QR_BASE_URL): the code encodes the link's short URL")
            })?;
            let (account, link) = db::find_link(&service, email.as_deref(), &id)?;
            let to_stdout = output == Path::new("-");
            let mut settings = render.params();
            if settings.format.is_none() && !to_stdout {
                settings.format = Some(crate::generate::format_of(&output)?.to_owned());
            }
            let code = service
                .code_of_link(
                    &account,
                    &link,
                    base.trim_end_matches('/'),
                    settings.given(),
                )
                .map_err(|e| match e {
                    LinkCodeError::Generate(e) => crate::generate::generate_error(e),
                    other => anyhow::Error::new(other),
                })?;
            let bytes = qr_generate::render(&code).map_err(crate::generate::generate_error)?;
            if to_stdout {
                out.write_all(&bytes)?;
            } else {
                std::fs::write(&output, bytes)
                    .with_context(|| format!("cannot write {}", output.display()))?;
            }
            Ok(())
        }
        LinksCommand::Import(import) => crate::import::run(&service, *import, base, out),
        LinksCommand::Delete { id, email } => {
            let (account, link) = db::find_link(&service, email.as_deref(), &id)?;
            service.delete_link(&Caller::operator(account.id), link.id)?;
            eprintln!(
                "qr: deleted link {} (short code {}); codes pointing to it no longer redirect",
                link.id, link.short_code
            );
            Ok(())
        }
    }
}

/// The campaign fields `links show` prints when set: (label, the API's name).
const CAMPAIGN_FIELDS: [(&str, &str); 11] = [
    ("tags", "tags"),
    ("valid from", "validFrom"),
    ("valid until", "validUntil"),
    ("max scans", "maxScans"),
    ("expired URL", "expiredUrl"),
    ("paused", "disabled"),
    ("password", "hasPassword"),
    ("rules", "rules"),
    ("variants", "variants"),
    ("UTM", "utm"),
    ("forward query", "forwardQuery"),
];

fn print_link(
    link: &Link,
    base: Option<&str>,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if json {
        return output::write_json(out, link);
    }
    let mut fields = vec![
        ("id", link.id.to_string()),
        ("name", link.name.to_string()),
        ("short code", link.short_code.to_string()),
    ];
    if let Some(domain) = &link.domain {
        fields.push(("domain", domain.unicode()));
    }
    // A link on a customer's domain is served at that domain's root over HTTPS whatever the
    // base URL; one on the service's address at BASE_URL/r/CODE, known only when the base is.
    if link.domain.is_some() || base.is_some() {
        let base = base.unwrap_or_default();
        fields.push(("short URL", link.short_url(base.trim_end_matches('/'))));
    }
    fields.extend([
        ("target URL", link.target_url.to_string()),
        ("scans", link.scan_count.to_string()),
        ("created", output::time(link.created_at)),
        ("updated", output::time(link.updated_at)),
    ]);
    // The campaign fields that are set, read from the API's JSON of the link so that each
    // shows as the API writes it (rules, variants and UTM as compact JSON).
    let api = serde_json::to_value(link)?;
    for (label, field) in CAMPAIGN_FIELDS {
        let shown = match &api[field] {
            Value::Null | Value::Bool(false) => continue,
            Value::Array(items) if items.is_empty() => continue,
            Value::Bool(true) => "yes".to_owned(),
            Value::String(text) => text.clone(),
            Value::Array(items) if items.iter().all(Value::is_string) => items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        };
        fields.push((label, shown));
    }
    Ok(output::write_fields(out, &fields)?)
}
