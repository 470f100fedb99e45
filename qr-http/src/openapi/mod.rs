//! The OpenAPI 3.1 description served at `GET /api/openapi.json`: as strict as the server, with every status it can answer and an example for every input (tests replay them and keep the document equal to the route table).

mod schemas;

use qr_generate::content::{CONTENT_TYPES, ContentField, FieldKind};
use serde_json::{Map, Value, json};

use crate::routes::Method;

/// A documented status: the reason phrase used as its description.
fn reason(status: u16) -> &'static str {
    match status {
        400 => "Invalid request: the message names the parameter or field",
        401 => "Invalid API key",
        403 => "API key not authorized for this endpoint (key restrictions, plan feature or limit)",
        404 => "Link not found (webhooks: Webhook not found)",
        405 => "Method not allowed (the Allow header lists the methods of the path)",
        408 => "Request body not received in time",
        409 => "shortCode already taken (by a live or a deleted link)",
        413 => "Request body too large",
        422 => {
            "Not answerable as asked: for generate, verify=true decoded the finished image and it did not give back the data; for the account export, the archive exceeds the 64 MiB download cap"
        }
        429 => "Rate limit exceeded (monthly quota, batch rate or per-second rate)",
        503 => "Service busy, or storage unavailable: retry after Retry-After seconds",
        _ => "Error",
    }
}

/// Statuses every keyed operation can answer.
const KEYED_ERRORS: &[u16] = &[400, 401, 403, 405, 429, 503];

/// One operation of the API.
struct Operation {
    method: Method,
    id: &'static str,
    summary: &'static str,
    parameters: Vec<Value>,
    /// The JSON request body schema (a `$ref`), if the operation takes one.
    body: Option<&'static str>,
    /// The success responses, by status.
    success: Value,
    /// Error statuses beyond [`KEYED_ERRORS`].
    errors: &'static [u16],
    /// Example requests beyond the parameters' examples (`x-example-requests`).
    example_requests: Vec<Value>,
}

/// The OpenAPI 3.1 document of the API, for a server reachable at `base_url`.
pub fn document(base_url: &str) -> Value {
    let mut paths = Map::new();
    for (path, operations) in keyed_operations() {
        let mut item = Map::new();
        for op in operations {
            if op.method == Method::Get {
                item.insert("head".into(), head_of(&op));
            }
            item.insert(op.method.as_str().to_lowercase(), keyed(op));
        }
        paths.insert(path.to_owned(), Value::Object(item));
    }
    paths.insert("/api/openapi.json".into(), openapi_path());
    paths.insert("/r/{shortCode}".into(), redirect_path());
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "QR Code Generation Service",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "QR code generation (single and batch), dynamic links with redirecting short codes, scan analytics and usage. Every /api endpoint except this document needs an API key. Every keyed answer carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset once the key is known. HEAD is answered like GET without the body, and counted like GET."
        },
        "servers": [{"url": base_url}],
        "security": [{"bearer": []}, {"apiKeyHeader": []}, {"apiKeyQuery": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <API_KEY> (wins over the other two)"},
                "apiKeyHeader": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                "apiKeyQuery": {"type": "apiKey", "in": "query", "name": "api_key", "description": "Testing only: keys in URLs leak into logs and history"}
            },
            "headers": {
                "X-RateLimit-Limit": {"schema": {"type": "integer", "minimum": -1}, "description": "Requests allowed this month (-1: unlimited)"},
                "X-RateLimit-Remaining": {"schema": {"type": "integer", "minimum": -1}, "description": "Requests left this month (-1: unlimited)"},
                "X-RateLimit-Reset": {"schema": {"type": "integer", "minimum": 0}, "description": "Unix time of the next monthly reset"},
                "Retry-After": {"schema": {"type": "integer", "minimum": 0}, "description": "Seconds to wait before retrying"},
                "Allow": {"schema": {"type": "string"}, "description": "The methods the path answers"}
            },
            "schemas": schemas::components()
        }
    })
}

fn query(name: &str, required: bool, schema: Value, description: &str, example: Value) -> Value {
    let mut parameter = json!({"name": name, "in": "query", "required": required,
                               "schema": schema, "description": description});
    if !example.is_null() {
        parameter["example"] = example;
    }
    parameter
}

