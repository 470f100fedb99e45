//! Usage counting, monthly quotas and rate limits (GCRA), decided in memory without touching disk.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Utc};
use serde::Serialize;
use thiserror::Error;

use crate::ids::{AccountId, KeyId};
use crate::plan::{Limit, PerSecond, Plan, PlanLimits};

/// A UTC calendar month, the period of the monthly quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UsageMonth {
    year: i32,
    month: u32,
}

/// Which limit rejected a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitKind {
    /// The key's per-second rate.
    PerSecond,
    /// The account's batch requests per minute.
    BatchPerMinute,
    /// The account's monthly quota.
    MonthlyQuota,
}

/// The figures behind the X-RateLimit-* headers.
///
/// Unlimited plans show -1 as limit and remaining (see [`Limit::wire`]); reset is
/// always the start of the next UTC month.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitStatus {
    /// Requests allowed this month.
    pub limit: Limit,
    /// Requests left this month.
    pub remaining: Limit,
    /// When the monthly counter resets.
    pub reset: DateTime<Utc>,
}

/// A request that passed the rate limits and was counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admission {
    /// The header figures after counting this request.
    pub status: RateLimitStatus,
}

/// A request refused by a limit (HTTP 429); it was not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("Rate limit exceeded")]
pub struct Rejection {
    /// The limit that was hit.
    pub kind: LimitKind,
    /// Whole seconds until a retry can pass, rounded up, at least 1.
    pub retry_after_secs: u64,
    /// The header figures (unchanged by this request).
    pub status: RateLimitStatus,
}

/// The spec's usage object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UsageReport {
    /// The plan name in lower case.
    pub plan: String,
    /// This month's usage.
    pub usage: UsageFigures,
}

/// The `usage` member of the usage object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageFigures {
    /// Requests counted this month.
    pub current: u64,
    /// The monthly limit, -1 when unlimited.
    pub limit: i64,
    /// The next reset (ISO 8601 UTC).
    pub reset_date: DateTime<Utc>,
}

/// Counters and limiter state, all in memory; persisted by [`crate::service::Service::flush`].
#[derive(Debug, Default)]
pub struct Meter {
    state: Mutex<MeterState>,
}

/// Counters changed since the last flush.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DirtyCounters {
    /// Absolute usage counts per month and account.
    pub usage: Vec<(UsageMonth, Vec<(AccountId, u64)>)>,
    /// Last-use times of keys.
    pub last_used: Vec<(KeyId, DateTime<Utc>)>,
    /// Requests counted per UTC day and account since the last flush (added to the stored
    /// daily counts, not replacing them).
    pub daily: Vec<(NaiveDate, Vec<(AccountId, u64)>)>,
}

#[derive(Debug, Default)]
struct MeterState {
    key_tat: HashMap<KeyId, i64>,
    batch_tat: HashMap<AccountId, i64>,
    usage: HashMap<(AccountId, UsageMonth), u64>,
    dirty: HashSet<(AccountId, UsageMonth)>,
    last_used: HashMap<KeyId, DateTime<Utc>>,
    /// Requests per account and UTC day not yet flushed.
    daily: HashMap<(AccountId, NaiveDate), u64>,
    /// GCRA state of dashboard renders per account.
    render_tat: HashMap<AccountId, i64>,
}

const MICROS: i64 = 1_000_000;
/// The slowest rate of dashboard renders, whatever the plan: a preview every 200 ms while typing.
pub const MIN_RENDER_RATE: u32 = 5;

impl UsageMonth {
    /// The month containing `t`.
    pub fn of(t: DateTime<Utc>) -> Self {
        Self {
            year: t.year(),
            month: t.month(),
        }
    }

    /// A month from a year and a month number 1 to 12.
    pub fn new(year: i32, month: u32) -> Option<Self> {
        NaiveDate::from_ymd_opt(year, month, 1).map(|_| Self { year, month })
    }

    /// Months since year 0, used as a compact storage key.
    pub fn index(self) -> i64 {
        i64::from(self.year) * 12 + i64::from(self.month) - 1
    }

