//! Encoding and rendering benchmarks of qr-core against peer crates.
use criterion::{Criterion, criterion_group, criterion_main};

fn encode(_c: &mut Criterion) {}

criterion_group!(benches, encode);
criterion_main!(benches);
