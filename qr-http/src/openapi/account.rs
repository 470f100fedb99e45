//! The account's own endpoints: `GET /api/dashboard` (usage), `GET /api/health` and `GET /api/account/export` (everything stored, as a ZIP), with the `Usage` and `Health` schemas.

use crate::routes::Method;

use super::json_schema::{
    Constant, Format, Schema, binary, count, integer, object, one_of_strings, reference, string,
};
use super::keyed::{self, KeyedOperation};
use super::model::{Example, HeaderObject, Operation, Parameter, Response};

/// The account export's file name: `account-<account id>.zip`.
const EXPORT_DISPOSITION_PATTERN: &str = "^attachment; filename=\"account-[0-9a-f-]{36}\\.zip\"$";

/// `GET /api/dashboard?action=usage` (and its HEAD twin).
pub(super) fn usage() -> Vec<(Method, Operation)> {
    keyed::operations(vec![(
        Method::Get,
        KeyedOperation::new("usage", "Usage of the caller's account (action=usage)")
            .parameters(vec![
                Parameter::query(
                    "action",
                    one_of_strings(["usage"]),
                    "The only action is usage",
                )
                .required()
                .example(Example::Text("usage")),
            ])
            .success(200, Response::new("Usage object").json(reference("Usage"))),
    )])
}

/// `GET /api/health` (and its HEAD twin).
pub(super) fn health() -> Vec<(Method, Operation)> {
    keyed::operations(vec![(
        Method::Get,
        KeyedOperation::new(
            "health",
            "Health of the service (authenticated and counted like any request)",
        )
        .success(200, Response::new("Healthy").json(reference("Health"))),
    )])
}

/// `GET /api/account/export` (and its HEAD twin).
pub(super) fn export() -> Vec<(Method, Operation)> {
    let archive = Response::new(
        "ZIP archive: README.txt, account.json, keys.json (metadata only, never secrets), sessions.json, usage.csv, links.json, links.csv and analytics/<shortCode>/daily.json, daily.csv, scans.csv",
    )
    .header(
        "Content-Disposition",
        HeaderObject::new(string().pattern(EXPORT_DISPOSITION_PATTERN)),
    )
    .body("application/zip", binary());
    keyed::operations(vec![(
        Method::Get,
        KeyedOperation::new(
            "exportAccount",
            "Everything stored about the key's own account as a ZIP archive (one counted request; the key's \"export\" endpoint must be enabled)",
        )
        .success(200, archive)
        .errors(&[422]),
    )])
}

/// The account schemas: `Usage` and `Health`.
pub(super) fn schemas() -> Vec<(&'static str, Schema)> {
    let usage = object()
        .required(&["plan", "usage"])
        .closed()
        .property(
            "plan",
            one_of_strings(qr_domain::Plan::ALL.iter().map(|plan| plan.as_str())),
        )
        .property(
            "usage",
            object()
                .required(&["current", "limit", "resetDate"])
                .closed()
                .property("current", count())
                .property("limit", integer().minimum(-1).describe("-1: unlimited"))
                .property("resetDate", string().format(Format::DateTime)),
        );
    let health = object()
        .required(&["status", "version", "database"])
        .closed()
        .property("status", Schema::Const(Constant::Text("ok")))
        .property("version", string())
        .property("database", Schema::Const(Constant::Text("ok")));
    vec![("Usage", usage.into()), ("Health", health.into())]
}
