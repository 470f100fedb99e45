//! Analytics: query parsing, the reporting window, and the report built from daily rollups.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Days, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
use serde::Serialize;
use thiserror::Error;

use crate::accounts::plan::Retention;
use crate::error::StoreError;
use crate::ids::LinkId;
use crate::links::link::Link;
use crate::links::shortcode::ShortCode;
use crate::scans::breakdown::{Breakdowns, DIMENSIONS, Dimension};
use crate::scans::scan::ScanRecord;

/// The default number of recent scans.
pub const DEFAULT_LIMIT: u16 = 100;
/// The largest accepted number of recent scans.
pub const MAX_LIMIT: u16 = 1_000;

/// A validated analytics query; the default asks for the whole window and 100 recent scans.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AnalyticsQuery {
    /// First instant included, if given.
    pub start: Option<DateTime<Utc>>,
    /// Last instant included, if given (a date-only end is the day's last microsecond).
    pub end: Option<DateTime<Utc>>,
    /// Number of recent scans to return.
    pub limit: RecentLimit,
}

/// The number of recent scans, 1 to 1,000.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecentLimit(u16);

/// Why the parameters of an analytics query were rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QueryError {
    /// startDate is neither YYYY-MM-DD nor an ISO 8601 date-time.
    #[error(
        "invalid startDate {0:?}: use YYYY-MM-DD or an ISO 8601 date-time such as 2024-05-01T00:00:00Z"
    )]
    InvalidStartDate(String),
    /// endDate is neither YYYY-MM-DD nor an ISO 8601 date-time.
    #[error(
        "invalid endDate {0:?}: use YYYY-MM-DD or an ISO 8601 date-time such as 2024-05-31T23:59:59Z"
    )]
    InvalidEndDate(String),
    /// startDate is after endDate.
    #[error("startDate must not be after endDate")]
    StartAfterEnd,
    /// limit is not an integer from 1 to 1000.
    #[error("invalid limit {0:?}: use a whole number from 1 to 1000")]
    InvalidLimit(String),
}

/// Why analytics of a link could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AnalyticsError {
    /// No link with this id belongs to the account.
    #[error("link not found")]
    LinkNotFound,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Scan counts of one UTC day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayCount {
    /// The day.
    pub day: NaiveDate,
    /// Counted scans.
    pub scans: u64,
    /// Distinct visitors of the day.
    pub uniques: u64,
}

/// Aggregated scan statistics over a range, as a store returns them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatsRows {
    /// Per-day counts (any order, days without scans may be missing).
    pub days: Vec<DayCount>,
    /// Scans per value of every dimension.
    pub breakdowns: Breakdowns,
}

/// The analytics response: `{link, analytics, recentScans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyticsReport {
    /// The link summary.
    pub link: LinkSummary,
    /// The summary object.
    pub analytics: Summary,
    /// Recent scans, newest first.
    pub recent_scans: Vec<ScanRecord>,
}

/// `{id, name, shortCode, targetUrl, scanCount}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkSummary {
    /// The link id.
    pub id: LinkId,
    /// The name.
    pub name: String,
    /// The short code.
    pub short_code: ShortCode,
    /// The target URL.
    pub target_url: String,
    /// All counted scans ever.
    pub scan_count: u64,
}

/// The spec's analytics summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Scans in the window.
    pub total_scans: u64,
    /// Distinct (day, visitor) pairs in the window.
    pub unique_scans: u64,
    /// Every day of the window, ascending, zero days included.
    pub scans_by_day: Vec<DayScans>,
    /// Scans per country, most first, then by code.
    pub scans_by_country: Vec<CountryScans>,
    /// Scans per device, most first, then by name.
    pub scans_by_device: Vec<DeviceScans>,
    /// Scans per browser, most first, then by name.
    pub scans_by_browser: Vec<BrowserScans>,
    /// Scans per operating system, most first, then by name.
    pub scans_by_os: Vec<OsScans>,
    /// Scans per referring host (`null` for scans without a referrer), most first.
    pub scans_by_referrer: Vec<ReferrerScans>,
    /// Scans per city and country, most first.
    pub scans_by_city: Vec<CityScans>,
    /// Scans per A/B variant, most first; only for a link that has variants.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scans_by_variant: Option<Vec<VariantScans>>,
    /// Scans per deciding redirect rule, most first (scans no rule decided are not counted).
    pub scans_by_rule: Vec<RuleScans>,
}

