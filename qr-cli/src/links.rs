//! `qr links`: list, show, create, update and delete an account's dynamic links.

use std::io::Write;

use clap::{ArgGroup, Args, Subcommand};
use qr_domain::{Link, LinkUpdate};
use serde::Serialize;

use crate::db::{self, Create, DbArgs};
use crate::output::{self, Table};

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
    /// Lists an account's links, oldest first.
    List {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
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
        /// Print the link as the API does.
        #[arg(long)]
        json: bool,
    },
    /// Changes a link's name or target URL; the short code, and so every printed code, stays.
    #[command(group(ArgGroup::new("change").required(true).multiple(true).args(["name", "url"])))]
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
        /// Print the link as the API does.
        #[arg(long)]
        json: bool,
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
struct LinkList<'a> {
    links: &'a [Link],
}

/// Runs `qr links`.
pub fn run(args: LinksArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    let base = args.base_url.as_deref();
    match args.command {
        LinksCommand::List { email, json } => {
            let account = db::account_by_email(&service, &email)?;
            let links = service.links(account.id)?;
            if json {
                return output::write_json(out, &LinkList { links: &links });
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
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let link = service.create_link(&account, &name, &url)?;
            print_link(&link, base, json, out)
        }
        LinksCommand::Update {
            id,
            email,
            name,
            url,
            json,
        } => {
            let (account, link) = db::find_link(&service, email.as_deref(), &id)?;
            let update = LinkUpdate::parse(name.as_deref(), url.as_deref())?;
            let link = service.update_link(account.id, link.id, &update)?;
            print_link(&link, base, json, out)
        }
        LinksCommand::Import(import) => crate::import::run(&service, *import, base, out),
        LinksCommand::Delete { id, email } => {
            let (account, link) = db::find_link(&service, email.as_deref(), &id)?;
            service.delete_link(account.id, link.id)?;
            eprintln!(
                "qr: deleted link {} (short code {}); codes pointing to it no longer redirect",
                link.id, link.short_code
            );
            Ok(())
        }
    }
}

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
    if let Some(base) = base {
        fields.push((
            "short URL",
            format!("{}/r/{}", base.trim_end_matches('/'), link.short_code),
        ));
    }
    fields.extend([
        ("target URL", link.target_url.to_string()),
        ("scans", link.scan_count.to_string()),
        ("created", output::time(link.created_at)),
        ("updated", output::time(link.updated_at)),
    ]);
    Ok(output::write_fields(out, &fields)?)
}
