//! Where the rate limiters and monthly counters keep their state: this process's memory, or a store every server shares.
//!
//! The rules (which limits apply, in which order, with which GCRA parameters, and what a
//! refusal tells the client) are decided by [`crate::accounts::limits::Meter`]; a [`LimitState`] only
//! applies one [`Admit`] atomically: check the monthly count, then the batch GCRA, then the
//! key's GCRA, and only when all pass advance both and count the request. [`MemoryLimits`] is
//! the default (one server); `qr-redis` keeps the same state in Redis so several servers share
//! one budget per key and account.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

use crate::accounts::limits::{LimitKind, UsageMonth};
use crate::ids::{AccountId, KeyId};

/// One generic cell rate algorithm limiter: requests are spaced `interval` microseconds apart
/// on average, and up to `burst` may arrive at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gcra {
    /// Microseconds between requests at the sustained rate.
    pub interval: i64,
    /// Requests allowed at once (at least 1).
    pub burst: i64,
}

/// Everything a [`LimitState`] needs to decide one request, computed by the domain's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admit {
    /// The time of the request, in microseconds since the Unix epoch.
    pub now: i64,
    /// The key presented.
    pub key: KeyId,
    /// The key's account.
    pub account: AccountId,
    /// The UTC month `now` falls in.
    pub month: UsageMonth,
    /// The account's monthly quota; `None` when unlimited.
    pub monthly_limit: Option<u64>,
    /// The account's batch limiter, for batch requests of plans that have one.
    pub batch: Option<Gcra>,
    /// The key's per-second limiter.
    pub rate: Gcra,
}

/// What a [`LimitState`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every limit passed: the request was counted; `used` includes it.
    Admitted {
        /// The account's count for the month after this request.
        used: u64,
    },
    /// A limit refused the request; nothing was counted or advanced.
    Refused {
        /// The limit that refused.
        kind: LimitKind,
        /// Microseconds until a retry can pass that limiter (0 for the monthly quota, whose
        /// wait the rules compute from the month's end).
        wait: i64,
        /// The account's count for the month, unchanged.
        used: u64,
    },
}

/// Usage counts per month, each with the accounts whose count changed and their new count.
pub type MonthCounts = Vec<(crate::accounts::limits::UsageMonth, Vec<(AccountId, u64)>)>;

/// The state behind the limiters and counters. Implementations are atomic per [`Admit`]: two
/// requests racing (on two threads or two servers) never both take the last unit of a budget.
pub trait LimitState: Send + Sync + 'static {
    /// Applies the monthly quota, then the batch limiter (when given), then the key's limiter;
    /// only when all pass are both limiters advanced and the request counted.
    fn admit(&self, admit: &Admit) -> Verdict;

    /// Requests counted for `account` in `month`.
    fn used(&self, account: AccountId, month: UsageMonth) -> u64;

    /// Counts of `month` read from the store at start; they never lower a count in force.
    fn load(&self, month: UsageMonth, counts: &[(AccountId, u64)]);

    /// The counts that changed since the last call, to be saved in the store; counts of months
    /// before `current` are forgotten once taken.
    fn take_dirty(&self, current: UsageMonth) -> MonthCounts;

    /// Gives back counts whose saving failed, so the next flush saves them.
    fn restore_dirty(&self, counts: MonthCounts);
}

/// GCRA: the new theoretical arrival time if a request at `now` passes, else the wait in
/// microseconds until one would.
pub fn gcra(tat: Option<i64>, now: i64, limiter: Gcra) -> Result<i64, i64> {
    let tolerance = limiter.interval.saturating_mul(limiter.burst - 1);
    let tat = tat.unwrap_or(now).max(now);
    if tat - now > tolerance {
        Err(tat - tolerance - now)
    } else {
        Ok(tat.saturating_add(limiter.interval))
    }
}

/// The limiters and counters of one process, in memory: the default for one server.
#[derive(Debug, Default)]
pub struct MemoryLimits {
    state: Mutex<MemoryState>,
}

#[derive(Debug, Default)]
struct MemoryState {
    key_tat: HashMap<KeyId, i64>,
    batch_tat: HashMap<AccountId, i64>,
    usage: HashMap<(AccountId, UsageMonth), u64>,
    dirty: HashSet<(AccountId, UsageMonth)>,
}

impl MemoryLimits {
    /// Empty limiters and counters.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `delta` requests to a count without any limiter (requests another state admitted
    /// while this one stood in for it); returns the new count.
    pub fn add(&self, account: AccountId, month: UsageMonth, delta: u64) -> u64 {
        let mut s = self.lock();
        let slot = s.usage.entry((account, month)).or_insert(0);
        *slot += delta;
        let used = *slot;
        s.dirty.insert((account, month));
        used
    }

