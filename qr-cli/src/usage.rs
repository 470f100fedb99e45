//! `qr usage`: an account's requests this month against its plan's monthly limit.

use std::io::Write;

use clap::Args;

use crate::db::{self, Create, DbArgs};
use crate::output;

/// `qr usage`.
#[derive(Debug, Args)]
pub struct UsageArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The account's e-mail address.
    #[arg(long, value_parser = db::parse_email)]
    email: String,
    /// Print the usage object as `GET /api/dashboard?action=usage` returns it.
    #[arg(long)]
    json: bool,
}

/// Runs `qr usage`. The count is the one the server last saved (it saves about once a second).
pub fn run(args: UsageArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    let account = db::account_by_email(&service, &args.email)?;
    let report = service.usage_of(account.id)?;
    if args.json {
        return output::write_json(out, &report);
    }
    let limit = if report.usage.limit < 0 {
        "unlimited".to_owned()
    } else {
        report.usage.limit.to_string()
    };
    Ok(output::write_fields(
        out,
        &[
            ("e-mail", account.email.to_string()),
            ("plan", report.plan.clone()),
            ("requests this month", report.usage.current.to_string()),
            ("monthly limit", limit),
            ("resets", output::time(report.usage.reset_date)),
        ],
    )?)
}