/// `{os, scans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OsScans {
    /// Operating system name.
    pub os: String,
    /// Scans.
    pub scans: u64,
}

/// `{referrer, scans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReferrerScans {
    /// The referring host, `null` for direct scans (no referrer: most camera apps send none).
    pub referrer: Option<String>,
    /// Scans.
    pub scans: u64,
}

/// `{city, country, scans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CityScans {
    /// City name, `Unknown` when the database has none.
    pub city: String,
    /// The city's country code.
    pub country: String,
    /// Scans.
    pub scans: u64,
}

/// `{variant, scans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VariantScans {
    /// The variant's index in the link's `variants`.
    pub variant: u8,
    /// Scans.
    pub scans: u64,
}

/// `{rule, scans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleScans {
    /// The rule's index in the link's `rules`.
    pub rule: u8,
    /// Scans.
    pub scans: u64,
}

/// `{date, scans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayScans {
    /// YYYY-MM-DD.
    pub date: String,
    /// Scans that day.
    pub scans: u64,
}

/// `{country, scans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CountryScans {
    /// Country code.
    pub country: String,
    /// Scans.
    pub scans: u64,
}

/// `{device, scans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceScans {
    /// Device name.
    pub device: String,
    /// Scans.
    pub scans: u64,
}

/// `{browser, scans}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrowserScans {
    /// Browser name.
    pub browser: String,
    /// Scans.
    pub scans: u64,
}

/// The effective reporting window: inclusive instants, whole UTC days where possible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First included instant.
    pub from: DateTime<Utc>,
    /// Last included instant.
    pub to: DateTime<Utc>,
}

/// How a window splits into whole days (answered from rollups) and partial edge days (from scans).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowPlan {
    /// Whole days answered from rollups, inclusive.
    pub full_days: Option<(NaiveDate, NaiveDate)>,
    /// Partial ranges answered from raw scans (at most two, each within one day).
    pub partial: [Option<Window>; 2],
}

impl RecentLimit {
    /// The limit as a number.
    pub fn get(self) -> u16 {
        self.0
    }
}

impl Default for RecentLimit {
    fn default() -> Self {
        Self(DEFAULT_LIMIT)
    }
}

impl AnalyticsQuery {
    /// Parses the raw query parameters.
    pub fn parse(
        start: Option<&str>,
        end: Option<&str>,
        limit: Option<&str>,
    ) -> Result<Self, QueryError> {
        let start = start
            .map(|s| {
                parse_instant(s, false).ok_or_else(|| QueryError::InvalidStartDate(s.to_owned()))
            })
            .transpose()?;
        let end = end
            .map(|s| parse_instant(s, true).ok_or_else(|| QueryError::InvalidEndDate(s.to_owned())))
            .transpose()?;
        if let (Some(s), Some(e)) = (start, end)
            && s > e
        {
            return Err(QueryError::StartAfterEnd);
        }
        let limit = match limit {
            None => RecentLimit::default(),
            Some(raw) => match raw.trim().parse::<u16>() {
                Ok(n) if (1..=MAX_LIMIT).contains(&n) => RecentLimit(n),
                _ => return Err(QueryError::InvalidLimit(raw.to_owned())),
            },
        };
        Ok(Self { start, end, limit })
    }

    /// The window after applying the link's creation day, today, and the plan's retention.
    /// `None` when nothing of the requested range is retained.
    ///
    /// The start never reaches before the day the link was created, whatever was asked: a
    /// link has no scans from before it existed, and a start in year 1 would otherwise ask for
    /// 739,943 zero-filled days (23.7 MB of JSON). So the answer is bounded by the link's age.
    pub fn window(&self, now: DateTime<Utc>, link: &Link, retention: Retention) -> Option<Window> {
        let today = now.date_naive();
        let created = day_start(link.created_at.date_naive());
        let mut from = self.start.map_or(created, |start| start.max(created));
        if let Some(first) = retention_first_day(today, retention) {
            from = from.max(day_start(first));
        }
        let to = self
            .end
            .unwrap_or_else(|| day_end(today))
            .min(day_end(today));
        (from <= to).then_some(Window { from, to })
    }
}

