//! One link's scans as CSV or NDJSON (`GET /api/analytics/export`, `qr analytics export`): the
//! format's name, media type and file name, and the encoding of a page of scans, so that both
//! adapters write the same bytes a page at a time.

use std::fmt::Write as _;
use std::str::FromStr;

use qr_domain::scans::scan::ScanRecord;
use qr_domain::{ScanId, ShortCode};
use serde::Serialize;

use crate::{csv_line, time};

/// The columns of the CSV and the members of each NDJSON object, in this order: the names of
/// `recentScans` in `GET /api/analytics`.
pub const SCAN_COLUMNS: [&str; 10] = [
    "id",
    "timestamp",
    "country",
    "city",
    "device",
    "browser",
    "os",
    "referrer",
    "variant",
    "rule",
];

/// One NDJSON line: `recentScans`' members in its order, every one present (`null` for none).
#[derive(Serialize)]
struct NdjsonScan<'a> {
    id: ScanId,
    timestamp: String,
    country: &'a str,
    city: &'a str,
    device: &'a str,
    browser: &'a str,
    os: &'a str,
    referrer: Option<&'a str>,
    variant: Option<u8>,
    rule: Option<u8>,
}

/// The format of a scan export.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ScanFormat {
    /// A header line, then one line per scan; empty cells for no referrer, variant or rule.
    #[default]
    Csv,
    /// One JSON object per line with every member present (`null` for none).
    Ndjson,
}

/// A format name that is neither `csv` nor `ndjson`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl std::fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Invalid format {:?}: use csv or ndjson", self.0)
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for ScanFormat {
    type Err = UnknownFormat;

    /// `csv` or `ndjson`, in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "csv" => Ok(ScanFormat::Csv),
            "ndjson" => Ok(ScanFormat::Ndjson),
            _ => Err(UnknownFormat(s.to_owned())),
        }
    }
}

impl ScanFormat {
    /// The media type of the download.
    pub fn content_type(self) -> &'static str {
        match self {
            ScanFormat::Csv => "text/csv; charset=utf-8",
            ScanFormat::Ndjson => "application/x-ndjson",
        }
    }

    /// The file name offered for the download: `scans-<shortCode>.csv` or `.ndjson` (a short
    /// code holds only letters, digits, `-` and `_`, so the name needs no quoting rules).
    pub fn file_name(self, code: &ShortCode) -> String {
        let ext = match self {
            ScanFormat::Csv => "csv",
            ScanFormat::Ndjson => "ndjson",
        };
        format!("scans-{code}.{ext}")
    }

    /// What comes before the first scan: the CSV header line, nothing for NDJSON.
    pub fn head(self) -> &'static str {
        match self {
            ScanFormat::Csv => {
                "id,timestamp,country,city,device,browser,os,referrer,variant,rule\n"
            }
            ScanFormat::Ndjson => "",
        }
    }

    /// Appends `page` to `out`, one line per scan.
    pub fn write_page(self, page: &[ScanRecord], out: &mut String) {
        for s in page {
            match self {
                ScanFormat::Csv => {
                    let small = |v: Option<u8>| v.map(|v| v.to_string()).unwrap_or_default();
                    csv_line(
                        out,
                        &[
                            &s.id.to_string(),
                            &time(s.timestamp),
                            &s.country,
                            &s.city,
                            s.device.as_str(),
                            &s.browser,
                            &s.os,
                            s.referrer.as_deref().unwrap_or(""),
                            &small(s.variant),
                            &small(s.rule),
                        ],
                    );
                }
                ScanFormat::Ndjson => {
                    let line = NdjsonScan {
                        id: s.id,
                        timestamp: time(s.timestamp),
                        country: &s.country,
                        city: &s.city,
                        device: s.device.as_str(),
                        browser: &s.browser,
                        os: &s.os,
                        referrer: s.referrer.as_deref(),
                        variant: s.variant,
                        rule: s.rule,
                    };
                    // Serializing plain strings and numbers cannot fail.
                    let line = serde_json::to_string(&line).unwrap_or_default();
                    let _ = writeln!(out, "{line}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use qr_domain::chrono::{TimeZone, Utc};
    use qr_domain::scans::scan::Device;

    use super::*;

    fn scan(referrer: Option<&str>, variant: Option<u8>) -> ScanRecord {
        ScanRecord {
            id: ScanId(7),
            timestamp: Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap(),
            country: "DE".into(),
            city: "Berlin, Mitte".into(),
            device: Device::Mobile,
            browser: "Safari".into(),
            os: "iOS".into(),
            referrer: referrer.map(str::to_owned),
            variant,
            rule: None,
        }
    }

    #[test]
    fn formats_parse_in_any_case_and_refuse_others() {
        assert_eq!("CSV".parse::<ScanFormat>(), Ok(ScanFormat::Csv));
        assert_eq!("ndjson".parse::<ScanFormat>(), Ok(ScanFormat::Ndjson));
        let err = "json".parse::<ScanFormat>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid format \"json\": use csv or ndjson"
        );
    }

    #[test]
    fn csv_lines_quote_and_defuse_cells_and_leave_absent_values_empty() {
        let mut out = String::from(ScanFormat::Csv.head());
        ScanFormat::Csv.write_page(&[scan(Some("=cmd"), Some(1))], &mut out);
        assert_eq!(
            out,
            "id,timestamp,country,city,device,browser,os,referrer,variant,rule\n\
             7,2026-03-01T12:00:00.000000Z,DE,\"Berlin, Mitte\",mobile,Safari,iOS,'=cmd,1,\n"
        );
        assert_eq!(
            out.lines().next().unwrap().split(',').collect::<Vec<_>>(),
            SCAN_COLUMNS
        );
    }

    #[test]
    fn ndjson_lines_carry_every_member() {
        let mut out = String::new();
        ScanFormat::Ndjson.write_page(&[scan(None, None)], &mut out);
        let value: serde_json::Value = serde_json::from_str(out.trim_end()).unwrap();
        let mut keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = SCAN_COLUMNS.to_vec();
        keys.sort_unstable();
        expected.sort_unstable();
        assert_eq!(keys, expected);
        assert!(out.starts_with("{\"id\":\"7\",\"timestamp\":"), "{out}");
        assert_eq!(value["referrer"], serde_json::Value::Null);
        assert_eq!(value["variant"], serde_json::Value::Null);
        assert_eq!(value["timestamp"], "2026-03-01T12:00:00.000000Z");
        assert!(out.ends_with('\n') && out.lines().count() == 1);
    }
}
