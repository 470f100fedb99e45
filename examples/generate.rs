//! Encodes a URL and writes it as PNG and SVG, then prints the code in the terminal.
//!
//! Run with `cargo run -p qr-examples --example generate -- [TEXT] [OUTPUT_DIR]`.

use std::path::PathBuf;

use qr_core::{EcLevel, Format, Margin, QrCode, RenderOptions, render, render_terminal};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let text = args
        .next()
        .unwrap_or_else(|| "https://qr.example.com/r/7K3M9QXZ".to_owned());
    let directory = PathBuf::from(args.next().unwrap_or_else(|| ".".to_owned()));

    // The module matrix and its parameters, for embedders that draw codes themselves.
    let code = QrCode::encode_text(&text, EcLevel::M)?;
    println!(
        "version {}, level {}, mask {}, {} modules per side",
        code.version(),
        code.ec_level(),
        code.mask(),
        code.size()
    );
    print!("{}", render_terminal(&code, Margin::new(2), false));

    // Images with the service's defaults: 300 px, black on white, margin 4.
    for format in [Format::Png, Format::Svg] {
        let options = RenderOptions::default().with_format(format);
        let bytes = render(&text, &options)?;
        let path = directory.join(format!("qr.{}", format.extension()));
        std::fs::write(&path, &bytes)?;
        println!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    Ok(())
}
