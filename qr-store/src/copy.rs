//! `qr db copy`: an SQLite deployment copied into an empty PostgreSQL database in one transaction, verified by row counts and a checksum of every table before it commits.
//!
//! The checksum of a table is the sum (modulo 2^128) of the SHA-256 of each row's values in a
//! canonical form (ids as UUIDs, times in microseconds, days as dates), so it does not depend
//! on row order or on either engine's way of storing a value. The source is read in one
//! snapshot; the destination is read back inside the copying transaction, which is rolled back
//! (leaving the destination empty) on any difference.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::fallible_iterator::FallibleIterator as _;
use postgres::types::{ToSql, Type};
use postgres::{NoTls, Transaction};
use qr_postgres::{DayTable, create_day_partitions};
use rusqlite::types::ValueRef;
use sha2::{Digest, Sha256};
use thiserror::Error;
use uuid::Uuid;

use crate::database::{Database, OpenError};
use crate::location::Location;

/// What a column holds, in canonical terms, and its PostgreSQL type.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Uuid,
    Text,
    Bytes,
    /// Microseconds since the Unix epoch (SQLite) or `timestamptz` (PostgreSQL).
    Time,
    /// Days since 0001-01-01 counted from 1 (SQLite) or `date` (PostgreSQL).
    Day,
    Int8,
    Int4,
    Int2,
}

/// One table to copy: its name and columns, parents before children.
struct Table {
    name: &'static str,
    columns: &'static [(&'static str, Kind)],
}

use Kind::{Bytes, Day, Int2, Int4, Int8, Text, Time};

/// The names of the tables holding data, parents first (what `qr restore` counts).
pub(crate) fn table_names() -> impl Iterator<Item = &'static str> {
    TABLES.iter().map(|t| t.name)
}

/// PostgreSQL's own columns and tables, which a copy leaves to their defaults: the scan writers'
/// numbers in the rollups' keys (0: not written by a PostgreSQL scan writer) and the writers'
/// count rows (none yet: a copied link's count is its `scan_count`); see qr-postgres's
/// `writers.rs`.
#[cfg(test)]
const POSTGRES_ONLY: &[&str] = &[
    "daily.writer",
    "daily_dims.writer",
    "scan_counts.link_id",
    "scan_counts.writer",
    "scan_counts.scans",
];