    /// The inverse of [`UsageMonth::index`].
    pub fn from_index(index: i64) -> Option<Self> {
        let year = i32::try_from(index.div_euclid(12)).ok()?;
        let month = u32::try_from(index.rem_euclid(12) + 1).ok()?;
        Self::new(year, month)
    }

    /// The first instant of the month.
    pub fn start(self) -> DateTime<Utc> {
        first_instant(self.year, self.month)
    }

    /// The first instant of the next month: the quota reset.
    pub fn next_start(self) -> DateTime<Utc> {
        if self.month == 12 {
            first_instant(self.year.saturating_add(1), 1)
        } else {
            first_instant(self.year, self.month + 1)
        }
    }
}

fn first_instant(year: i32, month: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0)
        .single()
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

impl fmt::Display for UsageMonth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

impl LimitKind {
    /// A short description for logs and error details.
    pub fn describe(self) -> &'static str {
        match self {
            LimitKind::PerSecond => "per-second rate limit of the API key",
            LimitKind::BatchPerMinute => "batch requests per minute of the account",
            LimitKind::MonthlyQuota => "monthly request quota of the account",
        }
    }
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

impl RateLimitStatus {
    /// The X-RateLimit-Limit, -Remaining and -Reset header values.
    pub fn header_values(&self) -> (String, String, String) {
        (
            self.limit.wire().to_string(),
            self.remaining.wire().to_string(),
            self.reset.timestamp().to_string(),
        )
    }
}

/// Rounds a wait in microseconds up to whole seconds, at least 1.
pub(crate) fn whole_seconds(wait_micros: i64) -> u64 {
    let secs = (wait_micros.max(1) + MICROS - 1) / MICROS;
    u64::try_from(secs.max(1)).unwrap_or(1)
}

/// GCRA: returns the new theoretical arrival time, or the wait in microseconds.
pub(crate) fn gcra(tat: Option<i64>, now: i64, interval: i64, burst: i64) -> Result<i64, i64> {
    let tolerance = interval.saturating_mul(burst - 1);
    let tat = tat.unwrap_or(now).max(now);
    if tat - now > tolerance {
        Err(tat - tolerance - now)
    } else {
        Ok(tat.saturating_add(interval))
    }
}

impl Meter {
    /// An empty meter.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MeterState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Loads persisted counts for `month` (at start); a loaded count never lowers a live one.
    pub fn load(&self, month: UsageMonth, counts: &[(AccountId, u64)]) {
        let mut s = self.lock();
        for (account, count) in counts {
            let slot = s.usage.entry((*account, month)).or_insert(0);
            *slot = (*slot).max(*count);
        }
    }

    /// Requests counted for `account` in `month`.
    pub fn used(&self, account: AccountId, month: UsageMonth) -> u64 {
        self.lock()
            .usage
            .get(&(account, month))
            .copied()
            .unwrap_or(0)
    }

    /// The header figures for `account` at `now`, without counting anything.
    pub fn status(
        &self,
        now: DateTime<Utc>,
        account: AccountId,
        limits: &PlanLimits,
    ) -> RateLimitStatus {
        let month = UsageMonth::of(now);
        let used = self.used(account, month);
        status(limits, used, month)
    }

    /// The usage object for `account`.
    pub fn report(
        &self,
        now: DateTime<Utc>,
        account: AccountId,
        plan: Plan,
        limits: &PlanLimits,
    ) -> UsageReport {
        let month = UsageMonth::of(now);
        UsageReport {
            plan: plan.as_str().to_owned(),
            usage: UsageFigures {
                current: self.used(account, month),
                limit: limits.monthly_requests.wire(),
                reset_date: month.next_start(),
            },
        }
    }

