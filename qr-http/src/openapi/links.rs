//! `/api/links` (list, get, create, update, delete) and `POST /api/links/bulk`, with the link schemas: the link as answered, its campaign fields, and the bodies that create and update it.

use std::collections::BTreeMap;

use qr_domain::domains::name::MAX_DOMAIN_CHARS;
use qr_domain::links::campaign::{
    MAX_LINK_PASSWORD_CHARS, MAX_RULES, MAX_SCANS_LIMIT, MAX_TAG_CHARS, MAX_TAGS, MAX_UTM_CHARS,
    MAX_VARIANTS, MAX_WEIGHT, MIN_LINK_PASSWORD_CHARS, MIN_VARIANTS,
};
use qr_domain::links::link::{MAX_NAME_CHARS, MAX_URL_CHARS};
use serde_json::json;

use crate::routes::Method;

use super::json_schema::{
    ArraySchema, Format, Schema, StringSchema, array, binary, boolean, count, integer, object,
    one_of_strings, reference, string,
};
use super::keyed::{self, KeyedOperation};
use super::model::{Example, HeaderObject, Location, Operation, Parameter, Response};
use super::patterns::{
    COUNTRY, CUSTOM_CODE, HTTP_URL, LINK_CURSOR, NO_CONTROLS, UTC_INSTANT, trimmed_any,
    trimmed_text, trimmed_text_or_blank,
};

/// A short code: 8 characters of upper-case Crockford base32 when generated, 3 to 64 letters,
/// digits, `-` and `_` when chosen.
const SHORT_CODE_PATTERN: &str = "^[A-Za-z0-9_-]{3,64}$";
/// An idempotency key: printable ASCII without spaces.
const IDEMPOTENCY_KEY_PATTERN: &str = "^[!-~]+$";

/// The example link id: the replay test swaps it for the id of a link it created.
pub(super) const EXAMPLE_LINK_ID: &str = "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f";

/// A link id query parameter (`id` of `/api/links`, `linkId` of analytics).
pub(super) fn link_id_parameter(name: &'static str) -> Parameter {
    Parameter::query(
        name,
        string().format(Format::Uuid),
        "Link identifier (a malformed one is 404 like an unknown one)",
    )
    .example(Example::Text(EXAMPLE_LINK_ID))
}

/// `/api/links`: list or get (and HEAD), create, update, delete.
pub(super) fn links() -> Vec<(Method, Operation)> {
    let list = KeyedOperation::new(
        "getLinks",
        "List links (newest first; search, tag, limit and cursor), or get one link with ?id=",
    )
    .parameters(vec![
        link_id_parameter("id"),
        Parameter::query(
            "search",
            string().pattern(trimmed_any(qr_domain::links::listing::MAX_SEARCH_CHARS)),
            "Text the name, target URL or short code contains (ASCII letters in any case), at most 200 characters once trimmed",
        )
        .example(Example::Text("menu")),
        Parameter::query(
            "tag",
            string().pattern(trimmed_text_or_blank(MAX_TAG_CHARS)),
            "Only links with this tag (blank: every link)",
        )
        .example(Example::Text("spring")),
        Parameter::query(
            "limit",
            integer().range(1, qr_domain::links::listing::MAX_PAGE_LINKS),
            "Links per page; without it, up to 10,000 (and nextCursor if there are more)",
        )
        .example(Example::Integer(50)),
        Parameter::query(
            "cursor",
            string().pattern(LINK_CURSOR),
            "The nextCursor of the previous page (empty: the first page)",
        ),
    ])
    .success(
        200,
        Response::new("{links: [Link]} without id, the Link with id").json(Schema::OneOf(vec![
            reference("LinkList").into(),
            reference("Link").into(),
        ])),
    )
    .errors(&[404]);
    let create = KeyedOperation::new(
        "createLink",
        "Create a link (campaign fields optional; 403 names the plan a field needs)",
    )
    .body("NewLink")
    .success(
        201,
        Response::new("The created link")
            .header("Location", HeaderObject::new(string().format(Format::Uri)))
            .json(reference("Link")),
    )
    .errors(&[408, 409, 413]);
    let update = KeyedOperation::new(
        "updateLink",
        "Update the fields given (null or [] clears a campaign field)",
    )
    .parameters(vec![link_id_parameter("id").required()])
    .body("LinkUpdate")
    .success(
        200,
        Response::new("The updated link").json(reference("Link")),
    )
    .errors(&[404, 408, 409, 413]);
    let delete = KeyedOperation::new(
        "deleteLink",
        "Delete a link permanently (its short URL answers 410 afterwards)",
    )
    .parameters(vec![link_id_parameter("id").required()])
    .success(204, Response::new("Deleted"))
    .errors(&[404]);
    keyed::operations(vec![
        (Method::Get, list),
        (Method::Post, create),
        (Method::Put, update),
        (Method::Delete, delete),
    ])
}

