//! Where the database is: an SQLite file path, or a PostgreSQL URL.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// The database as given by `--db` or `QR_DB`: a path (SQLite, the default) or a
/// `postgres://` / `postgresql://` URL (PostgreSQL).
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// An SQLite database file.
    Sqlite(PathBuf),
    /// A PostgreSQL connection URL.
    Postgres(String),
}

impl Location {
    /// Whether this is an SQLite file that does not exist yet.
    pub fn is_missing_file(&self) -> bool {
        match self {
            Location::Sqlite(path) => !path.exists(),
            Location::Postgres(_) => false,
        }
    }
}

impl FromStr for Location {
    type Err = std::convert::Infallible;

    /// Anything starting with `postgres://` or `postgresql://` is a URL, everything else a path.
    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let lower = raw.get(..13).unwrap_or(raw).to_ascii_lowercase();
        Ok(
            if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
                Location::Postgres(raw.to_owned())
            } else {
                Location::Sqlite(PathBuf::from(raw))
            },
        )
    }
}

impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Self {
        Location::Sqlite(path)
    }
}

/// Shows the path, or the URL without its password.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&redacted(url)),
        }
    }
}

/// Never shows a password, so configurations can be logged.
impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            Location::Postgres(url) => f.debug_tuple("Postgres").field(&redacted(url)).finish(),
        }
    }
}

/// The URL with any password replaced by `***`.
fn redacted(url: &str) -> String {
    qr_postgres::redact(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_postgres_and_everything_else_a_path() {
        let parse = |s: &str| s.parse::<Location>().unwrap();
        assert_eq!(
            parse("postgres://qr@db/qr"),
            Location::Postgres("postgres://qr@db/qr".into())
        );
        assert_eq!(
            parse("PostgreSQL://qr@db/qr"),
            Location::Postgres("PostgreSQL://qr@db/qr".into())
        );
        assert_eq!(parse("qr.db"), Location::Sqlite("qr.db".into()));
        assert_eq!(
            parse("./postgres/qr.db"),
            Location::Sqlite("./postgres/qr.db".into())
        );
        let secret = parse("postgres://qr:hunter2@db/qr");
        assert!(!secret.to_string().contains("hunter2"));
        assert!(!format!("{secret:?}").contains("hunter2"));
    }
}
