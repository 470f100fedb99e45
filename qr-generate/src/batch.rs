//! Batch generation: the request and its items, validation, file names, parallel rendering and the ZIP archive.
//!
//! Shared by `POST /api/batch` and `qr batch`: the server parses a JSON body
//! with [`BatchRequest::from_json`], the CLI builds [`BatchItem`]s from CSV or
//! JSON Lines; both call [`BatchRequest::validate`] with the plan's item limit
//! and then [`build_archive`]. Nothing here does I/O apart from producing the
//! archive's bytes in memory. A failing item never fails the batch: it is
//! listed in `errors.json` inside the archive.

use std::collections::HashSet;
use std::io::{Cursor, Write};

use qr_core::Format;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use thiserror::Error;
use zip::CompressionMethod;
use zip::write::{SimpleFileOptions, ZipWriter};

use crate::code::Code;
use crate::file_names::{sanitize_stem, unique_name};
use crate::params::{self, GenerateError, GenerateParams, PARAMETER_NAMES};

/// The name of the error list inside the archive.
pub const ERRORS_FILE: &str = "errors.json";

/// A batch: the items and the settings they share.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchRequest {
    /// The items, in order; an item's index is its position here.
    pub items: Vec<BatchItem>,
    /// Settings for items that do not give their own.
    pub defaults: BatchDefaults,
}

/// One code of a batch: its file name and its parameters, raw strings as for [`GenerateParams`]
/// (`params.data` is the content; unset settings take the defaults).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchItem {
    /// `filename`: the file name inside the archive; generated when absent.
    pub filename: Option<String>,
    /// Every other field, by its API name.
    pub params: GenerateParams,
}

/// The `defaults` object: settings applied to every item that does not set them (its `data`
/// is never used).
pub type BatchDefaults = GenerateParams;

/// Why a batch request as a whole was refused (HTTP 400); `Display` is the API's message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BatchError {
    /// The body is not JSON.
    #[error("Invalid JSON body: {0}")]
    InvalidJson(String),
    /// The body is JSON but not an object.
    #[error("Request body must be a JSON object with an items array")]
    NotAnObject,
    /// `items` is missing, not an array, or empty.
    #[error("items array required")]
    ItemsRequired,
    /// More items than the plan allows.
    #[error("Maximum {0} items allowed")]
    TooManyItems(u32),
    /// `defaults` is not an object.
    #[error("Invalid defaults: it must be an object")]
    DefaultsNotObject,
    /// A setting in `defaults` is invalid.
    #[error("Invalid defaults.{field}")]
    InvalidDefault {
        /// The setting's name, as in the API.
        field: &'static str,
        /// What was wrong with it.
        #[source]
        error: GenerateError,
    },
    /// The `qrcodes` object of a bulk link request is not an object.
    #[error("Invalid qrcodes: it must be an object")]
    QrcodesNotObject,
    /// A setting in `qrcodes` is invalid.
    #[error("Invalid qrcodes.{field}")]
    InvalidQrcodes {
        /// The setting's name, as in the API.
        field: &'static str,
        /// What was wrong with it.
        #[source]
        error: GenerateError,
    },
    /// Writing the archive failed (in memory, so this signals a bug).
    #[error("Writing the archive failed: {0}")]
    Archive(String),
}

/// A rendered item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchFile {
    /// The item's index in the request.
    pub index: usize,
    /// The file name inside the archive.
    pub name: String,
    /// The image format.
    pub format: Format,
    /// The image.
    pub bytes: Vec<u8>,
}

/// A failed item, as listed in `errors.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemError {
    /// The item's index in the request.
    pub index: usize,
    /// The item's data (empty when it had none).
    pub data: String,
    /// Why it failed: the same message `GET /api/generate` gives.
    pub error: String,
}

/// The rendered items and the failures, each in item order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    /// Items that rendered.
    pub files: Vec<BatchFile>,
    /// Items that failed.
    pub errors: Vec<ItemError>,
}

/// A finished archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchArchive {
    /// The ZIP file.
    pub zip: Vec<u8>,
    /// How many items rendered.
    pub succeeded: usize,
    /// The failed items (also in `errors.json` inside the archive when not empty).
    pub errors: Vec<ItemError>,
}

