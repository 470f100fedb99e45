//! Label sheets against single-code PDFs: the sheet PDF of 100 codes (qr-core's `render_sheet` on Avery L7160, 21 a page, five pages, a caption under each, and without captions) against 100 separate one-code PDFs (`render` with `Format::Pdf`), time and bytes.
//!
//! segno, the PDF peer of `styles.rs`, writes one code per document and has no label sheets, so
//! the comparison is the work a client would do without print: 100 PDFs to place by hand. The
//! bytes of both go to stderr before the groups run.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group};
use qr_core::{
    CropMarks, Format, QrCode, RenderOptions, SheetGrid, SheetLabel, encode, render, render_sheet,
};

/// How many codes.
const CODES: usize = 100;

/// Avery L7160 on A4 (qr-generate's `LabelStock::L7160`): 3 x 7 labels of 63.5 x 38.1 mm.
fn l7160() -> SheetGrid {
    SheetGrid::new(
        (210.0, 297.0),
        (3, 7),
        (63.5, 38.1),
        (7.21, 15.15),
        (66.04, 38.1),
    )
    .expect("L7160 fits A4")
}

/// The short URLs of 100 links.
fn urls() -> Vec<String> {
    (0..CODES)
        .map(|i| format!("https://qr.example.com/r/7K3M{i:04}"))
        .collect()
}

/// The sheet PDF of `urls`, each with its caption of `captions` (empty: none).
fn sheet(urls: &[String], captions: &[String], options: &RenderOptions) -> Vec<u8> {
    let codes: Vec<QrCode> = urls
        .iter()
        .map(|u| encode(u, options).expect("fits"))
        .collect();
    let labels: Vec<SheetLabel<'_>> = codes
        .iter()
        .zip(captions)
        .map(|(code, caption)| SheetLabel {
            code,
            options,
            caption,
        })
        .collect();
    render_sheet(&l7160(), CropMarks::None, &labels).expect("renders")
}

/// 100 one-code PDFs.
fn separate(urls: &[String], options: &RenderOptions) -> Vec<Vec<u8>> {
    let pdf = options.clone().with_format(Format::Pdf);
    urls.iter()
        .map(|u| render(u, &pdf).expect("renders"))
        .collect()
}

fn bench(c: &mut Criterion) {
    let urls = urls();
    let options = RenderOptions::default();
    // Without captions the sheet and the separate PDFs hold the same drawings.
    let uncaptioned = vec![String::new(); CODES];
    let sheet_bytes = sheet(&urls, &urls, &options).len();
    let bare_bytes = sheet(&urls, &uncaptioned, &options).len();
    let separate_bytes: usize = separate(&urls, &options).iter().map(Vec::len).sum();
    eprintln!(
        "bytes: sheet of {CODES} codes {sheet_bytes}, without captions {bare_bytes}, {CODES} separate PDFs {separate_bytes}"
    );
    let mut group = c.benchmark_group("print");
    group.bench_function("sheet_100", |b| {
        b.iter(|| sheet(black_box(&urls), &urls, &options))
    });
    group.bench_function("sheet_100_without_captions", |b| {
        b.iter(|| sheet(black_box(&urls), &uncaptioned, &options))
    });
    group.bench_function("separate_100", |b| {
        b.iter(|| separate(black_box(&urls), &options))
    });
    group.finish();
}

criterion_group! {
    name = print;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = bench
}

fn main() {
    print();
    Criterion::default().configure_from_args().final_summary();
}
