//! The command-line definition: every subcommand, shared by the parser, the completions and the manual.

use clap::{Parser, Subcommand};

use crate::accounts::AccountsArgs;
use crate::analytics::AnalyticsArgs;
use crate::audit::AuditArgs;
use crate::backup::{BackupArgs, RestoreArgs};
use crate::batch::BatchArgs;
use crate::db_admin::DbAdminArgs;
use crate::designs::DesignsArgs;
use crate::docs::{CompletionsArgs, ManArgs};
use crate::domains::DomainsArgs;
use crate::export::ExportArgs;
use crate::generate::GenerateArgs;
use crate::geoip::GeoipArgs;
use crate::keys::KeysArgs;
use crate::links::LinksArgs;
use crate::members::{MembersArgs, WorkspacesArgs};
use crate::print::PrintArgs;
use crate::serve::ServeArgs;
use crate::usage::UsageArgs;
use crate::webhooks::WebhooksArgs;

/// Make QR codes, run the QR code service, and administer its accounts, keys, links and analytics.
#[derive(Debug, Parser)]
#[command(
    name = "qr",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_long_help = "\
Exit status:
  0  success (also when standard output is closed early, as in `qr keys list | head -1`)
  1  failure: I/O, database, something not found or not allowed by the data, failed batch items
  2  usage error: unknown option, missing or invalid value

Environment (shared with the server; a flag overrides its variable):
  QR_DB                        database of serve and the administration commands: an SQLite
                               file or a postgres:// URL [./qr.db]
  QR_REDIS_URL                 Redis shared by several servers for rate limits and quotas
  QR_LISTEN                    address serve listens on [127.0.0.1:8080]
  QR_BASE_URL                  public address of the service, for short URLs
  QR_GEOIP_DB                  MaxMind-format City database for scan locations
  QR_MAXMIND_LICENSE_KEY       MaxMind licence key of `qr geoip update` (never printed)
  QR_TRUSTED_PROXIES           comma-separated CIDRs whose forwarding headers are believed
  QR_ALLOW_PRIVATE_LOGO_HOSTS  let logo URLs point at private addresses (true/false)
  QR_SIGNUP                    open or closed: whether visitors may sign up in the dashboard [open]
  QR_SELF_SERVICE_PLANS        plans picked at sign-up without approval [free]
  QR_SMTP_URL                  SMTP server of the dashboard's mail (else links go to the log)
  QR_MAIL_FROM                 sender of the dashboard's mail
  NO_COLOR                     no colours in the terminal drawing of `qr generate`

Examples:
  qr generate 'https://example.com' -o code.png
  qr generate 'hello' --ec H --margin 2            (drawn in the terminal)
  qr batch items.csv -o codes.zip --size 600
  KEY=$(qr keys create --email ops@example.com --plan pro)
  qr serve --listen 0.0.0.0:8080
  qr db copy --from qr.db --to postgres://qr@db.internal/qr
  qr backup --db qr.db backup.db
  qr analytics 6f1c... --format csv > scans.csv"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Makes one QR code image (PNG or SVG), or draws it in the terminal.
    Generate(GenerateArgs),
    /// Makes many codes from a CSV or JSON Lines file into a ZIP archive, on every core.
    Batch(BatchArgs),
    /// Prints many codes (an account's links, or data items) on label sheets as one PDF.
    Print(PrintArgs),
    /// Runs the HTTP API server on the database until SIGINT or SIGTERM.
    Serve(ServeArgs),
    /// Creates, lists and shows accounts; changes plans and enterprise limits; verifies addresses,
    /// decides plan requests, disables accounts, makes admins and prints password links.
    Accounts(AccountsArgs),
    /// Lists a workspace's members; adds existing users, changes roles, removes members and hands
    /// a workspace over.
    Members(MembersArgs),
    /// Lists the workspaces a user belongs to.
    Workspaces(WorkspacesArgs),
    /// Creates, lists, regenerates and revokes API keys; sets their restrictions.
    Keys(KeysArgs),
    /// Manages an account's dynamic links.
    Links(LinksArgs),
    /// Adds, lists, shows, checks (DNS), configures and removes an account's own domains.
    Domains(DomainsArgs),
    /// Lists, shows, creates, changes and deletes an account's saved designs; sets its default.
    Designs(DesignsArgs),
    /// Registers, lists and removes an account's webhooks; lists their deliveries.
    Webhooks(WebhooksArgs),
    /// Shows a link's scan analytics as a table, JSON or CSV.
    Analytics(AnalyticsArgs),
    /// Shows an account's requests this month against its plan's limit.
    Usage(UsageArgs),
    /// Shows an account's audit log (who changed what, when, from which network), as a table,
    /// JSON or CSV.
    Audit(AuditArgs),
    /// Migrates a database's schema, or copies an SQLite database into PostgreSQL.
    Db(DbAdminArgs),
    /// Writes one account's data (account, keys' metadata, links, analytics, scans) as a ZIP of
    /// JSON and CSV files, for a data-protection request.
    Export(ExportArgs),
    /// Downloads and installs the GeoIP City database a running server reloads.
    Geoip(GeoipArgs),
    /// Copies a live SQLite database consistently into a new file while the server runs.
    Backup(BackupArgs),
    /// Replaces a stopped server's SQLite database by a checked backup.
    Restore(RestoreArgs),
    /// Prints shell completions for bash, zsh, fish, elvish or PowerShell.
    Completions(CompletionsArgs),
    /// Prints the manual page (roff), or writes one per subcommand into a directory.
    Man(ManArgs),
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
