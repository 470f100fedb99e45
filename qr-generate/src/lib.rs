//! Generation as the service offers it: request parameters with the API's bounds and messages, and the batch pipeline with its ZIP layout.
//!
//! The HTTP server (`GET /api/generate`, `POST /api/batch`) and the CLI (`qr generate`, `qr
//! batch`) both call this crate, so they accept the same values, report the same messages and
//! write the same archives. It sits between the adapters and `qr-core`: the core renders any code
//! it can (any data a version 40 symbol holds, up to 8,192 px); the service's rules (sizes 50 to
//! 2,000 px, margins 0 to 10, logos 5 to 30 %, at most 2,953 characters, in [`bounds`]) and the
//! wording of every refusal live here.
#![forbid(unsafe_code)]

pub mod batch;
pub mod bounds;
mod code;
pub mod content;
mod error;
pub mod file_names;
pub mod parameters;
pub mod params;
pub mod print;
pub mod scan;
pub mod structured;
pub mod symbol;

pub use batch::{
    BatchArchive, BatchDefaults, BatchError, BatchItem, BatchRequest, ERRORS_FILE, build_archive,
    code_settings,
};
pub use bounds::{BoundsError, MAX_DATA_CHARS};
pub use parameters::{PARAMETERS, Parameter};
pub use params::{
    Code, GenerateError, GenerateParams, ImageError, InvalidValue, ParameterError, PayloadError,
    render,
};
pub use symbol::Symbol;
