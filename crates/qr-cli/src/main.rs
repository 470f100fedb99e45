//! The `qr` command: generate QR codes, and run and administer the service.

fn main() {}