fn link_id_parameter(name: &str, required: bool) -> Value {
    query(
        name,
        required,
        json!({"type": "string", "format": "uuid"}),
        "Link identifier (a malformed one is 404 like an unknown one)",
        json!("6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f"),
    )
}

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

/// The query parameters of `GET /api/generate` as documented (name, schema, description,
/// example), from which the dashboard's designer builds its form, so it offers every one.
/// `type` and the content fields follow `data`; each names its types in `x-content-types`.
pub fn generate_parameters() -> Vec<Value> {
    let mut parameters = settings_parameters();
    parameters.splice(1..1, content_parameters());
    parameters
}

/// The schema of `type`: the content types' names (aliases are accepted too).
fn content_type_schema() -> Value {
    let names: Vec<&str> = CONTENT_TYPES.iter().map(|t| t.name).collect();
    json!({"type": "string", "enum": names,
           "description": "Case-insensitive; also mailto (email), phone (tel), calendar (event) and girocode (epc)"})
}

/// `type` and every content field, each field once with the types that use it.
fn content_parameters() -> Vec<Value> {
    let summaries: Vec<String> = CONTENT_TYPES
        .iter()
        .map(|t| format!("{}: {}", t.name, t.summary.trim_end_matches('.')))
        .collect();
    let mut parameters = vec![query(
        "type",
        false,
        content_type_schema(),
        &format!(
            "Content type (builds the content from the type's fields instead of data; not with data): {}",
            summaries.join("; ")
        ),
        Value::Null,
    )];
    for name in qr_generate::content::field_names() {
        let uses: Vec<(&str, &ContentField)> = CONTENT_TYPES
            .iter()
            .filter_map(|t| {
                t.fields
                    .iter()
                    .find(|f| f.name == name)
                    .map(|f| (t.name, f))
            })
            .collect();
        let first = uses[0].1;
        // One sentence per wording, with the types that use it and those that require it.
        let mut wordings: Vec<(Vec<&str>, &str)> = Vec::new();
        for (kind, field) in &uses {
            match wordings.iter_mut().find(|(_, help)| *help == field.help) {
                Some((kinds, _)) => kinds.push(kind),
                None => wordings.push((vec![kind], field.help)),
            }
        }
        let required: Vec<&str> = uses
            .iter()
            .filter(|(_, f)| f.required)
            .map(|(kind, _)| *kind)
            .collect();
        let mut description: Vec<String> = wordings
            .iter()
            .map(|(kinds, help)| format!("type={}: {help}", kinds.join(", ")))
            .collect();
        if !required.is_empty() {
            description.push(format!("Required for type={}.", required.join(", ")));
        }
        let example = uses
            .iter()
            .map(|(_, f)| f.example)
            .find(|e| !e.is_empty())
            .map_or(Value::Null, |e| match first.kind {
                FieldKind::Flag => json!(e == "true"),
                _ => json!(e),
            });
        let mut parameter = query(
            name,
            false,
            schemas::content_field_schema(first.kind),
            &description.join(" "),
            example,
        );
        let kinds: Vec<&str> = uses.iter().map(|(kind, _)| *kind).collect();
        parameter["x-content-types"] = json!(kinds);
        parameters.push(parameter);
    }
    parameters
}

/// The example requests of `GET /api/generate` beyond its parameters' examples: one per content
/// type (its fields' examples) and a Micro QR code. Tests replay each and decode the image.
pub fn generate_example_requests() -> Vec<Value> {
    let mut requests: Vec<Value> = CONTENT_TYPES
        .iter()
        .map(|t| {
            let mut query = serde_json::Map::new();
            query.insert("type".into(), json!(t.name));
            for field in t.fields.iter().filter(|f| !f.example.is_empty()) {
                query.insert(field.name.into(), json!(field.example));
            }
            json!({"summary": t.summary, "query": query})
        })
        .collect();
    requests.push(json!({"summary": "A Micro QR code (M2) as SVG",
                         "query": {"data": "01234567", "symbol": "micro", "format": "svg"}}));
    requests
}

