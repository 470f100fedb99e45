//! Fuzzes encoding and rendering with arbitrary data and options: no panic, and every image decodes.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use qr_core::{Color, EcLevel, Format, Margin, QrCode, RenderOptions, Size, render_code};

#[derive(Arbitrary, Debug)]
struct Input {
    data: Vec<u8>,
    level: u8,
    margin: u8,
    svg: bool,
    extra_pixels: u16,
    color: [u8; 4],
    background: [u8; 4],
    mask: Option<u8>,
}

fuzz_target!(|input: Input| {
    let level = EcLevel::ALL[usize::from(input.level % 4)];
    let mut options = qr_core::EncodeOptions::new(level);
    if let Some(mask) = input.mask.and_then(qr_core::Mask::new) {
        options = options.with_mask(mask);
    }
    let Ok(code) = QrCode::encode_with(&input.data, &options) else {
        // Too long is the only refusal: anything up to the byte capacity must encode.
        assert!(input.data.len() > 2953 || level != EcLevel::L);
        return;
    };
    let margin = input.margin % 11;
    let modules = code.size() as u32 + 2 * u32::from(margin);
    let size = (2 * modules + u32::from(input.extra_pixels % 512)).clamp(50, 2000);
    let Ok(size) = Size::new(size) else { return };
    let render_options = RenderOptions::default()
        .with_size(size)
        .with_format(if input.svg { Format::Svg } else { Format::Png })
        .with_color(Color {
            r: input.color[0],
            g: input.color[1],
            b: input.color[2],
            a: input.color[3],
        })
        .with_background(Color {
            r: input.background[0],
            g: input.background[1],
            b: input.background[2],
            a: input.background[3],
        })
        .with_margin(Margin::new(margin));
    let image = render_code(&code, &render_options);
    if 2 * modules > 2000 {
        // Fewer than two pixels per module: rendering may work or refuse, but must not panic.
        return;
    }
    let image = image.expect("a size of two pixels per module always renders");
    if input.svg {
        assert!(image.starts_with(b"<svg") && image.ends_with(b"</svg>"));
        return;
    }
    // Decode black-on-white renderings of the same code and compare the content.
    let plain = RenderOptions::default()
        .with_size(size)
        .with_margin(Margin::new(margin.max(2)));
    let Ok(png_bytes) = render_code(&code, &plain) else { return };
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("our PNG has a valid header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("bounded")];
    let info = reader.next_frame(&mut pixels).expect("our PNG decodes");
    let (width, height) = (info.width as usize, info.height as usize);
    let stride = info.line_size;
    let mut prepared = rqrr::PreparedImage::prepare_from_greyscale(width, height, |x, y| {
        let bit = (pixels[y * stride + x / 8] >> (7 - x % 8)) & 1;
        if bit == 1 { 255 } else { 0 }
    });
    let grids = prepared.detect_grids();
    let mut content = Vec::new();
    let grid = grids.first().expect("the code is found");
    grid.decode_to(&mut content).expect("the code decodes");
    assert_eq!(content, input.data);
});