/// The first retained day for `retention` on `today`: the last N UTC days, today included.
pub fn retention_first_day(today: NaiveDate, retention: Retention) -> Option<NaiveDate> {
    match retention {
        Retention::Unlimited => None,
        Retention::Days(n) => Some(
            today
                .checked_sub_days(Days::new(u64::from(n.max(1)) - 1))
                .unwrap_or(NaiveDate::MIN),
        ),
    }
}

/// Midnight UTC at the start of `day`.
pub fn day_start(day: NaiveDate) -> DateTime<Utc> {
    day.and_time(NaiveTime::MIN).and_utc()
}

/// The last microsecond of `day`.
pub fn day_end(day: NaiveDate) -> DateTime<Utc> {
    day_start(day) + TimeDelta::days(1) - TimeDelta::microseconds(1)
}

fn parse_instant(raw: &str, end: bool) -> Option<DateTime<Utc>> {
    let s = raw.trim();
    if let Ok(day) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Some(if end { day_end(day) } else { day_start(day) });
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
        .map(|t| t.and_utc())
}

impl Window {
    /// Splits the window into whole days and partial edges.
    pub fn plan(&self) -> WindowPlan {
        let first = self.from.date_naive();
        let last = self.to.date_naive();
        let first_whole = self.from == day_start(first);
        let last_whole = self.to == day_end(last);
        if first == last {
            return if first_whole && last_whole {
                WindowPlan {
                    full_days: Some((first, last)),
                    partial: [None, None],
                }
            } else {
                WindowPlan {
                    full_days: None,
                    partial: [Some(*self), None],
                }
            };
        }
        let full_from = if first_whole {
            Some(first)
        } else {
            first.succ_opt()
        };
        let full_to = if last_whole {
            Some(last)
        } else {
            last.pred_opt()
        };
        let full_days = match (full_from, full_to) {
            (Some(a), Some(b)) if a <= b => Some((a, b)),
            _ => None,
        };
        WindowPlan {
            full_days,
            partial: [
                (!first_whole).then(|| Window {
                    from: self.from,
                    to: day_end(first),
                }),
                (!last_whole).then(|| Window {
                    from: day_start(last),
                    to: self.to,
                }),
            ],
        }
    }

    /// [`Window::plan`] for a link whose scans can only lie within `possible` (from its creation
    /// to now): an edge day whose cut-off part lies wholly outside `possible` holds the same
    /// scans as the whole day, so it is answered from the day's rollup instead of by reading
    /// its scans. The default window ends now, so this spares every such request a read of
    /// today's scans (about 2,700 rows for the seeder's 1,000,000-scan link).
    pub fn plan_within(&self, possible: &Window) -> WindowPlan {
        Window {
            from: if self.from <= possible.from {
                day_start(self.from.date_naive())
            } else {
                self.from
            },
            to: if self.to >= possible.to {
                day_end(self.to.date_naive())
            } else {
                self.to
            },
        }
        .plan()
    }

    /// Every day of the window, ascending.
    pub fn days(&self) -> impl Iterator<Item = NaiveDate> + use<> {
        let last = self.to.date_naive();
        self.from
            .date_naive()
            .iter_days()
            .take_while(move |d| *d <= last)
    }
}

