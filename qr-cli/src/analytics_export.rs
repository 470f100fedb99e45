//! `qr analytics export`: every scan of a link in a range, within the plan's retention, as CSV
//! or NDJSON, through the domain operation and the encoder of `GET /api/analytics/export`,
//! written a page at a time.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::Args;
use qr_domain::AnalyticsQuery;
use qr_domain::scans::analytics::AnalyticsError;
use qr_export::ScanFormat;

use crate::analytics::RangeArgs;
use crate::db::{self, AdminService};
use crate::error::usage;
use crate::output;

/// `qr analytics export`.
#[derive(Debug, Args)]
pub struct ScanExportArgs {
    /// The link's id.
    #[arg(long = "link", value_name = "ID")]
    link_id: String,
    #[command(flatten)]
    range: RangeArgs,
    /// csv: a header line, then id,timestamp,country,city,device,browser,os,referrer,variant,rule
    /// per scan; ndjson: one JSON object per scan with those members.
    #[arg(long, value_name = "csv|ndjson", default_value = "csv", value_parser = parse_format)]
    format: ScanFormat,
    /// The file to write, replaced only once complete (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    out: Option<PathBuf>,
}

fn parse_format(raw: &str) -> Result<ScanFormat, String> {
    raw.parse()
        .map_err(|e: qr_export::UnknownFormat| e.to_string())
}

/// Runs `qr analytics export` on `service`; prints to `out` unless `--out` names a file, then
/// says on stderr how many scans it wrote.
pub fn run(
    service: &AdminService,
    args: ScanExportArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (account, link) = db::find_link(service, args.range.email.as_deref(), &args.link_id)?;
    let query = AnalyticsQuery::parse(args.range.start.as_deref(), args.range.end.as_deref(), None)
        .map_err(|e| usage(e.to_string()))?;
    let mut export = service
        .begin_scan_export(&account, link.id, &query)
        .map_err(|e| match e {
            AnalyticsError::Store(s) => anyhow::Error::new(s),
            AnalyticsError::LinkNotFound => anyhow::Error::new(e),
        })?;
    let format = args.format;
    let mut write = |w: &mut dyn Write| -> anyhow::Result<u64> {
        let mut w = BufWriter::with_capacity(256 * 1024, w);
        w.write_all(format.head().as_bytes())?;
        let (mut count, mut text) = (0u64, String::new());
        loop {
            let page = service.scan_export_page(&mut export)?;
            if page.is_empty() {
                break;
            }
            text.clear();
            format.write_page(&page, &mut text);
            w.write_all(text.as_bytes())?;
            count += page.len() as u64;
        }
        w.flush()?;
        Ok(count)
    };
    match &args.out {
        None => {
            write(out)?;
        }
        Some(path) => {
            let (count, bytes) =
                output::write_atomically(path, ".qr-scans.", |mut file| write(&mut file))?;
            eprintln!(
                "qr: wrote {count} scans of link {} ({bytes} bytes) to {}",
                link.id,
                path.display()
            );
        }
    }
    Ok(())
}
