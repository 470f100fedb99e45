//! The component schemas of the OpenAPI document, written to the server's own rules (lengths, patterns, ranges, enums).

use serde_json::{Value, json};

/// A colour as the server parses it: RGB, RRGGBB or RRGGBBAA hex without `#`.
pub(super) const COLOUR_PATTERN: &str = "^([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$";
/// A date (`YYYY-MM-DD`) or an ISO 8601 date-time, with or without seconds and offset.
pub(super) const DATE_PATTERN: &str =
    r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$";
/// A link name: text without control characters, not blank (surrounding spaces are trimmed).
const NAME_PATTERN: &str = r"^\s*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*\s*$";
/// A target URL: http or https (the server then checks it is absolute, with a host, without
/// credentials).
const URL_PATTERN: &str = r"^\s*[Hh][Tt][Tt][Pp][Ss]?://[^\s]+\s*$";
/// A short code: 8 characters of upper-case Crockford base32 when generated, 3 to 64 letters,
/// digits, `-` and `_` when chosen.
const SHORT_CODE_PATTERN: &str = "^[A-Za-z0-9_-]{3,64}$";
/// A chosen short code as sent (surrounding spaces are trimmed).
const CUSTOM_CODE_PATTERN: &str = r"^\s*[A-Za-z0-9_-]{3,64}\s*$";
/// An ISO 8601 instant in UTC.
const UTC_PATTERN: &str = r"^\s*\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|\+00:00)\s*$";

/// The campaign fields of a link as the API returns them (every Link has them all).
fn campaign_fields(target: &Value) -> Value {
    let when = json!({"type": "object", "additionalProperties": false, "minProperties": 1,
        "description": "Every condition given must hold",
        "properties": {
            "device": {"type": "string", "enum": ["mobile", "desktop", "tablet"]},
            "os": {"type": "string", "enum": ["ios", "android", "windows", "macos", "linux", "chromeos"]},
            "country": {"type": "string", "pattern": "^[A-Za-z]{2}$",
                        "description": "ISO 3166-1 alpha-2 code of the visitor's address"},
            "language": {"type": "string", "pattern": "^[A-Za-z]{2,3}([-_]([A-Za-z]{2}|[0-9]{3}|[A-Za-z]{4}))?$",
                         "description": "The visitor's preferred language: de matches de and de-AT, de-AT only de-AT"}}});
    let utm_value = json!({"type": "string", "minLength": 1, "maxLength": 200});
    json!({
        "tags": {"type": "array", "maxItems": 20, "uniqueItems": true,
                 "items": {"type": "string", "minLength": 1, "maxLength": 50}},
        "validFrom": {"type": ["string", "null"], "format": "date-time",
                      "description": "Before it the short URL answers the not-yet-active page (404)"},
        "validUntil": {"type": ["string", "null"], "format": "date-time",
                       "description": "From it the link is expired: expiredUrl, or the expired page (410)"},
        "maxScans": {"type": ["integer", "null"], "minimum": 1, "maximum": 1_000_000_000_000_u64,
                     "description": "After this many recorded scans the link is expired"},
        "expiredUrl": {"type": ["string", "null"], "format": "uri", "maxLength": 2048},
        "disabled": {"type": "boolean", "description": "A paused link answers the paused page (404) and records nothing"},
        "hasPassword": {"type": "boolean", "description": "The short URL asks for the password first"},
        "rules": {"type": "array", "maxItems": 20,
                  "description": "In order; the first rule whose conditions all hold decides the target",
                  "items": {"type": "object", "required": ["when", "targetUrl"], "additionalProperties": false,
                            "properties": {"when": when, "targetUrl": target}}},
        "variants": {"type": "array", "maxItems": 10,
                     "description": "A/B split: each visitor gets one variant for the day, by weight",
                     "items": {"type": "object", "required": ["targetUrl", "weight"], "additionalProperties": false,
                               "properties": {"targetUrl": target,
                                              "weight": {"type": "integer", "minimum": 1, "maximum": 1000}}}},
        "utm": {"type": ["object", "null"], "additionalProperties": false, "minProperties": 1,
                "description": "Added to the target's query as utm_*, unless the target has the parameter",
                "properties": {"source": utm_value, "medium": utm_value, "campaign": utm_value,
                               "term": utm_value, "content": utm_value}},
        "forwardQuery": {"type": "boolean",
                         "description": "The scanned URL's query parameters are added to the target's (the target's own win)"}
    })
}