impl BatchRequest {
    /// Parses a JSON body `{"items": [...], "defaults": {...}}`.
    ///
    /// Values may be strings or numbers; any other type is kept as its JSON text so that the
    /// item fails with the parameter's message (`Invalid size`, ...) instead of failing the
    /// whole batch. An item that is not an object counts as an item without data. Unknown
    /// fields are ignored.
    pub fn from_json(body: &[u8]) -> Result<Self, BatchError> {
        let value: Value =
            serde_json::from_slice(body).map_err(|e| BatchError::InvalidJson(e.to_string()))?;
        let Value::Object(mut object) = value else {
            return Err(BatchError::NotAnObject);
        };
        let Some(Value::Array(items)) = object.remove("items") else {
            return Err(BatchError::ItemsRequired);
        };
        let defaults = match object.remove("defaults") {
            None => BatchDefaults::default(),
            Some(Value::Object(d)) => settings(&d),
            Some(_) => return Err(BatchError::DefaultsNotObject),
        };
        let items = items
            .iter()
            .map(|item| match item {
                Value::Object(i) => {
                    let mut params = settings(i);
                    // A null data is no data, and a null file name asks for a generated one.
                    params.data = text(i.get("data").filter(|v| !v.is_null()));
                    BatchItem {
                        filename: text(i.get("filename").filter(|v| !v.is_null())),
                        params,
                    }
                }
                _ => BatchItem::default(),
            })
            .collect();
        Ok(Self { items, defaults })
    }

    /// Checks the request as a whole: at least one item, at most `max_items`, valid defaults.
    pub fn validate(&self, max_items: u32) -> Result<(), BatchError> {
        if self.items.is_empty() {
            return Err(BatchError::ItemsRequired);
        }
        if self.items.len() > max_items as usize {
            return Err(BatchError::TooManyItems(max_items));
        }
        check_settings(&self.defaults)
            .map_err(|(field, error)| BatchError::InvalidDefault { field, error })
    }

    /// The codes of a bulk link request: one item per `(file stem, data)`, with `settings`
    /// (the request's `qrcodes`, read by [`code_settings`]) as the defaults.
    pub fn of_codes(
        codes: impl IntoIterator<Item = (String, String)>,
        settings: BatchDefaults,
    ) -> Self {
        let items = codes
            .into_iter()
            .map(|(stem, data)| BatchItem {
                filename: Some(stem),
                params: GenerateParams {
                    data: Some(data),
                    ..GenerateParams::default()
                },
            })
            .collect();
        Self {
            items,
            defaults: settings,
        }
    }

    /// The parameters of item `index` with the defaults filled in.
    pub fn params(&self, index: usize) -> Option<GenerateParams> {
        let item = self.items.get(index)?;
        let mut params = item.params.clone();
        for name in PARAMETER_NAMES.iter().filter(|&&n| n != "data") {
            if let (Some(slot), Some(default)) = (params.slot(name), self.defaults.get(name))
                && slot.is_none()
            {
                *slot = Some(default.to_owned());
            }
        }
        Some(params)
    }

    /// The archive file name of every item, in order (failed items keep theirs unused, so a
    /// name never depends on which other items fail).
    pub fn file_names(&self) -> Vec<String> {
        let mut taken = HashSet::new();
        (0..self.items.len())
            .map(|i| {
                let format = self.format_of(i);
                let stem = self.items[i]
                    .filename
                    .as_deref()
                    .and_then(sanitize_stem)
                    .unwrap_or_else(|| format!("qr-{:03}", i + 1));
                unique_name(&stem, format, &mut taken)
            })
            .collect()
    }

    /// The format item `index` will have (PNG when its format is invalid, for naming only).
    fn format_of(&self, index: usize) -> Format {
        self.params(index)
            .and_then(|p| p.format)
            .and_then(|f| f.parse().ok())
            .unwrap_or_default()
    }
}

/// The settings of a bulk link request's `qrcodes` object: every generate parameter (as a
/// batch item's, `data` and `filename` ignored), checked as batch defaults are.
pub fn code_settings(value: &Value) -> Result<BatchDefaults, BatchError> {
    let Value::Object(object) = value else {
        return Err(BatchError::QrcodesNotObject);
    };
    let mut params = settings(object);
    params.data = None;
    check_code_settings(params)
}

