//! Runnable examples live beside this file; run one with `cargo run -p qr-examples --example NAME`.
