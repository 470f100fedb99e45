//! The audit log in SQL: one append-only table, ids from a sequence, entries going with their account (`ON DELETE CASCADE`) and never with the objects they name (no foreign key to them).

use chrono::{DateTime, Utc};
use postgres::Row;
use qr_domain::audit::entry::{
    AuditActor, AuditEntry, AuditId, AuditObject, ClientNetwork, NewAuditEntry,
};
use qr_domain::audit::query::AuditQuery;
use qr_domain::audit::store::{AuditReads, AuditWrites};
use qr_domain::{AccountId, StoreError};

use crate::tx::{PgTx, corrupt, count, get, json, to_json};

/// Version 14: the audit log, as SQLite's version 12 (columns in the same order, so `qr db
/// copy` moves rows unchanged). A sequence gives ids in the order appends take them; two
/// appends committing out of that order are both read by any page started after both
/// committed, and a page never shows one entry twice (the cursor is an id bound).
pub(crate) const V14_AUDIT: &str = r"
CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    at timestamptz NOT NULL,
    actor_kind text NOT NULL,
    actor_id text NOT NULL,
    actor_label text NOT NULL,
    action text NOT NULL,
    object_kind text NOT NULL,
    object_id text NOT NULL,
    changes text NOT NULL,
    network text
);
CREATE INDEX audit_log_by_account ON audit_log (account_id, id);
CREATE INDEX audit_log_by_time ON audit_log (account_id, at);
";

const AUDIT_COLS: &str = "id, account_id, at, actor_kind, actor_id, actor_label, action, object_kind, object_id, changes, network";

fn entry_from(r: &Row) -> Result<AuditEntry, StoreError> {
    Ok(AuditEntry {
        id: AuditId(get(r, 0, "id")?),
        entry: NewAuditEntry {
            account_id: AccountId::from_uuid(get(r, 1, "account_id")?),
            at: get(r, 2, "at")?,
            actor: AuditActor {
                kind: get::<String>(r, 3, "actor_kind")?
                    .parse()
                    .map_err(|_| corrupt("actor_kind"))?,
                id: get(r, 4, "actor_id")?,
                label: get(r, 5, "actor_label")?,
            },
            action: get::<String>(r, 6, "action")?
                .parse()
                .map_err(|_| corrupt("action"))?,
            object: AuditObject {
                kind: get::<String>(r, 7, "object_kind")?
                    .parse()
                    .map_err(|_| corrupt("object_kind"))?,
                id: get(r, 8, "object_id")?,
            },
            changes: json(get(r, 9, "changes")?, "changes")?,
            network: get::<Option<String>>(r, 10, "network")?.map(ClientNetwork::from_stored),
        },
    })
}

impl AuditReads for PgTx<'_> {
    fn audit_entries(
        &self,
        account: AccountId,
        query: &AuditQuery,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let actor = query.actor.as_ref();
        let object = query.object.as_ref();
        let actor_kind = actor.and_then(|a| a.kind).map(|k| k.as_str());
        let actor_id = actor.and_then(|a| a.id.as_deref());
        let object_kind = object.and_then(|o| o.kind).map(|k| k.as_str());
        let object_id = object.and_then(|o| o.id.as_deref());
        let before = query.before.map(|b| b.0);
        self.all(
            &format!(
                "SELECT {AUDIT_COLS} FROM audit_log
                 WHERE account_id = $1
                   AND ($2::text IS NULL OR actor_kind = $2) AND ($3::text IS NULL OR actor_id = $3)
                   AND ($4::text IS NULL OR object_kind = $4) AND ($5::text IS NULL OR object_id = $5)
                   AND ($6::timestamptz IS NULL OR at >= $6)
                   AND ($7::timestamptz IS NULL OR at < $7)
                   AND ($8::bigint IS NULL OR id < $8)
                 ORDER BY id DESC LIMIT $9"
            ),
            &[
                &account.as_uuid(),
                &actor_kind,
                &actor_id,
                &object_kind,
                &object_id,
                &query.since,
                &query.until,
                &before,
                &i64::from(query.limit),
            ],
            entry_from,
        )
    }
}

impl AuditWrites for PgTx<'_> {
    fn append_audit(&mut self, e: &NewAuditEntry) -> Result<AuditId, StoreError> {
        let id = self.one(
            "INSERT INTO audit_log (account_id, at, actor_kind, actor_id, actor_label, action,
                                    object_kind, object_id, changes, network)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
            &[
                &e.account_id.as_uuid(),
                &e.at,
                &e.actor.kind.as_str(),
                &e.actor.id,
                &e.actor.label,
                &e.action.as_str(),
                &e.object.kind.as_str(),
                &e.object.id,
                &to_json(&e.changes)?,
                &e.network.as_ref().map(ClientNetwork::as_str),
            ],
            |r| get::<i64>(r, 0, "id"),
        )?;
        id.map(AuditId).ok_or_else(|| corrupt("audit id"))
    }

    fn prune_audit(
        &mut self,
        account: AccountId,
        before: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let n = self.exec(
            "DELETE FROM audit_log WHERE account_id = $1 AND at < $2",
            &[&account.as_uuid(), &before],
        )?;
        Ok(count(i64::try_from(n).unwrap_or(i64::MAX)))
    }
}
