//! The audit log in SQL: one append-only table, ids from `AUTOINCREMENT` (never reused, so newest first is highest id first even after retention deletes), entries going with their account (`ON DELETE CASCADE`) and never with the objects they name (no foreign key to them).

use chrono::{DateTime, Utc};
use qr_domain::audit::entry::{
    AuditActor, AuditEntry, AuditId, AuditObject, ClientNetwork, NewAuditEntry,
};
use qr_domain::audit::query::AuditQuery;
use qr_domain::audit::store::{AuditReads, AuditWrites};
use qr_domain::{AccountId, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, count, get, id_bytes, json, micros, time, to_json, uuid};

/// Version 12: the audit log. `changes` is the JSON array of the changed fields (secrets
/// already left out by the domain); `network` the client's /24 or /48, NULL without one.
/// `(account_id, id)` serves the newest-first pages; filters by actor, object and time are
/// checked on the rows of that walk (a workspace's log is read a page at a time).
pub(crate) const V12_AUDIT: &str = r"
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
    actor_kind TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    actor_label TEXT NOT NULL,
    action TEXT NOT NULL,
    object_kind TEXT NOT NULL,
    object_id TEXT NOT NULL,
    changes TEXT NOT NULL,
    network TEXT
);
CREATE INDEX audit_log_by_account ON audit_log(account_id, id);
CREATE INDEX audit_log_by_time ON audit_log(account_id, at);
";

const AUDIT_COLS: &str = "id, account_id, at, actor_kind, actor_id, actor_label, action, object_kind, object_id, changes, network";

fn entry_from(r: &Row<'_>) -> Result<AuditEntry, StoreError> {
    Ok(AuditEntry {
        id: AuditId(get(r, 0)?),
        entry: NewAuditEntry {
            account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
            at: time(get(r, 2)?)?,
            actor: AuditActor {
                kind: get::<String>(r, 3)?
                    .parse()
                    .map_err(|_| corrupt("actor_kind"))?,
                id: get(r, 4)?,
                label: get(r, 5)?,
            },
            action: get::<String>(r, 6)?
                .parse()
                .map_err(|_| corrupt("action"))?,
            object: AuditObject {
                kind: get::<String>(r, 7)?
                    .parse()
                    .map_err(|_| corrupt("object_kind"))?,
                id: get(r, 8)?,
            },
            changes: json(&get::<String>(r, 9)?, "changes")?,
            network: get::<Option<String>>(r, 10)?.map(ClientNetwork::from_stored),
        },
    })
}

impl AuditReads for SqlTx<'_> {
    fn audit_entries(
        &self,
        account: AccountId,
        query: &AuditQuery,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let actor = query.actor.as_ref();
        let object = query.object.as_ref();
        self.all(
            &format!(
                "SELECT {AUDIT_COLS} FROM audit_log
                 WHERE account_id = ?1
                   AND (?2 IS NULL OR actor_kind = ?2) AND (?3 IS NULL OR actor_id = ?3)
                   AND (?4 IS NULL OR object_kind = ?4) AND (?5 IS NULL OR object_id = ?5)
                   AND (?6 IS NULL OR at >= ?6) AND (?7 IS NULL OR at < ?7)
                   AND (?8 IS NULL OR id < ?8)
                 ORDER BY id DESC LIMIT ?9"
            ),
            params![
                &id_bytes(account)[..],
                actor.and_then(|a| a.kind).map(|k| k.as_str()),
                actor.and_then(|a| a.id.as_deref()),
                object.and_then(|o| o.kind).map(|k| k.as_str()),
                object.and_then(|o| o.id.as_deref()),
                query.since.map(micros),
                query.until.map(micros),
                query.before.map(|b| b.0),
                i64::from(query.limit),
            ],
            entry_from,
        )
    }
}

impl AuditWrites for SqlTx<'_> {
    fn append_audit(&mut self, e: &NewAuditEntry) -> Result<AuditId, StoreError> {
        let id = self.one(
            "INSERT INTO audit_log (account_id, at, actor_kind, actor_id, actor_label, action,
                                    object_kind, object_id, changes, network)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) RETURNING id",
            params![
                &id_bytes(e.account_id)[..],
                micros(e.at),
                e.actor.kind.as_str(),
                e.actor.id,
                e.actor.label,
                e.action.as_str(),
                e.object.kind.as_str(),
                e.object.id,
                to_json(&e.changes)?,
                e.network.as_ref().map(ClientNetwork::as_str),
            ],
            |r| get::<i64>(r, 0),
        )?;
        id.map(AuditId).ok_or_else(|| corrupt("audit id"))
    }

    fn prune_audit(
        &mut self,
        account: AccountId,
        before: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let n = self.exec(
            "DELETE FROM audit_log WHERE account_id = ?1 AND at < ?2",
            params![&id_bytes(account)[..], micros(before)],
        )?;
        Ok(count(i64::try_from(n).unwrap_or(i64::MAX)))
    }
}
