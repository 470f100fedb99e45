//! Storage benchmarks (scan write throughput, analytics scaling); filled in by the qr-domain/qr-sqlite work.
use criterion::{Criterion, criterion_group, criterion_main};

fn storage(_c: &mut Criterion) {}

criterion_group!(benches, storage);
criterion_main!(benches);