/// Checks code settings given as parameters (the CLI's flags) as [`code_settings`] checks a
/// `qrcodes` object.
pub fn check_code_settings(settings: BatchDefaults) -> Result<BatchDefaults, BatchError> {
    check_settings(&settings)
        .map_err(|(field, error)| BatchError::InvalidQrcodes { field, error })?;
    Ok(settings)
}

/// Checks shared settings by parsing them with a one-character payload; the failing
/// parameter's name and error.
fn check_settings(settings: &GenerateParams) -> Result<(), (&'static str, GenerateError)> {
    let probe = GenerateParams {
        data: Some("x".to_owned()),
        ..settings.clone()
    };
    match probe.parse() {
        Ok(_) => Ok(()),
        Err(error) => Err((error.parameter(), error)),
    }
}

/// Renders every item in parallel on all cores.
pub fn render_items(request: &BatchRequest) -> BatchOutcome {
    render_items_with(request, |_| {})
}

/// Renders every item in parallel; `on_done(index)` runs (on a worker thread) after each item.
pub fn render_items_with(request: &BatchRequest, on_done: impl Fn(usize) + Sync) -> BatchOutcome {
    let names = request.file_names();
    let results: Vec<Result<BatchFile, ItemError>> = (0..request.items.len())
        .into_par_iter()
        .map(|index| {
            let result = render_one(request, index, &names[index]);
            on_done(index);
            result
        })
        .collect();
    outcome_of(results)
}

/// Renders codes made elsewhere (a link's code in its design), in parallel: item `i` is
/// named `<stem>.<its format's extension>` (made unique as batch names are), or fails with
/// its message (`data` is the code's content).
pub fn render_codes(items: Vec<(String, Result<Code, String>)>) -> BatchOutcome {
    let mut taken = HashSet::new();
    let named: Vec<_> = items
        .into_iter()
        .map(|(stem, code)| {
            let stem = sanitize_stem(&stem).unwrap_or_else(|| "qr".to_owned());
            let format = code.as_ref().map(Code::format).unwrap_or_default();
            (unique_name(&stem, format, &mut taken), code)
        })
        .collect();
    let results: Vec<Result<BatchFile, ItemError>> = named
        .into_par_iter()
        .enumerate()
        .map(|(index, (name, code))| {
            let code = code.map_err(|error| ItemError {
                index,
                data: String::new(),
                error,
            })?;
            let bytes = params::render(&code).map_err(|e| ItemError {
                index,
                data: code.data().to_owned(),
                error: e.to_string(),
            })?;
            Ok(BatchFile {
                index,
                name,
                format: code.format(),
                bytes,
            })
        })
        .collect();
    outcome_of(results)
}

/// The rendered files and the failures of `results` (in item order).
fn outcome_of(results: Vec<Result<BatchFile, ItemError>>) -> BatchOutcome {
    let mut outcome = BatchOutcome::default();
    for result in results {
        match result {
            Ok(file) => outcome.files.push(file),
            Err(error) => outcome.errors.push(error),
        }
    }
    outcome
}

/// Writes the archive: the images in item order, then `errors.json` when some items failed.
///
/// PNG files are stored (they are compressed already), SVG files and `errors.json` deflated.
pub fn write_zip(outcome: &BatchOutcome) -> Result<Vec<u8>, BatchError> {
    write_zip_with(outcome, &[], false)
}

/// [`write_zip`], then `extra` files (name, bytes; deflated) after the images, and
/// `errors.json` even when empty if `always_errors`.
pub fn write_zip_with(
    outcome: &BatchOutcome,
    extra: &[(&str, &[u8])],
    always_errors: bool,
) -> Result<Vec<u8>, BatchError> {
    let archive = |e: zip::result::ZipError| BatchError::Archive(e.to_string());
    let io = |e: std::io::Error| BatchError::Archive(e.to_string());
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for file in &outcome.files {
        // PNG data is deflated already; SVG (and any later text format) is worth deflating.
        let options = match file.format {
            Format::Png => stored,
            _ => deflated,
        };
        zip.start_file(file.name.as_str(), options)
            .map_err(archive)?;
        zip.write_all(&file.bytes).map_err(io)?;
    }
    for (name, bytes) in extra {
        zip.start_file(*name, deflated).map_err(archive)?;
        zip.write_all(bytes).map_err(io)?;
    }
    if always_errors || !outcome.errors.is_empty() {
        #[derive(Serialize)]
        struct Errors<'a> {
            errors: &'a [ItemError],
        }
        let json = serde_json::to_vec_pretty(&Errors {
            errors: &outcome.errors,
        })
        .map_err(|e| BatchError::Archive(e.to_string()))?;
        zip.start_file(ERRORS_FILE, deflated).map_err(archive)?;
        zip.write_all(&json).map_err(io)?;
    }
    Ok(zip.finish().map_err(archive)?.into_inner())
}

