//! `/api/domains`, `/api/domains/check` and `/api/domains/visits` (customers' own domains) with the domain schemas.

use std::collections::BTreeMap;

use qr_domain::domains::domain::MAX_APP_FILE_BYTES;
use qr_domain::domains::name::MAX_DOMAIN_CHARS;
use qr_domain::domains::orphan::{MAX_ORPHAN_PATH_CHARS, ORPHAN_VISITS_KEPT};
use qr_domain::links::campaign::target::{MAX_APP_SCHEMES, MAX_SCHEME_CHARS};
use qr_domain::links::link::MAX_URL_CHARS;
use serde_json::json;

use crate::routes::Method;

use super::json_schema::{
    Constant, Format, Schema, array, boolean, count, object, one_of_strings, reference, string,
};
use super::keyed::{self, KeyedOperation};
use super::model::{Example, Operation, Parameter, Response};
use super::patterns::HTTP_URL;

/// An app scheme as answered: lower case, a letter then letters, digits, `+`, `-`, `.`, at most
/// 32 characters.
const APP_SCHEME: &str = "^[a-z][a-z0-9+.-]{0,31}$";

/// The `id` parameter of one domain.
fn id_parameter() -> Parameter {
    Parameter::query(
        "id",
        string().min_length(1),
        "Domain identifier (a UUID; a malformed one is 404 like an unknown one, an empty one 400)",
    )
    .required()
    .example(Example::Text("0b9a4e5c-7f2d-4f1e-9a43-2d6c1f0e8b71"))
}

/// `/api/domains`: list (and HEAD) or show, add, change settings, remove.
pub(super) fn domains() -> Vec<(Method, Operation)> {
    let get = KeyedOperation::new(
        "getDomains",
        "With id: one of the account's domains; without: all of them, by name",
    )
    .parameters(vec![
        Parameter::query(
            "id",
            string().min_length(1),
            "Domain identifier; absent lists every domain (empty is 400)",
        )
        .example(Example::Text("0b9a4e5c-7f2d-4f1e-9a43-2d6c1f0e8b71")),
    ])
    .success(
        200,
        Response::new("A Domain (with id), or {domains: [Domain]}").json(Schema::AnyOf(vec![
            reference("Domain").into(),
            reference("DomainList").into(),
        ])),
    )
    .errors(&[404]);
    let add = KeyedOperation::new(
        "addDomain",
        "Add a domain (Starter 1, Pro 5, Enterprise unlimited); the answer names the TXT record that proves ownership",
    )
    .body("NewDomain")
    .success(201, Response::new("The domain, pending").json(reference("Domain")))
    .errors(&[408, 409, 413]);
    let update = KeyedOperation::new(
        "updateDomain",
        "Change a domain's root and not-found addresses and app association files (null clears one)",
    )
    .parameters(vec![id_parameter()])
    .body("DomainSettings")
    .success(200, Response::new("The domain").json(reference("Domain")))
    .errors(&[404, 408, 413]);
    let delete = KeyedOperation::new(
        "deleteDomain",
        "Remove a domain no link uses (409 says how many do); its deleted codes are never reissued on it",
    )
    .parameters(vec![id_parameter()])
    .success(204, Response::new("Removed"))
    .errors(&[404, 409]);
    keyed::operations(vec![
        (Method::Get, get),
        (Method::Post, add),
        (Method::Put, update),
        (Method::Delete, delete),
    ])
}

/// `POST /api/domains/check?id=`.
pub(super) fn check() -> Vec<(Method, Operation)> {
    let check = KeyedOperation::new(
        "checkDomain",
        "Look up the domain's TXT record (and where it points) now, and store the result",
    )
    .parameters(vec![id_parameter()])
    .success(
        200,
        Response::new("The domain as the check left it").json(reference("Domain")),
    )
    .errors(&[404]);
    keyed::operations(vec![(Method::Post, check)])
}

/// `GET /api/domains/visits?id=`.
pub(super) fn visits() -> Vec<(Method, Operation)> {
    let visits = KeyedOperation::new(
        "getDomainVisits",
        "Visits to codes the domain does not have (misprints): daily counts of the last 90 days and the latest 100",
    )
    .parameters(vec![id_parameter()])
    .success(200, Response::new("The orphan visits").json(reference("OrphanVisits")))
    .errors(&[404]);
    keyed::operations(vec![(Method::Get, visits)])
}

/// A URL setting as a request gives it.
fn setting_url(what: &'static str) -> Schema {
    string()
        .nullable()
        .format(Format::Uri)
        .min_length(1)
        .max_length(MAX_URL_CHARS - 1)
        .pattern(HTTP_URL)
        .describe(what)
        .into()
}

/// An instant, or null.
fn instant() -> Schema {
    string().nullable().format(Format::DateTime).into()
}

