//! Renders one styled-rendering case a given number of times, for instruction counts under callgrind (the machine's timings are too noisy to compare small changes).
//!
//! `render_once CASE FORMAT COUNT` renders the case of `qr_benches::style_cases` (plain,
//! rounded, dots, connected, rounded_gradient, rounded_frame) in FORMAT (png, svg, pdf, eps)
//! COUNT times and prints the output's size. The cost of one render is the difference of the
//! counts of two runs divided by the difference of their COUNTs, which cancels the start-up.
//! With `RENDER_ONCE_OUT=PATH` in the environment, the last image is also written to PATH (to
//! look at what was measured).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [case, format, count] = args.as_slice() else {
        eprintln!("usage: render_once CASE FORMAT COUNT");
        return ExitCode::from(2);
    };
    let Some((_, options)) = qr_benches::style_cases()
        .into_iter()
        .find(|(name, _)| name == case)
    else {
        eprintln!("unknown case {case}");
        return ExitCode::from(2);
    };
    let Ok(format) = format.parse::<qr_core::Format>() else {
        eprintln!("unknown format {format}");
        return ExitCode::from(2);
    };
    let Ok(count) = count.parse::<u32>() else {
        eprintln!("COUNT must be a whole number");
        return ExitCode::from(2);
    };
    let options = options.with_format(format);
    let mut last = Vec::new();
    for _ in 0..count {
        match qr_core::render(std::hint::black_box(qr_benches::URL), &options) {
            Ok(image) => last = image,
            Err(error) => {
                eprintln!("{error}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(path) = std::env::var_os("RENDER_ONCE_OUT")
        && let Err(error) = std::fs::write(&path, &last)
    {
        eprintln!("{}: {error}", path.to_string_lossy());
        return ExitCode::FAILURE;
    }
    println!("{}", last.len());
    ExitCode::SUCCESS
}
