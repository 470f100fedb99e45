//! `GET /api/analytics` (a link's scan analytics) and `GET /api/analytics/export` (every scan as CSV or NDJSON), with the analytics schemas.

use qr_domain::scans::analytics::{DEFAULT_LIMIT, MAX_LIMIT};

use crate::routes::Method;

use super::json_schema::{
    ArraySchema, Format, Schema, array, count, integer, object, one_of_strings, reference, string,
};
use super::keyed::{self, KeyedOperation};
use super::links::{link_id_parameter, link_summary_fields};
use super::model::{Example, HeaderObject, Operation, Parameter, Response};
use super::patterns::ANALYTICS_DATE;

/// The export's file name: `scans-<shortCode>.csv` or `.ndjson`.
const EXPORT_DISPOSITION_PATTERN: &str =
    "^attachment; filename=\"scans-[A-Za-z0-9_-]+\\.(csv|ndjson)\"$";

/// `startDate` of analytics and its export.
fn start_date_parameter() -> Parameter {
    Parameter::query(
        "startDate",
        string().pattern(ANALYTICS_DATE),
        "A date that exists, YYYY-MM-DD, or a date-time: YYYY-MM-DDTHH:MM, or YYYY-MM-DDTHH:MM:SS with an optional fraction and offset (UTC when none); not after endDate",
    )
    .example(Example::Text("2024-05-01"))
}

/// `endDate` of analytics and its export.
fn end_date_parameter() -> Parameter {
    Parameter::query(
        "endDate",
        string().pattern(ANALYTICS_DATE),
        "As startDate (a date means the whole day); not before startDate (400)",
    )
    .example(Example::Text("2024-05-31"))
    .not_before("startDate")
}

/// `GET /api/analytics` (and its HEAD twin).
pub(super) fn analytics() -> Vec<(Method, Operation)> {
    keyed::operations(vec![(
        Method::Get,
        KeyedOperation::new("analytics", "Scan analytics of a link")
            .parameters(vec![
                link_id_parameter("linkId").required(),
                start_date_parameter(),
                end_date_parameter(),
                Parameter::query(
                    "limit",
                    integer().range(1, MAX_LIMIT).default_value(DEFAULT_LIMIT),
                    "Recent scans to return",
                )
                .example(Example::Integer(10)),
            ])
            .success(
                200,
                Response::new("Analytics").json(reference("AnalyticsResponse")),
            )
            .errors(&[404]),
    )])
}

/// `GET /api/analytics/export` (and its HEAD twin).
pub(super) fn export() -> Vec<(Method, Operation)> {
    let scans = Response::new(
        "The scans, newest first; the body is streamed (chunked, no Content-Length) and ends abruptly if the store fails midway",
    )
    .header(
        "Content-Disposition",
        HeaderObject::new(string().pattern(EXPORT_DISPOSITION_PATTERN)),
    )
    .body("text/csv", string())
    .body("application/x-ndjson", string());
    keyed::operations(vec![(
        Method::Get,
        KeyedOperation::new(
            "exportScans",
            "Every scan of a link in the range, within the plan's retention, newest first, streamed as CSV or NDJSON (one counted request; the key's \"analytics\" endpoint must be enabled)",
        )
        .parameters(vec![
            link_id_parameter("linkId").required(),
            start_date_parameter(),
            end_date_parameter(),
            Parameter::query(
                "format",
                one_of_strings(["csv", "ndjson"]).default_value("csv"),
                "csv: a header line id,timestamp,country,city,device,browser,os,referrer,variant,rule then one line per scan; ndjson: one JSON object per scan with those members (null when absent)",
            )
            .example(Example::Text("ndjson")),
        ])
        .success(200, scans)
        .errors(&[404]),
    )])
}

/// The scans per value of one dimension (`country`, `device`, ...), most first.
fn breakdown(field: &'static str, value: impl Into<Schema>) -> ArraySchema {
    array(
        object()
            .required(&[field, "scans"])
            .closed()
            .property(field, value)
            .property("scans", count()),
    )
}

/// The analytics schemas: `Scan`, `AnalyticsSummary`, `AnalyticsResponse`.
pub(super) fn schemas() -> Vec<(&'static str, Schema)> {
    let scan = object()
        .required(&[
            "id",
            "timestamp",
            "country",
            "city",
            "device",
            "browser",
            "os",
            "referrer",
        ])
        .closed()
        .property("id", string())
        .property("timestamp", string().format(Format::DateTime))
        .property("country", string())
        .property("city", string())
        .property(
            "device",
            one_of_strings(["mobile", "desktop", "tablet", "unknown"]),
        )
        .property("browser", string())
        .property("os", string())
        .property("referrer", string().nullable())
        .property(
            "variant",
            count().describe("The A/B variant the scan went to (links with variants)"),
        )
        .property(
            "rule",
            count().describe("The redirect rule that decided the target, if one did"),
        );
    let by_city = array(
        object()
            .required(&["city", "country", "scans"])
            .closed()
            .property("city", string())
            .property("country", string())
            .property("scans", count()),
    );
    let summary = object()
        .required(&[
            "totalScans",
            "uniqueScans",
            "scansByDay",
            "scansByCountry",
            "scansByDevice",
            "scansByBrowser",
            "scansByOs",
            "scansByReferrer",
            "scansByCity",
            "scansByRule",
        ])
        .closed()
        .property("totalScans", count())
        .property("uniqueScans", count())
        .property(
            "scansByDay",
            breakdown("date", string().format(Format::Date)),
        )
        .property("scansByCountry", breakdown("country", string()))
        .property("scansByDevice", breakdown("device", string()))
        .property("scansByBrowser", breakdown("browser", string()))
        .property("scansByOs", breakdown("os", string()))
        .property(
            "scansByReferrer",
            breakdown("referrer", string().nullable()).describe(
                "Scans per referring host; `referrer` is null for scans without a referrer",
            ),
        )
        .property("scansByCity", by_city)
        .property(
            "scansByVariant",
            breakdown("variant", count())
                .describe("Only for a link with variants: scans per variant index"),
        )
        .property(
            "scansByRule",
            breakdown("rule", count()).describe(
                "Scans per deciding redirect rule index (scans no rule decided are not listed)",
            ),
        );
    let response = object()
        .required(&["link", "analytics", "recentScans"])
        .closed()
        .property(
            "link",
            object()
                .required(&["id", "name", "shortCode", "targetUrl", "scanCount"])
                .closed()
                .properties(link_summary_fields()),
        )
        .property("analytics", reference("AnalyticsSummary"))
        .property("recentScans", array(reference("Scan")));
    vec![
        ("Scan", scan.into()),
        ("AnalyticsSummary", summary.into()),
        ("AnalyticsResponse", response.into()),
    ]
}
