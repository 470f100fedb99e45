//! The speed ratios of styled rendering, paired: every case in every format timed in turn, round after round, each ratio taken within a round and its median reported.
//!
//! A shared machine's speed drifts by 20 % between runs seconds apart, enough to turn a 1.9
//! into a 2.2 when the two figures of a ratio come from separate criterion groups. Here a round
//! times a batch of each (case, format) back to back, so both sides of a ratio see the same
//! machine, and the median over the rounds drops the rounds a neighbour disturbed.
//!
//! `render_ratio [ROUNDS] [BATCH]` (default 41 rounds of 100 renders) prints, per case, the
//! median microseconds of each format and the ratios the issue sets: PNG ÷ plain PNG (at most
//! 3), SVG ÷ plain SVG (2), PDF ÷ SVG and EPS ÷ SVG (2).

use std::hint::black_box;
use std::time::Instant;

use qr_core::{Format, render};

const FORMATS: [Format; 4] = [Format::Png, Format::Svg, Format::Pdf, Format::Eps];

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let rounds = args.next().and_then(Result::ok).unwrap_or(41);
    let batch = args.next().and_then(Result::ok).unwrap_or(100).max(1);
    let cases = qr_benches::style_cases();
    // samples[case][format][round], microseconds per render.
    let mut samples = vec![[(); 4].map(|()| Vec::with_capacity(rounds)); cases.len()];
    for _ in 0..rounds {
        for (case, (_, options)) in cases.iter().enumerate() {
            for (f, &format) in FORMATS.iter().enumerate() {
                let options = options.clone().with_format(format);
                let start = Instant::now();
                for _ in 0..batch {
                    black_box(render(black_box(qr_benches::URL), &options).expect("renders"));
                }
                let micros = start.elapsed().as_secs_f64() * 1e6 / batch as f64;
                samples[case][f].push(micros);
            }
        }
    }
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    // Ratios within each round, then their median.
    let ratio = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y).collect());
    println!(
        "{:<18} {:>9} {:>9} {:>9} {:>9}   {:>9} {:>9} {:>8} {:>8}",
        "case (µs)", "png", "svg", "pdf", "eps", "png÷plain", "svg÷plain", "pdf÷svg", "eps÷svg"
    );
    for (case, (name, _)) in cases.iter().enumerate() {
        let s = &samples[case];
        println!(
            "{:<18} {:>9.1} {:>9.1} {:>9.1} {:>9.1}   {:>9.2} {:>9.2} {:>8.2} {:>8.2}",
            name,
            median(s[0].clone()),
            median(s[1].clone()),
            median(s[2].clone()),
            median(s[3].clone()),
            ratio(&s[0], &samples[0][0]),
            ratio(&s[1], &samples[0][1]),
            ratio(&s[2], &s[1]),
            ratio(&s[3], &s[1]),
        );
    }
}
