//! The render flags `qr generate` and `qr batch` share: size, format, colours, error correction, styles, frame, print size, resolution and verification, as the API's raw values.

use clap::Args;

/// The help of the API parameter `name`, from qr-generate's table: the flags and the API share
/// one description of each parameter.
pub fn help(name: &str) -> Option<&'static str> {
    qr_generate::parameters::parameter(name).and_then(|p| p.cli_help())
}

/// The render flags, flattened into both commands; each is the API parameter of the same name.
///
/// Values stay strings: qr-generate checks them exactly as the API does, with its messages.
/// Every flag is global, so it may also follow a content subcommand (`qr generate wifi --ssid
/// x -o wifi.png`). The
/// help (qr-generate's table) is `qr generate`'s; `qr batch`, where they are defaults for the items, words them
/// as defaults ([`BatchArgs`](crate::batch::BatchArgs)).
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// `size`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "PIXELS", global = true, help = help("size"))]
    pub size: Option<String>,
    /// `format`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "png|svg|pdf|eps", global = true, help = help("format"))]
    pub format: Option<String>,
    /// `color`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "HEX", global = true, help = help("color"))]
    pub color: Option<String>,
    /// `background`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "HEX", global = true, help = help("background"))]
    pub background: Option<String>,
    /// `errorCorrection`, with the help of `qr_generate::PARAMETERS`.
    #[arg(
        long,
        alias = "error-correction",
        value_name = "L|M|Q|H",
        global = true,
        help = help("errorCorrection")
    )]
    pub ec: Option<String>,
    /// `style`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "STYLE", global = true, help = help("style"))]
    pub style: Option<String>,
    /// `finderStyle`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "STYLE", global = true, help = help("finderStyle"))]
    pub finder_style: Option<String>,
    /// `finderColor`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "HEX", global = true, help = help("finderColor"))]
    pub finder_color: Option<String>,
    /// `gradient`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "linear|radial", requires = "color2", global = true, help = help("gradient"))]
    pub gradient: Option<String>,
    /// `color2`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "HEX", global = true, help = help("color2"))]
    pub color2: Option<String>,
    /// `gradientAngle`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "DEGREES", global = true, help = help("gradientAngle"))]
    pub gradient_angle: Option<String>,
    /// `frame`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "FRAME", global = true, help = help("frame"))]
    pub frame: Option<String>,
    /// `frameText`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "TEXT", global = true, help = help("frameText"))]
    pub frame_text: Option<String>,
    /// `frameColor`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "HEX", global = true, help = help("frameColor"))]
    pub frame_color: Option<String>,
    /// `svgMode`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "compact|outline", global = true, help = help("svgMode"))]
    pub svg_mode: Option<String>,
    /// `printSize`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "MM", global = true, help = help("printSize"))]
    pub print_size: Option<String>,
    /// `dpi`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "DPI", global = true, help = help("dpi"))]
    pub dpi: Option<String>,
    /// `verify`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, global = true, help = help("verify"))]
    pub verify: bool,
    /// `symbol`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "qr|micro", global = true, help = help("symbol"))]
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use qr_generate::parameters::{Cli as Spelling, PARAMETERS};

    use crate::cli::Cli;

    /// `qr generate --help` as a user sees it.
    fn generate_help() -> String {
        let mut command = Cli::command();
        command.build();
        command
            .find_subcommand_mut("generate")
            .expect("qr generate exists")
            .render_long_help()
            .to_string()
    }

    #[test]
    fn every_table_entry_is_in_the_generate_help() {
        let help = generate_help();
        for parameter in PARAMETERS {
            match parameter.cli {
                Spelling::Positional { name, help: text } => {
                    assert!(help.contains(&format!("[{name}]")), "{}", parameter.name);
                    assert!(help.contains(text), "{}: {text}", parameter.name);
                }
                Spelling::Flag { flag, help: text } => {
                    assert!(help.contains(&format!("--{flag}")), "{}", parameter.name);
                    assert!(help.contains(text), "{}: {text}", parameter.name);
                }
                Spelling::Subcommands => {
                    for kind in qr_generate::content::CONTENT_TYPES {
                        assert!(help.contains(&format!("  {} ", kind.name)), "{}", kind.name);
                    }
                }
            }
        }
    }
}
