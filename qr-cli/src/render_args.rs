//! The render flags `qr generate` and `qr batch` share: size, format, colours and error correction, as the API's raw values.

use clap::Args;

/// `--size`, `--format`, `--color`, `--background` and `--ec`, flattened into both commands.
///
/// Values stay strings: qr-generate checks them exactly as the API does, with its messages. The
/// help below is `qr generate`'s; `qr batch`, where they are defaults for the items, words them
/// as defaults ([`BatchArgs`](crate::batch::BatchArgs)).
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Image width and height in pixels, 50 to 2000 [default: 300].
    #[arg(long, value_name = "PIXELS")]
    pub size: Option<String>,
    /// Image format, png or svg [default: from the -o extension, else png].
    #[arg(long, value_name = "png|svg")]
    pub format: Option<String>,
    /// Colour of the dark modules, hex RRGGBB, RGB or RRGGBBAA without `#` [default: 000000].
    #[arg(long, value_name = "HEX")]
    pub color: Option<String>,
    /// Colour of the light modules and the quiet zone, hex without `#` [default: ffffff].
    #[arg(long, value_name = "HEX")]
    pub background: Option<String>,
    /// Error correction level: L (7%), M (15%), Q (25%) or H (30%) [default: M; H with a logo].
    #[arg(long, alias = "error-correction", value_name = "L|M|Q|H")]
    pub ec: Option<String>,
}
