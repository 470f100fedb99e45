//! `qr analytics`: a link's scan report as a table with a per-day bar chart, the API's JSON, or CSV of the recent scans; `qr analytics export` (in `analytics_export.rs`) writes every scan.

use std::io::Write;

use clap::{Args, Subcommand, ValueEnum};
use qr_domain::scans::analytics::AnalyticsError;
use qr_domain::{AnalyticsQuery, AnalyticsReport};

use crate::analytics_export::ScanExportArgs;
use crate::db::{self, Create, DbArgs};
use crate::output::{self, Table};

/// `qr analytics`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct AnalyticsArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(subcommand)]
    command: Option<AnalyticsCommand>,
    /// The link's id.
    #[arg(required = true)]
    link_id: Option<String>,
    #[command(flatten)]
    range: RangeArgs,
    /// How many recent scans to list (and to export as CSV), 1 to 1000.
    #[arg(long, value_name = "N", default_value = "100")]
    limit: String,
    /// Output format: a readable table with a per-day bar chart, the API's JSON, or CSV of the
    /// recent scans for spreadsheets.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    format: ReportFormat,
    /// The same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
}

/// The link and the range of `qr analytics` and `qr analytics export`.
#[derive(Debug, Args)]
pub struct RangeArgs {
    /// Look for the link only in this account (by default every account is searched).
    #[arg(long, value_parser = db::parse_email)]
    pub email: Option<String>,
    /// Only scans from this date: YYYY-MM-DD (from midnight UTC) or an ISO 8601 date-time.
    /// Default: the link's creation day, or the start of the plan's retention if later.
    #[arg(long, value_name = "DATE")]
    pub start: Option<String>,
    /// Only scans until this date: YYYY-MM-DD (through the end of that day, UTC) or an ISO 8601
    /// date-time. Default: now.
    #[arg(long, value_name = "DATE")]
    pub end: Option<String>,
}

/// `qr analytics` subcommands.
#[derive(Debug, Subcommand)]
enum AnalyticsCommand {
    /// Writes every scan of a link in the range (within the plan's retention) as CSV or NDJSON,
    /// as GET /api/analytics/export does.
    Export(ScanExportArgs),
}

/// How the report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    /// Summary tables and a bar chart of scans per day.
    Table,
    /// `{link, analytics, recentScans}` exactly as `GET /api/analytics` returns it.
    Json,
    /// One line per recent scan: id, timestamp, country, city, device, browser, os, referrer.
    Csv,
}

/// The widest bar of the per-day chart, in characters.
const BAR_WIDTH: usize = 40;

/// Runs `qr analytics`.
pub fn run(args: AnalyticsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    if let Some(AnalyticsCommand::Export(export)) = args.command {
        return crate::analytics_export::run(&service, export, out);
    }
    let link_id = args.link_id.unwrap_or_default();
    let (account, link) = db::find_link(&service, args.range.email.as_deref(), &link_id)?;
    let query = AnalyticsQuery::parse(
        args.range.start.as_deref(),
        args.range.end.as_deref(),
        Some(&args.limit),
    )
    .map_err(|e| crate::error::usage(e.to_string()))?;
    let report = service
        .analytics(&account, link.id, &query)
        .map_err(|e| match e {
            AnalyticsError::Store(s) => anyhow::Error::new(s),
            AnalyticsError::LinkNotFound => anyhow::Error::new(e),
        })?;
    let format = if args.json {
        ReportFormat::Json
    } else {
        args.format
    };
    match format {
        ReportFormat::Json => output::write_json(out, &report),
        ReportFormat::Csv => write_csv(&report, out),
        ReportFormat::Table => write_table(&report, out),
    }
}

fn write_csv(report: &AnalyticsReport, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let result = (|| {
        // The export's columns without the campaign ones (variant, rule).
        w.write_record(&qr_export::SCAN_COLUMNS[..8])?;
        for s in &report.recent_scans {
            w.write_record([
                s.id.to_string(),
                output::time(s.timestamp),
                s.country.clone(),
                s.city.clone(),
                s.device.to_string(),
                s.browser.clone(),
                s.os.clone(),
                s.referrer.clone().unwrap_or_default(),
            ])?;
        }
        w.flush()?;
        Ok::<_, csv::Error>(())
    })();
    result.map_err(csv_error)
}