/// `POST /api/links/bulk`.
pub(super) fn bulk() -> Vec<(Method, Operation)> {
    let idempotency_key = Parameter::query(
        "Idempotency-Key",
        string()
            .min_length(1)
            .max_length(qr_domain::links::bulk::MAX_IDEMPOTENCY_KEY_CHARS)
            .pattern(IDEMPOTENCY_KEY_PATTERN),
        "Makes a retry create nothing twice: for 24 hours the same key (per account) with the same body answers the first answer again (with Idempotent-Replayed: true); with another body 422",
    )
    .located(Location::Header);
    let answer = Response::new(
        "The links created (in item order) and the failed items; with qrcodes, a ZIP archive: <shortCode>.png (or the format asked) per created link, encoding its shortUrl, links.csv (id,name,shortCode,shortUrl,targetUrl) and errors.json",
    )
    .header(
        "Idempotent-Replayed",
        HeaderObject::new(string().constant("true")).describe(
            "Present when this is the stored answer of an earlier request with the same Idempotency-Key",
        ),
    )
    .header(
        "Content-Disposition",
        HeaderObject::new(string().constant("attachment; filename=links.zip"))
            .describe("On the ZIP answer only"),
    )
    .json(reference("BulkLinksAnswer"))
    .body("application/zip", binary());
    keyed::operations(vec![(
        Method::Post,
        KeyedOperation::new(
            "createLinksBulk",
            "Create many links at once (Pro: 100, Enterprise: 10,000); failed items are listed by index, and qrcodes answers a ZIP of the new links' codes",
        )
        .parameters(vec![idempotency_key])
        .body("BulkLinksRequest")
        .success(200, answer)
        .errors(&[408, 413, 422]),
    )])
}

/// A URL as the API answers it.
fn answered_url() -> Schema {
    string()
        .format(Format::Uri)
        .max_length(MAX_URL_CHARS)
        .into()
}

/// A URL as a request gives it. The server bounds the URL it stores, normalised, by
/// `MAX_URL_CHARS`; normalising adds a `/` to a URL without a path, so the longest URL always
/// accepted is one character shorter.
fn request_url() -> StringSchema {
    string()
        .format(Format::Uri)
        .min_length(1)
        .max_length(MAX_URL_CHARS - 1)
        .pattern(HTTP_URL)
        .describe("http or https, absolute, without credentials; at most 2,048 characters once normalised")
}

/// A target URL as a request gives it.
fn target_url() -> Schema {
    request_url().into()
}

/// The conditions of a redirect rule.
fn rule_conditions() -> Schema {
    object()
        .closed()
        .min_properties(1)
        .describe("Every condition given must hold")
        .property("device", one_of_strings(["mobile", "desktop", "tablet"]))
        .property(
            "os",
            one_of_strings(["ios", "android", "windows", "macos", "linux", "chromeos"]),
        )
        .property(
            "country",
            string()
                .pattern(COUNTRY)
                .describe("ISO 3166-1 alpha-2 code of the visitor's address"),
        )
        .property(
            "language",
            string()
                .pattern("^[A-Za-z]{2,3}([-_]([A-Za-z]{2}|[0-9]{3}|[A-Za-z]{4}))?$")
                .describe(
                    "The visitor's preferred language: de matches de and de-AT, de-AT only de-AT",
                ),
        )
        .into()
}

