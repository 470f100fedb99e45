//! Styled rendering and the print formats of qr-core, at the reference URL: plain against styled PNG and SVG, and PDF and EPS.
//!
//! The peers (segno for PDF and EPS, qr-code-styling for styled PNG and SVG) run in Python and
//! node: `benches/render/run.sh` runs this benchmark and theirs in one go. Before the groups run,
//! the output sizes go to stderr.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group};
use qr_benches::{URL, style_cases as cases};
use qr_core::{Format, render};

fn bench(c: &mut Criterion) {
    eprintln!(
        "{:<18} {:>6} {:>6} {:>6} {:>6}",
        "bytes", "png", "svg", "pdf", "eps"
    );
    for (name, options) in cases() {
        let sizes: Vec<usize> = [Format::Png, Format::Svg, Format::Pdf, Format::Eps]
            .iter()
            .map(|&f| {
                render(URL, &options.clone().with_format(f))
                    .expect("renders")
                    .len()
            })
            .collect();
        eprintln!(
            "{name:<18} {:>6} {:>6} {:>6} {:>6}",
            sizes[0], sizes[1], sizes[2], sizes[3]
        );
    }
    for format in [Format::Png, Format::Svg, Format::Pdf, Format::Eps] {
        let mut group = c.benchmark_group(format.extension());
        for (name, options) in cases() {
            let options = options.with_format(format);
            group.bench_function(name, |b| {
                b.iter(|| render(black_box(URL), &options).expect("renders"))
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = styles;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench
}

fn main() {
    styles();
    Criterion::default().configure_from_args().final_summary();
}
