//! The render flags `qr generate` and `qr batch` share: size, format, colours, error correction, styles, frame, print size, resolution and verification, as the API's raw values.

use clap::Args;

/// The render flags, flattened into both commands; each is the API parameter of the same name.
///
/// Values stay strings: qr-generate checks them exactly as the API does, with its messages.
/// Every flag is global, so it may also follow a content subcommand (`qr generate wifi --ssid
/// x -o wifi.png`). The
/// help below is `qr generate`'s; `qr batch`, where they are defaults for the items, words them
/// as defaults ([`BatchArgs`](crate::batch::BatchArgs)).
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Image width and height in pixels, 50 to 2000 [default: 300].
    #[arg(long, value_name = "PIXELS", global = true)]
    pub size: Option<String>,
    /// Image format, png, svg, pdf or eps [default: from the -o extension, else png].
    #[arg(long, value_name = "png|svg|pdf|eps", global = true)]
    pub format: Option<String>,
    /// Colour of the dark modules, hex RRGGBB, RGB or RRGGBBAA without `#` [default: 000000].
    #[arg(long, value_name = "HEX", global = true)]
    pub color: Option<String>,
    /// Colour of the light modules and the quiet zone, hex without `#` [default: ffffff].
    #[arg(long, value_name = "HEX", global = true)]
    pub background: Option<String>,
    /// Error correction level: L (7%), M (15%), Q (25%) or H (30%) [default: M; H with a logo].
    #[arg(
        long,
        alias = "error-correction",
        value_name = "L|M|Q|H",
        global = true
    )]
    pub ec: Option<String>,
    /// Module shape: square, dots, rounded, extra-rounded, classy, classy-rounded or connected
    /// [default: square].
    #[arg(long, value_name = "STYLE", global = true)]
    pub style: Option<String>,
    /// Finder pattern shape: square, rounded or circle [default: square].
    #[arg(long, value_name = "STYLE", global = true)]
    pub finder_style: Option<String>,
    /// Colour of the finder patterns, hex without `#` [default: the modules' colour].
    #[arg(long, value_name = "HEX", global = true)]
    pub finder_color: Option<String>,
    /// A gradient over the dark modules from --color to --color2: linear or radial.
    #[arg(long, value_name = "linear|radial", requires = "color2", global = true)]
    pub gradient: Option<String>,
    /// The gradient's end colour, hex without `#`.
    #[arg(long, value_name = "HEX", global = true)]
    pub color2: Option<String>,
    /// A linear gradient's direction in degrees, 0 (left to right) to 359 [default: 0].
    #[arg(long, value_name = "DEGREES", global = true)]
    pub gradient_angle: Option<String>,
    /// A frame around the code: none, box, banner-bottom or banner-top [default: none].
    #[arg(long, value_name = "FRAME", global = true)]
    pub frame: Option<String>,
    /// The frame's text, at most 32 characters (printable ASCII and Latin-1).
    #[arg(long, value_name = "TEXT", global = true)]
    pub frame_text: Option<String>,
    /// The frame's colour, hex without `#` [default: --color].
    #[arg(long, value_name = "HEX", global = true)]
    pub frame_color: Option<String>,
    /// SVG drawing: compact, or outline for cutters and plotters (filled outlines only)
    /// [default: compact].
    #[arg(long, value_name = "compact|outline", global = true)]
    pub svg_mode: Option<String>,
    /// PDF and EPS width and height in millimetres, 10 to 1000 [default: 50].
    #[arg(long, value_name = "MM", global = true)]
    pub print_size: Option<String>,
    /// Resolution, 72 to 2400: the PNG's pHYs chunk, a logo's resolution in PDF and EPS.
    #[arg(long, value_name = "DPI", global = true)]
    pub dpi: Option<String>,
    /// Decode the finished image before writing it, and fail if it does not scan back.
    #[arg(long, global = true)]
    pub verify: bool,
    /// Symbol kind: qr, or micro for a Micro QR code (M1 to M4: at most 35 digits, 21 letters
    /// or 15 bytes; plain PNG or SVG with a 2-module quiet zone) [default: qr].
    #[arg(long, value_name = "qr|micro", global = true)]
    pub symbol: Option<String>,
}

impl RenderArgs {
    /// The flags as API parameters (`data`, `margin` and `logoSize` left unset).
    pub fn params(&self) -> qr_generate::GenerateParams {
        qr_generate::GenerateParams {
            size: self.size.clone(),
            format: self.format.clone(),
            color: self.color.clone(),
            background: self.background.clone(),
            error_correction: self.ec.clone(),
            style: self.style.clone(),
            finder_style: self.finder_style.clone(),
            finder_color: self.finder_color.clone(),
            gradient: self.gradient.clone(),
            color2: self.color2.clone(),
            gradient_angle: self.gradient_angle.clone(),
            frame: self.frame.clone(),
            frame_text: self.frame_text.clone(),
            frame_color: self.frame_color.clone(),
            svg_mode: self.svg_mode.clone(),
            print_size: self.print_size.clone(),
            dpi: self.dpi.clone(),
            verify: self.verify.then(|| "true".to_owned()),
            symbol: self.symbol.clone(),
            ..qr_generate::GenerateParams::default()
        }
    }
}
