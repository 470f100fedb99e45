//! Usage counting, monthly quotas and rate limits (GCRA), decided in memory without touching disk.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Utc};
use serde::Serialize;
use thiserror::Error;

use crate::accounts::limit_state::{Admit, Gcra, LimitState, MemoryLimits, Verdict, gcra};
use crate::accounts::plan::{Limit, PerSecond, Plan, PlanLimits};
use crate::ids::{AccountId, KeyId};

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

/// The rate and quota rules over a [`LimitState`] (this process's memory by default, or one
/// shared by several servers), plus the keys' last-use times; counts are persisted by
/// [`crate::service::Service::flush`].
pub struct Meter {
    state: Arc<dyn LimitState>,
    local: Mutex<LocalCounters>,
}

/// What each server counts for itself and adds to the store: nothing here is a limit shared by
/// several servers, so it never needs the shared state.
#[derive(Debug, Default)]
struct LocalCounters {
    last_used: HashMap<KeyId, DateTime<Utc>>,
    /// Requests per account and UTC day not yet flushed (added to the stored counts, so each
    /// server's share adds up).
    daily: HashMap<(AccountId, NaiveDate), u64>,
    /// GCRA state of dashboard renders per account (a courtesy limit of this server's work).
    render_tat: HashMap<AccountId, i64>,
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

impl Default for Meter {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Meter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Meter").finish_non_exhaustive()
    }
}

impl Meter {
    /// A meter whose state is in this process's memory.
    pub fn new() -> Self {
        Self::with_state(Arc::new(MemoryLimits::new()))
    }

    /// A meter over the given state (for example one shared by several servers).
    pub fn with_state(state: Arc<dyn LimitState>) -> Self {
        Self {
            state,
            local: Mutex::new(LocalCounters::default()),
        }
    }

    fn local(&self) -> std::sync::MutexGuard<'_, LocalCounters> {
        self.local.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Loads persisted counts for `month` (at start); a loaded count never lowers a live one.
    pub fn load(&self, month: UsageMonth, counts: &[(AccountId, u64)]) {
        self.state.load(month, counts);
    }

    /// Requests counted for `account` in `month`.
    pub fn used(&self, account: AccountId, month: UsageMonth) -> u64 {
        self.state.used(account, month)
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
        // The batch limiter: period 60 s, burst = the per-minute limit.
        let batch = match (batch, limits.batch) {
            (true, Some(b)) => {
                let per_minute = i64::from(b.per_minute.max(1));
                Some(Gcra {
                    interval: 60 * MICROS / per_minute,
                    burst: per_minute,
                })
            }
            _ => None,
        };
        // The key's limiter: its rate per second, with a burst of one second's worth.
        let rate = i64::from(key_rate.get());
        let admit = Admit {
            now: t,
            key,
            account,
            month,
            monthly_limit: match limits.monthly_requests {
                Limit::Max(max) => Some(max),
                Limit::Unlimited => None,
            },
            batch,
            rate: Gcra {
                interval: MICROS / rate,
                burst: rate,
            },
        };
        match self.state.admit(&admit) {
            Verdict::Admitted { used } => {
                *self
                    .local()
                    .daily
                    .entry((account, now.date_naive()))
                    .or_insert(0) += 1;
                Ok(Admission {
                    status: status(limits, used, month),
                })
            }
            Verdict::Refused { kind, wait, used } => {
                let wait = match kind {
                    LimitKind::MonthlyQuota => month.next_start().timestamp_micros() - t,
                    LimitKind::PerSecond | LimitKind::BatchPerMinute => wait,
                };
                Err(Rejection {
                    kind,
                    retry_after_secs: whole_seconds(wait),
                    status: status(limits, used, month),
                })
            }
        }
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
        let limiter = Gcra {
            interval: MICROS / rate,
            burst: 2 * rate,
        };
        let mut local = self.local();
        let tat = gcra(
            local.render_tat.get(&account).copied(),
            now.timestamp_micros(),
            limiter,
        )
        .map_err(whole_seconds)?;
        local.render_tat.insert(account, tat);
        Ok(())
    }

    /// Requests of `account` on `day` counted in memory and not yet flushed.
    pub fn unflushed_daily(&self, account: AccountId, day: NaiveDate) -> u64 {
        self.local()
            .daily
            .get(&(account, day))
            .copied()
            .unwrap_or(0)
    }

    /// Notes that `key` passed authentication at `at`.
    pub fn touch(&self, key: KeyId, at: DateTime<Utc>) {
        self.local().last_used.insert(key, at);
    }

    /// Takes the counters changed since the last call, and forgets counters of months before `now`'s.
    pub fn take_dirty(&self, now: DateTime<Utc>) -> DirtyCounters {
        let usage = self.state.take_dirty(UsageMonth::of(now));
        let mut local = self.local();
        let last_used = local.last_used.drain().collect();
        let mut by_day: HashMap<NaiveDate, Vec<(AccountId, u64)>> = HashMap::new();
        for ((account, day), n) in local.daily.drain() {
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
        self.state.restore_dirty(dirty.usage);
        let mut local = self.local();
        for (key, at) in dirty.last_used {
            let slot = local.last_used.entry(key).or_insert(at);
            *slot = (*slot).max(at);
        }
        for (day, counts) in dirty.daily {
            for (account, n) in counts {
                *local.daily.entry((account, day)).or_insert(0) += n;
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