    /// Applies the monthly quota, then (for batch) the batch rate, then the key's per-second rate.
    /// Only when all pass is the request counted and the limiters advanced.
    pub fn admit(
        &self,
        now: DateTime<Utc>,
        key: KeyId,
        account: AccountId,
        limits: &PlanLimits,
        key_rate: PerSecond,
        batch: bool,
    ) -> Result<Admission, Rejection> {
        let month = UsageMonth::of(now);
        let t = now.timestamp_micros();
        let mut s = self.lock();
        let used = s.usage.get(&(account, month)).copied().unwrap_or(0);
        let current = status(limits, used, month);
        let reject = |kind, wait| Rejection {
            kind,
            retry_after_secs: whole_seconds(wait),
            status: current,
        };
        if limits.monthly_requests.is_reached(used) {
            let wait = month.next_start().timestamp_micros() - t;
            return Err(reject(LimitKind::MonthlyQuota, wait));
        }
        let batch_tat = match (batch, limits.batch) {
            (true, Some(b)) => {
                let per_minute = i64::from(b.per_minute.max(1));
                let interval = 60 * MICROS / per_minute;
                match gcra(s.batch_tat.get(&account).copied(), t, interval, per_minute) {
                    Ok(tat) => Some(tat),
                    Err(wait) => return Err(reject(LimitKind::BatchPerMinute, wait)),
                }
            }
            _ => None,
        };
        let rate = i64::from(key_rate.get());
        let key_tat = gcra(s.key_tat.get(&key).copied(), t, MICROS / rate, rate)
            .map_err(|wait| reject(LimitKind::PerSecond, wait))?;
        s.key_tat.insert(key, key_tat);
        if let Some(tat) = batch_tat {
            s.batch_tat.insert(account, tat);
        }
        let used = used + 1;
        s.usage.insert((account, month), used);
        s.dirty.insert((account, month));
        *s.daily.entry((account, now.date_naive())).or_insert(0) += 1;
        Ok(Admission {
            status: status(limits, used, month),
        })
    }

    /// Admits a dashboard render (preview or download) of `account` at the plan's per-second rate,
    /// but at least [`MIN_RENDER_RATE`], with a burst of two seconds' worth (a live preview follows
    /// typing); nothing is counted against the monthly quota. `Err` holds the whole seconds to wait.
    pub fn admit_render(
        &self,
        now: DateTime<Utc>,
        account: AccountId,
        rate: PerSecond,
    ) -> Result<(), u64> {
        let rate = i64::from(rate.get().max(MIN_RENDER_RATE));
        let mut s = self.lock();
        let tat = gcra(
            s.render_tat.get(&account).copied(),
            now.timestamp_micros(),
            MICROS / rate,
            2 * rate,
        )
        .map_err(whole_seconds)?;
        s.render_tat.insert(account, tat);
        Ok(())
    }

    /// Requests of `account` on `day` counted in memory and not yet flushed.
    pub fn unflushed_daily(&self, account: AccountId, day: NaiveDate) -> u64 {
        self.lock().daily.get(&(account, day)).copied().unwrap_or(0)
    }

    /// Notes that `key` passed authentication at `at`.
    pub fn touch(&self, key: KeyId, at: DateTime<Utc>) {
        self.lock().last_used.insert(key, at);
    }

    /// Takes the counters changed since the last call, and forgets counters of months before `now`'s.
    pub fn take_dirty(&self, now: DateTime<Utc>) -> DirtyCounters {
        let current = UsageMonth::of(now);
        let mut s = self.lock();
        let dirty: Vec<(AccountId, UsageMonth)> = s.dirty.drain().collect();
        let mut by_month: HashMap<UsageMonth, Vec<(AccountId, u64)>> = HashMap::new();
        for (account, month) in dirty {
            let count = s.usage.get(&(account, month)).copied().unwrap_or(0);
            by_month.entry(month).or_default().push((account, count));
        }
        s.usage.retain(|(_, month), _| *month >= current);
        let last_used = s.last_used.drain().collect();
        let mut usage: Vec<_> = by_month.into_iter().collect();
        usage.sort_by_key(|(m, _)| *m);
        let mut by_day: HashMap<NaiveDate, Vec<(AccountId, u64)>> = HashMap::new();
        for ((account, day), n) in s.daily.drain() {
            by_day.entry(day).or_default().push((account, n));
        }
        let mut daily: Vec<_> = by_day.into_iter().collect();
        daily.sort_by_key(|(d, _)| *d);
        DirtyCounters {
            usage,
            last_used,
            daily,
        }
    }