/// Builds the summary from store rows over `window`; `has_variants` says whether the link
/// has an A/B split (the variant breakdown is left out otherwise).
pub fn summarize(window: Option<&Window>, parts: Vec<StatsRows>, has_variants: bool) -> Summary {
    let Some(window) = window else {
        return Summary {
            scans_by_variant: has_variants.then(Vec::new),
            ..Summary::default()
        };
    };
    let mut by_day: BTreeMap<NaiveDate, (u64, u64)> = BTreeMap::new();
    let mut sums: [HashMap<String, u64>; DIMENSIONS] = Default::default();
    for part in parts {
        for d in part.days {
            let slot = by_day.entry(d.day).or_default();
            slot.0 += d.scans;
            slot.1 += d.uniques;
        }
        for (dim, rows) in part.breakdowns.into_rows() {
            let map = &mut sums[dim as usize];
            for (name, n) in rows {
                *map.entry(name).or_default() += n;
            }
        }
    }
    let mut take = |dim: Dimension| ranked(std::mem::take(&mut sums[dim as usize]));
    let total_scans = by_day.values().map(|v| v.0).sum();
    let unique_scans = by_day.values().map(|v| v.1).sum();
    let scans_by_day = window
        .days()
        .map(|day| DayScans {
            date: day.format("%Y-%m-%d").to_string(),
            scans: by_day.get(&day).map_or(0, |v| v.0),
        })
        .collect();
    // An index that does not parse was written by something else than this build's stores;
    // it is left out rather than reported under a made-up number.
    let indexed = |rows: Vec<(String, u64)>| -> Vec<(u8, u64)> {
        rows.into_iter()
            .filter_map(|(v, n)| v.parse().ok().map(|i| (i, n)))
            .collect()
    };
    Summary {
        total_scans,
        unique_scans,
        scans_by_day,
        scans_by_country: take(Dimension::Country)
            .map(|(country, scans)| CountryScans { country, scans })
            .collect(),
        scans_by_device: take(Dimension::Device)
            .map(|(device, scans)| DeviceScans { device, scans })
            .collect(),
        scans_by_browser: take(Dimension::Browser)
            .map(|(browser, scans)| BrowserScans { browser, scans })
            .collect(),
        scans_by_os: take(Dimension::Os)
            .map(|(os, scans)| OsScans { os, scans })
            .collect(),
        scans_by_referrer: take(Dimension::Referrer)
            .map(|(host, scans)| ReferrerScans {
                referrer: (!host.is_empty()).then_some(host),
                scans,
            })
            .collect(),
        scans_by_city: take(Dimension::City)
            .map(|(value, scans)| {
                let (country, city) = value.split_once('/').unwrap_or(("XX", value.as_str()));
                CityScans {
                    city: city.to_owned(),
                    country: country.to_owned(),
                    scans,
                }
            })
            .collect(),
        scans_by_variant: has_variants.then(|| {
            indexed(take(Dimension::Variant).collect())
                .into_iter()
                .map(|(variant, scans)| VariantScans { variant, scans })
                .collect()
        }),
        scans_by_rule: indexed(take(Dimension::Rule).collect())
            .into_iter()
            .map(|(rule, scans)| RuleScans { rule, scans })
            .collect(),
    }
}

/// Sorts by count descending, then by name ascending, dropping zero counts.
fn ranked(map: HashMap<String, u64>) -> impl Iterator<Item = (String, u64)> {
    let mut v: Vec<(String, u64)> = map.into_iter().filter(|(_, n)| *n > 0).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.into_iter()
}

