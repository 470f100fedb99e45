//! The `qr` command: generate QR codes, and run and administer the service.

mod accounts;
mod analytics;
mod analytics_export;
mod audit;
mod backup;
mod batch;
mod cli;
mod content_args;
mod db;
mod db_admin;
mod designs;
mod docs;
mod domains;
mod error;
mod export;
mod generate;
mod geoip;
mod import;
mod keys;
mod link_args;
mod links;
mod members;
mod output;
mod print;
mod render_args;
mod serve;
mod usage;
mod webhooks;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser as _;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout, which may be a closed pipe: nothing left to say then.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(error::USAGE));
        }
    };
    // Stdout is not locked for the whole run: `serve` and its threads may print too.
    let mut out = std::io::stdout();
    let result = run(cli, &mut out).and_then(|()| Ok(out.flush()?));
    match result {
        Ok(()) => ExitCode::from(error::SUCCESS),
        Err(e) => {
            let code = error::exit_code(&e);
            if !error::is_broken_pipe(&e) {
                eprintln!("{}", error::one_line(&e));
            }
            ExitCode::from(code)
        }
    }
}

/// Runs one command, writing its output to `out`.
fn run(cli: Cli, out: &mut dyn Write) -> anyhow::Result<()> {
    match cli.command {
        Command::Generate(args) => generate::run(args, out),
        Command::Batch(args) => batch::run(args, out),
        Command::Print(args) => print::run(args, out),
        Command::Serve(args) => serve::run(args),
        Command::Accounts(args) => accounts::run(args, out),
        Command::Members(args) => members::run_members(args, out),
        Command::Workspaces(args) => members::run_workspaces(args, out),
        Command::Keys(args) => keys::run(args, out),
        Command::Links(args) => links::run(args, out),
        Command::Domains(args) => domains::run(args, out),
        Command::Designs(args) => designs::run(args, out),
        Command::Webhooks(args) => webhooks::run(args, out),
        Command::Analytics(args) => analytics::run(args, out),
        Command::Usage(args) => usage::run(args, out),
        Command::Audit(args) => audit::run(args, out),
        Command::Db(args) => db_admin::run(args, out),
        Command::Export(args) => export::run(args, out),
        Command::Geoip(args) => geoip::run(args, out),
        Command::Backup(args) => backup::run_backup(args, out),
        Command::Restore(args) => backup::run_restore(args, out),
        Command::Completions(args) => docs::completions(args, out),
        Command::Man(args) => docs::man(args, out),
    }
}