    /// Forgets every limiter position (counts stay): the next requests start with a full burst.
    pub fn reset_limiters(&self) {
        let mut s = self.lock();
        s.key_tat.clear();
        s.batch_tat.clear();
    }
}

impl LimitState for MemoryLimits {
    fn admit(&self, admit: &Admit) -> Verdict {
        let mut s = self.lock();
        let used = s
            .usage
            .get(&(admit.account, admit.month))
            .copied()
            .unwrap_or(0);
        let refuse = |kind, wait| Verdict::Refused { kind, wait, used };
        if admit.monthly_limit.is_some_and(|max| used >= max) {
            return refuse(LimitKind::MonthlyQuota, 0);
        }
        let batch_tat = match admit.batch {
            Some(limiter) => {
                match gcra(s.batch_tat.get(&admit.account).copied(), admit.now, limiter) {
                    Ok(tat) => Some(tat),
                    Err(wait) => return refuse(LimitKind::BatchPerMinute, wait),
                }
            }
            None => None,
        };
        let key_tat = match gcra(s.key_tat.get(&admit.key).copied(), admit.now, admit.rate) {
            Ok(tat) => tat,
            Err(wait) => return refuse(LimitKind::PerSecond, wait),
        };
        s.key_tat.insert(admit.key, key_tat);
        if let Some(tat) = batch_tat {
            s.batch_tat.insert(admit.account, tat);
        }
        let used = used + 1;
        s.usage.insert((admit.account, admit.month), used);
        s.dirty.insert((admit.account, admit.month));
        Verdict::Admitted { used }
    }

    fn used(&self, account: AccountId, month: UsageMonth) -> u64 {
        self.lock()
            .usage
            .get(&(account, month))
            .copied()
            .unwrap_or(0)
    }

    fn load(&self, month: UsageMonth, counts: &[(AccountId, u64)]) {
        let mut s = self.lock();
        for (account, count) in counts {
            let slot = s.usage.entry((*account, month)).or_insert(0);
            *slot = (*slot).max(*count);
        }
    }

    fn take_dirty(&self, current: UsageMonth) -> MonthCounts {
        let mut s = self.lock();
        let dirty: Vec<(AccountId, UsageMonth)> = s.dirty.drain().collect();
        let mut by_month: HashMap<UsageMonth, Vec<(AccountId, u64)>> = HashMap::new();
        for (account, month) in dirty {
            let count = s.usage.get(&(account, month)).copied().unwrap_or(0);
            by_month.entry(month).or_default().push((account, count));
        }
        s.usage.retain(|(_, month), _| *month >= current);
        let mut usage: Vec<_> = by_month.into_iter().collect();
        usage.sort_by_key(|(m, _)| *m);
        usage
    }

    fn restore_dirty(&self, counts: MonthCounts) {
        let mut s = self.lock();
        for (month, counts) in counts {
            for (account, count) in counts {
                let slot = s.usage.entry((account, month)).or_insert(0);
                *slot = (*slot).max(count);
                s.dirty.insert((account, month));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MICROS: i64 = 1_000_000;

    #[test]
    fn gcra_allows_one_seconds_burst_then_spaces_requests() {
        let rate = 4;
        let limiter = Gcra {
            interval: MICROS / rate,
            burst: rate,
        };
        let mut tat = None;
        for _ in 0..rate {
            tat = Some(gcra(tat, 0, limiter).unwrap());
        }
        assert_eq!(gcra(tat, 0, limiter), Err(limiter.interval));
        assert_eq!(gcra(tat, limiter.interval - 1, limiter), Err(1));
        assert!(gcra(tat, limiter.interval, limiter).is_ok());
    }

    #[test]
    fn a_refusal_counts_nothing_and_added_requests_count() {
        let state = MemoryLimits::new();
        let month = UsageMonth::new(2024, 5).unwrap();
        let admit = Admit {
            now: 0,
            key: KeyId::random(),
            account: AccountId::random(),
            month,
            monthly_limit: Some(2),
            batch: None,
            rate: Gcra {
                interval: MICROS,
                burst: 1,
            },
        };
        assert_eq!(state.admit(&admit), Verdict::Admitted { used: 1 });
        assert_eq!(
            state.admit(&admit),
            Verdict::Refused {
                kind: LimitKind::PerSecond,
                wait: MICROS,
                used: 1
            }
        );
        assert_eq!(state.add(admit.account, month, 1), 2);
        let later = Admit {
            now: 5 * MICROS,
            ..admit
        };
        assert!(matches!(
            state.admit(&later),
            Verdict::Refused {
                kind: LimitKind::MonthlyQuota,
                used: 2,
                ..
            }
        ));
        assert_eq!(
            state.take_dirty(month),
            vec![(month, vec![(admit.account, 2)])]
        );
    }
}
