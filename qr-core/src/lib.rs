//! QR code encoding and rendering: exact, fast, and with no I/O.
//!
//! The pipeline runs by stage, one module each: [`segment`] splits the data into the modes that
//! give the shortest bit stream, `bits` builds the data codewords, `ec` adds Reed-Solomon error
//! correction, `canvas` places modules and picks the mask (scored by `penalty`), and [`mod@render`]
//! turns the module matrix into PNG, SVG or terminal text at an exact pixel size.
//!
//! ```
//! use qr_core::{EcLevel, QrCode};
//!
//! let code = QrCode::encode_text("https://qr.example.com/r/7K3M9QXZ", EcLevel::M)?;
//! assert_eq!(code.version().number(), 3);
//! assert!(code.is_dark(0, 0)); // The top-left finder pattern.
//! # Ok::<(), qr_core::EncodeError>(())
//! ```
#![forbid(unsafe_code)]

mod bit_writer;
mod bits;
mod canvas;
mod capacity;
mod deflate;
mod ec;
mod encode;
mod error;
mod grid;
mod options;
mod penalty;
pub mod render;
mod runs;
pub mod segment;
mod version;

pub use capacity::Capacity;
pub use encode::{EncodeOptions, QrCode};
pub use error::{EncodeError, LogoError, OptionError, RenderError};
pub use options::{Color, Format, LogoSize, Margin, Size};
pub use render::{Logo, RenderOptions, render, render_code, render_terminal};
pub use version::{EcLevel, Mask, Version};