/// Unwraps I/O errors from the CSV writer so a closed pipe is still recognised.
pub fn csv_error(e: csv::Error) -> anyhow::Error {
    if !e.is_io_error() {
        return e.into();
    }
    match e.into_kind() {
        csv::ErrorKind::Io(io) => io.into(),
        other => anyhow::anyhow!("CSV error: {other:?}"),
    }
}

fn write_table(report: &AnalyticsReport, out: &mut dyn Write) -> anyhow::Result<()> {
    let link = &report.link;
    let a = &report.analytics;
    output::write_fields(
        out,
        &[
            ("link", format!("{} ({})", link.name, link.id)),
            ("short code", link.short_code.to_string()),
            ("target URL", link.target_url.clone()),
            ("all-time scans", link.scan_count.to_string()),
            ("scans in range", a.total_scans.to_string()),
            ("unique scans", a.unique_scans.to_string()),
        ],
    )?;

    writeln!(out, "\nScans by day")?;
    let max = a.scans_by_day.iter().map(|d| d.scans).max().unwrap_or(0);
    let count_width = max.to_string().len();
    for day in &a.scans_by_day {
        writeln!(
            out,
            "{}  {:>count_width$}  {}",
            day.date,
            day.scans,
            bar(day.scans, max, BAR_WIDTH)
        )?;
    }
    if a.scans_by_day.is_empty() {
        writeln!(out, "(no days in range)")?;
    }

    let sections: [(&str, Vec<(String, u64)>); 3] = [
        (
            "COUNTRY",
            a.scans_by_country
                .iter()
                .map(|c| (c.country.clone(), c.scans))
                .collect(),
        ),
        (
            "DEVICE",
            a.scans_by_device
                .iter()
                .map(|c| (c.device.clone(), c.scans))
                .collect(),
        ),
        (
            "BROWSER",
            a.scans_by_browser
                .iter()
                .map(|c| (c.browser.clone(), c.scans))
                .collect(),
        ),
    ];
    for (title, rows) in sections {
        writeln!(out)?;
        let mut t = Table::new(&[title, "SCANS"]);
        for (name, scans) in rows {
            t.row(vec![name, scans.to_string()]);
        }
        t.write(out)?;
    }

    writeln!(out, "\nRecent scans")?;
    let mut t = Table::new(&[
        "TIME", "COUNTRY", "CITY", "DEVICE", "BROWSER", "OS", "REFERRER",
    ]);
    for s in &report.recent_scans {
        t.row(vec![
            output::time(s.timestamp),
            s.country.clone(),
            s.city.clone(),
            s.device.to_string(),
            s.browser.clone(),
            s.os.clone(),
            s.referrer.clone().unwrap_or_else(|| "-".to_owned()),
        ]);
    }
    Ok(t.write(out)?)
}

/// A horizontal bar `value / max` of `width` characters, in eighths of a character.
fn bar(value: u64, max: u64, width: usize) -> String {
    const PARTS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    if max == 0 || value == 0 {
        return String::new();
    }
    let eighths = (u128::from(value) * (width as u128) * 8).div_ceil(u128::from(max));
    let eighths = usize::try_from(eighths).unwrap_or(width * 8).max(1);
    let mut s = "█".repeat(eighths / 8);
    if eighths % 8 > 0 {
        s.push(PARTS[eighths % 8]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::bar;

    #[test]
    fn bars_scale_to_the_largest_value() {
        assert_eq!(bar(0, 10, 4), "");
        assert_eq!(bar(10, 10, 4), "████");
        assert_eq!(bar(5, 10, 4), "██");
        assert_eq!(bar(1, 16, 4), "▎");
        assert_eq!(bar(1, 1000, 4), "▏");
    }
}
