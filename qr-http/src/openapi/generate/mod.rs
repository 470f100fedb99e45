//! `GET /api/generate` and `POST /api/batch`: one code as an image, many as a ZIP archive, with the batch's request schemas.

pub(super) mod parameters;

use std::collections::BTreeMap;

use serde_json::json;

use crate::routes::Method;

use super::json_schema::{Schema, array, binary, object, reference, string};
use super::keyed::{self, KeyedOperation};
use super::model::{HeaderObject, Operation, Response};
use parameters::{content_field_schema, content_type_schema, settings};

/// The most items of a batch (Enterprise's default; Pro allows 100).
const MAX_BATCH_ITEMS: usize = 1000;
/// The longest file name of a batch item inside the archive.
const MAX_FILENAME_CHARS: usize = 255;

/// `GET /api/generate` (and its HEAD twin).
pub(super) fn generate() -> Vec<(Method, Operation)> {
    let image = Response::new("The image")
        .header("ETag", HeaderObject::new(string()))
        .body("image/png", binary())
        .body("image/svg+xml", string())
        .body("application/pdf", binary())
        .body("application/postscript", string());
    keyed::operations(vec![(
        Method::Get,
        KeyedOperation::new("generate", "Generate one QR code image")
            .parameters(parameters::parameters())
            .success(200, image)
            .success(
                304,
                Response::new("Not modified (If-None-Match matched the ETag)"),
            )
            .errors(&[422])
            .example_requests(parameters::example_requests()),
    )])
}

/// `POST /api/batch`.
pub(super) fn batch() -> Vec<(Method, Operation)> {
    let archive = Response::new("ZIP archive; failed items are listed in errors.json inside it")
        .header(
            "Content-Disposition",
            HeaderObject::new(string().constant("attachment; filename=qrcodes.zip")),
        )
        .body("application/zip", binary());
    keyed::operations(vec![(
        Method::Post,
        KeyedOperation::new(
            "batch",
            "Generate many QR codes as a ZIP archive (Pro and Enterprise)",
        )
        .body("BatchRequest")
        .success(200, archive)
        .errors(&[408, 413]),
    )])
}

/// The settings a batch takes for every item (`defaults`, and a bulk creation's `qrcodes`):
/// every setting but `data` and `logo` (batches render without logos).
fn batch_settings() -> BTreeMap<&'static str, Schema> {
    settings()
        .into_iter()
        .filter(|s| s.name != "data" && s.name != "logo")
        .map(|s| (s.name, s.schema))
        .collect()
}

/// The members of a batch item: the batch settings, `data`, `filename`, and `type` with every
/// content field of every type.
fn batch_item() -> BTreeMap<&'static str, Schema> {
    let mut item = batch_settings();
    item.extend(
        settings()
            .into_iter()
            .filter(|s| s.name == "data")
            .map(|s| (s.name, s.schema)),
    );
    item.insert(
        "filename",
        string().min_length(1).max_length(MAX_FILENAME_CHARS).into(),
    );
    item.extend(content_members());
    item
}

/// `type` and every content field, each with the schema of its first use (a content field of
/// the same name as a setting wins over it).
fn content_members() -> BTreeMap<&'static str, Schema> {
    let mut members = BTreeMap::from([("type", content_type_schema())]);
    for field in qr_generate::content::CONTENT_TYPES
        .iter()
        .flat_map(|t| t.fields)
    {
        members
            .entry(field.name)
            .or_insert_with(|| content_field_schema(field.kind));
    }
    members
}

/// The component schemas of the batch: `BatchSettings`, `BatchItem`, `BatchRequest`.
pub(super) fn schemas() -> Vec<(&'static str, Schema)> {
    let example = json!({
        "items": [{"data": "https://example.com/a", "filename": "a"},
                  {"data": "https://example.com/b", "format": "svg", "style": "dots"},
                  {"data": "https://example.com/c", "format": "pdf", "printSize": 30},
                  {"type": "wifi", "ssid": "Guest", "password": "welcome-2025", "filename": "wifi"},
                  {"data": "12345", "symbol": "micro", "format": "svg", "verify": false}],
        "defaults": {"size": 400, "errorCorrection": "Q", "style": "rounded",
                     "finderStyle": "rounded", "verify": true}
    });
    vec![
        (
            "BatchSettings",
            object()
                .properties(batch_settings())
                .dependent_required("gradient", &["color2"])
                .describe("Rendered as GET /api/generate renders: colours must contrast enough to scan (400 names the colour). The types below are the canonical ones; a value of another JSON type is read as its JSON text and checked as such (size: \"400\" reads as 400, frameText: 5 as \"5\", null as \"null\")")
                .into(),
        ),
        (
            "BatchItem",
            object()
                .properties(batch_item())
                .describe(
                    "data, or type with its fields (the fields of GET /api/generate); not both",
                )
                .into(),
        ),
        (
            "BatchRequest",
            object()
                .required(&["items"])
                .property(
                    "items",
                    array(Schema::AnyOf(vec![reference("BatchItem").into(), Schema::Any]))
                        .min_items(1)
                        .max_items(MAX_BATCH_ITEMS)
                        .describe(
                            "At most 100 items on Pro, 1,000 on Enterprise (or its override). Each item is judged alone: one that is not a valid BatchItem, whatever it is, fails alone and is listed in errors.json inside the archive",
                        ),
                )
                .property("defaults", reference("BatchSettings"))
                .example(example)
                .into(),
        ),
    ]
}
