//! `GET /api/audit`, the workspace's audit log, which the permission table gives no API key (every key is answered 403), with the `AuditPage` schema the dashboard's and `qr audit --json`'s readers share.

use qr_domain::audit::entry::{AuditAction, ObjectKind};
use qr_domain::audit::query::{DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT};

use crate::routes::Method;

use super::json_schema::{
    Constant, Format, Schema, array, integer, object, one_of_strings, reference, string,
};
use super::keyed::{self, KeyedOperation};
use super::model::{Operation, Parameter, Response};

/// `GET /api/audit` (and its HEAD twin).
pub(super) fn audit() -> Vec<(Method, Operation)> {
    let read = KeyedOperation::new(
        "readAuditLog",
        "The workspace's audit log, newest first. No API key may read it: every key, full or scoped, is answered 403 \"API key not authorized for this endpoint\" whatever its parameters (owners and admins read it in the dashboard at /dashboard/audit, and the operator with qr audit). The parameters and the page are described for those readers, which share them",
    )
    .parameters(vec![
        Parameter::query(
            "actor",
            string().max_length(110),
            "operator, key, user, key:ID, user:ID, or an id",
        ),
        Parameter::query(
            "object",
            string().max_length(110),
            "link, design, domain, webhook, key, member, workspace, KIND:ID, or an id",
        ),
        Parameter::query(
            "since",
            string(),
            "Entries at or after this date (UTC midnight) or RFC 3339 time",
        ),
        Parameter::query(
            "until",
            string(),
            "Entries before this RFC 3339 time, or up to the end of this date",
        ),
        Parameter::query(
            "cursor",
            string().pattern("^[1-9][0-9]*$"),
            "The nextCursor of the previous page",
        ),
        Parameter::query(
            "limit",
            integer()
                .range(1, MAX_AUDIT_LIMIT)
                .default_value(DEFAULT_AUDIT_LIMIT),
            "Entries per page",
        ),
    ])
    .success(
        200,
        Response::new("One page of entries (never to an API key)").json(reference("AuditPage")),
    );
    keyed::operations(vec![(Method::Get, read)])
}

/// The `AuditPage` schema.
pub(super) fn schemas() -> Vec<(&'static str, Schema)> {
    let change = object()
        .required(&["field"])
        .closed()
        .property("field", string())
        .property("before", string().describe("Absent: not set before"))
        .property("after", string().describe("Absent: not set after"))
        .property(
            "hidden",
            // A secret (a link's password): changed, values withheld.
            Schema::Const(Constant::Flag(true)),
        );
    let entry = object()
        .required(&["id", "at", "actor", "action", "object", "changes", "network"])
        .closed()
        .property("id", integer().minimum(1))
        .property("at", string().format(Format::DateTime))
        .property(
            "actor",
            object()
                .required(&["kind", "id", "label"])
                .closed()
                .property("kind", one_of_strings(["user", "key", "operator"]))
                .property("id", string().describe("Empty for the operator"))
                .property(
                    "label",
                    string().describe("The e-mail address or the key's name and prefix at the time; never a secret"),
                ),
        )
        .property(
            "action",
            one_of_strings(AuditAction::ALL.iter().map(|a| a.as_str())),
        )
        .property(
            "object",
            object()
                .required(&["kind", "id"])
                .closed()
                .property("kind", one_of_strings(ObjectKind::ALL.iter().map(|k| k.as_str())))
                .property("id", string()),
        )
        .property("changes", array(change))
        .property(
            "network",
            string()
                .nullable()
                .describe("The client's IPv4 /24 or IPv6 /48, never the address"),
        );
    let page = object()
        .required(&["entries", "nextCursor"])
        .closed()
        .property("entries", array(entry))
        .property("nextCursor", string().nullable());
    vec![("AuditPage", page.into())]
}
