//! `qr batch`: many codes from CSV or JSON Lines into one ZIP, laid out as the API's batch archive.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use qr_generate::batch::{self, BatchDefaults, BatchError, BatchItem, BatchRequest};
use qr_generate::params::PARAMETER_NAMES;

use crate::error::{self, usage};
use crate::render_args::RenderArgs;

/// `qr batch`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Input:
  CSV with a header row naming the columns data, filename and any of the API's generate
  parameters (size, format, color, background, errorCorrection, margin, style, finderStyle,
  gradient, frame, frameText, printSize, verify, ...; only data is required; other columns are
  ignored with a note; an empty cell takes the default), or JSON Lines with one object per line
  with the same fields as the API's batch items. Blank lines are skipped.

Output:
  The archive of POST /api/batch: the images in input order, named after filename or
  qr-001.png, qr-002.svg, ...; when some items fail, errors.json lists them as
  {\"errors\": [{\"index\", \"data\", \"error\"}]} with index counted from 0 in input order.
  Items render on every core. A progress bar is drawn when standard error is a terminal, and a
  one-line summary (made, failed, time) is printed on standard error.

Exit status: 0 when every item was made, 1 when some failed (the archive is still written).")]
// The render flags are shared with `qr generate`; here they are the items' defaults.
#[command(
    mut_arg("size", |a| a.help("Default image size in pixels, 50 to 2000 [default: 300]")),
    mut_arg("format", |a| a.help("Default image format, png, svg, pdf or eps [default: png]")),
    mut_arg("style", |a| a.help("Default module shape (see qr generate --help) [default: square]")),
    mut_arg("verify", |a| a.help("Decode every image before adding it; items that do not scan fail")),
    mut_arg("color", |a| {
        a.help("Default colour of the dark modules, hex without `#` [default: 000000]")
    }),
    mut_arg("background", |a| {
        a.help("Default colour of the light modules, hex without `#` [default: ffffff]")
    }),
    mut_arg("ec", |a| a.help("Default error correction level, L, M, Q or H [default: M]")),
)]
pub struct BatchArgs {
    /// The CSV or JSON Lines file (`-` reads standard input).
    input: PathBuf,
    /// Where to write the ZIP archive (`-` for standard output).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// The input's format [default: from the extension (.csv; .jsonl, .ndjson, .json), else
    /// JSON Lines when the first non-blank character is `{`, else CSV].
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
    #[command(flatten)]
    render: RenderArgs,
}

/// The format of the input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// CSV column spellings beyond the API names (matched case-insensitively) and the field each fills.
const ALIASES: &[(&str, &str)] = &[
    ("file", "filename"),
    ("colour", "color"),
    ("error_correction", "errorCorrection"),
    ("error-correction", "errorCorrection"),
    ("ec", "errorCorrection"),
];

/// The item field a CSV header names: `filename`, an API parameter name, or an alias.
fn column_field(header: &str) -> Option<&'static str> {
    let name = header.trim();
    std::iter::once("filename")
        .chain(PARAMETER_NAMES)
        .find(|field| field.eq_ignore_ascii_case(name))
        .or_else(|| {
            ALIASES
                .iter()
                .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
                .map(|(_, field)| *field)
        })
}

/// Runs `qr batch`.
pub fn run(args: BatchArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let to_stdout = args.output == Path::new("-");
    if to_stdout && std::io::stdout().is_terminal() {
        return Err(usage(
            "refusing to write a ZIP archive to the terminal: use -o FILE or redirect standard output",
        ));
    }
    let input = read_input(&args.input)?;
    let format = args
        .input_format
        .unwrap_or_else(|| detect(&args.input, &input));
    let items = match format {
        InputFormat::Csv => parse_csv(&input)?,
        InputFormat::Jsonl => parse_jsonl(&input)?,
    };
    if items.is_empty() {
        anyhow::bail!("{} has no items", display(&args.input));
    }
    let defaults: BatchDefaults = args.render.params();
    let request = BatchRequest { items, defaults };
    request.validate(u32::MAX).map_err(|e| match e {
        BatchError::InvalidDefault { error: inner, .. } => {
            usage(format!("invalid default: {}", error::with_sources(&inner)))
        }
        other => anyhow::Error::new(other),
    })?;

    let started = Instant::now();
    let bar = progress_bar(request.items.len(), "codes");
    let outcome = batch::render_items_with(&request, |_| bar.inc(1));
    bar.finish_and_clear();
    let zip = batch::write_zip(&outcome)?;
    if to_stdout {
        out.write_all(&zip)?;
        out.flush()?;
    } else {
        std::fs::write(&args.output, &zip)
            .with_context(|| format!("cannot write {}", args.output.display()))?;
    }
    let made = outcome.files.len();
    let failed = outcome.errors.len();
    let destination = if to_stdout {
        "standard output".to_owned()
    } else {
        args.output.display().to_string()
    };
    let details = if failed > 0 {
        format!("; see {} in the archive", batch::ERRORS_FILE)
    } else {
        String::new()
    };
    eprintln!(
        "qr: made {made}, failed {failed}, in {:.2} s, wrote {destination}{details}",
        started.elapsed().as_secs_f64()
    );
    if failed > 0 {
        anyhow::bail!(
            "{failed} of {} items failed (the first: item {}, {})",
            request.items.len(),
            outcome.errors[0].index,
            outcome.errors[0].error
        );
    }
    Ok(())
}

pub(crate) fn display(path: &Path) -> String {
    if path == Path::new("-") {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    }
}

