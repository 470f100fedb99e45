//! `qr audit ACCOUNT`: an account's audit log, newest first, filtered by actor, object and time, as a table, JSON (`--json`, the API's objects) or CSV (`--csv`, the dashboard's download); read as the operator, and never changed by any command.

use std::io::Write;

use clap::Args;
use qr_domain::accounts::caller::Caller;
use qr_domain::audit::entry::summary_line;
use qr_domain::audit::query::{AuditQuery, MAX_AUDIT_LIMIT};
use qr_domain::{AccountId, Email};
use qr_export::audit::{AuditPageJson, audit_csv};

use crate::db::{self, Create, DbArgs};
use crate::output::{self, Table};

/// `qr audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The account: its e-mail address or its id.
    account: String,
    /// Only this actor's entries: `operator`, `key`, `user`, `key:ID`, `user:ID`, or an id.
    #[arg(long)]
    actor: Option<String>,
    /// Only this object's entries: `link`, `link:ID` (also design, domain, webhook, key,
    /// member, workspace), or an id.
    #[arg(long)]
    object: Option<String>,
    /// Only entries at or after this date (YYYY-MM-DD, UTC) or RFC 3339 time.
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// Only entries before this RFC 3339 time, or up to the end of this date (UTC).
    #[arg(long, value_name = "TIME")]
    until: Option<String>,
    /// Most entries shown (1 to 1000); with --csv every matching entry is written.
    #[arg(long, default_value_t = 50)]
    limit: u32,
    /// Start after the entry with this id (the `nextCursor` of a previous --json page).
    #[arg(long)]
    cursor: Option<String>,
    /// Print `{"entries": [...], "nextCursor": …}` as `GET /api/audit` would.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print every matching entry as CSV (the dashboard's download).
    #[arg(long)]
    csv: bool,
}

/// Runs `qr audit`.
pub fn run(args: AuditArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    let account = match args.account.parse::<AccountId>() {
        Ok(id) => service.account(id)?,
        Err(_) if Email::parse(&args.account).is_ok() => {
            db::account_by_email(&service, &args.account)?
        }
        Err(_) => {
            return Err(crate::error::usage(format!(
                "ACCOUNT must be an e-mail address or an account id; got {:?}",
                args.account
            )));
        }
    };
    let caller = Caller::operator(account.id);
    let limit = if args.csv {
        MAX_AUDIT_LIMIT
    } else {
        args.limit
    };
    let mut query = AuditQuery::parse(
        args.actor.as_deref(),
        args.object.as_deref(),
        args.since.as_deref(),
        args.until.as_deref(),
        args.cursor.as_deref(),
        Some(&limit.to_string()),
    )
    .map_err(|e| crate::error::usage(e.to_string()))?;
    if args.csv {
        let mut entries = Vec::new();
        loop {
            let page = service.audit_log(&caller, &query)?;
            entries.extend(page.entries);
            match page.next {
                Some(next) => query.before = Some(next.0),
                None => break,
            }
        }
        out.write_all(audit_csv(&entries).as_bytes())?;
        return Ok(());
    }
    let page = service.audit_log(&caller, &query)?;
    if args.json {
        return output::write_json(out, &AuditPageJson::of(&page));
    }
    let mut table = Table::new(&[
        "ID", "TIME", "ACTOR", "ACTION", "OBJECT", "CHANGES", "NETWORK",
    ]);
    for e in &page.entries {
        let entry = &e.entry;
        table.row(vec![
            e.id.to_string(),
            output::time(entry.at),
            format!("{} ({})", entry.actor.label, entry.actor.kind.as_str()),
            entry.action.as_str().to_owned(),
            format!("{} {}", entry.object.kind, entry.object.id),
            summary_line(&entry.changes),
            entry
                .network
                .as_ref()
                .map_or_else(|| "-".to_owned(), |n| n.as_str().to_owned()),
        ]);
    }
    table.write(out)?;
    if let Some(next) = page.next {
        writeln!(out, "more: --cursor {next}")?;
    }
    Ok(())
}
