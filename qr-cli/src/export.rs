//! `qr export`: one account's data as a ZIP archive (qr-export's layout) for a data-protection request.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use qr_domain::AccountId;
use qr_domain::export::ExportError;

use crate::db::{self, Create, DbArgs};
use crate::error::usage;
use crate::output;

/// `qr export`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("who").required(true).args(["account", "email"])))]
pub struct ExportArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The account's id.
    #[arg(long, value_name = "ID")]
    account: Option<String>,
    /// The account's e-mail address.
    #[arg(long, value_parser = db::parse_email, value_name = "ADDRESS")]
    email: Option<String>,
    /// The archive to write (replaced atomically if it exists).
    #[arg(short, long, value_name = "OUT.zip")]
    output: PathBuf,
}

/// Runs `qr export`: the archive is written to a temporary file beside `--output` and renamed
/// over it once complete, so a failed export never leaves half an archive.
pub fn run(args: ExportArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    let id = match (&args.account, &args.email) {
        (Some(raw), _) => raw
            .trim()
            .parse::<AccountId>()
            .map_err(|_| usage(format!("invalid --account {raw:?}: an account id (a UUID)")))?,
        (None, Some(email)) => db::account_by_email(&service, email)?.id,
        (None, None) => return Err(usage("pass --account ID or --email ADDRESS")),
    };
    let ((), bytes) =
        output::write_atomically(
            &args.output,
            ".qr-export.",
            |file| match qr_export::write_zip(&service, id, file) {
                Ok(_) => Ok(()),
                Err(ExportError::AccountNotFound(id)) => anyhow::bail!("account {id} not found"),
                Err(e) => Err(e.into()),
            },
        )?;
    writeln!(
        out,
        "Wrote {} ({bytes} bytes): account {id}",
        args.output.display()
    )?;
    Ok(())
}
