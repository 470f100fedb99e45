//! What the readers produce: the services they read, each record as a foreign link (code, source domain, target, title, tags, creation time) or the reason it could not be read, and the errors that refuse a whole file.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use qr_domain::links::bulk::MAX_BULK_LINKS;

/// The most records one file may hold: one file is one write transaction, and the domain's
/// bulk creation takes at most 10,000 links per call (about 1 s of SQLite writing). Bitly's
/// list exports stop at 1,000 rows and Shlink's and Kutt's API pages are smaller still, so
/// only a hand-joined file meets the bound; it is refused whole with a message to split it.
pub const MAX_IMPORT_LINKS: usize = MAX_BULK_LINKS;

/// A service whose own export format is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// Bitly's CSV export of links.
    Bitly,
    /// Rebrandly's CSV export of links.
    Rebrandly,
    /// Shlink's `short-url:list` table or its REST API's `GET /rest/v3/short-urls` pages.
    Shlink,
    /// YOURLS's `action=stats` API answer (JSON), or its `yourls_url` table as CSV.
    Yourls,
    /// Kutt's `GET /api/v2/links` pages.
    Kutt,
}

impl Source {
    /// Every source, in the order forms and help list them.
    pub const ALL: [Source; 5] = [
        Source::Bitly,
        Source::Rebrandly,
        Source::Shlink,
        Source::Yourls,
        Source::Kutt,
    ];

    /// The name the CLI's `--from` and the dashboard's form use.
    pub fn name(self) -> &'static str {
        match self {
            Source::Bitly => "bitly",
            Source::Rebrandly => "rebrandly",
            Source::Shlink => "shlink",
            Source::Yourls => "yourls",
            Source::Kutt => "kutt",
        }
    }

    /// The service's own spelling, for labels.
    pub fn title(self) -> &'static str {
        match self {
            Source::Bitly => "Bitly",
            Source::Rebrandly => "Rebrandly",
            Source::Shlink => "Shlink",
            Source::Yourls => "YOURLS",
            Source::Kutt => "Kutt",
        }
    }

    /// What the file must be, for help texts and the form.
    pub fn accepts(self) -> &'static str {
        match self {
            Source::Bitly => "the CSV export of links",
            Source::Rebrandly => "the CSV export of links",
            Source::Shlink => "shlink short-url:list output, or REST API pages (JSON)",
            Source::Yourls => {
                "the API's action=stats answer (JSON), or the yourls_url table as CSV"
            }
            Source::Kutt => "API pages of GET /api/v2/links (JSON)",
        }
    }

    /// Reads a whole export: every record in file order, each a foreign link or why it could
    /// not be read; a file that is not this service's format at all is refused.
    pub fn read(self, text: &str) -> Result<Vec<ForeignRecord>, ReadError> {
        // Spreadsheet programs save UTF-8 with a byte-order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim().is_empty() {
            return Err(ReadError::Empty);
        }
        let records = match self {
            Source::Bitly => crate::bitly::read(text)?,
            Source::Rebrandly => crate::rebrandly::read(text)?,
            Source::Shlink => crate::shlink::read(text)?,
            Source::Yourls => crate::yourls::read(text)?,
            Source::Kutt => crate::kutt::read(text)?,
        };
        if records.is_empty() {
            return Err(ReadError::Empty);
        }
        if records.len() > MAX_IMPORT_LINKS {
            return Err(ReadError::TooMany(records.len()));
        }
        Ok(records)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Source {
    type Err = ReadError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Source::ALL
            .into_iter()
            .find(|source| source.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ReadError::UnknownSource(s.chars().take(40).collect()))
    }
}

/// One link as another service holds it, as text: nothing is checked against this service's
/// rules yet ([`crate::mapping`] does that).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignLink {
    /// The code as printed (the path after the domain), exactly as the export spells it.
    pub code: String,
    /// The domain the code is printed on (`bit.ly`, `go.brand.com`), when the export says.
    pub domain: Option<String>,
    /// Where it redirects.
    pub target: String,
    /// Its title (Kutt's description), when it has one.
    pub title: Option<String>,
    /// Its tags, in the export's order.
    pub tags: Vec<String>,
    /// When the other service created it, when the export says.
    pub created_at: Option<DateTime<Utc>>,
}

impl ForeignLink {
    /// The short URL as printed, without the scheme: `domain/code`, or the code alone.
    pub fn shown(&self) -> String {
        match &self.domain {
            Some(domain) => format!("{domain}/{}", self.code),
            None => self.code.clone(),
        }
    }
}

/// One record of an export, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignRecord {
    /// Its position among the file's records, from 1 (a CSV row or table row not counting the
    /// header, a JSON item).
    pub position: usize,
    /// The link, or why the record could not be read (no code, no target, an unreadable
    /// creation time), with what identifies it (the short URL or code when there is one).
    pub link: Result<ForeignLink, Unreadable>,
}

/// A record that is not a link: what identifies it, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// The short URL or code as the record gives it, else empty.
    pub shown: String,
    /// Why it was not read.
    pub reason: String,
}

impl ForeignRecord {
    /// The short URL or code that identifies the record to its owner.
    pub fn shown(&self) -> String {
        match &self.link {
            Ok(link) => link.shown(),
            Err(unreadable) => unreadable.shown.clone(),
        }
    }
}

/// Why a whole file was refused (nothing of it is imported).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// No records at all.
    Empty,
    /// More than [`MAX_IMPORT_LINKS`] records.
    TooMany(usize),
    /// A `--from` or form value that names no source.
    UnknownSource(String),
    /// Not valid JSON where the format is JSON.
    Json(String),
    /// Not valid CSV where the format is CSV.
    Csv(String),
    /// JSON of another shape than the service's answer.
    Shape(&'static str),
    /// A CSV or table header without a column the format needs.
    MissingColumn {
        /// What the column holds (`the long URL`).
        column: &'static str,
        /// The header's columns as found.
        found: String,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Empty => f.write_str("the file has no links"),
            ReadError::TooMany(n) => write!(
                f,
                "the file has {n} links; one import takes at most {MAX_IMPORT_LINKS} (one write transaction): split the file"
            ),
            ReadError::UnknownSource(s) => write!(
                f,
                "unknown source {s:?}: one of bitly, rebrandly, shlink, yourls, kutt"
            ),
            ReadError::Json(e) => write!(f, "the file is not valid JSON: {e}"),
            ReadError::Csv(e) => write!(f, "the file is not valid CSV: {e}"),
            ReadError::Shape(expected) => write!(f, "the file is not {expected}"),
            ReadError::MissingColumn { column, found } => write!(
                f,
                "the header row has no column for {column} (it has: {found})"
            ),
        }
    }
}

impl std::error::Error for ReadError {}
