//! The OpenAPI 3.1 description served at `GET /api/openapi.json` (a test keeps it equal to the route table).

use serde_json::{Value, json};

/// The OpenAPI 3.1 document of the API.
pub fn document() -> Value {
    let error = |description: &str| {
        json!({
            "description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
        })
    };
    let limited = json!({
        "X-RateLimit-Limit": {"$ref": "#/components/headers/X-RateLimit-Limit"},
        "X-RateLimit-Remaining": {"$ref": "#/components/headers/X-RateLimit-Remaining"},
        "X-RateLimit-Reset": {"$ref": "#/components/headers/X-RateLimit-Reset"}
    });
    let common = json!({
        "401": error("Invalid API key"),
        "403": error("API key not authorized for this endpoint"),
        "429": {
            "description": "Rate limit exceeded",
            "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait"}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
        }
    });
    let with = |mut responses: Value| {
        if let (Some(r), Some(c)) = (responses.as_object_mut(), common.as_object()) {
            for (k, v) in c {
                r.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        responses
    };
    let q = |name: &str, required: bool, schema: Value, description: &str| json!({"name": name, "in": "query", "required": required, "schema": schema, "description": description});
    let link_id = q(
        "id",
        true,
        json!({"type": "string", "format": "uuid"}),
        "Link identifier",
    );
    let link_response = |status: &str, description: &str| {
        json!({status: {
            "description": description,
            "headers": limited,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Link"}}}
        }})
    };
    let merge = |a: Value, b: Value| {
        let mut a = a;
        if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
            a.extend(b);
        }
        a
    };
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "QR Code Generation Service",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "QR code generation (single and batch), dynamic links with redirecting short codes, scan analytics and usage. Every /api endpoint except this document needs an API key."
        },
        "security": [{"bearer": []}, {"apiKeyHeader": []}, {"apiKeyQuery": []}],
        "paths": {
            "/api/generate": {"get": {
                "summary": "Generate one QR code image",
                "operationId": "generate",
                "parameters": [
                    q("data", true, json!({"type": "string", "maxLength": 2953}), "Content to encode"),
                    q("size", false, json!({"type": "integer", "minimum": 50, "maximum": 2000, "default": 300}), "Image size in pixels"),
                    q("format", false, json!({"type": "string", "enum": ["png", "svg"], "default": "png"}), "Image format"),
                    q("color", false, json!({"type": "string", "default": "000000"}), "Foreground colour, hex RGB, RRGGBB or RRGGBBAA without #"),
                    q("background", false, json!({"type": "string", "default": "ffffff"}), "Background colour, hex without #"),
                    q("errorCorrection", false, json!({"type": "string", "enum": ["L", "M", "Q", "H"], "default": "M"}), "Error correction level"),
                    q("margin", false, json!({"type": "integer", "minimum": 0, "maximum": 10, "default": 4}), "Quiet zone in modules"),
                    q("logo", false, json!({"type": "string", "format": "uri"}), "URL of a PNG or JPEG logo (Pro plan)"),
                    q("logoSize", false, json!({"type": "integer", "minimum": 5, "maximum": 30, "default": 20}), "Logo width in percent of the code")
                ],
                "responses": with(json!({
                    "200": {"description": "The image", "headers": merge(limited.clone(), json!({"ETag": {"schema": {"type": "string"}}})),
                            "content": {"image/png": {"schema": {"type": "string", "format": "binary"}},
                                        "image/svg+xml": {"schema": {"type": "string"}}}},
                    "304": {"description": "Not modified (If-None-Match matched the ETag)"},
                    "400": error("Invalid parameter (data parameter required, Invalid size, Invalid format, ...)")
                }))
            }},
            "/api/batch": {"post": {
                "summary": "Generate many QR codes as a ZIP archive (Pro and Enterprise)",
                "operationId": "batch",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchRequest"}}}},
                "responses": with(json!({
                    "200": {"description": "ZIP archive; failed items are listed in errors.json inside it",
                            "headers": merge(limited.clone(), json!({"Content-Disposition": {"schema": {"type": "string", "const": "attachment; filename=qrcodes.zip"}}})),
                            "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}},
                    "400": error("items array required, Maximum N items allowed, or invalid JSON"),
                    "413": error("Request body too large")
                }))
            }},
            "/api/links": {
                "get": {
                    "summary": "List links (newest first), or get one link with ?id=",
                    "operationId": "getLinks",
                    "parameters": [q("id", false, json!({"type": "string", "format": "uuid"}), "Link identifier")],
                    "responses": with(json!({
                        "200": {"description": "{links: [Link]} without id, the Link with id", "headers": limited,
                                "content": {"application/json": {"schema": {"oneOf": [
                                    {"$ref": "#/components/schemas/LinkList"}, {"$ref": "#/components/schemas/Link"}]}}}},
                        "404": error("Link not found")
                    }))
                },
                "post": {
                    "summary": "Create a link",
                    "operationId": "createLink",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewLink"}}}},
                    "responses": with(merge(link_response("201", "The created link; Location points at it"), json!({
                        "400": error("Invalid name or targetUrl"),
                        "403": error("Link limit reached, or API key not authorized for this endpoint")
                    })))
                },
                "put": {
                    "summary": "Update a link's name and/or targetUrl",
                    "operationId": "updateLink",
                    "parameters": [link_id.clone()],
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/LinkUpdate"}}}},
                    "responses": with(merge(link_response("200", "The updated link"), json!({
                        "400": error("Invalid name or targetUrl, or id parameter required"),
                        "404": error("Link not found")
                    })))
                },
                "delete": {
                    "summary": "Delete a link permanently (its short URL answers 410 afterwards)",
                    "operationId": "deleteLink",
                    "parameters": [link_id],
                    "responses": with(json!({
                        "204": {"description": "Deleted", "headers": limited},
                        "404": error("Link not found")
                    }))
                }
            },
            "/api/analytics": {"get": {
                "summary": "Scan analytics of a link",
                "operationId": "analytics",
                "parameters": [
                    q("linkId", true, json!({"type": "string", "format": "uuid"}), "Link identifier"),
                    q("startDate", false, json!({"type": "string"}), "YYYY-MM-DD or ISO 8601 date-time (UTC when no offset)"),
                    q("endDate", false, json!({"type": "string"}), "YYYY-MM-DD (whole day) or ISO 8601 date-time"),
                    q("limit", false, json!({"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}), "Recent scans to return")
                ],
                "responses": with(json!({
                    "200": {"description": "Analytics", "headers": limited,
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AnalyticsResponse"}}}},
                    "400": error("linkId parameter required, invalid dates or limit"),
                    "404": error("Link not found")
                }))
            }},
            "/api/dashboard": {"get": {
                "summary": "Usage of the caller's account (action=usage)",
                "operationId": "usage",
                "parameters": [q("action", true, json!({"type": "string", "const": "usage"}), "Must be usage")],
                "responses": with(json!({
                    "200": {"description": "Usage object", "headers": limited,
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Usage"}}}},
                    "400": error("action parameter required, or invalid action")
                }))
            }},
            "/api/health": {"get": {
                "summary": "Health of the service",
                "operationId": "health",
                "responses": with(json!({
                    "200": {"description": "Healthy", "headers": limited, "content": {"application/json": {"schema": {
                        "type": "object", "required": ["status", "version", "database"],
                        "properties": {"status": {"const": "ok"}, "version": {"type": "string"}, "database": {"const": "ok"}}}}}},
                    "503": error("Database unavailable or busy")
                }))
            }},
            "/api/openapi.json": {"get": {
                "summary": "This document",
                "operationId": "openapi",
                "security": [],
                "responses": {"200": {"description": "OpenAPI 3.1 document", "content": {"application/json": {}}}}
            }},
            "/r/{shortCode}": {
                "get": {
                    "summary": "Redirect of a dynamic link (public); records the scan",
                    "operationId": "redirect",
                    "security": [],
                    "parameters": [{"name": "shortCode", "in": "path", "required": true, "schema": {"type": "string"}}],
                    "responses": {
                        "302": {"description": "To the link's targetUrl (Cache-Control: no-store)",
                                "headers": {"Location": {"schema": {"type": "string", "format": "uri"}}}},
                        "404": {"description": "Unknown code (HTML page)", "content": {"text/html": {}}},
                        "410": {"description": "Deleted link (HTML page)", "content": {"text/html": {}}}
                    }
                },
                "head": {
                    "summary": "Redirect without recording a scan",
                    "operationId": "redirectHead",
                    "security": [],
                    "parameters": [{"name": "shortCode", "in": "path", "required": true, "schema": {"type": "string"}}],
                    "responses": {
                        "302": {"description": "To the link's targetUrl"},
                        "404": {"description": "Unknown code"},
                        "410": {"description": "Deleted link"}
                    }
                }
            }
        },
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <API_KEY> (wins over the other two)"},
                "apiKeyHeader": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                "apiKeyQuery": {"type": "apiKey", "in": "query", "name": "api_key", "description": "Testing only: keys in URLs leak into logs and history"}
            },
            "headers": {
                "X-RateLimit-Limit": {"schema": {"type": "integer"}, "description": "Requests allowed this month (-1: unlimited)"},
                "X-RateLimit-Remaining": {"schema": {"type": "integer"}, "description": "Requests left this month (-1: unlimited)"},
                "X-RateLimit-Reset": {"schema": {"type": "integer"}, "description": "Unix time of the next monthly reset"}
            },
            "schemas": {
                "Error": {"type": "object", "required": ["error", "message"], "properties": {
                    "error": {"const": true}, "message": {"type": "string"},
                    "retryAfter": {"type": "integer", "description": "Seconds to wait (429 only)"}}},
                "Link": {"type": "object", "required": ["id", "name", "shortCode", "targetUrl", "scanCount", "createdAt", "updatedAt", "shortUrl"], "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "name": {"type": "string", "maxLength": 200},
                    "shortCode": {"type": "string", "minLength": 8, "maxLength": 8},
                    "targetUrl": {"type": "string", "format": "uri", "maxLength": 2048},
                    "scanCount": {"type": "integer"},
                    "createdAt": {"type": "string", "format": "date-time"},
                    "updatedAt": {"type": "string", "format": "date-time"},
                    "shortUrl": {"type": "string", "format": "uri"}}},
                "LinkList": {"type": "object", "required": ["links"], "properties": {"links": {"type": "array", "items": {"$ref": "#/components/schemas/Link"}}}},
                "NewLink": {"type": "object", "required": ["name", "targetUrl"], "properties": {"name": {"type": "string"}, "targetUrl": {"type": "string"}}},
                "LinkUpdate": {"type": "object", "properties": {"name": {"type": "string"}, "targetUrl": {"type": "string"}}},
                "BatchSettings": {"type": "object", "properties": {
                    "size": {"type": ["integer", "string"]}, "format": {"type": "string"}, "color": {"type": "string"},
                    "background": {"type": "string"}, "errorCorrection": {"type": "string"}}},
                "BatchItem": {"allOf": [{"$ref": "#/components/schemas/BatchSettings"}, {"type": "object", "required": ["data"], "properties": {
                    "data": {"type": "string"}, "filename": {"type": "string"}}}]},
                "BatchRequest": {"type": "object", "required": ["items"], "properties": {
                    "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/BatchItem"}},
                    "defaults": {"$ref": "#/components/schemas/BatchSettings"}}},
                "Usage": {"type": "object", "required": ["plan", "usage"], "properties": {
                    "plan": {"type": "string", "enum": ["free", "starter", "pro", "enterprise"]},
                    "usage": {"type": "object", "required": ["current", "limit", "resetDate"], "properties": {
                        "current": {"type": "integer"}, "limit": {"type": "integer", "description": "-1: unlimited"},
                        "resetDate": {"type": "string", "format": "date-time"}}}}},
                "Scan": {"type": "object", "properties": {
                    "id": {"type": "string"}, "timestamp": {"type": "string", "format": "date-time"},
                    "country": {"type": "string"}, "city": {"type": "string"},
                    "device": {"type": "string", "enum": ["mobile", "desktop", "tablet", "unknown"]},
                    "browser": {"type": "string"}, "os": {"type": "string"}, "referrer": {"type": ["string", "null"]}}},
                "AnalyticsResponse": {"type": "object", "required": ["link", "analytics", "recentScans"], "properties": {
                    "link": {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "shortCode": {"type": "string"}, "targetUrl": {"type": "string"}, "scanCount": {"type": "integer"}}},
                    "analytics": {"type": "object", "properties": {
                        "totalScans": {"type": "integer"}, "uniqueScans": {"type": "integer"},
                        "scansByDay": {"type": "array", "items": {"type": "object", "properties": {"date": {"type": "string"}, "scans": {"type": "integer"}}}},
                        "scansByCountry": {"type": "array", "items": {"type": "object", "properties": {"country": {"type": "string"}, "scans": {"type": "integer"}}}},
                        "scansByDevice": {"type": "array", "items": {"type": "object", "properties": {"device": {"type": "string"}, "scans": {"type": "integer"}}}},
                        "scansByBrowser": {"type": "array", "items": {"type": "object", "properties": {"browser": {"type": "string"}, "scans": {"type": "integer"}}}}}},
                    "recentScans": {"type": "array", "items": {"$ref": "#/components/schemas/Scan"}}}}
            }
        }
    })
}
