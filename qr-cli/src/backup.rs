//! `qr backup OUT` and `qr restore IN`: a consistent copy of a live SQLite database, and its replacement by a checked copy, printing what the copy holds.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use qr_store::backup::{BackupError, Inspection, backup, restore};
use serde::Serialize;

use crate::db::DbArgs;
use crate::output::{self, Table};

/// `qr backup`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
The copy is consistent: it holds every change committed before it started and none after,
while qr serve keeps answering and writing (SQLite's VACUUM INTO, one read transaction). It is
written beside OUT and renamed into place when complete, then checked like qr restore checks.
A PostgreSQL database is backed up with pg_dump instead (the command says how).

Example:
  qr backup --db /var/lib/qr/qr.db /var/backups/qr-$(date +%F).db")]
pub struct BackupArgs {
    /// The new file to write (never overwritten).
    #[arg(value_name = "OUT")]
    out: PathBuf,
    #[command(flatten)]
    db: DbArgs,
    /// Print the check as JSON.
    #[arg(long)]
    json: bool,
}

/// `qr restore`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
The backup must pass SQLite's integrity check, be a QR platform database (its application id)
and have a schema version this build opens; an older one is migrated when qr serve next opens
it. An existing database is replaced only with --force, and never while a process (a running
qr serve) has it open: stop the server, restore, start it again.

Example:
  qr restore --db /var/lib/qr/qr.db --force /var/backups/qr-2024-05-15.db")]
pub struct RestoreArgs {
    /// The backup to restore (a file written by qr backup).
    #[arg(value_name = "IN")]
    input: PathBuf,
    #[command(flatten)]
    db: DbArgs,
    /// Replace an existing database (not one that a process has open).
    #[arg(long)]
    force: bool,
    /// Print the check as JSON.
    #[arg(long)]
    json: bool,
}

/// The check of a database file in `--json` output.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Checked<'a> {
    file: String,
    integrity: &'a str,
    application_id: String,
    schema_version: i64,
    counts: serde_json::Map<String, serde_json::Value>,
}

/// Runs `qr backup`.
pub fn run_backup(args: BackupArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let report = backup(&args.db.db, &args.out).map_err(refusal)?;
    print(out, &args.out.display().to_string(), &report, args.json)?;
    if !args.json {
        writeln!(out, "backed up {} to {}", args.db.db, args.out.display())?;
    }
    Ok(())
}

/// Runs `qr restore`.
pub fn run_restore(args: RestoreArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let report = restore(&args.input, &args.db.db, args.force).map_err(refusal)?;
    print(out, &args.db.db.to_string(), &report, args.json)?;
    if !args.json {
        writeln!(out, "restored {} into {}", args.input.display(), args.db.db)?;
    }
    Ok(())
}

/// A PostgreSQL database on the command line is a usage error (exit 2); the rest refuse the data.
fn refusal(e: BackupError) -> anyhow::Error {
    match e {
        BackupError::Postgres => crate::error::usage(e.to_string()),
        other => anyhow::Error::new(other),
    }
}

fn print(out: &mut dyn Write, file: &str, report: &Inspection, json: bool) -> anyhow::Result<()> {
    if json {
        return output::write_json(
            out,
            &Checked {
                file: file.to_owned(),
                integrity: &report.integrity,
                application_id: format!("{:#x}", report.application_id),
                schema_version: report.schema_version,
                counts: report
                    .counts
                    .iter()
                    .map(|(t, n)| ((*t).to_owned(), serde_json::Value::from(*n)))
                    .collect(),
            },
        );
    }
    writeln!(
        out,
        "{file}: integrity {}, application id {:#x}, schema version {}",
        report.integrity, report.application_id, report.schema_version
    )?;
    let mut table = Table::new(&["TABLE", "ROWS"]);
    for (name, rows) in &report.counts {
        table.row(vec![(*name).to_owned(), rows.to_string()]);
    }
    table.write(out)?;
    Ok(())
}
