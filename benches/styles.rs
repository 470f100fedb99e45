//! Styled rendering and the print formats of qr-core, at the reference URL: plain against styled PNG and SVG, and PDF and EPS.
//!
//! The peers (segno for PDF and EPS, qr-code-styling for styled PNG and SVG) run in Python and
//! node: `benches/render/run.sh` runs this benchmark and theirs in one go. Before the groups run,
//! the output sizes go to stderr.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group};
use qr_core::{
    Color, FinderStyle, Format, Frame, FrameStyle, FrameText, Gradient, GradientKind, ModuleStyle,
    RenderOptions, render,
};

const URL: &str = "https://qr.example.com/r/7K3M9QXZ";

/// The cases: a name and the options (300 px, level M).
fn cases() -> Vec<(&'static str, RenderOptions)> {
    let colour = |hex| Color::parse_hex(hex).expect("valid colour");
    let gradient = RenderOptions::default()
        .with_style(ModuleStyle::Rounded)
        .with_color(colour("1a237e"))
        .with_gradient(Gradient::new(GradientKind::Linear, colour("6a1b9a")));
    let framed = RenderOptions::default()
        .with_style(ModuleStyle::Rounded)
        .with_finder_style(FinderStyle::Rounded)
        .with_frame(
            Frame::new(FrameStyle::BannerBottom)
                .with_text(FrameText::new("SCAN ME").expect("valid")),
        );
    vec![
        ("plain", RenderOptions::default()),
        (
            "rounded",
            RenderOptions::default().with_style(ModuleStyle::Rounded),
        ),
        (
            "dots",
            RenderOptions::default().with_style(ModuleStyle::Dots),
        ),
        (
            "connected",
            RenderOptions::default().with_style(ModuleStyle::Connected),
        ),
        ("rounded_gradient", gradient),
        ("rounded_frame", framed),
    ]
}

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
