//! Why a database could not be opened, and how PostgreSQL's errors map to the domain's `StoreError`.

use postgres::error::SqlState;
use qr_domain::StoreError;
use thiserror::Error;

/// Why [`crate::PgStore::open`] refused or failed. URLs in messages never show a password.
#[derive(Debug, Error)]
pub enum OpenError {
    /// The URL is not a PostgreSQL connection URL.
    #[error("invalid PostgreSQL URL {url}: {message}")]
    InvalidUrl {
        /// The URL, without its password.
        url: String,
        /// What is wrong with it.
        message: String,
    },
    /// The server could not be reached or refused the connection.
    #[error("cannot connect to PostgreSQL at {url}: {source}")]
    Connect {
        /// The URL, without its password.
        url: String,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// The database holds tables but not this application's schema: nothing was changed.
    #[error(
        "the database at {url} holds tables of another application; give qr its own (empty) database: nothing was changed"
    )]
    ForeignDatabase {
        /// The URL, without its password.
        url: String,
    },
    /// The database was migrated by a newer version of this program: nothing was changed.
    #[error(
        "the database at {url} has schema version {found}, newer than the {supported} this program knows; upgrade qr: nothing was changed"
    )]
    NewerSchema {
        /// The URL, without its password.
        url: String,
        /// The version found.
        found: i32,
        /// The newest version this build knows.
        supported: i32,
    },
    /// A statement failed while checking or migrating the schema.
    #[error("PostgreSQL failed at {url} while {doing}: {source}")]
    Postgres {
        /// The URL, without its password.
        url: String,
        /// What the adapter was doing.
        doing: &'static str,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
}

/// `url` with the password (if any) replaced by `***`, for messages and logs.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let Some((user_info, host)) = authority.rsplit_once('@') else {
        return format!("{scheme}://{authority}{}", redact_query(tail));
    };
    // Keep the user name; `:***` shows that a password was given.
    let hidden = match user_info.split_once(':') {
        Some((user, _)) => format!("{user}:***"),
        None => user_info.to_owned(),
    };
    format!("{scheme}://{hidden}@{host}{}", redact_query(tail))
}

/// A `password=` query parameter replaced by `password=***`.
fn redact_query(tail: &str) -> String {
    let Some((path, query)) = tail.split_once('?') else {
        return tail.to_owned();
    };
    let parameters: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some(("password", _)) => "password=***".to_owned(),
            _ => p.to_owned(),
        })
        .collect();
    format!("{path}?{}", parameters.join("&"))
}

/// Maps a PostgreSQL error to the adapter-independent storage error.
pub(crate) fn store_err(e: &postgres::Error) -> StoreError {
    let Some(db) = e.as_db_error() else {
        let network =
            e.is_closed() || std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>());
        return if network {
            // No answer from the server: the connection failed, closed or timed out.
            StoreError::Unreachable(e.to_string())
        } else {
            // A value the client could not convert: a bug of this adapter, not an outage.
            StoreError::Backend(e.to_string())
        };
    };
    let code = db.code();
    let message = format!("{}: {}", code.code(), db.message());
    if code == &SqlState::UNIQUE_VIOLATION
        || code == &SqlState::FOREIGN_KEY_VIOLATION
        || code == &SqlState::CHECK_VIOLATION
        || code == &SqlState::EXCLUSION_VIOLATION
    {
        StoreError::Conflict(message)
    } else if code == &SqlState::T_R_SERIALIZATION_FAILURE
        || code == &SqlState::T_R_DEADLOCK_DETECTED
        || code == &SqlState::LOCK_NOT_AVAILABLE
        || code == &SqlState::TOO_MANY_CONNECTIONS
        || code == &SqlState::QUERY_CANCELED
    {
        StoreError::Busy
    } else if code == &SqlState::DISK_FULL || code == &SqlState::OUT_OF_MEMORY {
        StoreError::Full
    } else if code == &SqlState::READ_ONLY_SQL_TRANSACTION {
        StoreError::ReadOnly
    } else if code == &SqlState::ADMIN_SHUTDOWN
        || code == &SqlState::CRASH_SHUTDOWN
        || code == &SqlState::CANNOT_CONNECT_NOW
        || code == &SqlState::CONNECTION_FAILURE
        || code == &SqlState::CONNECTION_EXCEPTION
    {
        StoreError::Unreachable(message)
    } else if code == &SqlState::IO_ERROR {
        StoreError::Io(message)
    } else if code == &SqlState::DATA_CORRUPTED || code == &SqlState::INDEX_CORRUPTED {
        StoreError::Corrupt(message)
    } else {
        StoreError::Backend(message)
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact("postgres://qr:s3cret@db.example:5432/qr?sslmode=require"),
            "postgres://qr:***@db.example:5432/qr?sslmode=require"
        );
        assert_eq!(
            redact("postgres://qr@db.example/qr"),
            "postgres://qr@db.example/qr"
        );
        assert_eq!(redact("postgres:///qr"), "postgres:///qr");
        assert_eq!(
            redact("postgres://h/qr?user=a&password=b&sslmode=require"),
            "postgres://h/qr?user=a&password=***&sslmode=require"
        );
        assert_eq!(redact("postgresql://a:b:c@h/d"), "postgresql://a:***@h/d");
    }
}
