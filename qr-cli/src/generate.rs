//! `qr generate`: one code from an argument or standard input, to a file, standard output or the terminal.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;
use qr_core::{Format, Logo, QrCode, RenderError};
use qr_generate::Symbol;
use qr_generate::params::{self as generate, GenerateError, GenerateParams};
use qr_generate::structured::Split;
use qr_generate::{ImageError, ParameterError};

use crate::content_args::ContentCommand;
use crate::error::usage;
use crate::render_args::{RenderArgs, help};

/// `qr generate`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Where the code goes:
  -o FILE     the image, in the format of FILE's extension (.png, .svg, .pdf or .eps) unless
              --format is given
  -o -        the image on standard output
  no -o       drawn as text when standard output is a terminal, otherwise the image bytes on
              standard output (so `qr generate hi > hi.png` works)

Data comes from DATA, or from standard input when DATA is `-` or absent and standard input is
not a terminal; one trailing line break of standard input is dropped, so `echo hi | qr generate`
encodes `hi`. Or a content subcommand builds it from fields, as GET /api/generate?type=... does:
  qr generate wifi --ssid Home --password 'correct horse' --encryption WPA -o wifi.png
  qr generate vcard --first-name Jane --last-name Doe --phone '+1 555 0100' -o jane.svg
  qr generate epc --name 'Red Cross' --iban 'DE89 3704 0044 0532 0130 00' --amount 10
(`qr generate TYPE --help` lists a type's fields; to encode a type's name as text, pipe it in.)
Values are checked as the API checks them, with the API's messages.

Structured append (--structured N|auto) splits the data over up to 16 codes that readers
join: `-o out.png` writes out-1.png ... out-N.png (the position before the extension; the
paths are printed, one a line). auto uses as few codes of at most version 10 (57 modules) as
hold the data; N the smallest codes that hold it in at most N.")]
pub struct GenerateArgs {
    /// `data`, with the help of `qr_generate::PARAMETERS`.
    #[arg(help = help("data"))]
    data: Option<String>,
    /// A content type whose fields build the data instead of DATA.
    #[command(subcommand)]
    content: Option<ContentCommand>,
    /// Write the image to FILE (`-` for standard output).
    #[arg(short, long, value_name = "FILE", global = true)]
    output: Option<PathBuf>,
    /// Split the data over several codes (structured append): auto, or at most N codes, 1 to
    /// 16; needs -o FILE.
    #[arg(long, value_name = "N|auto", global = true, value_parser = parse_split)]
    structured: Option<Split>,
    #[command(flatten)]
    render: RenderArgs,
    /// `margin`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "MODULES", global = true, help = help("margin"))]
    margin: Option<String>,
    /// `logo`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "FILE", global = true, help = help("logo"))]
    logo: Option<PathBuf>,
    /// `logoSize`, with the help of `qr_generate::PARAMETERS`.
    #[arg(long, value_name = "PERCENT", global = true, help = help("logoSize"))]
    logo_size: Option<String>,
    /// Draw the code as text even when standard output is not a terminal.
    #[arg(long, short = 't', conflicts_with = "output", global = true)]
    terminal: bool,
    /// In text without colours, draw the light modules as blocks (for dark terminals).
    ///
    /// Colours (black on white) are used when standard output is a terminal and NO_COLOR is not
    /// set; then this option changes nothing.
    #[arg(long, global = true)]
    invert: bool,
}

fn parse_split(text: &str) -> Result<Split, String> {
    text.parse()
}

/// Where the code goes.
enum Target<'a> {
    File(&'a Path),
    Stdout,
    Text { colours: bool },
}

