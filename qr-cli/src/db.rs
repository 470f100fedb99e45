//! The database option shared by `serve` and the administration commands (a path or a `postgres://` URL), and lookups of accounts by e-mail.

use std::sync::Arc;

use anyhow::{Context as _, bail};
use clap::Args;
use qr_domain::links::link::{LinkError, parse_link_id};
use qr_domain::{Account, Email, Link, NoGeoLocator, Service, SystemClock};
use qr_store::{Database, Location};

/// The service as the administration commands use it: the database and the system clock.
pub type AdminService = Service<Database, SystemClock>;

/// The `--db` option.
#[derive(Debug, Clone, Args)]
pub struct DbArgs {
    /// The database shared with `qr serve`: an SQLite file, or a PostgreSQL URL
    /// (postgres://user:password@host:port/database) shared by several servers.
    ///
    /// Changes to accounts and keys take effect on the running servers' next request, changes
    /// to links within a second. Commands that only read refuse a missing file instead of
    /// creating an empty one.
    #[arg(
        long,
        env = "QR_DB",
        default_value = "qr.db",
        value_name = "FILE|URL",
        global = true
    )]
    pub db: Location,
}

/// Whether a command may create the database file when it does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Create {
    /// Create the file (commands that add accounts or keys).
    IfMissing,
    /// Refuse a missing file: it is most likely a wrong `--db` or working directory.
    Never,
}

impl DbArgs {
    /// Opens the database and the service over it.
    pub fn open(&self, create: Create) -> anyhow::Result<AdminService> {
        let store = self.open_database(create)?;
        let service = Service::new(Arc::new(store), SystemClock, Arc::new(NoGeoLocator))
            .with_context(|| format!("cannot start the service on {}", self.db))?;
        Ok(service)
    }

    /// Opens (and migrates) the database itself.
    pub fn open_database(&self, create: Create) -> anyhow::Result<Database> {
        if create == Create::Never && self.db.is_missing_file() {
            bail!(
                "no database at {}: pass --db FILE|URL or set QR_DB (qr accounts create, qr keys create, qr db migrate and qr serve create one)",
                self.db
            );
        }
        Ok(Database::open(&self.db)?)
    }
}

/// The account with this e-mail address (compared without regard to case), if any.
pub fn find_account(service: &AdminService, email: &str) -> anyhow::Result<Option<Account>> {
    let email = Email::parse(email).map_err(|e| crate::error::usage(format!("--email: {e}")))?;
    Ok(service.account_by_email(&email)?)
}

/// The account with this e-mail address, or an error naming it.
pub fn account_by_email(service: &AdminService, email: &str) -> anyhow::Result<Account> {
    find_account(service, email)?
        .with_context(|| format!("no account has the e-mail address {}", email.trim()))
}

/// A link and its account: within the account of `email` when given, otherwise in every account.
pub fn find_link(
    service: &AdminService,
    email: Option<&str>,
    link_id: &str,
) -> anyhow::Result<(Account, Link)> {
    let accounts = match email {
        Some(email) => vec![account_by_email(service, email)?],
        None => service.accounts()?,
    };
    // A malformed id is a link that does not exist, as in the API.
    if let Ok(id) = parse_link_id(link_id) {
        for account in accounts {
            match service.link(account.id, id) {
                Ok(link) => return Ok((account, link)),
                Err(LinkError::NotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    match email {
        Some(email) => bail!(
            "link {link_id} not found in the account of {}",
            email.trim()
        ),
        None => bail!("link {link_id} not found"),
    }
}

/// Parses an e-mail address for clap, so an invalid one is a usage error.
pub fn parse_email(raw: &str) -> Result<String, String> {
    Email::parse(raw)
        .map(|e| e.as_str().to_owned())
        .map_err(|e| e.to_string())
}
