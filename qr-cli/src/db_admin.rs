//! `qr db`: bring a database's schema to this build's version, and copy an SQLite deployment into PostgreSQL, verified table by table.

use std::io::Write;

use clap::{Args, Subcommand};
use qr_store::Location;
use qr_store::copy::{TableReport, copy};
use serde::Serialize;

use crate::db::{Create, DbArgs};
use crate::output::{self, Table};

/// `qr db`.
#[derive(Debug, Args)]
pub struct DbAdminArgs {
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(Debug, Subcommand)]
enum DbCommand {
    /// Creates the database if it is missing and applies the migrations this build has (each in
    /// its own transaction; several servers or commands doing it at once migrate once).
    ///
    /// `qr serve` and the other commands migrate on opening too; run this first to upgrade a
    /// database before starting a new version of several servers.
    Migrate {
        #[command(flatten)]
        db: DbArgs,
        /// Print `{"engine": …, "schemaVersion": …}`.
        #[arg(long)]
        json: bool,
    },
    /// Copies an SQLite database into an empty PostgreSQL database in one transaction, and
    /// checks every table's row count and checksum before committing; on any difference nothing
    /// is kept.
    ///
    /// Stop the server using the SQLite file first: writes made after the copy starts are not
    /// copied. Then start the servers with --db set to the PostgreSQL URL.
    #[command(
        after_long_help = "Example:\n  qr db copy --from qr.db --to postgres://qr:secret@db.internal/qr"
    )]
    Copy {
        /// The SQLite database file to copy.
        #[arg(long, value_name = "FILE")]
        from: Location,
        /// The PostgreSQL database to copy into (postgres://…); it must hold no data.
        #[arg(long, value_name = "URL")]
        to: Location,
        /// Print the tables copied as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// The result of `qr db migrate --json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Migrated {
    engine: String,
    schema_version: i64,
}

/// A copied table in `qr db copy --json`.
#[derive(Serialize)]
struct CopiedTable<'a> {
    table: &'a str,
    rows: u64,
    checksum: &'a str,
}

/// Runs `qr db`.
pub fn run(args: DbAdminArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    match args.command {
        DbCommand::Migrate { db, json } => {
            let database = db.open_database(Create::IfMissing)?;
            let migrated = Migrated {
                engine: database.engine().to_string(),
                schema_version: database.schema_version(),
            };
            if json {
                return output::write_json(out, &migrated);
            }
            writeln!(
                out,
                "{} database {} is at schema version {}",
                migrated.engine, db.db, migrated.schema_version
            )?;
            Ok(())
        }
        DbCommand::Copy { from, to, json } => {
            let (Location::Sqlite(_), Location::Postgres(_)) = (&from, &to) else {
                return Err(crate::error::usage(format!(
                    "qr db copy copies an SQLite file (--from FILE) into a PostgreSQL database (--to postgres://…); got --from {from} --to {to}"
                )));
            };
            let tables = copy(&from, &to)?;
            if json {
                let rows: Vec<CopiedTable<'_>> = tables.iter().map(copied).collect();
                return output::write_json(out, &rows);
            }
            let mut table = Table::new(&["TABLE", "ROWS", "CHECKSUM (SOURCE = COPY)"]);
            for t in &tables {
                table.row(vec![
                    t.table.to_owned(),
                    t.rows.to_string(),
                    t.checksum.clone(),
                ]);
            }
            table.write(out)?;
            let total: u64 = tables.iter().map(|t| t.rows).sum();
            writeln!(
                out,
                "copied {total} rows from {from} to {to}; every table's count and checksum match"
            )?;
            Ok(())
        }
    }
}

fn copied(t: &TableReport) -> CopiedTable<'_> {
    CopiedTable {
        table: t.table,
        rows: t.rows,
        checksum: &t.checksum,
    }
}
