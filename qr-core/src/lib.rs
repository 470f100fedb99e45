//! QR code encoding and rendering: exact, fast, and with no I/O.
//!
//! Data becomes a [`QrCode`] (the module matrix, in the smallest version, with the mask of lowest
//! penalty), and a `QrCode` becomes an image of an exact pixel size: a PNG, an SVG document, or
//! text for a terminal. Everything is a pure function from bytes and options to bytes: no files,
//! no network, no threads, no `unsafe`, and no panic on any input — every refusal is a typed
//! error whose message says what to change.
//!
//! ```
//! # #[cfg(all(feature = "png", feature = "svg"))] {
//! use qr_core::{EcLevel, Format, QrCode, RenderOptions, Size, render};
//!
//! // An image: a 300-pixel PNG, black on white, level M, a four-module margin.
//! let png = render("https://qr.example.com/r/7K3M9QXZ", &RenderOptions::default())?;
//! assert!(png.starts_with(b"\x89PNG"));
//!
//! // An SVG document of exactly 512 pixels.
//! let options = RenderOptions::default()
//!     .with_format(Format::Svg)
//!     .with_size(Size::new(512)?);
//! let svg = render("https://qr.example.com/r/7K3M9QXZ", &options)?;
//! assert!(svg.starts_with(b"<svg"));
//!
//! // Or the module matrix, to draw it yourself.
//! let code = QrCode::encode_text("https://qr.example.com/r/7K3M9QXZ", EcLevel::M)?;
//! assert_eq!(code.version().number(), 3);
//! assert!(code.is_dark(0, 0)); // The top-left finder pattern.
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Limits
//!
//! Data may be anything that fits a version 40 symbol at the level asked for: 7,089 digits,
//! 4,296 alphanumeric characters or 2,953 bytes at level L ([`EncodeError::DataTooLong`] names
//! the capacity otherwise). An image needs at least one pixel per module, quiet zone included
//! ([`RenderError::SizeTooSmall`] names the smallest size), and is at most [`Size::MAX`] pixels
//! wide, which bounds its memory. Services that want tighter rules (the QR platform allows 50 to
//! 2,000 pixels and 2,953 characters) check them before calling this crate.
//!
//! # Cargo features
//!
//! All are on by default; turn them off to compile less.
//!
//! | Feature | What it adds | Dependencies |
//! |---|---|---|
//! | `png` | PNG output, with its own scanline deflate | `crc32fast` |
//! | `svg` | SVG output | none |
//! | `logo` | [`Logo`]: PNG and JPEG logos in the centre of images | `tiny-skia`, `zune-jpeg`, `zune-core`, `base64` |
//! | `style` | [`ModuleStyle`], [`FinderStyle`], finder colours, [`Gradient`], outline SVG | none |
//! | `frame` | [`Frame`]s with a text from a compiled-in font | `ttf-parser` |
//! | `pdf` | [`Format::Pdf`]: vector PDF of a [`PrintSize`] | none |
//! | `eps` | [`Format::Eps`]: Encapsulated PostScript | none |
//! | `kanji` | `EncodeOptions::kanji`: Kanji mode for Shift JIS text | `encoding_rs` |
//!
//! With `default-features = false` the crate encodes codes and draws them as terminal text
//! ([`render_terminal`]) with no dependency but `thiserror`. [`Format`] keeps all its variants
//! and every option type exists in every build: rendering a format or option whose feature is
//! off is refused with [`RenderError::FormatNotEnabled`] or [`RenderError::FeatureNotEnabled`],
//! so enabling a feature never changes what compiles.
//!
//! # Beyond plain codes
//!
//! [`content`] builds the payloads phones act on (Wi-Fi, vCard, MeCard, geo, e-mail, SMS,
//! telephone, calendar events, SEPA transfers), each validated. [`EncodeOptions::with_eci`] marks
//! UTF-8 data with ECI 26, Kanji mode packs Shift JIS text in 13 bits a character,
//! [`MicroQrCode`] makes Micro QR symbols M1 to M4, and [`QrCode::encode_structured`] splits a
//! message over up to 16 symbols.
//!
//! # The pipeline
//!
//! One module per stage: segmentation into the modes that give the shortest bit stream, the data
//! codewords, Reed-Solomon error correction, module placement and the mask choice (scored by the
//! ISO/IEC 18004 penalty), then the writers for PNG, SVG and terminal text.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod bit_writer;
mod bits;
mod canvas;
mod capacity;
pub mod content;
#[cfg(any(feature = "png", feature = "pdf"))]
mod deflate;
mod ec;
mod eci;
mod encode;
mod error;
mod grid;
mod kanji;
mod micro;
mod options;
mod penalty;
mod render;
mod runs;
mod segment;
mod structured;
mod version;

pub use capacity::Capacity;
pub use eci::Eci;
pub use encode::{EncodeOptions, QrCode};
#[cfg(feature = "logo")]
pub use error::LogoError;
pub use error::{EncodeError, RenderError};
pub use micro::{MicroMask, MicroOptions, MicroQrCode, MicroVersion};
#[cfg(feature = "logo")]
pub use options::LogoSize;
pub use options::{
    Color, Dpi, FinderStyle, Format, Frame, FrameStyle, FrameText, Gradient, GradientAngle,
    GradientKind, Margin, ModuleStyle, OptionError, PrintSize, Size, SvgMode,
};
#[cfg(feature = "logo")]
pub use render::Logo;
#[cfg(any(feature = "png", feature = "svg"))]
pub use render::render_micro;
#[cfg(all(feature = "pdf", feature = "frame"))]
pub use render::{CropMarks, SheetError, SheetGrid, SheetLabel, render_sheet};
#[cfg(any(feature = "png", feature = "svg", feature = "pdf", feature = "eps"))]
pub use render::{Placement, placement};
pub use render::{RenderOptions, encode, render, render_code, render_terminal};
pub use segment::{Mode, Segment};
pub use structured::StructuredAppend;
pub use version::{EcLevel, Mask, Version};

/// The examples of `README.md`, compiled and run as doctests so that they stay true.
#[cfg(all(
    doctest,
    feature = "png",
    feature = "svg",
    feature = "logo",
    feature = "frame",
    feature = "pdf"
))]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