/// Every table holding data with every column, in an order that satisfies the foreign keys
/// (the test `every_table_and_column_is_copied` compares this list with both schemas). The
/// configuration version (`meta`) is not copied: the destination's own counter moves as rows
/// arrive.
const TABLES: &[Table] = &[
    Table {
        name: "accounts",
        columns: &[
            ("id", Kind::Uuid),
            ("email", Text),
            ("plan", Text),
            ("overrides", Text),
            ("created_at", Time),
            ("status", Text),
        ],
    },
    Table {
        name: "users",
        columns: &[
            ("id", Kind::Uuid),
            ("email", Text),
            ("password_hash", Text),
            ("email_verified_at", Time),
            ("role", Text),
            ("created_at", Time),
        ],
    },
    Table {
        name: "memberships",
        columns: &[
            ("account_id", Kind::Uuid),
            ("user_id", Kind::Uuid),
            ("role", Text),
            ("created_at", Time),
        ],
    },
    Table {
        name: "invitations",
        columns: &[
            ("id", Kind::Uuid),
            ("account_id", Kind::Uuid),
            ("email", Text),
            ("role", Text),
            ("token_hash", Bytes),
            ("created_at", Time),
            ("expires_at", Time),
        ],
    },
    Table {
        name: "api_keys",
        columns: &[
            ("id", Kind::Uuid),
            ("account_id", Kind::Uuid),
            ("mode", Text),
            ("hash", Bytes),
            ("display_prefix", Text),
            ("created_at", Time),
            ("last_used_at", Time),
            ("settings", Text),
            ("name", Text),
            ("last_four", Text),
            ("created_by", Text),
        ],
    },
    // Before links: a link's design_id names a design.
    Table {
        name: "designs",
        columns: &[
            ("id", Kind::Uuid),
            ("account_id", Kind::Uuid),
            ("name", Text),
            ("look", Text),
            ("logo", Bytes),
            ("logo_type", Text),
            ("is_default", Int2),
            ("created_at", Time),
            ("updated_at", Time),
        ],
    },
    Table {
        name: "links",
        columns: &[
            ("id", Kind::Uuid),
            ("account_id", Kind::Uuid),
            ("name", Text),
            ("short_code", Text),
            ("target_url", Text),
            ("scan_count", Int8),
            ("created_at", Time),
            ("updated_at", Time),
            ("code_key", Text),
            ("tags", Text),
            ("options", Text),
            ("domain", Text),
            ("design_id", Kind::Uuid),
        ],
    },
    Table {
        name: "tombstones",
        columns: &[("short_code", Text)],
    },
    Table {
        name: "scans",
        columns: &[
            ("id", Int8),
            ("link_id", Kind::Uuid),
            ("at", Time),
            ("day", Day),
            ("visitor", Bytes),
            ("country", Text),
            ("city", Text),
            ("device", Text),
            ("browser", Text),
            ("os", Text),
            ("referrer", Text),
            ("variant", Int2),
            ("rule", Int2),
        ],
    },
    Table {
        name: "daily",
        columns: &[
            ("link_id", Kind::Uuid),
            ("day", Day),
            ("scans", Int8),
            ("uniques", Int8),
        ],
    },
    Table {
        name: "daily_dims",
        columns: &[
            ("link_id", Kind::Uuid),
            ("day", Day),
            ("dim", Int2),
            ("value", Text),
            ("scans", Int8),
        ],
    },
    Table {
        name: "visitors",
        columns: &[("link_id", Kind::Uuid), ("day", Day), ("visitor", Bytes)],
    },
    Table {
        name: "usage",
        columns: &[("account_id", Kind::Uuid), ("month", Int4), ("count", Int8)],
    },
    Table {
        name: "salts",
        columns: &[("day", Day), ("salt", Bytes)],
    },
    Table {
        name: "tokens",
        columns: &[
            ("hash", Bytes),
            ("user_id", Kind::Uuid),
            ("purpose", Text),
            ("new_email", Text),
            ("created_at", Time),
            ("expires_at", Time),
        ],
    },
    Table {
        name: "sessions",
        columns: &[
            ("hash", Bytes),
            ("user_id", Kind::Uuid),
            ("account_id", Kind::Uuid),
            ("created_at", Time),
            ("last_seen_at", Time),
            ("user_agent", Text),
        ],
    },
    Table {
        name: "plan_requests",
        columns: &[
            ("account_id", Kind::Uuid),
            ("plan", Text),
            ("created_at", Time),
        ],
    },
    Table {
        name: "daily_usage",
        columns: &[("account_id", Kind::Uuid), ("day", Day), ("count", Int8)],
    },
    Table {
        name: "webhooks",
        columns: &[
            ("id", Kind::Uuid),
            ("account_id", Kind::Uuid),
            ("url", Text),
            ("events", Int2),
            ("secret", Text),
            ("created_at", Time),
        ],
    },
    Table {
        name: "webhook_events",
        columns: &[
            ("seq", Int8),
            ("webhook_id", Kind::Uuid),
            ("account_id", Kind::Uuid),
            ("event_id", Kind::Uuid),
            ("kind", Int2),
            ("data", Text),
            ("created_at", Time),
            ("attempts", Int4),
            ("next_attempt_at", Time),
            ("state", Int2),
            ("last_error", Text),
        ],
    },
    Table {
        name: "usage_thresholds",
        columns: &[
            ("account_id", Kind::Uuid),
            ("month", Int4),
            ("percent", Int2),
        ],
    },
    Table {
        name: "domains",
        columns: &[
            ("id", Kind::Uuid),
            ("account_id", Kind::Uuid),
            ("name", Text),
            ("token", Text),
            ("created_at", Time),
            ("next_check_at", Time),
            ("verification", Text),
            ("settings", Text),
        ],
    },
    Table {
        name: "orphan_days",
        columns: &[("domain_id", Kind::Uuid), ("day", Day), ("visits", Int8)],
    },
    Table {
        name: "orphan_visits",
        columns: &[
            ("seq", Int8),
            ("domain_id", Kind::Uuid),
            ("at", Time),
            ("path", Text),
            ("country", Text),
            ("device", Text),
        ],
    },
    Table {
        name: "idempotency_keys",
        columns: &[
            ("account_id", Kind::Uuid),
            ("key_hash", Bytes),
            ("fingerprint", Bytes),
            ("answer", Text),
            ("created_at", Time),
            ("expires_at", Time),
        ],
    },
    Table {
        name: "audit_log",
        columns: &[
            ("id", Int8),
            ("account_id", Kind::Uuid),
            ("at", Time),
            ("actor_kind", Text),
            ("actor_id", Text),
            ("actor_label", Text),
            ("action", Text),
            ("object_kind", Text),
            ("object_id", Text),
            ("changes", Text),
            ("network", Text),
        ],
    },
    // Single sign-on: the settings (the client secret as stored, since the provider must be
    // shown it), the attempts in progress (at most 10 minutes old) and the identity links.
    Table {
        name: "sso_settings",
        columns: &[
            ("account_id", Kind::Uuid),
            ("enabled", Int2),
            ("issuer", Text),
            ("client_id", Text),
            ("client_secret", Text),
            ("allowed_domains", Text),
            ("default_role", Text),
            ("updated_at", Time),
        ],
    },
    Table {
        name: "sso_attempts",
        columns: &[
            ("state", Text),
            ("account_id", Kind::Uuid),
            ("nonce", Text),
            ("verifier", Text),
            ("created_at", Time),
        ],
    },
    Table {
        name: "sso_identities",
        columns: &[
            ("issuer", Text),
            ("subject", Text),
            ("user_id", Kind::Uuid),
            ("created_at", Time),
        ],
    },
    Table {
        name: "two_factors",
        columns: &[
            ("user_id", Kind::Uuid),
            ("totp_secret", Bytes),
            ("confirmed_at", Time),
            ("last_used_step", Int8),
            ("recovery_codes", Bytes),
            ("created_at", Time),
        ],
    },
    Table {
        name: "two_factor_required",
        columns: &[("account_id", Kind::Uuid), ("since", Time)],
    },
    Table {
        name: "passkeys",
        columns: &[
            ("credential_id", Bytes),
            ("user_id", Kind::Uuid),
            ("name", Text),
            ("data", Text),
            ("created_at", Time),
            ("last_used_at", Time),
        ],
    },
    // Copied as `tokens` and `sso_attempts` are: single use and short lived (5 minutes), but a
    // ceremony begun on SQLite just before the switch still finishes on PostgreSQL, and the copy
    // moves every data table whole rather than judging rows by age (the destination's pruning
    // deletes the expired ones as the source's would have).
    Table {
        name: "passkey_ceremonies",
        columns: &[
            ("hash", Bytes),
            ("purpose", Text),
            ("user_id", Kind::Uuid),
            ("state", Text),
            ("created_at", Time),
            ("expires_at", Time),
        ],
    },
];