/// Renders all items and writes the archive.
pub fn build_archive(request: &BatchRequest) -> Result<BatchArchive, BatchError> {
    let outcome = render_items(request);
    let zip = write_zip(&outcome)?;
    Ok(BatchArchive {
        zip,
        succeeded: outcome.files.len(),
        errors: outcome.errors,
    })
}

fn render_one(request: &BatchRequest, index: usize, name: &str) -> Result<BatchFile, ItemError> {
    let failure = |error: GenerateError| ItemError {
        index,
        data: request.items[index].params.data.clone().unwrap_or_default(),
        error: error.to_string(),
    };
    let params = request.params(index).unwrap_or_default();
    let code = params.parse().map_err(failure)?;
    let bytes = params::render(&code).map_err(failure)?;
    Ok(BatchFile {
        index,
        name: name.to_owned(),
        format: code.format(),
        bytes,
    })
}

/// The generate parameters of a JSON object, by their API names, with `type` and the content
/// fields (other fields ignored).
fn settings(object: &serde_json::Map<String, Value>) -> GenerateParams {
    let mut params = GenerateParams::default();
    for name in PARAMETER_NAMES.into_iter().chain(["type"]) {
        if let Some(slot) = params.slot(name) {
            *slot = text(object.get(name));
        }
    }
    for name in crate::content::field_names() {
        if let Some(value) = text(object.get(name)) {
            params.content.insert(name.to_owned(), value);
        }
    }
    params
}