/// The A/B variants of a link, each a target URL (`target`) with a weight.
fn variants(target: &Schema) -> ArraySchema {
    array(
        object()
            .required(&["targetUrl", "weight"])
            .closed()
            .property("targetUrl", target.clone())
            .property("weight", integer().range(1, MAX_WEIGHT)),
    )
    .max_items(MAX_VARIANTS)
}

/// A rule's target: a web URL as `target`'s, or an app URL (`tel:`, `mailto:`, `sms:`,
/// `geo:`, or a custom scheme the link's domain lists in its `appSchemes`).
fn rule_target(target: &Schema) -> Schema {
    let web = "A web URL (http, https), or an app URL the device opens: tel:, mailto:, sms:, geo: on any link, or a custom scheme (brandapp://product/42) the link's domain lists in its appSchemes. App URLs are printable ASCII without spaces (percent-encode others), kept as written but for the scheme's case, and sent without UTM parameters or the forwarded query. javascript:, data:, file:, intent: and other unsafe schemes are refused";
    match target {
        Schema::String(url) => url.clone().describe(web).into(),
        other => other.clone(),
    }
}

/// The campaign fields of a link as the API returns them (every Link has them all), with
/// `target` the schema of the variants' target URLs (the rules' may also be app URLs).
fn campaign_fields(target: &Schema) -> BTreeMap<&'static str, Schema> {
    let utm_value = || string().min_length(1).max_length(MAX_UTM_CHARS);
    BTreeMap::from([
        (
            "tags",
            array(string().min_length(1).max_length(MAX_TAG_CHARS))
                .max_items(MAX_TAGS)
                .unique()
                .into(),
        ),
        (
            "validFrom",
            string()
                .nullable()
                .format(Format::DateTime)
                .describe("Before it the short URL answers the not-yet-active page (404)")
                .into(),
        ),
        (
            "validUntil",
            string()
                .nullable()
                .format(Format::DateTime)
                .describe("From it the link is expired: expiredUrl, or the expired page (410)")
                .into(),
        ),
        (
            "maxScans",
            integer()
                .nullable()
                .range(1, i64::try_from(MAX_SCANS_LIMIT).unwrap_or(i64::MAX))
                .describe("After this many recorded scans the link is expired")
                .into(),
        ),
        (
            "expiredUrl",
            string()
                .nullable()
                .format(Format::Uri)
                .max_length(MAX_URL_CHARS)
                .into(),
        ),
        (
            "disabled",
            boolean()
                .describe("A paused link answers the paused page (404) and records nothing")
                .into(),
        ),
        (
            "hasPassword",
            boolean()
                .describe("The short URL asks for the password first")
                .into(),
        ),
        (
            "rules",
            array(
                object()
                    .required(&["when", "targetUrl"])
                    .closed()
                    .property("when", rule_conditions())
                    .property("targetUrl", rule_target(target)),
            )
            .max_items(MAX_RULES)
            .describe("In order; the first rule whose conditions all hold decides the target")
            .into(),
        ),
        (
            "variants",
            variants(target)
                .describe("A/B split: each visitor gets one variant for the day, by weight")
                .into(),
        ),
        ("utm", utm(utm_value).into()),
        (
            "forwardQuery",
            boolean()
                .describe(
                    "The scanned URL's query parameters are added to the target's (the target's own win)",
                )
                .into(),
        ),
        (
            "domain",
            string()
                .nullable()
                .max_length(MAX_DOMAIN_CHARS)
                .describe("The customer's domain the link lives on (ASCII form); null: the service's own address. shortUrl is then https://<domain>/<shortCode>")
                .into(),
        ),
        (
            "design",
            string()
                .nullable()
                .format(Format::Uuid)
                .describe("The saved design its code is drawn in (GET /api/links/qr); null: the account's default design, else the plain code")
                .into(),
        ),
    ])
}