/// The generate settings (`data` and the render parameters) with their descriptions.
fn settings_parameters() -> Vec<Value> {
    schemas::settings()
        .into_iter()
        .map(|(name, schema)| {
            let (required, description, example) = match name {
                "data" => (
                    false,
                    "Content to encode (at most 2,953 characters); required unless type is given, and not with type",
                    json!("https://example.com"),
                ),
                "size" => (false, "Image width and height in pixels", json!(300)),
                "format" => (false, "Image format", json!("png")),
                "color" => (
                    false,
                    "Foreground colour, hex RGB, RRGGBB or RRGGBBAA without #",
                    json!("1a237e"),
                ),
                "background" => (false, "Background colour, hex without #", json!("ffffff")),
                "errorCorrection" => (false, "Error correction level", json!("Q")),
                "margin" => (false, "Quiet zone in modules", json!(4)),
                "logo" => (
                    false,
                    "URL of a PNG or JPEG logo on a public host (Pro plan)",
                    Value::Null,
                ),
                "logoSize" => (false, "Logo width in percent of the code", json!(20)),
                "style" => (
                    false,
                    "Shape of the data modules; connected merges neighbours into smooth runs",
                    json!("rounded"),
                ),
                "finderStyle" => (false, "Shape of the three finder patterns", json!("rounded")),
                "finderColor" => (
                    false,
                    "Colour of the finder patterns, hex without # (default: the modules' paint)",
                    json!("1a237e"),
                ),
                "gradient" => (
                    false,
                    "Gradient over the dark modules from color to color2",
                    json!("linear"),
                ),
                "color2" => (
                    false,
                    "End colour of the gradient, hex without # (required with gradient)",
                    json!("6a1b9a"),
                ),
                "gradientAngle" => (
                    false,
                    "Direction of a linear gradient in degrees: 0 left to right, 90 top to bottom",
                    json!(45),
                ),
                "frame" => (
                    false,
                    "A frame around the code; the image keeps its size",
                    json!("banner-bottom"),
                ),
                "frameText" => (
                    false,
                    "Text in the frame (printable ASCII and Latin-1, drawn as outlines)",
                    json!("SCAN ME"),
                ),
                "frameColor" => (
                    false,
                    "Colour of the frame, hex without # (default: color)",
                    json!("1a237e"),
                ),
                "svgMode" => (
                    false,
                    "SVG only: outline draws filled outlines only (no strokes or dashes), for cutters and plotters",
                    json!("outline"),
                ),
                "printSize" => (
                    false,
                    "PDF and EPS only: printed width and height in millimetres",
                    json!(50),
                ),
                "dpi" => (
                    false,
                    "PNG: resolution written as the pHYs chunk; PDF and EPS: resolution of the logo (default 300)",
                    json!(300),
                ),
                "symbol" => (
                    false,
                    "Symbol kind (qr, or micro for a Micro QR code: plain PNG or SVG, level L, M or Q, no logo or verify)",
                    json!("qr"),
                ),
                _ => (
                    false,
                    "Decode the finished image before answering; 422 with the reason if it does not scan",
                    json!(true),
                ),
            };
            query(name, required, schema, description, example)
        })
        .collect()
}