/// A JSON value as a raw parameter string: strings as they are, whole numbers without a
/// fraction, anything else (`null` included: no setting is nullable) as its JSON text, which then
/// fails validation with the setting's message.
fn text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
            _ => n.to_string(),
        }),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn request(json: &str) -> BatchRequest {
        BatchRequest::from_json(json.as_bytes()).unwrap()
    }

    #[test]
    fn request_errors() {
        let err = |json: &str| {
            BatchRequest::from_json(json.as_bytes())
                .unwrap_err()
                .to_string()
        };
        assert!(err("{").starts_with("Invalid JSON body: "));
        assert_eq!(
            err("[]"),
            "Request body must be a JSON object with an items array"
        );
        assert_eq!(err("{}"), "items array required");
        assert_eq!(err(r#"{"items":"x"}"#), "items array required");
        assert_eq!(
            err(r#"{"items":[],"defaults":3}"#),
            "Invalid defaults: it must be an object"
        );
        let empty = request(r#"{"items":[]}"#);
        assert_eq!(
            empty.validate(100).unwrap_err().to_string(),
            "items array required"
        );
        let three = request(r#"{"items":[{"data":"a"},{"data":"b"},{"data":"c"}]}"#);
        assert_eq!(
            three.validate(2).unwrap_err().to_string(),
            "Maximum 2 items allowed"
        );
        assert_eq!(three.validate(3), Ok(()));
        let bad = request(r#"{"items":[{"data":"a"}],"defaults":{"size":10}}"#);
        assert_eq!(
            bad.validate(3).unwrap_err().to_string(),
            "Invalid defaults.size"
        );
    }

    #[test]
    fn values_are_lenient_and_items_override_defaults() {
        let r = request(
            r#"{"items":[{"data":"a","size":400.0,"format":"svg"},{"data":7,"size":true},"x"],
                "defaults":{"size":"200","errorCorrection":"H","color":"f00"}}"#,
        );
        let p0 = r.params(0).unwrap();
        assert_eq!(p0.size.as_deref(), Some("400"));
        assert_eq!(p0.format.as_deref(), Some("svg"));
        assert_eq!(p0.error_correction.as_deref(), Some("H"));
        assert_eq!(p0.color.as_deref(), Some("f00"));
        let p1 = r.params(1).unwrap();
        assert_eq!(p1.data.as_deref(), Some("7"));
        let styled = request(
            r#"{"items":[{"data":"a","style":"dots"},{"data":"b"}],"defaults":{"style":"rounded","frame":"box","verify":true}}"#,
        );
        assert_eq!(styled.params(0).unwrap().style.as_deref(), Some("dots"));
        assert_eq!(styled.params(1).unwrap().style.as_deref(), Some("rounded"));
        assert_eq!(styled.params(1).unwrap().verify.as_deref(), Some("true"));
        assert_eq!(p1.size.as_deref(), Some("true"));
        assert_eq!(r.params(2).unwrap().data, None);
    }

    #[test]
    fn null_is_no_setting() {
        let r = request(
            r#"{"items":[
                {"data":"a","size":null},
                {"data":null},
                {"data":"c","filename":null}
            ]}"#,
        );
        let archive = build_archive(&r).unwrap();
        let messages: Vec<(usize, &str)> = archive
            .errors
            .iter()
            .map(|e| (e.index, e.error.as_str()))
            .collect();
        assert_eq!(
            messages,
            vec![(0, "Invalid size"), (1, "data parameter required")]
        );
        assert_eq!(archive.succeeded, 1);
        assert!(matches!(
            BatchRequest::from_json(br#"{"items":[{"data":"a"}],"defaults":null}"#),
            Err(BatchError::DefaultsNotObject)
        ));
        let defaults =
            BatchRequest::from_json(br#"{"items":[{"data":"a"}],"defaults":{"format":null}}"#)
                .unwrap();
        assert_eq!(
            defaults.validate(10).unwrap_err().to_string(),
            "Invalid defaults.format"
        );
    }

    #[test]
    fn file_names_are_safe_and_unique() {
        let r = request(
            r#"{"items":[
                {"data":"1","filename":"menu"},
                {"data":"2","filename":"MENU.png"},
                {"data":"3"},
                {"data":"4","format":"svg"},
                {"data":"5","filename":"menu","format":"svg"},
                {"data":"6","filename":"qr-003"},
                {"data":"7","filename":"a/b"}
            ]}"#,
        );
        assert_eq!(
            r.file_names(),
            [
                "menu.png",
                "MENU-2.png",
                "qr-003.png",
                "qr-004.svg",
                "menu.svg",
                "qr-003-2.png",
                "a_b.png"
            ]
        );
    }

    #[test]
    fn failures_go_to_errors_json() {
        let r = request(
            r#"{"items":[{"data":"ok","filename":"good"},{"size":"5"},{"data":"x","size":"10"},{"data":"y","format":"svg"}]}"#,
        );
        let archive = build_archive(&r).unwrap();
        assert_eq!(archive.succeeded, 2);
        let mut zip = zip::ZipArchive::new(Cursor::new(archive.zip)).unwrap();
        let names: Vec<String> = zip.file_names().map(|n| n.unwrap().into_owned()).collect();
        assert_eq!(names.len(), 3);
        assert!(names.contains(&"good.png".to_owned()));
        assert!(names.contains(&"qr-004.svg".to_owned()));
        let mut json = String::new();
        zip.by_name(ERRORS_FILE)
            .unwrap()
            .read_to_string(&mut json)
            .unwrap();
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"errors":[
                {"index":1,"data":"","error":"data parameter required"},
                {"index":2,"data":"x","error":"Invalid size"}
            ]})
        );
    }

    #[test]
    fn no_errors_file_when_all_succeed() {
        let r = request(r#"{"items":[{"data":"a"},{"data":"b"}]}"#);
        let done = std::sync::atomic::AtomicUsize::new(0);
        let outcome = render_items_with(&r, |_| {
            done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(done.into_inner(), 2);
        let zip = write_zip(&outcome).unwrap();
        let archive = zip::ZipArchive::new(Cursor::new(zip)).unwrap();
        assert_eq!(archive.len(), 2);
        assert!(archive.index_for_name(ERRORS_FILE).is_none());
    }
}