pub(crate) fn read_input(path: &Path) -> anyhow::Result<String> {
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
        bytes
    } else {
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{} is not UTF-8 text", display(path)))?;
    // A byte-order mark, as spreadsheet programs write it, is not part of the first column's name.
    Ok(text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned())
}

pub(crate) fn detect(path: &Path, text: &str) -> InputFormat {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("csv") => InputFormat::Csv,
        Some(e)
            if ["jsonl", "ndjson", "json"]
                .iter()
                .any(|j| e.eq_ignore_ascii_case(j)) =>
        {
            InputFormat::Jsonl
        }
        _ if text.trim_start().starts_with('{') => InputFormat::Jsonl,
        _ => InputFormat::Csv,
    }
}

/// A CSV input's header row and its rows that are not blank (a row shorter than the header
/// leaves the missing cells empty).
pub(crate) fn read_csv(text: &str) -> anyhow::Result<(Vec<String>, Vec<csv::StringRecord>)> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .context("cannot read the CSV header row")?
        .iter()
        .map(str::to_owned)
        .collect();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.context("cannot read the CSV input")?;
        if !record.iter().all(|cell| cell.trim().is_empty()) {
            rows.push(record);
        }
    }
    Ok((headers, rows))
}

/// Notes on standard error the columns no field takes (`fields` by column).
pub(crate) fn note_ignored<F>(headers: &[String], fields: &[Option<F>]) {
    let ignored: Vec<&str> = headers
        .iter()
        .zip(fields)
        .filter(|(_, f)| f.is_none())
        .map(|(h, _)| h.as_str())
        .collect();
    if !ignored.is_empty() {
        eprintln!(
            "qr: note: ignoring the CSV column(s) {}",
            ignored.join(", ")
        );
    }
}

/// Reads CSV rows into items.
pub(crate) fn parse_csv(text: &str) -> anyhow::Result<Vec<BatchItem>> {
    let (headers, rows) = read_csv(text)?;
    let fields: Vec<Option<&str>> = headers.iter().map(|h| column_field(h)).collect();
    if !fields.contains(&Some("data")) {
        return Err(usage(format!(
            "the CSV header row has no data column (it has: {}); the columns are filename and the API's parameter names ({})",
            headers.join(", "),
            PARAMETER_NAMES.join(", ")
        )));
    }
    note_ignored(&headers, &fields);
    let mut items = Vec::new();
    for record in rows {
        let mut item = BatchItem::default();
        for (field, cell) in fields.iter().zip(record.iter()) {
            let (Some(field), false) = (field, cell.is_empty()) else {
                continue;
            };
            let slot = match *field {
                "filename" => Some(&mut item.filename),
                name => item.params.slot(name),
            };
            if let Some(slot) = slot {
                *slot = Some(cell.to_owned());
            }
        }
        items.push(item);
    }
    Ok(items)
}

/// Reads JSON Lines into items with the API's own batch parser, so values are read exactly as in
/// a `POST /api/batch` body.
pub(crate) fn parse_jsonl(text: &str) -> anyhow::Result<Vec<BatchItem>> {
    let mut body = String::from("{\"items\":[");
    let mut first = true;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        serde_json::from_str::<serde_json::Value>(line)
            .with_context(|| format!("line {} is not valid JSON", number + 1))?;
        if !first {
            body.push(',');
        }
        first = false;
        body.push_str(line);
    }
    body.push_str("]}");
    Ok(BatchRequest::from_json(body.as_bytes())?.items)
}

/// A progress bar on standard error when it is a terminal, otherwise a hidden one; `unit`
/// names what is counted (`codes`, `links`).
pub(crate) fn progress_bar(len: usize, unit: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit} ({{eta}} left)");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_columns_map_to_item_fields() {
        let items = parse_csv(
            "Data,filename,size,notes,ErrorCorrection\nhello,a,400,x,H\n,,,,\nworld,,,,\nshort\n",
        )
        .unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0].params.data.as_deref(), Some("hello"));
        assert_eq!(items[0].filename.as_deref(), Some("a"));
        assert_eq!(items[0].params.size.as_deref(), Some("400"));
        assert_eq!(items[0].params.error_correction.as_deref(), Some("H"));
        assert_eq!(items[1].params.size, None);
        assert_eq!(items[2].params.data.as_deref(), Some("short"));
        let styled = parse_csv("data,Style,finderstyle\nx,dots,circle\n").unwrap();
        assert_eq!(styled[0].params.style.as_deref(), Some("dots"));
        assert_eq!(styled[0].params.finder_style.as_deref(), Some("circle"));
        assert!(parse_csv("text\nhello\n").is_err());
    }

    #[test]
    fn json_lines_are_read_like_the_api_body() {
        let items =
            parse_jsonl("{\"data\":\"a\",\"size\":400}\n\n{\"data\":\"b\",\"format\":null}\n")
                .unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].params.size.as_deref(), Some("400"));
        // null is no value of any setting: kept as text, it fails the item with "Invalid format".
        assert_eq!(items[1].params.format.as_deref(), Some("null"));
        let err = parse_jsonl("{\"data\":\"a\"}\n{oops\n").unwrap_err();
        assert!(
            format!("{err:#}").starts_with("line 2 is not valid JSON"),
            "{err:#}"
        );
    }

    #[test]
    fn formats_are_detected() {
        assert_eq!(detect(Path::new("a.CSV"), "{"), InputFormat::Csv);
        assert_eq!(detect(Path::new("a.ndjson"), "data"), InputFormat::Jsonl);
        assert_eq!(detect(Path::new("-"), "  {\"data\":1}"), InputFormat::Jsonl);
        assert_eq!(detect(Path::new("-"), "data\nx"), InputFormat::Csv);
    }
}
