//! An account's export as a ZIP archive of JSON and CSV files, written as the domain hands the
//! records over (`qr_domain::Service::export_account`), so scans stream through in pages; the
//! HTTP API, the dashboard and `qr export` all write this one layout.
//!
//! ```text
//! README.txt                      what each file holds
//! account.json                    {exportedAt, account, hasPassword, planRequest, retentionDays}
//! keys.json                       {"keys": [...]}      metadata only, never secrets or hashes
//! sessions.json                   {"sessions": [...]}  dashboard logins, never secrets
//! usage.csv                       day,requests         counted API requests per UTC day
//! links.json                      {"links": [...]}     the API's Link objects
//! links.csv                       id,name,shortCode,targetUrl,scanCount,createdAt,updatedAt
//! analytics/<shortCode>/daily.json  retained days, and totals by country, device and browser
//! analytics/<shortCode>/daily.csv   day,scans,uniques
//! analytics/<shortCode>/scans.csv   id,timestamp,country,city,device,browser,os,referrer
//! ```
//!
//! [`bulk`] writes the other archive of links: the codes of a bulk request's new links;
//! [`audit`] the audit log as CSV and JSON.

pub mod audit;
pub mod bulk;
mod download;
mod scans;

pub use download::{DownloadError, MAX_DOWNLOAD_BYTES, zip_bytes};
pub use scans::{SCAN_COLUMNS, ScanFormat, UnknownFormat};

use std::fmt::Write as _;
use std::io::{Seek, Write};

use qr_domain::chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use qr_domain::export::{
    ExportError, ExportHeader, ExportSink, ExportedKey, ExportedSession, LinkAnalytics,
};
use qr_domain::scans::scan::ScanRecord;
use qr_domain::{AccountId, Clock, Link, Service, Store};
use serde::Serialize;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// The media type of the archive.
pub const CONTENT_TYPE: &str = "application/zip";

const README: &str = "\
This archive holds everything the QR code service stores about your account.

account.json     the account: e-mail address, plan, limits, status, role, dates
keys.json        your API keys' names, prefixes, settings and dates (never the secrets)
sessions.json    your dashboard logins: browser, when opened, when last used
usage.csv        API requests counted per UTC day
links.json       your links as the API returns them; links.csv the same as a table
analytics/CODE/  per link: daily.csv and daily.json (scans and unique visitors per day,
                 totals by country, device and browser) and scans.csv (every scan kept
                 under your plan's retention, newest first)

Visitors' IP addresses are never stored; scans hold an approximate location only.
Times are UTC (RFC 3339); CSV cells a spreadsheet would run as a formula start with '.
";

/// Writes `account`'s export as a ZIP archive to `out` and returns `out`.
pub fn write_zip<S: Store, C: Clock, W: Write + Seek>(
    service: &Service<S, C>,
    account: AccountId,
    out: W,
) -> Result<W, ExportError> {
    let mut sink = ZipExport::new(out);
    service.export_account(account, &mut sink)?;
    sink.into_inner()
}

/// The file name offered for a download: `qr-export-YYYY-MM-DD.zip`.
pub fn file_name(now: DateTime<Utc>) -> String {
    format!("qr-export-{}.zip", now.format("%Y-%m-%d"))
}

/// A CSV cell: quoted when it holds a comma, quote or line break, and prefixed with `'` when a
/// spreadsheet would read it as a formula (OWASP's CSV injection advice), since link names,
/// targets and referrers are typed by people the account does not control.
pub fn csv_cell(value: &str) -> String {
    let value = if value.starts_with(['=', '+', '-', '@']) {
        format!("'{value}")
    } else {
        value.to_owned()
    };
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    }
}

/// The [`ExportSink`] that writes the archive.
pub struct ZipExport<W: Write + Seek> {
    zip: ZipWriter<W>,
}

fn zip_error(e: zip::result::ZipError) -> std::io::Error {
    match e {
        zip::result::ZipError::Io(io) => io,
        other => std::io::Error::other(other.to_string()),
    }
}

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn csv_line(out: &mut String, cells: &[&str]) {
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&csv_cell(cell));
    }
    out.push('\n');
}

/// A link's directory: its short code (Crockford base32 today), or its id should a code ever
/// hold a character that is not safe in a path.
fn link_dir(link: &Link) -> String {
    let code = link.short_code.as_str();
    let safe = !code.is_empty()
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if safe {
        format!("analytics/{code}")
    } else {
        format!("analytics/{}", link.id)
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DailyJson<'a> {
    link_id: String,
    short_code: &'a str,
    first_day: Option<NaiveDate>,
    last_day: Option<NaiveDate>,
    days: Vec<DayJson>,
    countries: Vec<Count<'a>>,
    devices: Vec<Count<'a>>,
    browsers: Vec<Count<'a>>,
}

#[derive(Serialize)]
struct DayJson {
    date: NaiveDate,
    scans: u64,
    uniques: u64,
}

#[derive(Serialize)]
struct Count<'a> {
    name: &'a str,
    scans: u64,
}

