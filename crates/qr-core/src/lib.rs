//! QR code encoding and rendering.
