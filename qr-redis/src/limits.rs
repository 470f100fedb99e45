//! `RedisLimits`: the limit state in Redis, with this server's memory standing in while Redis cannot be reached.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use qr_domain::accounts::limit_state::{Admit, LimitState, MemoryLimits, MonthCounts, Verdict};
use qr_domain::accounts::limits::{LimitKind, UsageMonth};
use qr_domain::{AccountId, KeyId};
use redis::{Client, Connection, RedisError};
use thiserror::Error;

use crate::scripts::Scripts;

/// Connections kept open: admissions from this many request threads go to Redis at once.
const CONNECTIONS: usize = 4;
/// Longest wait for Redis before the request falls back to this server's limiters. A loopback
/// round trip takes about 50 µs; a quarter second means Redis is down or stalled.
const TIMEOUT: Duration = Duration::from_millis(250);
/// How often a server without Redis tries to reach it again.
const RETRY: Duration = Duration::from_millis(250);
/// How often the outage is logged again while it lasts.
const REMIND: Duration = Duration::from_secs(30);
/// How long a monthly count lives in Redis after it is created: past the month's end and any
/// flush of it.
const COUNT_TTL_MS: u64 = 62 * 24 * 3600 * 1000;

/// Why Redis limits could not be set up.
#[derive(Debug, Error)]
pub enum OpenError {
    /// The URL is not a Redis URL.
    #[error("invalid Redis URL {url}: {source}")]
    InvalidUrl {
        /// The URL given.
        url: String,
        /// The client's error.
        #[source]
        source: RedisError,
    },
    /// The thread that reconnects could not start.
    #[error("cannot start the Redis reconnection thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// Limiters and counters in Redis, shared by every server configured with the same Redis.
pub struct RedisLimits {
    shared: Arc<Shared>,
    reconnect: Option<JoinHandle<()>>,
}

struct Shared {
    url: String,
    client: Client,
    scripts: Scripts,
    connections: Vec<Mutex<Option<Connection>>>,
    next: AtomicUsize,
    /// Whether Redis answered the last request; when false, the fallback decides.
    up: AtomicBool,
    stop: AtomicBool,
    counts: Mutex<Counts>,
    outage: Mutex<Outage>,
}

/// What this server knows of the monthly counts.
#[derive(Default)]
struct Counts {
    /// The latest count seen for each account and month: loaded from the store, answered by
    /// Redis, or counted here during an outage. A missing Redis count starts from it.
    known: HashMap<(AccountId, UsageMonth), u64>,
    /// Counts changed since the last flush.
    dirty: HashSet<(AccountId, UsageMonth)>,
}

/// The stand-in while Redis is away.
struct Outage {
    /// This server's limiters.
    fallback: MemoryLimits,
    /// Requests admitted here meanwhile, to add to Redis when it returns.
    pending: HashMap<(AccountId, UsageMonth), u64>,
    /// When the outage was last logged.
    logged: Option<Instant>,
}

impl RedisLimits {
    /// Limits in the Redis at `url` (`redis://host:port/`, `rediss://` for TLS is not built
    /// in). An unreachable Redis is not an error: the server starts on its own limiters, logs
    /// it, and switches to Redis once it answers.
    pub fn open(url: &str) -> Result<RedisLimits, OpenError> {
        let client = Client::open(url).map_err(|source| OpenError::InvalidUrl {
            url: url.to_owned(),
            source,
        })?;
        let shared = Arc::new(Shared {
            url: url.to_owned(),
            client,
            scripts: Scripts::new(),
            connections: (0..CONNECTIONS).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            up: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            counts: Mutex::new(Counts::default()),
            outage: Mutex::new(Outage {
                fallback: MemoryLimits::new(),
                pending: HashMap::new(),
                logged: None,
            }),
        });
        if let Err(e) = shared.recover() {
            shared.report_outage(&e);
        }
        let for_thread = Arc::clone(&shared);
        let reconnect = std::thread::Builder::new()
            .name("qr-redis-reconnect".to_owned())
            .spawn(move || {
                while !for_thread.stop.load(Ordering::Acquire) {
                    std::thread::sleep(RETRY);
                    if !for_thread.up.load(Ordering::Acquire)
                        && let Err(e) = for_thread.recover()
                    {
                        for_thread.report_outage(&e);
                    }
                }
            })?;
        Ok(RedisLimits {
            shared,
            reconnect: Some(reconnect),
        })
    }