/// A value in canonical form.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
    Uuid(Uuid),
    Time(i64),
    Day(i32),
}

/// One copied table: its rows and checksum, equal on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableReport {
    /// The table's name.
    pub table: &'static str,
    /// Rows copied.
    pub rows: u64,
    /// The table's checksum (32 hexadecimal digits), the same in the source and the copy.
    pub checksum: String,
}

/// Why a copy failed; the destination is then left as it was.
#[derive(Debug, Error)]
pub enum CopyError {
    /// Only an SQLite file can be copied into a PostgreSQL database.
    #[error(
        "qr db copy copies an SQLite file (--from FILE) into a PostgreSQL database (--to postgres://…); got --from {from} --to {to}"
    )]
    Unsupported {
        /// The source given.
        from: String,
        /// The destination given.
        to: String,
    },
    /// The source file does not exist.
    #[error("no database at {0}")]
    MissingSource(String),
    /// A database could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The destination already holds data.
    #[error(
        "the destination {url} already holds data ({rows} rows in {table}); copy into an empty database: nothing was changed"
    )]
    NotEmpty {
        /// The destination, without its password.
        url: String,
        /// The first table found with rows.
        table: &'static str,
        /// Its rows.
        rows: i64,
    },
    /// Reading the SQLite file failed.
    #[error("reading {table} from the SQLite file failed: {source}")]
    Sqlite {
        /// The table.
        table: &'static str,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// Writing or reading back PostgreSQL failed.
    #[error("copying {table} into PostgreSQL failed: {source}; nothing was changed")]
    Postgres {
        /// The table (or step).
        table: &'static str,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// A value of the source does not have its column's type.
    #[error("the SQLite file holds an unreadable value in {table}.{column}: {message}")]
    Corrupt {
        /// The table.
        table: &'static str,
        /// The column.
        column: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The copy read back differs from the source.
    #[error(
        "{table}: the copy differs from the source ({source_rows} rows, checksum {source_sum} against {copy_rows} rows, checksum {copy_sum}); nothing was changed"
    )]
    Mismatch {
        /// The table.
        table: &'static str,
        /// Rows in the source.
        source_rows: u64,
        /// Checksum of the source.
        source_sum: String,
        /// Rows read back.
        copy_rows: u64,
        /// Checksum read back.
        copy_sum: String,
    },
}