/// The keyed operations by path, in the route table's order.
fn keyed_operations() -> Vec<(&'static str, Vec<Operation>)> {
    let generate_parameters = generate_parameters();
    let ok = |description: &str, schema: Value| json!({"200": {"description": description, "content": json_content(schema)}});
    vec![
        (
            "/api/generate",
            vec![Operation {
                method: Method::Get,
                id: "generate",
                summary: "Generate one QR code image",
                parameters: generate_parameters,
                body: None,
                success: json!({
                    "200": {"description": "The image",
                            "headers": {"ETag": {"schema": {"type": "string"}}},
                            "content": {"image/png": {"schema": {"type": "string", "format": "binary"}},
                                        "image/svg+xml": {"schema": {"type": "string"}},
                                        "application/pdf": {"schema": {"type": "string", "format": "binary"}},
                                        "application/postscript": {"schema": {"type": "string"}}}},
                    "304": {"description": "Not modified (If-None-Match matched the ETag)"}
                }),
                errors: &[422],
                example_requests: generate_example_requests(),
            }],
        ),
        (
            "/api/batch",
            vec![Operation {
                method: Method::Post,
                id: "batch",
                summary: "Generate many QR codes as a ZIP archive (Pro and Enterprise)",
                parameters: vec![],
                body: Some("BatchRequest"),
                success: json!({"200": {
                "description": "ZIP archive; failed items are listed in errors.json inside it",
                "headers": {"Content-Disposition": {"schema": {"type": "string", "const": "attachment; filename=qrcodes.zip"}}},
                "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}}),
                errors: &[408, 413],
                example_requests: Vec::new(),
            }],
        ),
        (
            "/api/links",
            vec![
                Operation {
                    method: Method::Get,
                    id: "getLinks",
                    summary: "List links (newest first; search, tag, limit and cursor), or get one link with ?id=",
                    parameters: vec![
                        link_id_parameter("id", false),
                        query(
                            "search",
                            false,
                            json!({"type": "string", "maxLength": 200}),
                            "Text the name, target URL or short code contains (ASCII letters in any case)",
                            json!("menu"),
                        ),
                        query(
                            "tag",
                            false,
                            json!({"type": "string", "maxLength": 50}),
                            "Only links with this tag",
                            json!("spring"),
                        ),
                        query(
                            "limit",
                            false,
                            json!({"type": "integer", "minimum": 1, "maximum": 1000}),
                            "Links per page; without it, up to 10,000 (and nextCursor if there are more)",
                            json!(50),
                        ),
                        query(
                            "cursor",
                            false,
                            json!({"type": "string"}),
                            "The nextCursor of the previous page",
                            Value::Null,
                        ),
                    ],
                    body: None,
                    success: ok(
                        "{links: [Link]} without id, the Link with id",
                        json!({"oneOf": [schema_ref("LinkList"), schema_ref("Link")]}),
                    ),
                    errors: &[404],
                    example_requests: Vec::new(),
                },
                Operation {
                    method: Method::Post,
                    id: "createLink",
                    summary: "Create a link (campaign fields optional; 403 names the plan a field needs)",
                    parameters: vec![],
                    body: Some("NewLink"),
                    success: json!({"201": {"description": "The created link",
                    "headers": {"Location": {"schema": {"type": "string", "format": "uri"}}},
                    "content": json_content(schema_ref("Link"))}}),
                    errors: &[408, 409, 413],
                    example_requests: Vec::new(),
                },
                Operation {
                    method: Method::Put,
                    id: "updateLink",
                    summary: "Update the fields given (null or [] clears a campaign field)",
                    parameters: vec![link_id_parameter("id", true)],
                    body: Some("LinkUpdate"),
                    success: ok("The updated link", schema_ref("Link")),
                    errors: &[404, 408, 409, 413],
                    example_requests: Vec::new(),
                },
                Operation {
                    method: Method::Delete,
                    id: "deleteLink",
                    summary: "Delete a link permanently (its short URL answers 410 afterwards)",
                    parameters: vec![link_id_parameter("id", true)],
                    body: None,
                    success: json!({"204": {"description": "Deleted"}}),
                    errors: &[404],
                    example_requests: Vec::new(),
                },
            ],
        ),
        (
            "/api/links/bulk",
            vec![Operation {
                method: Method::Post,
                id: "createLinksBulk",
                summary: "Create many links at once (Pro: 100, Enterprise: 10,000); failed items are listed by index, and qrcodes answers a ZIP of the new links' codes",
                parameters: vec![json!({
                    "name": "Idempotency-Key", "in": "header", "required": false,
                    "description": "Makes a retry create nothing twice: for 24 hours the same key (per account) with the same body answers the first answer again (with Idempotent-Replayed: true); with another body 422",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"}})],
                body: Some("BulkLinksRequest"),
                success: json!({"200": {
                    "description": "The links created (in item order) and the failed items; with qrcodes, a ZIP archive: <shortCode>.png (or the format asked) per created link, encoding its shortUrl, links.csv (id,name,shortCode,shortUrl,targetUrl) and errors.json",
                    "headers": {"Idempotent-Replayed": {"schema": {"type": "string", "const": "true"},
                                    "description": "Present when this is the stored answer of an earlier request with the same Idempotency-Key"},
                                "Content-Disposition": {"schema": {"type": "string", "const": "attachment; filename=links.zip"},
                                    "description": "On the ZIP answer only"}},
                    "content": {"application/json": {"schema": schema_ref("BulkLinksAnswer")},
                                "application/zip": {"schema": {"type": "string", "format": "binary"}}}}}),
                errors: &[408, 413, 422],
                example_requests: Vec::new(),
            }],
        ),
        (
            "/api/analytics",
            vec![Operation {
                method: Method::Get,
                id: "analytics",
                summary: "Scan analytics of a link",
                parameters: vec![
                    link_id_parameter("linkId", true),
                    start_date_parameter(),
                    end_date_parameter(),
                    query(
                        "limit",
                        false,
                        json!({"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}),
                        "Recent scans to return",
                        json!(10),
                    ),
                ],
                body: None,
                success: ok("Analytics", schema_ref("AnalyticsResponse")),
                errors: &[404],
                example_requests: Vec::new(),
            }],
        ),
        (
            "/api/analytics/export",
            vec![Operation {
                method: Method::Get,
                id: "exportScans",
                summary: "Every scan of a link in the range, within the plan's retention, newest first, streamed as CSV or NDJSON (one counted request; the key's \"analytics\" endpoint must be enabled)",
                parameters: vec![
                    link_id_parameter("linkId", true),
                    start_date_parameter(),
                    end_date_parameter(),
                    query(
                        "format",
                        false,
                        json!({"type": "string", "enum": ["csv", "ndjson"], "default": "csv"}),
                        "csv: a header line id,timestamp,country,city,device,browser,os,referrer,variant,rule then one line per scan; ndjson: one JSON object per scan with those members (null when absent)",
                        json!("ndjson"),
                    ),
                ],
                body: None,
                success: json!({"200": {
                "description": "The scans, newest first; the body is streamed (chunked, no Content-Length) and ends abruptly if the store fails midway",
                "headers": {"Content-Disposition": {"schema": {"type": "string", "pattern": "^attachment; filename=\"scans-[A-Za-z0-9_-]+\\.(csv|ndjson)\"$"}}},
                "content": {
                    "text/csv": {"schema": {"type": "string"}},
                    "application/x-ndjson": {"schema": {"type": "string"}}
                }}}),
                errors: &[404],
                example_requests: Vec::new(),
            }],
        ),
        (
            "/api/dashboard",
            vec![Operation {
                method: Method::Get,
                id: "usage",
                summary: "Usage of the caller's account (action=usage)",
                parameters: vec![query(
                    "action",
                    true,
                    json!({"type": "string", "enum": ["usage"]}),
                    "The only action is usage",
                    json!("usage"),
                )],
                body: None,
                success: ok("Usage object", schema_ref("Usage")),
                errors: &[],
                example_requests: Vec::new(),
            }],
        ),
        (
            "/api/health",
            vec![Operation {
                method: Method::Get,
                id: "health",
                summary: "Health of the service (authenticated and counted like any request)",
                parameters: vec![],
                body: None,
                success: ok("Healthy", schema_ref("Health")),
                errors: &[],
                example_requests: Vec::new(),
            }],
        ),
        (
            "/api/webhooks",
            vec![
                Operation {
                    method: Method::Get,
                    id: "listWebhooks",
                    summary: "List the account's webhooks, oldest first (never their secrets)",
                    parameters: vec![],
                    body: None,
                    success: ok("{webhooks: [Webhook]}", schema_ref("WebhookList")),
                    errors: &[],
                    example_requests: Vec::new(),
                },
                Operation {
                    method: Method::Post,
                    id: "createWebhook",
                    summary: "Register a webhook (at most 10 per account); the answer shows its signing secret, once",
                    parameters: vec![],
                    body: Some("NewWebhook"),
                    success: json!({"201": {"description": "The webhook with its secret",
                        "content": json_content(schema_ref("CreatedWebhook"))}}),
                    errors: &[408, 413],
                    example_requests: Vec::new(),
                },
                Operation {
                    method: Method::Delete,
                    id: "deleteWebhook",
                    summary: "Delete a webhook with its undelivered events",
                    parameters: vec![query(
                        "id",
                        true,
                        json!({"type": "string"}),
                        "Webhook identifier (wh_ and 32 hex digits; a malformed one is 404 like an unknown one)",
                        json!("wh_0123456789abcdef0123456789abcdef"),
                    )],
                    body: None,
                    success: json!({"204": {"description": "Deleted"}}),
                    errors: &[404],
                    example_requests: Vec::new(),
                },
            ],
        ),
        (
            "/api/account/export",
            vec![Operation {
                method: Method::Get,
                id: "exportAccount",
                summary: "Everything stored about the key's own account as a ZIP archive (one counted request; the key's \"export\" endpoint must be enabled)",
                parameters: vec![],
                body: None,
                success: json!({"200": {
                "description": "ZIP archive: README.txt, account.json, keys.json (metadata only, never secrets), sessions.json, usage.csv, links.json, links.csv and analytics/<shortCode>/daily.json, daily.csv, scans.csv",
                "headers": {"Content-Disposition": {"schema": {"type": "string", "pattern": "^attachment; filename=\"account-[0-9a-f-]{36}\\.zip\"$"}}},
                "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}}),
                errors: &[422],
                example_requests: Vec::new(),
            }],
        ),
    ]
}

/// `startDate` of analytics and its export.
fn start_date_parameter() -> Value {
    query(
        "startDate",
        false,
        json!({"type": "string", "pattern": schemas::DATE_PATTERN}),
        "YYYY-MM-DD or ISO 8601 date-time (UTC when no offset)",
        json!("2024-05-01"),
    )
}

/// `endDate` of analytics and its export.
fn end_date_parameter() -> Value {
    query(
        "endDate",
        false,
        json!({"type": "string", "pattern": schemas::DATE_PATTERN}),
        "YYYY-MM-DD (the whole day) or ISO 8601 date-time",
        json!("2024-05-31"),
    )
}

/// The headers of a keyed response with `status`: the rate-limit headers once the key is known
/// (not on 401 or 405), `Retry-After` on 429 and 503, `Allow` on 405.
fn keyed_headers(status: u16) -> Map<String, Value> {
    let header = |name: &str| json!({"$ref": format!("#/components/headers/{name}")});
    let mut headers = Map::new();
    if status != 401 && status != 405 {
        for name in [
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
        ] {
            headers.insert(name.into(), header(name));
        }
    }
    if status == 429 || status == 503 {
        headers.insert("Retry-After".into(), header("Retry-After"));
    }
    if status == 405 {
        headers.insert("Allow".into(), header("Allow"));
    }
    headers
}

/// The full responses of a keyed operation: its successes and every error status it can answer.
fn responses(op: &Operation) -> Map<String, Value> {
    let mut responses = Map::new();
    if let Value::Object(success) = &op.success {
        for (status, response) in success {
            let mut response = response.clone();
            let code: u16 = status.parse().unwrap_or(200);
            let mut headers = keyed_headers(code);
            if let Some(Value::Object(own)) = response.get("headers") {
                headers.extend(own.clone());
            }
            response["headers"] = Value::Object(headers);
            responses.insert(status.clone(), response);
        }
    }
    let mut errors: Vec<u16> = KEYED_ERRORS.iter().chain(op.errors).copied().collect();
    errors.sort_unstable();
    for status in errors {
        responses.insert(
            status.to_string(),
            json!({"description": reason(status), "headers": keyed_headers(status),
                   "content": json_content(schema_ref("Error"))}),
        );
    }
    responses
}

fn keyed(op: Operation) -> Value {
    let mut operation = json!({
        "summary": op.summary,
        "operationId": op.id,
        "responses": responses(&op),
    });
    if !op.parameters.is_empty() {
        operation["parameters"] = Value::Array(op.parameters);
    }
    if let Some(schema) = op.body {
        operation["requestBody"] =
            json!({"required": true, "content": json_content(schema_ref(schema))});
    }
    if !op.example_requests.is_empty() {
        operation["x-example-requests"] = Value::Array(op.example_requests);
    }
    operation
}

/// The HEAD twin of a GET operation: the same parameters and statuses, without bodies.
fn head_of(op: &Operation) -> Value {
    let responses: Map<String, Value> = responses(op)
        .into_iter()
        .map(|(status, mut response)| {
            if let Some(map) = response.as_object_mut() {
                map.remove("content");
            }
            (status, response)
        })
        .collect();
    let mut operation = json!({
        "summary": format!("{} (headers only)", op.summary),
        "operationId": format!("{}Head", op.id),
        "responses": responses,
    });
    if !op.parameters.is_empty() {
        operation["parameters"] = Value::Array(op.parameters.clone());
    }
    operation
}

fn openapi_path() -> Value {
    let response = |with_body: bool| {
        let mut ok = json!({"description": "This OpenAPI 3.1 document"});
        if with_body {
            ok["content"] = json!({"application/json": {"schema": {"type": "object"}}});
        }
        json!({"200": ok, "405": {"description": reason(405), "headers": keyed_headers(405)}})
    };
    json!({
        "get": {"summary": "This document", "operationId": "openapi", "security": [], "responses": response(true)},
        "head": {"summary": "This document (headers only)", "operationId": "openapiHead", "security": [], "responses": response(false)}
    })
}

fn redirect_path() -> Value {
    let code = json!({"name": "shortCode", "in": "path", "required": true,
        "schema": {"type": "string", "minLength": 1, "maxLength": 64}, "example": "7K3M9QXZ",
        "description": "The short code: a generated one (lower case and the look-alikes O, I, L accepted) or a custom one (any case)"});
    let page = |description: &str, with_body: bool| {
        let mut response = json!({"description": description});
        if with_body {
            response["content"] = json!({"text/html": {"schema": {"type": "string"}}});
        }
        response
    };
    let responses = |with_body: bool| {
        json!({
            "200": page("The password form of a protected link", with_body),
            "302": {"description": "To the target (the first matching rule's, the visitor's variant, or targetUrl, with utm and the forwarded query), or to expiredUrl (Cache-Control: no-store)",
                    "headers": {"Location": {"schema": {"type": "string", "format": "uri"}}}},
            "404": page("Unknown code, paused link or link not active yet (HTML page)", with_body),
            "405": {"description": reason(405), "headers": keyed_headers(405),
                    "content": json_content(schema_ref("Error"))},
            "410": page("Deleted or expired link (HTML page)", with_body),
            "503": page("Storage busy or unavailable (HTML page); Retry-After says when to retry", with_body)
        })
    };
    let mut post = responses(true);
    if let Some(map) = post.as_object_mut() {
        map.remove("200");
        map.remove("302");
        map.insert(
            "303".into(),
            json!({"description": "The right password (or a link without one): to the target, the scan recorded",
                   "headers": {"Location": {"schema": {"type": "string", "format": "uri"}}}}),
        );
        map.insert("403".into(), page("A wrong password: the form again", true));
        map.insert(
            "408".into(),
            json!({"description": reason(408), "content": json_content(schema_ref("Error"))}),
        );
        map.insert(
            "413".into(),
            json!({"description": reason(413), "content": json_content(schema_ref("Error"))}),
        );
        map.insert(
            "429".into(),
            json!({"description": "Too many wrong passwords from this address: the form, with Retry-After",
                   "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                   "content": {"text/html": {"schema": {"type": "string"}}}}),
        );
    }
    let form = json!({"required": false, "content": {"application/x-www-form-urlencoded": {"schema": {
        "type": "object", "properties": {"password": {"type": "string", "maxLength": 1024}}}}}});
    json!({
        "get": {"summary": "Redirect of a dynamic link (public); records the scan of a person",
                "operationId": "redirect", "security": [], "parameters": [code], "responses": responses(true)},
        "head": {"summary": "Redirect without recording a scan", "operationId": "redirectHead",
                 "security": [], "parameters": [code], "responses": responses(false)},
        "post": {"summary": "The password form's answer: the right password redirects (303) and records the scan",
                 "operationId": "redirectUnlock", "security": [], "parameters": [code],
                 "requestBody": form, "responses": post}
    })
}