/// The campaign fields of a request body: as returned, plus `shortCode` and the write-only
/// `password`, with `null` clearing what can be unset.
fn campaign_inputs(target: &Value) -> Value {
    let mut fields = campaign_fields(target);
    if let Some(map) = fields.as_object_mut() {
        map.remove("hasPassword");
        map.insert(
            "shortCode".into(),
            json!({"type": "string", "pattern": CUSTOM_CODE_PATTERN,
                   "description": "A custom code (Starter and up), unique without regard to case, never a deleted one's; reserved words are refused"}),
        );
        map.insert(
            "password".into(),
            json!({"type": ["string", "null"], "minLength": 4, "maxLength": 128,
                   "description": "Write-only (Pro and up); null removes it"}),
        );
        for field in ["validFrom", "validUntil"] {
            map.insert(
                field.into(),
                json!({"type": ["string", "null"], "pattern": UTC_PATTERN, "description": "ISO 8601 in UTC; null removes it"}),
            );
        }
        if let Some(variants) = map.get_mut("variants") {
            variants["description"] = json!("2 to 10 variants, or [] to remove the split");
        }
    }
    fields
}

/// The generate parameters (and batch settings) with their schemas, in the API's order.
pub(super) fn settings() -> Vec<(&'static str, Value)> {
    vec![
        (
            "data",
            json!({"type": "string", "minLength": 1, "maxLength": 2953}),
        ),
        (
            "size",
            json!({"type": "integer", "minimum": 50, "maximum": 2000, "default": 300}),
        ),
        (
            "format",
            json!({"type": "string", "enum": ["png", "svg", "pdf", "eps"], "default": "png",
                          "description": "Case-insensitive; pdf and eps are print documents of printSize"}),
        ),
        (
            "color",
            json!({"type": "string", "pattern": COLOUR_PATTERN, "default": "000000"}),
        ),
        (
            "background",
            json!({"type": "string", "pattern": COLOUR_PATTERN, "default": "ffffff"}),
        ),
        (
            "errorCorrection",
            json!({"type": "string", "enum": ["L", "M", "Q", "H"], "default": "M",
                                   "description": "Case-insensitive"}),
        ),
        (
            "margin",
            json!({"type": "integer", "minimum": 0, "maximum": 10, "default": 4}),
        ),
        (
            "logo",
            json!({"type": "string", "format": "uri", "maxLength": 2048,
                        "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://"}),
        ),
        (
            "logoSize",
            json!({"type": "integer", "minimum": 5, "maximum": 30, "default": 20}),
        ),
        (
            "style",
            json!({"type": "string", "enum": names(qr_core::ModuleStyle::ALL), "default": "square",
                   "description": "Case-insensitive; square is the plain image"}),
        ),
        (
            "finderStyle",
            json!({"type": "string", "enum": names(qr_core::FinderStyle::ALL), "default": "square"}),
        ),
        (
            "finderColor",
            json!({"type": "string", "pattern": COLOUR_PATTERN}),
        ),
        (
            "gradient",
            json!({"type": "string", "enum": names(qr_core::GradientKind::ALL),
                   "description": "From color to color2 (which it requires)"}),
        ),
        (
            "color2",
            json!({"type": "string", "pattern": COLOUR_PATTERN}),
        ),
        (
            "gradientAngle",
            json!({"type": "integer", "minimum": 0, "maximum": 359, "default": 0}),
        ),
        (
            "frame",
            json!({"type": "string", "enum": names(qr_core::FrameStyle::ALL), "default": "none"}),
        ),
        (
            "frameText",
            json!({"type": "string", "maxLength": 32, "pattern": FRAME_TEXT_PATTERN}),
        ),
        (
            "frameColor",
            json!({"type": "string", "pattern": COLOUR_PATTERN}),
        ),
        (
            "svgMode",
            json!({"type": "string", "enum": names(qr_core::SvgMode::ALL), "default": "compact"}),
        ),
        (
            "printSize",
            json!({"type": "integer", "minimum": qr_generate::bounds::MIN_PRINT_SIZE,
                   "maximum": qr_generate::bounds::MAX_PRINT_SIZE, "default": 50}),
        ),
        (
            "dpi",
            json!({"type": "integer", "minimum": qr_generate::bounds::MIN_DPI,
                   "maximum": qr_generate::bounds::MAX_DPI}),
        ),
        ("verify", json!({"type": "boolean", "default": false})),
        (
            "symbol",
            json!({"type": "string", "enum": ["qr", "micro"], "default": "qr",
                   "description": "Case-insensitive; micro is a Micro QR code (M1 to M4, at most 35 digits, 21 letters or 15 bytes) with a 2-module quiet zone, drawn plain as PNG or SVG"}),
        ),
    ]
}