/// A running checksum: the row count and the sum of the rows' hashes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Checksum {
    rows: u64,
    sum: u128,
}

impl Checksum {
    fn add(&mut self, row: &[Value]) {
        let mut hash = Sha256::new();
        for value in row {
            match value {
                Value::Null => hash.update([0]),
                Value::Int(n) => {
                    hash.update([1]);
                    hash.update(n.to_le_bytes());
                }
                Value::Text(s) => {
                    hash.update([2]);
                    hash.update((s.len() as u64).to_le_bytes());
                    hash.update(s.as_bytes());
                }
                Value::Bytes(b) => {
                    hash.update([3]);
                    hash.update((b.len() as u64).to_le_bytes());
                    hash.update(b);
                }
                Value::Uuid(u) => {
                    hash.update([4]);
                    hash.update(u.as_bytes());
                }
                Value::Time(t) => {
                    hash.update([5]);
                    hash.update(t.to_le_bytes());
                }
                Value::Day(d) => {
                    hash.update([6]);
                    hash.update(d.to_le_bytes());
                }
            }
        }
        let digest = hash.finalize();
        let mut first = [0u8; 16];
        first.copy_from_slice(&digest[..16]);
        self.sum = self.sum.wrapping_add(u128::from_le_bytes(first));
        self.rows += 1;
    }

    fn hex(self) -> String {
        format!("{:032x}", self.sum)
    }
}