/// The campaign fields of a request body: as returned, plus `shortCode` and the write-only
/// `password`, with `null` clearing what can be unset.
fn campaign_inputs(target: &Schema) -> BTreeMap<&'static str, Schema> {
    let mut fields = campaign_fields(target);
    fields.remove("hasPassword");
    fields.insert(
        "shortCode",
        string()
            .pattern(CUSTOM_CODE)
            .describe("A custom code (Starter and up), unique without regard to case, never a deleted one's; reserved words are refused")
            .into(),
    );
    fields.insert(
        "password",
        string()
            .nullable()
            .min_length(MIN_LINK_PASSWORD_CHARS)
            .max_length(MAX_LINK_PASSWORD_CHARS)
            .pattern(NO_CONTROLS)
            .describe("Write-only (Pro and up), without control characters; null removes it")
            .into(),
    );
    let instant = || string().nullable().pattern(UTC_INSTANT);
    fields.insert(
        "validFrom",
        instant()
            .describe(
                "An RFC 3339 instant in UTC (Z or +00:00) on a date that exists; null removes it",
            )
            .into(),
    );
    fields.insert(
        "validUntil",
        instant()
            .after("validFrom")
            .describe("As validFrom, and after it (the link's own validFrom when the body has none; 400 otherwise); null removes it")
            .into(),
    );
    fields.insert(
        "variants",
        Schema::AnyOf(vec![
            variants(target).max_items(0).into(),
            variants(target).min_items(MIN_VARIANTS).into(),
        ]),
    );
    fields.insert(
        "tags",
        array(string().pattern(trimmed_text(MAX_TAG_CHARS)))
            .max_items(MAX_TAGS)
            .describe("Each 1 to 50 characters once trimmed, without control characters; a repeated tag is kept once")
            .into(),
    );
    fields.insert("expiredUrl", request_url().nullable().into());
    fields.insert(
        "domain",
        string()
            .nullable()
            .min_length(1)
            .max_length(4 * MAX_DOMAIN_CHARS)
            .describe("One of the account's verified domains (Unicode or ASCII, any case; one failing for less than 7 days too); null: the service's own address. The code must be free on it")
            .into(),
    );
    fields.insert(
        "design",
        string()
            .nullable()
            .describe("The id of one of the account's saved designs (anything else is 400 Design not found); null: the account's default design")
            .into(),
    );
    fields.insert(
        "utm",
        utm(|| string().pattern(trimmed_text(MAX_UTM_CHARS))).into(),
    );
    fields
}

/// The UTM parameters, each with the schema `value`.
fn utm(value: impl Fn() -> StringSchema) -> super::json_schema::ObjectSchema {
    object()
        .nullable()
        .closed()
        .min_properties(1)
        .describe("Added to the target's query as utm_*, unless the target has the parameter")
        .property("source", value())
        .property("medium", value())
        .property("campaign", value())
        .property("term", value())
        .property("content", value())
}

/// The members every answer about a link has, the analytics' short form included.
pub(super) fn link_summary_fields() -> BTreeMap<&'static str, Schema> {
    BTreeMap::from([
        ("id", string().format(Format::Uuid).into()),
        (
            "name",
            string().min_length(1).max_length(MAX_NAME_CHARS).into(),
        ),
        ("shortCode", string().pattern(SHORT_CODE_PATTERN).into()),
        ("targetUrl", answered_url()),
        ("scanCount", count().into()),
    ])
}

/// The members of a link as answered, all required.
const LINK_REQUIRED: &[&str] = &[
    "id",
    "name",
    "shortCode",
    "targetUrl",
    "scanCount",
    "createdAt",
    "updatedAt",
    "tags",
    "validFrom",
    "validUntil",
    "maxScans",
    "expiredUrl",
    "disabled",
    "hasPassword",
    "rules",
    "variants",
    "utm",
    "forwardQuery",
    "domain",
    "design",
    "shortUrl",
];

