//! Visits to codes a domain does not have (Shlink's "orphan visits"): counted per day and the latest kept, so a customer finds misprinted or mistyped codes.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::scans::scan::Device;

/// How many of a domain's latest orphan visits are kept.
pub const ORPHAN_VISITS_KEPT: usize = 100;
/// How many days of daily counts are kept (and shown), as the shortest plan's retention.
pub const ORPHAN_DAYS_KEPT: i64 = 90;
/// Most characters of a visited path that are kept (longer ones are cut at a character boundary).
pub const MAX_ORPHAN_PATH_CHARS: usize = 200;

/// One visit to an unknown code on a domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrphanVisit {
    /// The path requested (without the query), at most [`MAX_ORPHAN_PATH_CHARS`] characters.
    pub path: String,
    /// When.
    pub at: DateTime<Utc>,
    /// The visitor's country (ISO 3166-1 alpha-2), when known.
    pub country: Option<String>,
    /// The visitor's device category.
    pub device: Device,
}

impl OrphanVisit {
    /// A visit to `path`, cut to [`MAX_ORPHAN_PATH_CHARS`] characters.
    pub fn new(path: &str, at: DateTime<Utc>, country: Option<String>, device: Device) -> Self {
        let path: String = path.chars().take(MAX_ORPHAN_PATH_CHARS).collect();
        Self {
            path,
            at,
            country,
            device,
        }
    }
}

/// A domain's orphan visits: daily counts, oldest first, and the latest visits, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrphanReport {
    /// Visits per UTC day, oldest first (days without visits left out).
    pub daily: Vec<OrphanDay>,
    /// The latest [`ORPHAN_VISITS_KEPT`] visits, newest first.
    pub recent: Vec<OrphanVisit>,
}

/// Orphan visits on one UTC day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrphanDay {
    /// The day.
    pub date: NaiveDate,
    /// How many.
    pub visits: u64,
}