/// Copies the SQLite database `from` into the empty PostgreSQL database `to` (both migrated
/// to this build's schema first), and verifies every table before committing.
///
/// Stop the servers using either database first: the source is read in one snapshot, and
/// writes made after it would not be copied.
pub fn copy(from: &Location, to: &Location) -> Result<Vec<TableReport>, CopyError> {
    let (Location::Sqlite(path), Location::Postgres(url)) = (from, to) else {
        return Err(CopyError::Unsupported {
            from: from.to_string(),
            to: to.to_string(),
        });
    };
    if from.is_missing_file() {
        return Err(CopyError::MissingSource(from.to_string()));
    }
    // Opening checks and migrates both schemas to this build's version.
    drop(Database::open(from)?);
    drop(Database::open(to)?);
    let table_err = |table| move |source| CopyError::Sqlite { table, source };
    let mut source = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(table_err("the file"))?;
    let snapshot = source.transaction().map_err(table_err("the file"))?;
    let pg_err = |table| move |source| CopyError::Postgres { table, source };
    let mut client = postgres::Client::connect(url, NoTls).map_err(pg_err("connecting"))?;
    let mut tx = client.transaction().map_err(pg_err("beginning"))?;
    // Writers of every server wait for this copy (the store's write lock).
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&0x5152_504C_0002_i64])
        .map_err(pg_err("locking"))?;
    for table in TABLES {
        let rows: i64 = tx
            .query_one(&format!("SELECT count(*) FROM {}", table.name), &[])
            .map_err(pg_err(table.name))?
            .get(0);
        if rows > 0 {
            return Err(CopyError::NotEmpty {
                url: to.to_string(),
                table: table.name,
                rows,
            });
        }
    }
    let mut reports = Vec::with_capacity(TABLES.len());
    for table in TABLES {
        create_partitions(&snapshot, &mut tx, table)?;
        let sent = copy_table(&snapshot, &mut tx, table)?;
        let back = read_back(&mut tx, table)?;
        if sent != back {
            return Err(CopyError::Mismatch {
                table: table.name,
                source_rows: sent.rows,
                source_sum: sent.hex(),
                copy_rows: back.rows,
                copy_sum: back.hex(),
            });
        }
        reports.push(TableReport {
            table: table.name,
            rows: sent.rows,
            checksum: sent.hex(),
        });
    }
    // New scans continue after the copied ids.
    tx.execute(
        "SELECT setval('scans_id_seq', greatest((SELECT max(id) FROM scans), 1), (SELECT count(*) > 0 FROM scans))",
        &[],
    )
    .map_err(pg_err("scans_id_seq"))?;
    // New outbox events too (they are delivered in this order).
    tx.execute(
        "SELECT setval('webhook_events_seq', greatest((SELECT max(seq) FROM webhook_events), 1), (SELECT count(*) > 0 FROM webhook_events))",
        &[],
    )
    .map_err(pg_err("webhook_events_seq"))?;
    // And orphan visits (the latest are kept by this order).
    tx.execute(
        "SELECT setval('orphan_visits_seq', greatest((SELECT max(seq) FROM orphan_visits), 1), (SELECT count(*) > 0 FROM orphan_visits))",
        &[],
    )
    .map_err(pg_err("orphan_visits_seq"))?;
    // And audit entries (newest first is highest id first).
    tx.execute(
        "SELECT setval('audit_log_id_seq', greatest((SELECT max(id) FROM audit_log), 1), (SELECT count(*) > 0 FROM audit_log))",
        &[],
    )
    .map_err(pg_err("audit_log_id_seq"))?;
    tx.commit().map_err(pg_err("committing"))?;
    Ok(reports)
}