/// The link schemas: `Link`, `LinkList`, `NewLink`, `LinkUpdate` and the bulk creation's.
pub(super) fn schemas() -> Vec<(&'static str, Schema)> {
    let link = object()
        .required(LINK_REQUIRED)
        .closed()
        .properties(link_summary_fields())
        .properties(campaign_fields(&answered_url()))
        .property("createdAt", string().format(Format::DateTime))
        .property("updatedAt", string().format(Format::DateTime))
        .property("shortUrl", string().format(Format::Uri));
    let link_list = object()
        .required(&["links"])
        .closed()
        .property("links", array(reference("Link")))
        .property(
            "nextCursor",
            string().describe("The cursor of the next page; absent on the last page"),
        );
    let new_link_fields = || {
        let mut fields = BTreeMap::from([
            (
                "name",
                string()
                    .pattern(trimmed_text(MAX_NAME_CHARS))
                    .describe("1 to 200 characters once trimmed, without control characters")
                    .into(),
            ),
            ("targetUrl", target_url()),
        ]);
        fields.extend(campaign_inputs(&target_url()));
        fields
    };
    let new_link = object()
        .required(&["name", "targetUrl"])
        .properties(new_link_fields())
        .example(json!({
            "name": "Spring menu", "targetUrl": "https://example.com/menu",
            "tags": ["spring", "print"], "utm": {"source": "poster", "medium": "print"},
            "rules": [{"when": {"os": "ios"}, "targetUrl": "https://apps.example.com/ios"}]
        }));
    let link_update = object()
        .describe("The fields to change; {} changes nothing and answers the link")
        .properties(new_link_fields())
        .example(json!({
            "targetUrl": "https://example.com/summer-menu", "validUntil": "2031-09-01T00:00:00Z",
            "expiredUrl": "https://example.com/menu-archive"
        }));
    let bulk_request = object()
        .required(&["links"])
        .property(
            "links",
            array(Schema::AnyOf(vec![reference("NewLink").into(), Schema::Any]))
                .min_items(1)
                .max_items(qr_domain::links::bulk::MAX_BULK_LINKS)
                .describe("The links to create, each as the body of POST /api/links (NewLink); at most 100 on Pro, 10,000 on Enterprise (Free and Starter: 403). Each item is judged alone: one that is not a valid NewLink, whatever it is, fails alone and is listed in errors"),
        )
        .property(
            "qrcodes",
            reference("BatchSettings").describe(
                "Answer a ZIP of the created links' codes instead of JSON, rendered with these generate parameters",
            ),
        )
        .example(json!({"links": [
            {"name": "Table 1", "targetUrl": "https://example.com/menu?table=1", "tags": ["tables"]},
            {"name": "Table 2", "targetUrl": "https://example.com/menu?table=2", "tags": ["tables"]},
            {"name": "Broken", "targetUrl": "ftp://example.com/menu"}
        ]}));
    let bulk_failure = object()
        .required(&["index", "data", "error"])
        .closed()
        .property("index", count().describe("The item's position in links"))
        .property(
            "data",
            string().describe("The item's targetUrl as sent (empty when it had none)"),
        )
        .property(
            "error",
            string().describe("The message POST /api/links answers for the same body"),
        );
    let bulk_answer = object()
        .required(&["links", "errors"])
        .closed()
        .property("links", array(reference("Link")))
        .property("errors", array(reference("BulkFailure")));
    vec![
        ("Link", link.into()),
        ("LinkList", link_list.into()),
        ("NewLink", new_link.into()),
        ("LinkUpdate", link_update.into()),
        ("BulkLinksRequest", bulk_request.into()),
        ("BulkFailure", bulk_failure.into()),
        ("BulkLinksAnswer", bulk_answer.into()),
    ]
}