/// A UTC date and time as the content fields take it: `YYYY-MM-DDTHH:MM[:SS]Z`.
const UTC_TIME_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2})?[Zz]$";

/// The schema of a content field, from qr-generate's table.
pub(super) fn content_field_schema(kind: qr_generate::content::FieldKind) -> Value {
    use qr_generate::content::FieldKind;
    match kind {
        FieldKind::Text | FieldKind::Multiline => json!({"type": "string", "maxLength": 2953}),
        FieldKind::Choice(values) => json!({"type": "string", "enum": values,
                                            "description": "Case-insensitive"}),
        FieldKind::Flag => json!({"type": "boolean", "default": false}),
        FieldKind::Number => json!({"type": "number"}),
        FieldKind::DateTime => json!({"type": "string", "pattern": UTC_TIME_PATTERN}),
    }
}

/// The content fields of a batch item: `type` and every field of every type.
fn content_properties() -> serde_json::Map<String, Value> {
    let mut properties = serde_json::Map::new();
    properties.insert("type".into(), super::content_type_schema());
    for field in qr_generate::content::CONTENT_TYPES
        .iter()
        .flat_map(|t| t.fields)
    {
        properties
            .entry(field.name)
            .or_insert_with(|| content_field_schema(field.kind));
    }
    properties
}

/// A frame text: printable ASCII and Latin-1, the characters of the compiled-in font.
const FRAME_TEXT_PATTERN: &str = "^[\\x20-\\x7E\\xA0-\\xFF]*$";

/// The names of a qr-core option enum, for a JSON Schema `enum`.
fn names<T: std::fmt::Display>(values: &[T]) -> Vec<String> {
    values.iter().map(ToString::to_string).collect()
}

/// The named settings as a `properties` object.
fn properties(names: &[&str]) -> serde_json::Map<String, Value> {
    settings()
        .into_iter()
        .filter(|(name, _)| names.contains(name))
        .map(|(name, schema)| (name.to_owned(), schema))
        .collect()
}

