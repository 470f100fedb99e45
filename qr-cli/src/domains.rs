//! `qr domains`: add, list, show, check (against real DNS), change the settings of and remove an account's own domains.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use qr_dns::{DnsClient, QueryTimeout};
use qr_domain::Account;
use qr_domain::accounts::caller::Caller;
use qr_domain::domains::domain::{Domain, DomainStatus, Routing};
use qr_domain::domains::name::DomainName;
use qr_domain::domains::service::{DomainConfig, DomainError, DomainSetting, DomainUpdate};
use serde_json::{Value, json};

use crate::db::{self, AdminService, Create, DbArgs};
use crate::output::{self, Table};

/// `qr domains`.
#[derive(Debug, Args)]
pub struct DomainsArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The service's public address: its host (and the names under it) cannot be added as a
    /// customer's domain.
    #[arg(long, env = "QR_BASE_URL", value_name = "URL", global = true)]
    base_url: Option<String>,
    #[command(subcommand)]
    command: DomainsCommand,
}

#[derive(Debug, Subcommand)]
enum DomainsCommand {
    /// Adds a domain to an account (within its plan's count); prints the TXT record that proves
    /// ownership.
    Add {
        /// The domain (Unicode or Punycode), for example go.brand.com.
        domain: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print the domain as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Lists an account's domains by name, with their status.
    List {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print `{"domains": [...]}`.
        #[arg(long)]
        json: bool,
    },
    /// Shows a domain: its TXT record, status with the reason, where it points, its settings.
    Show {
        /// The domain's name or id.
        domain: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print the domain as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Looks up the domain's TXT record (and where it points) now, and stores the result.
    /// Exits 1 unless the domain is verified.
    Check {
        /// The domain's name or id.
        domain: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        #[command(flatten)]
        dns: DnsArgs,
        /// Print the domain as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Changes a domain's settings; an empty value clears one.
    Set {
        /// The domain's name or id.
        domain: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Where `https://<domain>/` redirects.
        #[arg(long, value_name = "URL")]
        root_url: Option<String>,
        /// Where unknown codes on the domain redirect.
        #[arg(long, value_name = "URL")]
        not_found_url: Option<String>,
        /// A file with the domain's `apple-app-site-association` (a JSON object).
        #[arg(long, value_name = "FILE")]
        apple_app_site_association: Option<std::path::PathBuf>,
        /// A file with the domain's `assetlinks.json` (a JSON array).
        #[arg(long, value_name = "FILE")]
        assetlinks: Option<std::path::PathBuf>,
        /// A custom scheme its links' rules may open (`brandapp` for `brandapp://…`); repeat it
        /// for several. Replaces the domain's schemes; `--app-scheme ''` alone clears them.
        #[arg(long = "app-scheme", value_name = "NAME")]
        app_schemes: Vec<String>,
        /// Print the domain as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Removes a domain no link uses.
    Remove {
        /// The domain's name or id.
        domain: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
    },
}

/// Where `qr domains check` asks.
#[derive(Debug, Args)]
struct DnsArgs {
    /// The nameserver to ask (ADDR:PORT); the system's (/etc/resolv.conf) by default.
    #[arg(long, env = "QR_DNS_SERVER", value_name = "ADDR:PORT")]
    dns_server: Option<SocketAddr>,
    /// The host the domain's A/AAAA/CNAME records should lead to; the host of --base-url by
    /// default.
    #[arg(long, env = "QR_DOMAIN_TARGET", value_name = "HOST")]
    domain_target: Option<String>,
}

/// The most bytes of an app association file read from disk: a little over the domain's bound
/// (128 KiB), so an oversized file is refused with the domain's message, not read whole.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// Runs `qr domains`.
pub fn run(args: DomainsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service_host = match &args.base_url {
        Some(url) => host_of(url)?,
        None => String::new(),
    };
    let service = args.db.open(Create::Never)?;
    match args.command {
        DomainsCommand::Add {
            domain,
            email,
            json,
        } => {
            let service = with_config(service, service_host, None, None);
            let account = db::account_by_email(&service, &email)?;
            let added = service
                .add_domain(&Caller::operator(account.id), &domain)
                .map_err(refusal)?;
            if json {
                return output::write_json(out, &view(&added));
            }
            write_domain(out, &added)?;
            eprintln!(
                "qr: create the TXT record {} with the value {}, then run qr domains check {}",
                added.name.verification_name(),
                added.token.txt_value(),
                added.name
            );
            Ok(())
        }
        DomainsCommand::List { email, json } => {
            let account = db::account_by_email(&service, &email)?;
            let domains = service.domains(account.id)?;
            if json {
                let list: Vec<Value> = domains.iter().map(view).collect();
                return output::write_json(out, &json!({ "domains": list }));
            }
            let mut table = Table::new(&["ID", "DOMAIN", "UNICODE", "STATUS", "LAST CHECK"]);
            for d in &domains {
                table.row(vec![
                    d.id.to_string(),
                    d.name.to_string(),
                    d.name.unicode(),
                    status(d).to_owned(),
                    d.verification
                        .last_check
                        .as_ref()
                        .map_or_else(|| "never".to_owned(), |c| output::time(c.at)),
                ]);
            }
            Ok(table.write(out)?)
        }
        DomainsCommand::Show {
            domain,
            email,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let found = find(&service, &account, &domain)?;
            if json {
                return output::write_json(out, &view(&found));
            }
            Ok(write_domain(out, &found)?)
        }
        DomainsCommand::Check {
            domain,
            email,
            dns,
            json,
        } => {
            let client = match dns.dns_server {
                Some(address) => DnsClient::nameserver(address, QueryTimeout::DEFAULT),
                None => DnsClient::system(QueryTimeout::DEFAULT),
            }
            .context("cannot start the DNS client")?;
            let service = with_config(service, service_host, dns.domain_target, Some(client));
            let account = db::account_by_email(&service, &email)?;
            let found = find(&service, &account, &domain)?;
            let checked = service
                .check_domain(&Caller::operator(account.id), found.id)
                .map_err(refusal)?;
            if json {
                output::write_json(out, &view(&checked))?;
            } else {
                write_domain(out, &checked)?;
            }
            if checked.status() == DomainStatus::Verified {
                Ok(())
            } else {
                anyhow::bail!(
                    "{} is {}: {}",
                    checked.name,
                    status(&checked),
                    checked.reason().unwrap_or_default()
                )
            }
        }
        DomainsCommand::Set {
            domain,
            email,
            root_url,
            not_found_url,
            apple_app_site_association,
            assetlinks,
            app_schemes,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let found = find(&service, &account, &domain)?;
            let mut update = DomainUpdate::default();
            if let Some(url) = root_url {
                match url.trim() {
                    "" => update.clear(DomainSetting::RootUrl),
                    url => update.set_root_url(url).map_err(refusal)?,
                }
            }
            if let Some(url) = not_found_url {
                match url.trim() {
                    "" => update.clear(DomainSetting::NotFoundUrl),
                    url => update.set_not_found_url(url).map_err(refusal)?,
                }
            }
            if let Some(path) = apple_app_site_association {
                match read_file(&path)?.trim() {
                    "" => update.clear(DomainSetting::AppleAppSiteAssociation),
                    text => update
                        .set_apple_app_site_association(text)
                        .map_err(refusal)?,
                }
            }
            if let Some(path) = assetlinks {
                match read_file(&path)?.trim() {
                    "" => update.clear(DomainSetting::Assetlinks),
                    text => update.set_assetlinks(text).map_err(refusal)?,
                }
            }
            if !app_schemes.is_empty() {
                // Empty values given alone clear the schemes; among others they are ignored.
                let schemes: Vec<&str> = app_schemes
                    .iter()
                    .map(|s| s.trim())
                    .filter(|s| !s.is_empty())
                    .collect();
                update.set_app_schemes(&schemes).map_err(refusal)?;
            }
            let saved = service
                .update_domain(&Caller::operator(account.id), found.id, &update)
                .map_err(refusal)?;
            if json {
                return output::write_json(out, &view(&saved));
            }
            Ok(write_domain(out, &saved)?)
        }
        DomainsCommand::Remove { domain, email } => {
            let account = db::account_by_email(&service, &email)?;
            let found = find(&service, &account, &domain)?;
            service
                .delete_domain(&Caller::operator(account.id), found.id)
                .map_err(refusal)?;
            eprintln!("qr: removed domain {}", found.name);
            Ok(())
        }
    }
}

/// The service with this command's domain settings.
fn with_config(
    service: AdminService,
    service_host: String,
    target: Option<String>,
    client: Option<DnsClient>,
) -> AdminService {
    service.with_domains(DomainConfig {
        service_host,
        target,
        resolver: client.map(|c| Arc::new(c) as Arc<_>),
    })
}

/// The host of the service's base URL (ASCII, no port).
fn host_of(url: &str) -> anyhow::Result<String> {
    let rest = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let host = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    // A port follows the last colon, unless the colon is inside an IPv6 literal.
    let host = match host.rsplit_once(':') {
        Some((h, port))
            if port.chars().all(|c| c.is_ascii_digit())
                && (!h.contains(':') || h.ends_with(']')) =>
        {
            h
        }
        _ => host,
    };
    if host.is_empty() {
        return Err(crate::error::usage(format!(
            "--base-url {url:?} names no host"
        )));
    }
    Ok(host.to_ascii_lowercase())
}

/// One of the account's domains, by its id or its name (Unicode or ASCII, any case).
fn find(service: &AdminService, account: &Account, given: &str) -> anyhow::Result<Domain> {
    if let Ok(id) = given.parse()
        && let Ok(domain) = service.domain(account.id, id)
    {
        return Ok(domain);
    }
    let name = DomainName::parse_any(given).ok();
    service
        .domains(account.id)?
        .into_iter()
        .find(|d| Some(&d.name) == name.as_ref())
        .with_context(|| {
            format!(
                "domain {} not found in the account of {}",
                given.trim(),
                account.email
            )
        })
}

/// An app association file's text, bounded.
fn read_file(path: &std::path::Path) -> anyhow::Result<String> {
    use std::io::Read as _;
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES).read_to_string(&mut text))
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(text)
}

fn status(d: &Domain) -> &'static str {
    match d.status() {
        DomainStatus::Pending => "pending",
        DomainStatus::Verified => "verified",
        DomainStatus::Failing => "failing",
    }
}

/// Where the domain's records lead, as a phrase.
fn routing(d: &Domain) -> String {
    match &d.verification.routing {
        None => "not checked".to_owned(),
        Some(Routing::PointsAtService) => "points at the service".to_owned(),
        Some(Routing::PointsElsewhere { found }) => format!("elsewhere: {}", found.join(", ")),
        Some(Routing::NoAddress) => "no address records".to_owned(),
        Some(Routing::Unknown { reason }) => format!("unknown: {reason}"),
    }
}

/// The domain as lines of `field: value`.
fn write_domain(out: &mut dyn Write, d: &Domain) -> std::io::Result<()> {
    let text = |v: Option<&str>| v.unwrap_or("-").to_owned();
    let s = &d.settings;
    output::write_fields(
        out,
        &[
            ("id", d.id.to_string()),
            ("domain", d.name.to_string()),
            ("unicode", d.name.unicode()),
            ("status", status(d).to_owned()),
            ("reason", d.reason().unwrap_or_else(|| "-".to_owned())),
            ("routing", routing(d)),
            ("txt name", d.name.verification_name()),
            ("txt value", d.token.txt_value()),
            ("root url", text(s.root_url.as_ref().map(|u| u.as_str()))),
            (
                "not found url",
                text(s.not_found_url.as_ref().map(|u| u.as_str())),
            ),
            ("app schemes", app_schemes(d)),
            ("created", output::time(d.created_at)),
        ],
    )
}

/// The domain's app schemes separated by commas, `-` for none.
fn app_schemes(d: &Domain) -> String {
    if d.settings.app_schemes.is_empty() {
        return "-".to_owned();
    }
    d.settings
        .app_schemes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The domain as JSON: the API's field names (camelCase), with the TXT record to create.
fn view(d: &Domain) -> Value {
    let v = &d.verification;
    json!({
        "id": d.id,
        "domain": d.name.as_str(),
        "unicode": d.name.unicode(),
        "status": d.status(),
        "reason": d.reason(),
        "verification": {
            "type": "TXT",
            "name": d.name.verification_name(),
            "value": d.token.txt_value(),
        },
        "verifiedAt": v.verified_at,
        "failingSince": v.failing_since,
        "lastCheck": v.last_check,
        "nextCheckAt": v.next_check_at,
        "routing": v.routing,
        "settings": d.settings,
        "createdAt": d.created_at,
    })
}

/// A refusal of the command line (exit 2: an invalid name, URL or file) or of the data (exit 1).
fn refusal(e: DomainError) -> anyhow::Error {
    match e {
        DomainError::Name(_)
        | DomainError::Url { .. }
        | DomainError::AppFile { .. }
        | DomainError::AppSchemes(_) => crate::error::usage(e.to_string()),
        other => anyhow::Error::new(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_service_host_is_the_base_urls_host_without_port() {
        assert_eq!(
            host_of("https://QR.example.com:8443/x").unwrap(),
            "qr.example.com"
        );
        assert_eq!(host_of("http://qr.example").unwrap(), "qr.example");
        assert_eq!(host_of("http://[::1]").unwrap(), "[::1]");
        assert_eq!(host_of("http://[::1]:80/").unwrap(), "[::1]");
        assert!(host_of("https:///").is_err());
    }
}