    /// Puts counters back after a failed flush so the next flush retries them.
    pub fn restore_dirty(&self, dirty: DirtyCounters) {
        let mut s = self.lock();
        for (month, counts) in dirty.usage {
            for (account, count) in counts {
                let slot = s.usage.entry((account, month)).or_insert(0);
                *slot = (*slot).max(count);
                s.dirty.insert((account, month));
            }
        }
        for (key, at) in dirty.last_used {
            let slot = s.last_used.entry(key).or_insert(at);
            *slot = (*slot).max(at);
        }
        for (day, counts) in dirty.daily {
            for (account, n) in counts {
                *s.daily.entry((account, day)).or_insert(0) += n;
            }
        }
    }
}

fn status(limits: &PlanLimits, used: u64, month: UsageMonth) -> RateLimitStatus {
    RateLimitStatus {
        limit: limits.monthly_requests,
        remaining: limits.monthly_requests.remaining(used),
        reset: month.next_start(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn month_arithmetic() {
        let m = UsageMonth::of(at("2024-12-31T23:59:59.999Z"));
        assert_eq!(m.to_string(), "2024-12");
        assert_eq!(m.start(), at("2024-12-01T00:00:00Z"));
        assert_eq!(m.next_start(), at("2025-01-01T00:00:00Z"));
        assert_eq!(UsageMonth::from_index(m.index()), Some(m));
        assert_eq!(
            UsageMonth::of(at("2024-02-29T12:00:00Z")).next_start(),
            at("2024-03-01T00:00:00Z")
        );
    }

    #[test]
    fn retry_after_rounds_up_to_at_least_one_second() {
        for (micros, secs) in [
            (-5, 1),
            (0, 1),
            (1, 1),
            (999_999, 1),
            (1_000_000, 1),
            (1_000_001, 2),
            (59_500_000, 60),
        ] {
            assert_eq!(whole_seconds(micros), secs, "{micros}");
        }
    }

    #[test]
    fn gcra_allows_one_seconds_burst_then_spaces_requests() {
        let rate = 4;
        let interval = MICROS / rate;
        let mut tat = None;
        for _ in 0..rate {
            tat = Some(gcra(tat, 0, interval, rate).unwrap());
        }
        assert_eq!(gcra(tat, 0, interval, rate), Err(interval));
        assert_eq!(gcra(tat, interval - 1, interval, rate), Err(1));
        assert!(gcra(tat, interval, interval, rate).is_ok());
    }

    #[test]
    fn renders_are_rate_limited_and_never_counted() {
        let m = Meter::new();
        let a = AccountId::random();
        let now = at("2024-05-31T12:00:00Z");
        let rate = PerSecond::new(2).unwrap();
        for _ in 0..2 * MIN_RENDER_RATE {
            assert_eq!(m.admit_render(now, a, rate), Ok(()));
        }
        assert_eq!(m.admit_render(now, a, rate), Err(1));
        assert_eq!(m.used(a, UsageMonth::of(now)), 0);
        assert_eq!(m.take_dirty(now), DirtyCounters::default());
    }

    #[test]
    fn dirty_counters_roundtrip() {
        let m = Meter::new();
        let limits = Plan::Free.limits(&Default::default());
        let (k, a) = (KeyId::random(), AccountId::random());
        let now = at("2024-05-31T23:59:59Z");
        m.admit(now, k, a, &limits, limits.per_second, false)
            .unwrap();
        m.touch(k, now);
        let d = m.take_dirty(now);
        assert_eq!(d.usage, vec![(UsageMonth::of(now), vec![(a, 1)])]);
        assert_eq!(d.last_used, vec![(k, now)]);
        assert_eq!(d.daily, vec![(now.date_naive(), vec![(a, 1)])]);
        assert_eq!(m.take_dirty(now), DirtyCounters::default());
        m.restore_dirty(d.clone());
        assert_eq!(m.take_dirty(now), d);
        assert_eq!(m.unflushed_daily(a, now.date_naive()), 0);
        m.restore_dirty(d.clone());
        assert_eq!(m.unflushed_daily(a, now.date_naive()), 1);
        // After the month ends, the old month's counter is dropped from memory once flushed.
        let later = now + Duration::seconds(1);
        let _ = m.take_dirty(later);
        assert_eq!(m.used(a, UsageMonth::of(now)), 0);
    }
}