/// The `components.schemas` object.
pub(super) fn components() -> Value {
    let batch_settings: Vec<&str> = settings()
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| *name != "data" && *name != "logo")
        .collect();
    let mut item = properties(&batch_settings);
    item.insert(
        "data".into(),
        settings()
            .into_iter()
            .find(|(n, _)| *n == "data")
            .map(|(_, s)| s)
            .unwrap_or_default(),
    );
    item.insert(
        "filename".into(),
        json!({"type": "string", "minLength": 1, "maxLength": 255}),
    );
    item.extend(content_properties());
    let breakdown = |field: &str| {
        json!({"type": "array", "items": {"type": "object", "required": [field, "scans"],
            "additionalProperties": false,
            "properties": {field: {"type": "string"}, "scans": {"type": "integer", "minimum": 0}}}})
    };
    let link_fields = json!({
        "id": {"type": "string", "format": "uuid"},
        "name": {"type": "string", "minLength": 1, "maxLength": 200},
        "shortCode": {"type": "string", "pattern": SHORT_CODE_PATTERN},
        "targetUrl": {"type": "string", "format": "uri", "maxLength": 2048},
        "scanCount": {"type": "integer", "minimum": 0}
    });
    let url = json!({"type": "string", "format": "uri", "maxLength": 2048});
    let mut link = link_fields.clone();
    if let (Some(map), Value::Object(campaign)) = (link.as_object_mut(), campaign_fields(&url)) {
        map.extend(campaign);
        map.insert(
            "createdAt".into(),
            json!({"type": "string", "format": "date-time"}),
        );
        map.insert(
            "updatedAt".into(),
            json!({"type": "string", "format": "date-time"}),
        );
        map.insert(
            "shortUrl".into(),
            json!({"type": "string", "format": "uri"}),
        );
    }
    let name = json!({"type": "string", "minLength": 1, "maxLength": 200, "pattern": NAME_PATTERN});
    let target = json!({"type": "string", "format": "uri", "minLength": 1, "maxLength": 2048,
                        "pattern": URL_PATTERN});
    let mut new_link = json!({"name": name, "targetUrl": target});
    if let (Some(map), Value::Object(inputs)) = (new_link.as_object_mut(), campaign_inputs(&target))
    {
        map.extend(inputs);
    }
    let link_required = json!([
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
        "shortUrl"
    ]);
    let mut schemas = json!({
        "Error": {"type": "object", "required": ["error", "message"], "additionalProperties": false,
            "properties": {
                "error": {"const": true}, "message": {"type": "string"},
                "retryAfter": {"type": "integer", "minimum": 0, "description": "Seconds to wait (429 only)"}}},
        "Link": {"type": "object",
            "required": link_required,
            "additionalProperties": false, "properties": link},
        "LinkList": {"type": "object", "required": ["links"], "additionalProperties": false,
            "properties": {"links": {"type": "array", "items": {"$ref": "#/components/schemas/Link"}},
                           "nextCursor": {"type": "string",
                                          "description": "The cursor of the next page; absent on the last page"}}},
        "NewLink": {"type": "object", "required": ["name", "targetUrl"],
            "properties": new_link,
            "example": {"name": "Spring menu", "targetUrl": "https://example.com/menu",
                        "tags": ["spring", "print"], "utm": {"source": "poster", "medium": "print"},
                        "rules": [{"when": {"os": "ios"}, "targetUrl": "https://apps.example.com/ios"}]}},
        "LinkUpdate": {"type": "object", "minProperties": 1,
            "properties": new_link,
            "example": {"targetUrl": "https://example.com/summer-menu", "validUntil": "2031-09-01T00:00:00Z",
                        "expiredUrl": "https://example.com/menu-archive"}},
        "BatchSettings": {"type": "object",
            "properties": properties(&batch_settings)},
        "BatchItem": {"type": "object", "properties": item,
            "description": "data, or type with its fields (the fields of GET /api/generate); not both"},
        "BatchRequest": {"type": "object", "required": ["items"], "properties": {
            "items": {"type": "array", "minItems": 1, "maxItems": 1000,
                "description": "At most 100 items on Pro, 1,000 on Enterprise (or its override)",
                "items": {"$ref": "#/components/schemas/BatchItem"}},
            "defaults": {"$ref": "#/components/schemas/BatchSettings"}},
            "example": {"items": [{"data": "https://example.com/a", "filename": "a"},
                                  {"data": "https://example.com/b", "format": "svg", "style": "dots"},
                                  {"data": "https://example.com/c", "format": "pdf", "printSize": 30},
                                  {"type": "wifi", "ssid": "Guest", "password": "welcome-2025", "filename": "wifi"},
                                  {"data": "12345", "symbol": "micro", "format": "svg", "verify": false}],
                        "defaults": {"size": 400, "errorCorrection": "Q", "style": "rounded",
                                     "finderStyle": "rounded", "verify": true}}},
        "BulkLinksRequest": {"type": "object", "required": ["links"], "properties": {
            "links": {"type": "array", "minItems": 1, "maxItems": 10000,
                "description": "The links to create, each as the body of POST /api/links; at most 100 on Pro, 10,000 on Enterprise (Free and Starter: 403)",
                "items": {"$ref": "#/components/schemas/NewLink"}},
            "qrcodes": {"$ref": "#/components/schemas/BatchSettings",
                "description": "Answer a ZIP of the created links' codes instead of JSON, rendered with these generate parameters"}},
            "example": {"links": [{"name": "Table 1", "targetUrl": "https://example.com/menu?table=1", "tags": ["tables"]},
                                  {"name": "Table 2", "targetUrl": "https://example.com/menu?table=2", "tags": ["tables"]},
                                  {"name": "Broken", "targetUrl": "ftp://example.com/menu"}]}},
        "BulkFailure": {"type": "object", "required": ["index", "data", "error"], "additionalProperties": false,
            "properties": {
                "index": {"type": "integer", "minimum": 0, "description": "The item's position in links"},
                "data": {"type": "string", "description": "The item's targetUrl as sent (empty when it had none)"},
                "error": {"type": "string", "description": "The message POST /api/links answers for the same body"}}},
        "BulkLinksAnswer": {"type": "object", "required": ["links", "errors"], "additionalProperties": false,
            "properties": {
                "links": {"type": "array", "items": {"$ref": "#/components/schemas/Link"}},
                "errors": {"type": "array", "items": {"$ref": "#/components/schemas/BulkFailure"}}}},
        "Usage": {"type": "object", "required": ["plan", "usage"], "additionalProperties": false, "properties": {
            "plan": {"type": "string", "enum": ["free", "starter", "pro", "enterprise"]},
            "usage": {"type": "object", "required": ["current", "limit", "resetDate"], "additionalProperties": false,
                "properties": {
                    "current": {"type": "integer", "minimum": 0},
                    "limit": {"type": "integer", "minimum": -1, "description": "-1: unlimited"},
                    "resetDate": {"type": "string", "format": "date-time"}}}}},
        "Health": {"type": "object", "required": ["status", "version", "database"], "additionalProperties": false,
            "properties": {"status": {"const": "ok"}, "version": {"type": "string"}, "database": {"const": "ok"}}},
        "Scan": {"type": "object",
            "required": ["id", "timestamp", "country", "city", "device", "browser", "os", "referrer"],
            "additionalProperties": false, "properties": {
                "id": {"type": "string"}, "timestamp": {"type": "string", "format": "date-time"},
                "country": {"type": "string"}, "city": {"type": "string"},
                "device": {"type": "string", "enum": ["mobile", "desktop", "tablet", "unknown"]},
                "browser": {"type": "string"}, "os": {"type": "string"},
                "referrer": {"type": ["string", "null"]},
                "variant": {"type": "integer", "minimum": 0, "description": "The A/B variant the scan went to (links with variants)"},
                "rule": {"type": "integer", "minimum": 0, "description": "The redirect rule that decided the target, if one did"}}},
        "AnalyticsSummary": {"type": "object",
            "required": ["totalScans", "uniqueScans", "scansByDay", "scansByCountry", "scansByDevice", "scansByBrowser",
                         "scansByOs", "scansByReferrer", "scansByCity", "scansByRule"],
            "additionalProperties": false, "properties": {
                "totalScans": {"type": "integer", "minimum": 0},
                "uniqueScans": {"type": "integer", "minimum": 0},
                "scansByDay": {"type": "array", "items": {"type": "object", "required": ["date", "scans"],
                    "additionalProperties": false,
                    "properties": {"date": {"type": "string", "format": "date"}, "scans": {"type": "integer", "minimum": 0}}}},
                "scansByCountry": breakdown("country"),
                "scansByDevice": breakdown("device"),
                "scansByBrowser": breakdown("browser"),
                "scansByOs": breakdown("os"),
                "scansByReferrer": {"type": "array", "description": "Scans per referring host; `referrer` is null for scans without a referrer",
                    "items": {"type": "object", "required": ["referrer", "scans"], "additionalProperties": false,
                    "properties": {"referrer": {"type": ["string", "null"]}, "scans": {"type": "integer", "minimum": 0}}}},
                "scansByCity": {"type": "array", "items": {"type": "object", "required": ["city", "country", "scans"],
                    "additionalProperties": false,
                    "properties": {"city": {"type": "string"}, "country": {"type": "string"}, "scans": {"type": "integer", "minimum": 0}}}},
                "scansByVariant": {"type": "array", "description": "Only for a link with variants: scans per variant index",
                    "items": {"type": "object", "required": ["variant", "scans"], "additionalProperties": false,
                    "properties": {"variant": {"type": "integer", "minimum": 0}, "scans": {"type": "integer", "minimum": 0}}}},
                "scansByRule": {"type": "array", "description": "Scans per deciding redirect rule index (scans no rule decided are not listed)",
                    "items": {"type": "object", "required": ["rule", "scans"], "additionalProperties": false,
                    "properties": {"rule": {"type": "integer", "minimum": 0}, "scans": {"type": "integer", "minimum": 0}}}}}},
        "AnalyticsResponse": {"type": "object", "required": ["link", "analytics", "recentScans"],
            "additionalProperties": false, "properties": {
                "link": {"type": "object", "required": ["id", "name", "shortCode", "targetUrl", "scanCount"],
                    "additionalProperties": false, "properties": link_fields},
                "analytics": {"$ref": "#/components/schemas/AnalyticsSummary"},
                "recentScans": {"type": "array", "items": {"$ref": "#/components/schemas/Scan"}}}}
    });
    if let Some(map) = schemas.as_object_mut() {
        map.extend(webhook_schemas());
    }
    schemas
}