fn column_list(table: &Table) -> String {
    table
        .columns
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Creates the day partitions the source's rows of a table partitioned by day need (scans and
/// visitors), one per day it holds, so the copied rows land in their days' partitions, which
/// retention drops whole, instead of the default partition. Other tables need none.
fn create_partitions(
    source: &rusqlite::Connection,
    tx: &mut Transaction<'_>,
    table: &Table,
) -> Result<(), CopyError> {
    let partitioned = match table.name {
        "scans" => DayTable::Scans,
        "visitors" => DayTable::Visitors,
        _ => return Ok(()),
    };
    let sql_err = |source| CopyError::Sqlite {
        table: table.name,
        source,
    };
    let mut statement = source
        .prepare(&format!("SELECT DISTINCT day FROM {}", table.name))
        .map_err(sql_err)?;
    // A day out of range is left out here and reported by the copy of its row.
    let days: Vec<NaiveDate> = statement
        .query_map([], |r| r.get::<_, i64>(0))
        .map_err(sql_err)?
        .filter_map(|d| {
            d.ok()
                .and_then(|d| i32::try_from(d).ok())
                .and_then(NaiveDate::from_num_days_from_ce_opt)
        })
        .collect();
    create_day_partitions(tx, partitioned, &days).map_err(|source| CopyError::Postgres {
        table: table.name,
        source,
    })
}

/// Streams one table from SQLite into PostgreSQL with binary COPY; returns the source checksum.
fn copy_table(
    source: &rusqlite::Connection,
    tx: &mut Transaction<'_>,
    table: &Table,
) -> Result<Checksum, CopyError> {
    let sql_err = |source| CopyError::Sqlite {
        table: table.name,
        source,
    };
    let pg_err = |source| CopyError::Postgres {
        table: table.name,
        source,
    };
    let columns = column_list(table);
    let types: Vec<Type> = table
        .columns
        .iter()
        .map(|(_, kind)| pg_type(*kind))
        .collect();
    let sink = tx
        .copy_in(&format!(
            "COPY {} ({columns}) FROM STDIN BINARY",
            table.name
        ))
        .map_err(pg_err)?;
    let mut writer = BinaryCopyInWriter::new(sink, &types);
    let mut statement = source
        .prepare(&format!("SELECT {columns} FROM {}", table.name))
        .map_err(sql_err)?;
    let mut rows = statement.query([]).map_err(sql_err)?;
    let mut checksum = Checksum::default();
    let mut values = Vec::with_capacity(table.columns.len());
    while let Some(row) = rows.next().map_err(sql_err)? {
        values.clear();
        for (i, (column, kind)) in table.columns.iter().enumerate() {
            let raw = row.get_ref(i).map_err(sql_err)?;
            values.push(
                from_sqlite(raw, *kind).map_err(|message| CopyError::Corrupt {
                    table: table.name,
                    column,
                    message,
                })?,
            );
        }
        checksum.add(&values);
        let boxed: Vec<Box<dyn ToSql + Sync>> = values
            .iter()
            .zip(table.columns)
            .map(|(value, (_, kind))| to_postgres(value, *kind))
            .collect();
        let refs: Vec<&(dyn ToSql + Sync)> = boxed.iter().map(AsRef::as_ref).collect();
        writer.write(&refs).map_err(pg_err)?;
    }
    writer.finish().map_err(pg_err)?;
    Ok(checksum)
}

/// Reads a copied table back inside the copying transaction; returns its checksum.
fn read_back(tx: &mut Transaction<'_>, table: &Table) -> Result<Checksum, CopyError> {
    let pg_err = |source| CopyError::Postgres {
        table: table.name,
        source,
    };
    let sql = format!("SELECT {} FROM {}", column_list(table), table.name);
    let mut rows = tx
        .query_raw(&sql, std::iter::empty::<i64>())
        .map_err(pg_err)?;
    let mut checksum = Checksum::default();
    let mut values = Vec::with_capacity(table.columns.len());
    while let Some(row) = rows.next().map_err(pg_err)? {
        values.clear();
        for (i, (_, kind)) in table.columns.iter().enumerate() {
            values.push(from_postgres(&row, i, *kind).map_err(pg_err)?);
        }
        checksum.add(&values);
    }
    Ok(checksum)
}

fn pg_type(kind: Kind) -> Type {
    match kind {
        Kind::Uuid => Type::UUID,
        Kind::Text => Type::TEXT,
        Kind::Bytes => Type::BYTEA,
        Kind::Time => Type::TIMESTAMPTZ,
        Kind::Day => Type::DATE,
        Kind::Int8 => Type::INT8,
        Kind::Int4 => Type::INT4,
        Kind::Int2 => Type::INT2,
    }
}

/// A value as SQLite stores it, in canonical form.
fn from_sqlite(raw: ValueRef<'_>, kind: Kind) -> Result<Value, String> {
    Ok(match (kind, raw) {
        (_, ValueRef::Null) => Value::Null,
        (Kind::Uuid, ValueRef::Blob(b)) => {
            Value::Uuid(Uuid::from_slice(b).map_err(|e| e.to_string())?)
        }
        (Kind::Text, ValueRef::Text(t)) => Value::Text(
            std::str::from_utf8(t)
                .map_err(|e| e.to_string())?
                .to_owned(),
        ),
        (Kind::Bytes, ValueRef::Blob(b)) => Value::Bytes(b.to_vec()),
        (Kind::Time, ValueRef::Integer(t)) => {
            DateTime::<Utc>::from_timestamp_micros(t).ok_or("time out of range")?;
            Value::Time(t)
        }
        (Kind::Day, ValueRef::Integer(d)) => {
            let d = i32::try_from(d).map_err(|e| e.to_string())?;
            NaiveDate::from_num_days_from_ce_opt(d).ok_or("day out of range")?;
            Value::Day(d)
        }
        (Kind::Int8, ValueRef::Integer(n)) => Value::Int(n),
        (Kind::Int4, ValueRef::Integer(n)) => {
            i32::try_from(n).map_err(|e| e.to_string())?;
            Value::Int(n)
        }
        (Kind::Int2, ValueRef::Integer(n)) => {
            i16::try_from(n).map_err(|e| e.to_string())?;
            Value::Int(n)
        }
        (kind, other) => {
            return Err(format!(
                "{:?} where {kind:?} was expected",
                other.data_type()
            ));
        }
    })
}

/// A canonical value as the PostgreSQL column of `kind` takes it (ranges checked on reading).
fn to_postgres(value: &Value, kind: Kind) -> Box<dyn ToSql + Sync> {
    match (value, kind) {
        (Value::Null, Kind::Uuid) => Box::new(None::<Uuid>),
        (Value::Null, Kind::Text) => Box::new(None::<String>),
        (Value::Null, Kind::Bytes) => Box::new(None::<Vec<u8>>),
        (Value::Null, Kind::Time) => Box::new(None::<DateTime<Utc>>),
        (Value::Null, Kind::Day) => Box::new(None::<NaiveDate>),
        (Value::Null, Kind::Int8) => Box::new(None::<i64>),
        (Value::Null, Kind::Int4) => Box::new(None::<i32>),
        (Value::Null, Kind::Int2) => Box::new(None::<i16>),
        (Value::Uuid(u), _) => Box::new(*u),
        (Value::Text(s), _) => Box::new(s.clone()),
        (Value::Bytes(b), _) => Box::new(b.clone()),
        (Value::Time(t), _) => Box::new(DateTime::<Utc>::from_timestamp_micros(*t)),
        (Value::Day(d), _) => Box::new(NaiveDate::from_num_days_from_ce_opt(*d)),
        (Value::Int(n), Kind::Int4) => Box::new(i32::try_from(*n).ok()),
        (Value::Int(n), Kind::Int2) => Box::new(i16::try_from(*n).ok()),
        (Value::Int(n), _) => Box::new(*n),
    }
}

/// A value as PostgreSQL returns it, in canonical form.
fn from_postgres(row: &postgres::Row, i: usize, kind: Kind) -> Result<Value, postgres::Error> {
    let or_null = |v: Option<Value>| v.unwrap_or(Value::Null);
    Ok(match kind {
        Kind::Uuid => or_null(row.try_get::<_, Option<Uuid>>(i)?.map(Value::Uuid)),
        Kind::Text => or_null(row.try_get::<_, Option<String>>(i)?.map(Value::Text)),
        Kind::Bytes => or_null(row.try_get::<_, Option<Vec<u8>>>(i)?.map(Value::Bytes)),
        Kind::Time => or_null(
            row.try_get::<_, Option<DateTime<Utc>>>(i)?
                .map(|t| Value::Time(t.timestamp_micros())),
        ),
        Kind::Day => or_null(
            row.try_get::<_, Option<NaiveDate>>(i)?
                .map(|d| Value::Day(d.num_days_from_ce())),
        ),
        Kind::Int8 => or_null(row.try_get::<_, Option<i64>>(i)?.map(Value::Int)),
        Kind::Int4 => or_null(
            row.try_get::<_, Option<i32>>(i)?
                .map(|n| Value::Int(i64::from(n))),
        ),
        Kind::Int2 => or_null(
            row.try_get::<_, Option<i16>>(i)?
                .map(|n| Value::Int(i64::from(n))),
        ),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use qr_test_support::servers::postgres::PgCluster;

    use super::*;

    /// `table.column` for every column of [`TABLES`].
    fn listed() -> BTreeSet<String> {
        TABLES
            .iter()
            .flat_map(|t| t.columns.iter().map(|(c, _)| format!("{}.{c}", t.name)))
            .collect()
    }

    /// Fails naming the columns a schema has and the list lacks, and the other way round.
    fn same_columns(schema: &BTreeSet<String>, engine: &str) {
        let listed = listed();
        let missing: Vec<&String> = schema.difference(&listed).collect();
        let stale: Vec<&String> = listed.difference(schema).collect();
        assert!(
            missing.is_empty() && stale.is_empty(),
            "{engine}'s schema has columns the copy skips: {missing:?}; the copy lists columns {engine} lacks: {stale:?}"
        );
    }

    /// Tables and columns of the schemas that are not data: the version counter, SQLite's log
    /// of account and key changes (the destination's triggers write its own as rows arrive) and
    /// SQLite's own bookkeeping.
    fn is_data(table: &str) -> bool {
        table != "meta"
            && table != "config_changes"
            && table != "qr_schema"
            && !table.starts_with("sqlite_")
    }

    #[test]
    fn every_table_and_column_is_copied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("qr.db");
        drop(Database::open(&Location::Sqlite(path.clone())).unwrap());
        let sqlite = rusqlite::Connection::open(&path).unwrap();
        let mut statement = sqlite
            .prepare(
                "SELECT m.name, c.name FROM sqlite_schema AS m, pragma_table_info(m.name) AS c
                 WHERE m.type = 'table'",
            )
            .unwrap();
        let in_sqlite: BTreeSet<String> = statement
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .filter(|(table, _)| is_data(table))
            .map(|(table, column)| format!("{table}.{column}"))
            .collect();
        same_columns(&in_sqlite, "SQLite");

        let Some(cluster) = PgCluster::shared("the copy's table list") else {
            return;
        };
        let url = cluster.create_database();
        drop(Database::open(&Location::Postgres(url.clone())).unwrap());
        let mut client = postgres::Client::connect(&url, NoTls).unwrap();
        let in_postgres: BTreeSet<String> = client
            .query(
                // A table's partitions repeat its columns: the table alone is copied.
                "SELECT c.table_name::text, c.column_name::text FROM information_schema.columns c
                 JOIN pg_class p ON p.relname = c.table_name
                     AND p.relnamespace = current_schema()::regnamespace
                 WHERE c.table_schema = current_schema() AND NOT p.relispartition",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get::<_, String>(0), r.get::<_, String>(1)))
            .filter(|(table, _)| is_data(table))
            .map(|(table, column)| format!("{table}.{column}"))
            .filter(|column| !POSTGRES_ONLY.contains(&column.as_str()))
            .collect();
        same_columns(&in_postgres, "PostgreSQL");
    }
}