    /// Whether Redis is in use right now (false while this server counts on its own).
    pub fn is_shared(&self) -> bool {
        self.shared.up.load(Ordering::Acquire)
    }
}

impl Drop for RedisLimits {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(thread) = self.reconnect.take() {
            // The thread sleeps at most `RETRY` between checks of the flag and never panics.
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for RedisLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLimits")
            .field("url", &self.shared.url)
            .field("shared", &self.is_shared())
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The Redis keys of an account: one hash tag, so a script touching them runs on one node.
fn count_key(account: AccountId, month: UsageMonth) -> String {
    format!("qr:{{{account}}}:usage:{}", month.index())
}

fn batch_key(account: AccountId) -> String {
    format!("qr:{{{account}}}:batch")
}

fn rate_key(account: AccountId, key: KeyId) -> String {
    format!("qr:{{{account}}}:key:{key}")
}

impl Shared {
    /// Runs `f` on a Redis connection (opened if needed); a failed connection is dropped.
    fn with_connection<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, RedisError>,
    ) -> Result<T, RedisError> {
        let n = self.connections.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let mut slot = (0..n)
            .find_map(|i| match self.connections[(start + i) % n].try_lock() {
                Ok(guard) => Some(guard),
                Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(TryLockError::WouldBlock) => None,
            })
            .unwrap_or_else(|| lock(&self.connections[start % n]));
        if slot.is_none() {
            let connection = self.client.get_connection_with_timeout(TIMEOUT)?;
            connection.set_read_timeout(Some(TIMEOUT))?;
            connection.set_write_timeout(Some(TIMEOUT))?;
            *slot = Some(connection);
        }
        let Some(connection) = slot.as_mut() else {
            unreachable!("the slot was filled above");
        };
        let result = f(connection);
        if result.is_err() {
            // A timed-out reply may still arrive: never reuse the connection.
            *slot = None;
        }
        result
    }

    /// The count a missing Redis count should start from.
    fn known(&self, account: AccountId, month: UsageMonth) -> u64 {
        lock(&self.counts)
            .known
            .get(&(account, month))
            .copied()
            .unwrap_or(0)
    }

    /// Notes a count seen; counts only grow.
    fn saw(&self, account: AccountId, month: UsageMonth, used: u64, changed: bool) {
        let mut counts = lock(&self.counts);
        let slot = counts.known.entry((account, month)).or_insert(0);
        *slot = (*slot).max(used);
        if changed {
            counts.dirty.insert((account, month));
        }
    }

    /// One admission in Redis.
    fn admit_shared(&self, admit: &Admit) -> Result<Verdict, RedisError> {
        let floor = self.known(admit.account, admit.month);
        let (batch_interval, batch_burst) = admit.batch.map_or((0, 0), |b| (b.interval, b.burst));
        let reply: (i64, i64, u64) = self.with_connection(|c| {
            self.scripts
                .admit
                .key(count_key(admit.account, admit.month))
                .key(batch_key(admit.account))
                .key(rate_key(admit.account, admit.key))
                .arg(admit.now)
                .arg(
                    admit
                        .monthly_limit
                        .map_or(-1, |m| i64::try_from(m).unwrap_or(i64::MAX)),
                )
                .arg(floor)
                .arg(batch_interval)
                .arg(batch_burst)
                .arg(admit.rate.interval)
                .arg(admit.rate.burst)
                .arg(COUNT_TTL_MS)
                .invoke(c)
        })?;
        let (verdict, wait, used) = reply;
        let kind = match verdict {
            0 => {
                self.saw(admit.account, admit.month, used, true);
                return Ok(Verdict::Admitted { used });
            }
            1 => LimitKind::MonthlyQuota,
            2 => LimitKind::BatchPerMinute,
            _ => LimitKind::PerSecond,
        };
        self.saw(admit.account, admit.month, used, false);
        Ok(Verdict::Refused { kind, wait, used })
    }

    /// One admission by this server's own limiters, counted for Redis later.
    fn admit_alone(&self, admit: &Admit, outage: &mut Outage) -> Verdict {
        let known = self.known(admit.account, admit.month);
        outage.fallback.load(admit.month, &[(admit.account, known)]);
        let verdict = outage.fallback.admit(admit);
        if let Verdict::Admitted { used } = verdict {
            *outage
                .pending
                .entry((admit.account, admit.month))
                .or_insert(0) += 1;
            self.saw(admit.account, admit.month, used, true);
        }
        verdict
    }