fn counts(rows: &[(String, u64)]) -> Vec<Count<'_>> {
    rows.iter()
        .map(|(name, scans)| Count {
            name,
            scans: *scans,
        })
        .collect()
}

impl<W: Write + Seek> ZipExport<W> {
    /// An archive written to `out`.
    pub fn new(out: W) -> Self {
        Self {
            zip: ZipWriter::new(out),
        }
    }

    /// Finishes the archive (its central directory) and returns the writer.
    pub fn into_inner(self) -> Result<W, ExportError> {
        Ok(self.zip.finish().map_err(zip_error)?)
    }

    fn start(&mut self, name: &str, large: bool) -> std::io::Result<()> {
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .large_file(large);
        self.zip.start_file(name, options).map_err(zip_error)
    }

    fn file(&mut self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        self.start(name, false)?;
        self.zip.write_all(bytes)
    }

    fn json(&mut self, name: &str, value: &impl Serialize) -> std::io::Result<()> {
        let mut bytes = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        self.file(name, &bytes)
    }

    fn list<T: Serialize>(
        &mut self,
        name: &str,
        field: &'static str,
        items: &[T],
    ) -> std::io::Result<()> {
        let mut wrapped = serde_json::Map::new();
        wrapped.insert(
            field.to_owned(),
            serde_json::to_value(items).map_err(std::io::Error::other)?,
        );
        self.json(name, &wrapped)
    }
}

impl<W: Write + Seek> ExportSink for ZipExport<W> {
    fn header(&mut self, header: &ExportHeader) -> std::io::Result<()> {
        self.file("README.txt", README.as_bytes())?;
        self.json("account.json", header)
    }

    fn keys(&mut self, keys: &[ExportedKey]) -> std::io::Result<()> {
        self.list("keys.json", "keys", keys)
    }

    fn sessions(&mut self, sessions: &[ExportedSession]) -> std::io::Result<()> {
        self.list("sessions.json", "sessions", sessions)
    }

    fn usage(&mut self, days: &[(NaiveDate, u64)]) -> std::io::Result<()> {
        let mut csv = String::from("day,requests\n");
        for (day, n) in days {
            let _ = writeln!(csv, "{day},{n}");
        }
        self.file("usage.csv", csv.as_bytes())
    }

    fn links(&mut self, links: &[Link]) -> std::io::Result<()> {
        self.list("links.json", "links", links)?;
        let mut csv = String::from("id,name,shortCode,targetUrl,scanCount,createdAt,updatedAt\n");
        for l in links {
            csv_line(
                &mut csv,
                &[
                    &l.id.to_string(),
                    l.name.as_str(),
                    l.short_code.as_str(),
                    l.target_url.as_str(),
                    &l.scan_count.to_string(),
                    &time(l.created_at),
                    &time(l.updated_at),
                ],
            );
        }
        self.file("links.csv", csv.as_bytes())
    }

    fn link_analytics(
        &mut self,
        link: &Link,
        analytics: Option<&LinkAnalytics>,
    ) -> std::io::Result<()> {
        let dir = link_dir(link);
        let empty = Vec::new();
        let days = analytics.map_or(&[][..], |a| &a.days[..]);
        let mut csv = String::from("day,scans,uniques\n");
        for d in days {
            let _ = writeln!(csv, "{},{},{}", d.day, d.scans, d.uniques);
        }
        let json = DailyJson {
            link_id: link.id.to_string(),
            short_code: link.short_code.as_str(),
            first_day: analytics.map(|a| a.first),
            last_day: analytics.map(|a| a.last),
            days: days
                .iter()
                .map(|d| DayJson {
                    date: d.day,
                    scans: d.scans,
                    uniques: d.uniques,
                })
                .collect(),
            countries: counts(analytics.map_or(&empty, |a| &a.countries)),
            devices: counts(analytics.map_or(&empty, |a| &a.devices)),
            browsers: counts(analytics.map_or(&empty, |a| &a.browsers)),
        };
        self.json(&format!("{dir}/daily.json"), &json)?;
        self.file(&format!("{dir}/daily.csv"), csv.as_bytes())
    }

    fn begin_scans(&mut self, link: &Link) -> std::io::Result<()> {
        // One link's scans may exceed 4 GiB only beyond tens of millions; ZIP64 costs 20 bytes.
        self.start(&format!("{}/scans.csv", link_dir(link)), true)?;
        self.zip
            .write_all(b"id,timestamp,country,city,device,browser,os,referrer\n")
    }

    fn scans(&mut self, page: &[ScanRecord]) -> std::io::Result<()> {
        let mut csv = String::with_capacity(page.len() * 128);
        for s in page {
            csv_line(
                &mut csv,
                &[
                    &s.id.to_string(),
                    &time(s.timestamp),
                    &s.country,
                    &s.city,
                    s.device.as_str(),
                    &s.browser,
                    &s.os,
                    s.referrer.as_deref().unwrap_or(""),
                ],
            );
        }
        self.zip.write_all(csv.as_bytes())
    }

    fn end_scans(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_are_quoted_and_defused() {
        assert_eq!(csv_cell("plain"), "plain");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_cell("-1,2"), "\"'-1,2\"");
    }
}