/// The domain schemas: `Domain`, `DomainList`, `NewDomain`, `DomainSettings`, `OrphanVisits`.
pub(super) fn schemas() -> Vec<(&'static str, Schema)> {
    let outcome = object()
        .nullable()
        .required(&["result"])
        .property(
            "result",
            one_of_strings([
                "verified",
                "noRecord",
                "wrongValue",
                "nxDomain",
                "timeout",
                "failed",
            ]),
        )
        .property("reason", string())
        .describe("What the latest check found");
    let routing = object()
        .nullable()
        .required(&["state"])
        .property(
            "state",
            one_of_strings(["pointsAtService", "pointsElsewhere", "noAddress", "unknown"]),
        )
        .property("found", array(string()))
        .property("reason", string())
        .describe("Whether the domain's CNAME or addresses lead to the service (--domain-target)");
    let record = object()
        .required(&["type", "name", "value"])
        .closed()
        .property("type", string().constant("TXT"))
        .property("name", string().describe("_qr-verify.<domain>"))
        .property("value", string().describe("qr-verify=<token>"));
    let fields: BTreeMap<&'static str, Schema> = BTreeMap::from([
        ("id", string().format(Format::Uuid).into()),
        (
            "domain",
            string()
                .max_length(MAX_DOMAIN_CHARS)
                .describe("The name in its ASCII form (Punycode)")
                .into(),
        ),
        (
            "unicode",
            string().describe("The name in its Unicode form").into(),
        ),
        (
            "status",
            one_of_strings(["pending", "verified", "failing"]).into(),
        ),
        (
            "reason",
            string()
                .nullable()
                .describe("Why a pending or failing domain is not verified, and what to do")
                .into(),
        ),
        (
            "acceptsLinks",
            boolean()
                .describe("Verified, or failing for less than 7 days")
                .into(),
        ),
        ("verification", record.into()),
        ("verifiedAt", instant()),
        ("failingSince", instant()),
        ("lastCheckedAt", instant()),
        ("lastCheck", outcome.into()),
        ("nextCheckAt", instant()),
        ("routing", routing.into()),
        ("rootUrl", string().nullable().format(Format::Uri).into()),
        (
            "notFoundUrl",
            string().nullable().format(Format::Uri).into(),
        ),
        ("appleAppSiteAssociation", object().nullable().into()),
        (
            "assetlinks",
            Schema::AnyOf(vec![
                array(Schema::Any).into(),
                Schema::Const(Constant::Null),
            ]),
        ),
        (
            "appSchemes",
            array(string().pattern(APP_SCHEME))
                .max_items(MAX_APP_SCHEMES)
                .unique()
                .describe("The custom schemes its links' rules may target, lower case")
                .into(),
        ),
        ("createdAt", string().format(Format::DateTime).into()),
    ]);
    let names: Vec<&'static str> = fields.keys().copied().collect();
    let required: &'static [&'static str] = Box::leak(names.into_boxed_slice());
    let domain = object().required(required).closed().properties(fields);
    let list = object()
        .required(&["domains"])
        .closed()
        .property("domains", array(reference("Domain")));
    let new_domain = object()
        .required(&["domain"])
        .closed()
        .property(
            "domain",
            string()
                .min_length(1)
                .max_length(4 * MAX_DOMAIN_CHARS)
                .describe("A host name (Unicode or Punycode, any case), not an IP address, without scheme, port or path; never the service's own host or a subdomain of it"),
        )
        .example(json!({"domain": "go.brand.example"}));
    let settings = object()
        .closed()
        .property("rootUrl", setting_url("Where https://<domain>/ redirects (else a neutral page)"))
        .property(
            "notFoundUrl",
            setting_url("Where unknown codes redirect (else a neutral 404 page)"),
        )
        .property(
            "appleAppSiteAssociation",
            object().nullable().describe(format!(
                "Served at /.well-known/apple-app-site-association; at most {MAX_APP_FILE_BYTES} bytes"
            )),
        )
        .property(
            "assetlinks",
            Schema::AnyOf(vec![
                array(Schema::Any)
                    .describe(format!(
                        "Served at /.well-known/assetlinks.json; at most {MAX_APP_FILE_BYTES} bytes"
                    ))
                    .into(),
                Schema::Const(Constant::Null),
            ]),
        )
        .property(
            "appSchemes",
            Schema::AnyOf(vec![
                array(
                    string()
                        .min_length(1)
                        .max_length(MAX_SCHEME_CHARS + 3)
                        .describe("A scheme (brandapp; any case, a trailing : or :// is dropped)"),
                )
                .max_items(MAX_APP_SCHEMES)
                .describe(format!(
                    "The custom schemes (brandapp for brandapp://…) its links' rules may target, replacing the old ones; a repeated one is kept once; [] or null removes them. At most {MAX_APP_SCHEMES}, each a letter then letters, digits, +, - or ., at most {MAX_SCHEME_CHARS} characters; never http, https, tel, mailto, sms, geo (every link may use those) nor an unsafe scheme (javascript, data, file, intent, …). Removing a scheme keeps the rules that use it redirecting; only new or changed rules are checked"
                ))
                .into(),
                Schema::Const(Constant::Null),
            ]),
        )
        .example(json!({"rootUrl": "https://brand.example/", "notFoundUrl": null, "appSchemes": ["brandapp"]}));
    let visits = object()
        .required(&["daily", "recent"])
        .closed()
        .property(
            "daily",
            array(
                object()
                    .required(&["date", "visits"])
                    .closed()
                    .property("date", string().format(Format::Date))
                    .property("visits", count()),
            ),
        )
        .property(
            "recent",
            array(
                object()
                    .required(&["path", "at", "country", "device"])
                    .closed()
                    .property("path", string().max_length(MAX_ORPHAN_PATH_CHARS))
                    .property("at", string().format(Format::DateTime))
                    .property("country", string().nullable())
                    .property("device", one_of_strings(["mobile", "desktop", "tablet"])),
            )
            .max_items(ORPHAN_VISITS_KEPT),
        );
    vec![
        ("Domain", domain.into()),
        ("DomainList", list.into()),
        ("NewDomain", new_domain.into()),
        ("DomainSettings", settings.into()),
        ("OrphanVisits", visits.into()),
    ]
}
