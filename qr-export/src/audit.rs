//! The audit log written out: as CSV (the dashboard's download and `qr audit --csv`) and as the JSON objects of `GET /api/audit` and `qr audit --json`, one shape for every reader.

use qr_domain::audit::entry::{AuditEntry, Change, summary_line};
use qr_domain::audit::query::AuditPage;
use qr_domain::chrono::SecondsFormat;
use serde::Serialize;

use crate::csv_cell;

/// The CSV's header row.
pub const AUDIT_COLUMNS: &str =
    "id,time,actorKind,actorId,actor,action,objectKind,objectId,changes,network";

/// The file name offered for the CSV download.
pub const AUDIT_CSV_NAME: &str = "audit-log.csv";

/// The media type of the CSV.
pub const AUDIT_CSV_TYPE: &str = "text/csv; charset=utf-8";

/// One entry as a CSV row (with its line break): cells defused as every export's are, the
/// changes as one line (`name: "A" → "B"; password: changed`).
pub fn audit_csv_row(entry: &AuditEntry) -> String {
    let e = &entry.entry;
    let cells = [
        entry.id.to_string(),
        e.at.to_rfc3339_opts(SecondsFormat::Secs, true),
        e.actor.kind.as_str().to_owned(),
        e.actor.id.clone(),
        e.actor.label.clone(),
        e.action.as_str().to_owned(),
        e.object.kind.as_str().to_owned(),
        e.object.id.clone(),
        summary_line(&e.changes),
        e.network
            .as_ref()
            .map(|n| n.as_str().to_owned())
            .unwrap_or_default(),
    ];
    let mut row = cells
        .iter()
        .map(|c| csv_cell(c))
        .collect::<Vec<_>>()
        .join(",");
    row.push('\n');
    row
}

/// Entries as a whole CSV file, header first.
pub fn audit_csv<'a>(entries: impl IntoIterator<Item = &'a AuditEntry>) -> String {
    let mut out = String::from(AUDIT_COLUMNS);
    out.push('\n');
    for entry in entries {
        out.push_str(&audit_csv_row(entry));
    }
    out
}

/// An entry as JSON.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntryJson<'a> {
    /// The entry's id (also the cursor of the page after it).
    pub id: i64,
    /// When, RFC 3339 UTC.
    pub at: String,
    /// Who.
    pub actor: ActorJson<'a>,
    /// What (`link.created`, …).
    pub action: &'static str,
    /// On what.
    pub object: ObjectJson<'a>,
    /// The changed fields.
    pub changes: &'a [Change],
    /// The client's network, when known.
    pub network: Option<&'a str>,
}

/// An actor as JSON.
#[derive(Debug, Serialize)]
pub struct ActorJson<'a> {
    /// `user`, `key` or `operator`.
    pub kind: &'static str,
    /// The user's or key's id (empty for the operator).
    pub id: &'a str,
    /// Their label at the time.
    pub label: &'a str,
}

/// An object as JSON.
#[derive(Debug, Serialize)]
pub struct ObjectJson<'a> {
    /// `link`, `design`, ….
    pub kind: &'static str,
    /// Its id.
    pub id: &'a str,
}

/// A page as JSON: `{"entries": [...], "nextCursor": "…"|null}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditPageJson<'a> {
    /// The entries, newest first.
    pub entries: Vec<AuditEntryJson<'a>>,
    /// The `cursor` of the next page, `null` on the last.
    pub next_cursor: Option<String>,
}

impl<'a> AuditEntryJson<'a> {
    /// The JSON of `entry`.
    pub fn of(entry: &'a AuditEntry) -> Self {
        let e = &entry.entry;
        Self {
            id: entry.id.0,
            at: e.at.to_rfc3339_opts(SecondsFormat::Secs, true),
            actor: ActorJson {
                kind: e.actor.kind.as_str(),
                id: &e.actor.id,
                label: &e.actor.label,
            },
            action: e.action.as_str(),
            object: ObjectJson {
                kind: e.object.kind.as_str(),
                id: &e.object.id,
            },
            changes: &e.changes,
            network: e.network.as_ref().map(|n| n.as_str()),
        }
    }
}

impl<'a> AuditPageJson<'a> {
    /// The JSON of `page`.
    pub fn of(page: &'a AuditPage) -> Self {
        Self {
            entries: page.entries.iter().map(AuditEntryJson::of).collect(),
            next_cursor: page.next.map(|c| c.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use qr_domain::AccountId;
    use qr_domain::audit::entry::{
        ActorKind, AuditAction, AuditActor, AuditId, AuditObject, ClientNetwork, NewAuditEntry,
        ObjectKind,
    };
    use qr_domain::audit::query::AuditCursor;

    use super::*;

    fn entry() -> AuditEntry {
        AuditEntry {
            id: AuditId(7),
            entry: NewAuditEntry {
                account_id: AccountId::random(),
                at: "2026-11-28T10:00:00Z".parse().unwrap(),
                actor: AuditActor {
                    kind: ActorKind::Key,
                    id: "k-1".into(),
                    label: "=cmd() (qr_live_Ab…)".into(),
                },
                action: AuditAction::LinkUpdated,
                object: AuditObject::new(ObjectKind::Link, "l-1"),
                changes: vec![
                    Change::shown("name", Some("A, B".into()), Some("C".into())),
                    Change::hidden("password"),
                ],
                network: Some(ClientNetwork::of("203.0.113.9".parse().unwrap())),
            },
        }
    }

    #[test]
    fn csv_rows_are_defused_and_quoted() {
        let csv = audit_csv([&entry()]);
        assert_eq!(
            csv,
            "id,time,actorKind,actorId,actor,action,objectKind,objectId,changes,network\n\
             7,2026-11-28T10:00:00Z,key,k-1,'=cmd() (qr_live_Ab…),link.updated,link,l-1,\"name: \"\"A, B\"\" → \"\"C\"\"; password: changed\",203.0.113.0/24\n"
        );
    }

    #[test]
    fn json_has_the_apis_shape() {
        let e = entry();
        let page = AuditPage {
            entries: vec![e],
            next: Some(AuditCursor(AuditId(7))),
        };
        let json = serde_json::to_value(AuditPageJson::of(&page)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "entries": [{
                    "id": 7,
                    "at": "2026-11-28T10:00:00Z",
                    "actor": {"kind": "key", "id": "k-1", "label": "=cmd() (qr_live_Ab…)"},
                    "action": "link.updated",
                    "object": {"kind": "link", "id": "l-1"},
                    "changes": [
                        {"field": "name", "before": "A, B", "after": "C"},
                        {"field": "password", "hidden": true}
                    ],
                    "network": "203.0.113.0/24"
                }],
                "nextCursor": "7"
            })
        );
    }
}