    /// Reaches Redis again: adds the requests counted meanwhile, then lets requests use it.
    fn recover(&self) -> Result<(), RedisError> {
        // Asked before taking the lock: requests counting on their own must not wait for it.
        self.with_connection(|c| redis::cmd("PING").query::<String>(c))?;
        let mut outage = lock(&self.outage);
        let pending: Vec<((AccountId, UsageMonth), u64)> = outage.pending.drain().collect();
        let added: u64 = pending.iter().map(|(_, n)| n).sum();
        for (i, ((account, month), n)) in pending.iter().enumerate() {
            let floor = self.known(*account, *month).saturating_sub(*n);
            let pushed = self.with_connection(|c| {
                self.scripts
                    .add
                    .key(count_key(*account, *month))
                    .arg(floor)
                    .arg(*n)
                    .arg(COUNT_TTL_MS)
                    .invoke::<u64>(c)
            });
            match pushed {
                Ok(used) => self.saw(*account, *month, used, true),
                Err(e) => {
                    // Keep what was not added for the next attempt.
                    outage.pending.extend(pending[i..].iter().copied());
                    return Err(e);
                }
            }
        }
        outage.fallback.reset_limiters();
        let was_down = outage.logged.take().is_some();
        self.up.store(true, Ordering::Release);
        if was_down {
            tracing::warn!(
                redis = %self.url,
                requests_added = added,
                "Redis answers again: rate limits and quotas are shared by every server again; the requests counted on this server meanwhile were added"
            );
        }
        Ok(())
    }

    /// Switches to this server's limiters and says so, loudly, once and then every `REMIND`.
    fn report_outage(&self, error: &RedisError) {
        self.up.store(false, Ordering::Release);
        let mut outage = lock(&self.outage);
        if outage.logged.is_none_or(|at| at.elapsed() >= REMIND) {
            outage.logged = Some(Instant::now());
            tracing::error!(
                redis = %self.url,
                %error,
                "Redis cannot be reached: rate limits and quotas fail open to this server's own limiters (each server allows the full rate) until it answers; requests are still counted and added to Redis when it returns"
            );
        }
    }
}

impl LimitState for RedisLimits {
    fn admit(&self, admit: &Admit) -> Verdict {
        let shared = &self.shared;
        if shared.up.load(Ordering::Acquire) {
            match shared.admit_shared(admit) {
                Ok(verdict) => return verdict,
                Err(e) => shared.report_outage(&e),
            }
        }
        let mut outage = lock(&shared.outage);
        if shared.up.load(Ordering::Acquire) {
            // Redis came back while this request waited for the lock.
            drop(outage);
            return self.admit(admit);
        }
        shared.admit_alone(admit, &mut outage)
    }

    fn used(&self, account: AccountId, month: UsageMonth) -> u64 {
        let shared = &self.shared;
        if shared.up.load(Ordering::Acquire) {
            let read = shared.with_connection(|c| {
                redis::cmd("GET")
                    .arg(count_key(account, month))
                    .query::<Option<u64>>(c)
            });
            match read {
                Ok(Some(used)) => shared.saw(account, month, used, false),
                Ok(None) => {}
                Err(e) => shared.report_outage(&e),
            }
        }
        shared.known(account, month)
    }

    fn load(&self, month: UsageMonth, counts: &[(AccountId, u64)]) {
        for (account, count) in counts {
            self.shared.saw(*account, month, *count, false);
        }
    }

    fn take_dirty(&self, current: UsageMonth) -> MonthCounts {
        let mut counts = lock(&self.shared.counts);
        let dirty: Vec<(AccountId, UsageMonth)> = counts.dirty.drain().collect();
        let mut by_month: HashMap<UsageMonth, Vec<(AccountId, u64)>> = HashMap::new();
        for (account, month) in dirty {
            let count = counts.known.get(&(account, month)).copied().unwrap_or(0);
            by_month.entry(month).or_default().push((account, count));
        }
        counts.known.retain(|(_, month), _| *month >= current);
        let mut usage: Vec<_> = by_month.into_iter().collect();
        usage.sort_by_key(|(m, _)| *m);
        usage
    }

    fn restore_dirty(&self, counts: MonthCounts) {
        for (month, counts) in counts {
            for (account, count) in counts {
                self.shared.saw(account, month, count, true);
            }
        }
    }
}