impl LinkSummary {
    /// The summary of `link`.
    pub fn of(link: &Link) -> Self {
        Self {
            id: link.id,
            name: link.name.to_string(),
            short_code: link.short_code,
            target_url: link.target_url.to_string(),
            scan_count: link.scan_count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn check(
        start: Option<&str>,
        end: Option<&str>,
        limit: Option<&str>,
        expected: Result<(Option<&str>, Option<&str>, u16), QueryError>,
    ) {
        let got = AnalyticsQuery::parse(start, end, limit);
        let want = expected.map(|(s, e, l)| AnalyticsQuery {
            start: s.map(at),
            end: e.map(at),
            limit: RecentLimit(l),
        });
        assert_eq!(got, want, "{start:?} {end:?} {limit:?}");
    }

    #[test]
    fn query_parsing() {
        check(None, None, None, Ok((None, None, 100)));
        check(
            Some("2024-05-01"),
            Some("2024-05-31"),
            Some("10"),
            Ok((
                Some("2024-05-01T00:00:00Z"),
                Some("2024-05-31T23:59:59.999999Z"),
                10,
            )),
        );
        check(
            Some("2024-05-01T10:00:00+02:00"),
            None,
            None,
            Ok((Some("2024-05-01T08:00:00Z"), None, 100)),
        );
        check(
            None,
            Some("2024-05-01T10:00:00Z"),
            None,
            Ok((None, Some("2024-05-01T10:00:00Z"), 100)),
        );
        check(
            None,
            Some("2024-05-01T10:00:00"),
            None,
            Ok((None, Some("2024-05-01T10:00:00Z"), 100)),
        );
        check(
            Some("2024-05-01"),
            Some("2024-05-01"),
            None,
            Ok((
                Some("2024-05-01T00:00:00Z"),
                Some("2024-05-01T23:59:59.999999Z"),
                100,
            )),
        );
        check(
            Some("2024-13-01"),
            None,
            None,
            Err(QueryError::InvalidStartDate("2024-13-01".into())),
        );
        check(
            Some("yesterday"),
            None,
            None,
            Err(QueryError::InvalidStartDate("yesterday".into())),
        );
        check(
            None,
            Some("2024-02-30"),
            None,
            Err(QueryError::InvalidEndDate("2024-02-30".into())),
        );
        check(
            Some("2024-05-02"),
            Some("2024-05-01"),
            None,
            Err(QueryError::StartAfterEnd),
        );
        check(
            None,
            None,
            Some("0"),
            Err(QueryError::InvalidLimit("0".into())),
        );
        check(
            None,
            None,
            Some("1001"),
            Err(QueryError::InvalidLimit("1001".into())),
        );
        check(
            None,
            None,
            Some("-1"),
            Err(QueryError::InvalidLimit("-1".into())),
        );
        check(
            None,
            None,
            Some("ten"),
            Err(QueryError::InvalidLimit("ten".into())),
        );
        check(None, None, Some("1000"), Ok((None, None, 1000)));
        check(None, None, Some("1"), Ok((None, None, 1)));
    }

    #[test]
    fn window_plans() {
        let w = |a: &str, b: &str| Window {
            from: at(a),
            to: at(b),
        };
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        let whole = w("2024-05-01T00:00:00Z", "2024-05-03T23:59:59.999999Z").plan();
        assert_eq!(whole.full_days, Some((d("2024-05-01"), d("2024-05-03"))));
        assert_eq!(whole.partial, [None, None]);
        let edges = w("2024-05-01T12:00:00Z", "2024-05-03T06:00:00Z").plan();
        assert_eq!(edges.full_days, Some((d("2024-05-02"), d("2024-05-02"))));
        assert_eq!(
            edges.partial[0],
            Some(w("2024-05-01T12:00:00Z", "2024-05-01T23:59:59.999999Z"))
        );
        assert_eq!(
            edges.partial[1],
            Some(w("2024-05-03T00:00:00Z", "2024-05-03T06:00:00Z"))
        );
        let inside = w("2024-05-01T01:00:00Z", "2024-05-01T02:00:00Z").plan();
        assert_eq!(inside.full_days, None);
        assert_eq!(
            inside.partial,
            [
                Some(w("2024-05-01T01:00:00Z", "2024-05-01T02:00:00Z")),
                None
            ]
        );
        // A link created at noon on the 1st, read at 6:00 on the 3rd: nothing can lie outside
        // its life, so both edge days come from rollups; an earlier end keeps its raw edge.
        let life = w("2024-05-01T12:00:00Z", "2024-05-03T06:00:00Z");
        let lived = life.plan_within(&life);
        assert_eq!(lived.full_days, Some((d("2024-05-01"), d("2024-05-03"))));
        assert_eq!(lived.partial, [None, None]);
        let earlier = w("2024-05-01T12:00:00Z", "2024-05-03T05:00:00Z").plan_within(&life);
        assert_eq!(earlier.full_days, Some((d("2024-05-01"), d("2024-05-02"))));
        assert_eq!(
            earlier.partial,
            [
                None,
                Some(w("2024-05-03T00:00:00Z", "2024-05-03T05:00:00Z"))
            ]
        );
        let later = w("2024-05-01T13:00:00Z", "2024-05-01T14:00:00Z").plan_within(&life);
        assert_eq!(
            later,
            w("2024-05-01T13:00:00Z", "2024-05-01T14:00:00Z").plan()
        );
        let adjacent = w("2024-05-01T01:00:00Z", "2024-05-02T02:00:00Z").plan();
        assert_eq!(adjacent.full_days, None);
    }

    #[test]
    fn retention_window_keeps_the_last_n_days() {
        let today = NaiveDate::from_ymd_opt(2024, 3, 31).unwrap();
        assert_eq!(
            retention_first_day(today, Retention::Days(30)),
            NaiveDate::from_ymd_opt(2024, 3, 2)
        );
        assert_eq!(retention_first_day(today, Retention::Days(1)), Some(today));
        assert_eq!(retention_first_day(today, Retention::Unlimited), None);
    }

    #[test]
    fn breakdowns_sort_by_scans_then_name() {
        let v: Vec<_> = ranked(HashMap::from([
            ("b".to_owned(), 2),
            ("a".to_owned(), 2),
            ("c".to_owned(), 5),
            ("z".to_owned(), 0),
        ]))
        .collect();
        assert_eq!(
            v,
            vec![
                ("c".to_owned(), 5),
                ("a".to_owned(), 2),
                ("b".to_owned(), 2)
            ]
        );
    }
}