/// The webhooks' request and answer objects.
fn webhook_schemas() -> serde_json::Map<String, Value> {
    let events = json!({"type": "array", "minItems": 1, "maxItems": 16, "items": {"type": "string",
        "enum": ["link.created", "link.updated", "link.deleted", "scan.recorded", "usage.threshold"]}});
    let fields = json!({
        "id": {"type": "string", "pattern": "^wh_[0-9a-f]{32}$"},
        "url": {"type": "string", "format": "uri", "maxLength": 2048},
        "events": events,
        "createdAt": {"type": "string", "format": "date-time"}
    });
    let mut created = fields.clone();
    if let Some(map) = created.as_object_mut() {
        map.insert(
            "secret".into(),
            json!({"type": "string", "minLength": 16, "maxLength": 128,
                   "description": "The signing secret, shown in this answer only"}),
        );
    }
    let object = |required: &[&str], properties: &Value| {
        json!({"type": "object", "required": required, "additionalProperties": false,
               "properties": properties})
    };
    let mut map = serde_json::Map::new();
    map.insert(
        "Webhook".into(),
        object(&["id", "url", "events", "createdAt"], &fields),
    );
    map.insert(
        "CreatedWebhook".into(),
        object(&["id", "url", "events", "createdAt", "secret"], &created),
    );
    map.insert(
        "WebhookList".into(),
        json!({"type": "object", "required": ["webhooks"], "additionalProperties": false,
               "properties": {"webhooks": {"type": "array", "maxItems": 10,
                   "items": {"$ref": "#/components/schemas/Webhook"}}}}),
    );
    map.insert(
        "NewWebhook".into(),
        json!({"type": "object", "required": ["url", "events"],
            "properties": {
                "url": {"type": "string", "format": "uri", "minLength": 1, "maxLength": 2048,
                        "description": "http or https; delivered only to public addresses"},
                "events": events,
                "secret": {"type": "string", "minLength": 16, "maxLength": 128, "pattern": "^[!-~]+$",
                           "description": "Printable ASCII without spaces; generated when absent"}},
            "example": {"url": "https://hooks.example.com/qr", "events": ["link.created", "scan.recorded"]}}),
    );
    map
}