/// Runs `qr generate`.
pub fn run(args: GenerateArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let stdout_tty = std::io::stdout().is_terminal();
    let target = match args.output.as_deref() {
        Some(p) if p == Path::new("-") => Target::Stdout,
        Some(p) => Target::File(p),
        None if args.terminal || stdout_tty => Target::Text {
            colours: stdout_tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        },
        None => Target::Stdout,
    };
    // A content subcommand builds the data from its fields: standard input is not read.
    let data = match &args.content {
        Some(_) => args.data.clone(),
        None => read_data(args.data.as_deref())?,
    };
    // The format: --format, else the output file's extension, else png.
    let format = match (&args.render.format, &target) {
        (Some(f), _) => Some(f.clone()),
        (None, Target::File(path)) => Some(format_of(path)?.to_owned()),
        (None, _) => None,
    };
    let (content_type, content) = match &args.content {
        Some(command) => (
            Some(command.kind.name.to_owned()),
            command
                .fields
                .iter()
                .map(|(name, value)| ((*name).to_owned(), value.clone()))
                .collect(),
        ),
        None => (None, Default::default()),
    };
    let params = GenerateParams {
        data,
        format,
        margin: args.margin,
        logo_size: args.logo_size,
        content_type,
        content,
        ..args.render.params()
    };
    let mut code = params.parse().map_err(generate_error)?;
    let symbol = code.symbol();
    if symbol == Symbol::Micro && args.logo.is_some() {
        return Err(generate_error(qr_generate::symbol::logo_refused()));
    }
    if let Some(path) = &args.logo {
        if matches!(target, Target::Text { .. }) {
            return Err(usage(
                "a logo cannot be drawn as text: write an image with -o FILE or -o -",
            ));
        }
        let bytes = std::fs::read(path)
            .with_context(|| format!("cannot read the logo {}", path.display()))?;
        let logo = Logo::decode(bytes).with_context(|| format!("logo {}", path.display()))?;
        code = code.with_logo(logo).map_err(generate_error)?;
    }
    if let Some(split) = args.structured {
        let Target::File(path) = target else {
            return Err(usage(
                "--structured writes several files: name them with -o FILE (FILE-1, FILE-2, ... before the extension)",
            ));
        };
        if symbol == Symbol::Micro {
            return Err(usage(
                "--structured makes regular QR codes: leave out --symbol micro",
            ));
        }
        let images =
            qr_generate::structured::render_structured(&code, split).map_err(generate_error)?;
        for (index, image) in images.iter().enumerate() {
            let part = numbered(path, index + 1);
            std::fs::write(&part, image)
                .with_context(|| format!("cannot write {}", part.display()))?;
            writeln!(out, "{}", part.display())?;
        }
        out.flush()?;
        return Ok(());
    }
    match target {
        Target::Text { .. } if symbol == Symbol::Micro => Err(usage(
            "a Micro QR code is drawn as an image only: write it with -o FILE or -o -",
        )),
        Target::Text { colours } => {
            let options = code.options();
            let qr = QrCode::encode_with(code.data().as_bytes(), &options.encode_options())
                .map_err(|e| generate_error(RenderError::from(e).into()))?;
            let text = qr_core::render_terminal(&qr, options.margin, args.invert && !colours);
            write_text(&text, colours, out)
        }
        Target::Stdout => {
            if stdout_tty && matches!(code.format(), Format::Png | Format::Pdf) {
                return Err(usage(format!(
                    "refusing to write a {} file to the terminal: redirect standard output, use -o FILE, or leave out -o to draw the code as text",
                    code.format().extension().to_uppercase()
                )));
            }
            let image = generate::render(&code).map_err(generate_error)?;
            out.write_all(&image)?;
            out.flush()?;
            Ok(())
        }
        Target::File(path) => {
            let image = generate::render(&code).map_err(generate_error)?;
            std::fs::write(path, image)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(())
        }
    }
}

/// `path` with `-N` before its extension: `out.png` is `out-1.png` for the first code.
fn numbered(path: &Path, position: usize) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(extension) => format!("{stem}-{position}.{}", extension.to_string_lossy()),
        None => format!("{stem}-{position}"),
    };
    path.with_file_name(name)
}

/// The data: the argument, or standard input when it is `-` or absent and stdin is not a terminal.
fn read_data(arg: Option<&str>) -> anyhow::Result<Option<String>> {
    let from_stdin = match arg {
        Some("-") => true,
        Some(_) => false,
        None => !std::io::stdin().is_terminal(),
    };
    if !from_stdin {
        return Ok(arg.map(str::to_owned));
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .context("cannot read standard input")?;
    let mut text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("standard input is not UTF-8 text"))?;
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    Ok(Some(text))
}

/// The format named by a file's extension.
pub(crate) fn format_of(path: &Path) -> anyhow::Result<&'static str> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    Format::ALL
        .iter()
        .map(|f| f.extension())
        .find(|f| f.eq_ignore_ascii_case(extension))
        .ok_or_else(|| {
            usage(format!(
                "cannot tell the image format from {}: name the file .png, .svg, .pdf or .eps, or pass --format",
                path.display()
            ))
        })
}

/// A generation error: the API's message, then the detail when there is one. Everything the API
/// answers with 400 is a usage error here; an encoder failure is a plain failure.
pub fn generate_error(e: GenerateError) -> anyhow::Error {
    let message = crate::error::with_sources(&e);
    match e {
        GenerateError::Image(ImageError::Encoding(_) | ImageError::Unreadable(_)) => {
            anyhow::anyhow!(message)
        }
        GenerateError::Parameter(ParameterError::MissingData) => usage(format!(
            "{message}: pass DATA, or pipe the data on standard input"
        )),
        _ => usage(message),
    }
}

/// Writes the text drawing, black on white with ANSI colours when `colours`.
fn write_text(text: &str, colours: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    for line in text.lines() {
        if colours {
            writeln!(out, "\x1b[30;107m{line}\x1b[0m")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(())
}
