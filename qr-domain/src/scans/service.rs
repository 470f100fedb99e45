//! Scans: turning a visit into a storable scan (bots excluded, the IP used only in memory), the daily visitor salt, and queueing to the writer.

use std::net::IpAddr;

use chrono::{DateTime, Days, NaiveDate, Utc};
use thiserror::Error;

use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::ScanId;
use crate::links::link::Link;
use crate::random::{self, RandomError};
use crate::scans::geo::{GeoHint, Location};
use crate::scans::scan::{
    NewScan, ScanFate, UserAgentInfo, classify_user_agent, clean_referrer, visitor_id,
};
use crate::scans::writer::{Queued, ScanAck};
use crate::service::Service;
use crate::store::Store;

/// Errors of scan recording.
#[derive(Debug, Clone, Error)]
pub enum ScanError {
    /// Drawing the daily salt failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store or the writer failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A visit to `/r/<shortCode>` as the HTTP layer sees it.
#[derive(Debug, Clone, Default)]
pub struct Visit {
    /// The client address (used in memory only, for geolocation and the visitor id).
    pub ip: Option<IpAddr>,
    /// The User-Agent header.
    pub user_agent: Option<String>,
    /// The Referer header.
    pub referer: Option<String>,
    /// Location hints from trusted proxies.
    pub hint: GeoHint,
}

/// At most this many scans of one visitor (the daily-salted hash of address, User-Agent and
/// link) are counted per link and minute; further visits are redirected but not recorded.
///
/// One person rescanning a poster counts a few times at most; a client replaying the code
/// thousands of times a second counts ten times a minute. People behind one carrier NAT with the
/// same phone and browser share a visitor hash, so a crowd scanning together may be undercounted
/// beyond ten a minute: the price of a bound that needs no identity.
pub const MAX_SCANS_PER_VISITOR_MINUTE: u32 = 10;

/// What a visit becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreparedScan {
    /// A scan to store.
    Record(NewScan),
    /// Redirected but not recorded, and why.
    Skip(Skip),
}

/// Why a visit is redirected without being recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// A bot, crawler, link previewer or HTTP library ([`crate::scans::bots::BOT_TOKENS`]).
    Bot,
    /// The visitor already had [`MAX_SCANS_PER_VISITOR_MINUTE`] scans of this link this minute.
    Repeat,
    /// The store is read-only (a database on a read-only file system).
    ReadOnly,
}

/// What a campaign link's visit picked, for its scan.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pick {
    /// The visitor's location, when the rules already looked it up.
    pub(crate) location: Option<Location>,
    /// The variant the visit was sent to.
    pub(crate) variant: Option<u8>,
    /// The rule that decided the target.
    pub(crate) rule: Option<u8>,
    /// The visitor id, when the variant split already computed it (one SHA-256 per visit).
    pub(crate) visitor: Option<[u8; 16]>,
}

/// What happened to a visit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanOutcome {
    /// The scan was committed.
    Recorded(ScanId),
    /// Redirected but not recorded.
    Skipped(Skip),
    /// The link was deleted before the scan could be stored.
    LinkGone,
    /// The link had reached its `maxScans` when the scan was stored (recorded elsewhere since
    /// this server last read it): nothing stored, the visit is answered as expired.
    OverCap,
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Turns a visit into a storable scan, or says why it is not recorded.
    pub fn prepare_scan(&self, link: &Link, visit: &Visit) -> Result<PreparedScan, ScanError> {
        let ua = match self.classify(visit) {
            Ok(ua) => ua,
            Err(skip) => return Ok(PreparedScan::Skip(skip)),
        };
        let at = self.clock.now();
        let salt = self.salt_for(at.date_naive())?;
        Ok(self.within_budget(self.build_scan(link, visit, ua, at, &salt, Pick::default())))
    }

    /// [`Service::prepare_scan`] without touching the store: `None` when the day's visitor salt
    /// is not in memory yet (the first scan of a day creates it with a write).
    pub fn prepare_scan_in_memory(&self, link: &Link, visit: &Visit) -> Option<PreparedScan> {
        let ua = match self.classify(visit) {
            Ok(ua) => ua,
            Err(skip) => return Some(PreparedScan::Skip(skip)),
        };
        let at = self.clock.now();
        let salt = self.salts.get(&at.date_naive())?;
        Some(self.within_budget(self.build_scan(link, visit, ua, at, &salt, Pick::default())))
    }

    /// The visitor's agent, or why the visit is not recorded whoever made it.
    pub(crate) fn classify(&self, visit: &Visit) -> Result<UserAgentInfo, Skip> {
        self.admit_agent(classify_user_agent(visit.user_agent.as_deref()))
    }

    /// An agent already classified, or why its visit is not recorded.
    pub(crate) fn admit_agent(&self, ua: UserAgentInfo) -> Result<UserAgentInfo, Skip> {
        if self.read_only() {
            return Err(Skip::ReadOnly);
        }
        if ua.is_bot {
            return Err(Skip::Bot);
        }
        Ok(ua)
    }

    /// The scan, unless its visitor already used this minute's budget for the link.
    pub(crate) fn within_budget(&self, scan: NewScan) -> PreparedScan {
        let minute = scan.at.timestamp().div_euclid(60);
        let counted = self.visitors.update(scan.visitor, |seen| match seen {
            Some(&(m, n)) if m == minute => {
                ((m, n.saturating_add(1)), n < MAX_SCANS_PER_VISITOR_MINUTE)
            }
            _ => ((minute, 1), true),
        });
        if counted {
            PreparedScan::Record(scan)
        } else {
            PreparedScan::Skip(Skip::Repeat)
        }
    }

    /// The scan of a visit; `pick` says which rule or variant it was sent to, and its location
    /// when already looked up.
    pub(crate) fn build_scan(
        &self,
        link: &Link,
        visit: &Visit,
        ua: UserAgentInfo,
        at: DateTime<Utc>,
        salt: &[u8; 32],
        pick: Pick,
    ) -> NewScan {
        let location = pick.location.unwrap_or_else(|| self.locate(visit));
        NewScan {
            link_id: link.id,
            at,
            visitor: pick.visitor.unwrap_or_else(|| {
                visitor_id(salt, visit.ip, visit.user_agent.as_deref(), link.id)
            }),
            country: location.country,
            city: location.city,
            device: ua.device,
            browser: ua.browser,
            os: ua.os,
            referrer: clean_referrer(visit.referer.as_deref()),
            variant: pick.variant,
            rule: pick.rule,
            max_scans: link.options.get().and_then(|o| o.max_scans),
        }
    }

    /// Where the visitor's address is (with the proxies' hints).
    pub(crate) fn locate(&self, visit: &Visit) -> Location {
        visit
            .ip
            .map_or_else(Location::unknown, |ip| self.geo.locate(ip))
            .with_hint(&visit.hint)
    }

    /// Records a visit and waits until it is committed (group commit with concurrent visits).
    pub fn record_scan(&self, link: &Link, visit: &Visit) -> Result<ScanOutcome, ScanError> {
        let prepared = self.prepare_scan(link, visit)?;
        self.record_prepared(prepared)
    }

    /// Stores a prepared scan and waits until it is committed; a skip is reported as such.
    pub fn record_prepared(&self, prepared: PreparedScan) -> Result<ScanOutcome, ScanError> {
        let scan = match prepared {
            PreparedScan::Record(scan) => scan,
            PreparedScan::Skip(skip) => return Ok(ScanOutcome::Skipped(skip)),
        };
        Ok(match self.writer.record(scan)? {
            ScanFate::Stored(id) => ScanOutcome::Recorded(id),
            ScanFate::LinkGone => ScanOutcome::LinkGone,
            ScanFate::OverCap => ScanOutcome::OverCap,
        })
    }

    /// Queues a prepared scan; `ack` runs after its commit (for async callers). Blocks while
    /// the writer's queue is full.
    pub fn submit_scan(&self, scan: NewScan, ack: ScanAck) -> Result<(), StoreError> {
        self.writer.submit(scan, ack)
    }

    /// Queues a prepared scan without blocking: hands it back when the writer's queue is full.
    pub fn try_submit_scan(&self, scan: NewScan, ack: ScanAck) -> Result<Queued, StoreError> {
        self.writer.try_submit(scan, ack)
    }

    /// The salt of `day`, creating it if needed; creating today's salt destroys salts and
    /// visitor ids older than yesterday. Two first scans of a day racing here both write, and
    /// the store keeps the first salt for both.
    pub(crate) fn salt_for(&self, day: NaiveDate) -> Result<[u8; 32], ScanError> {
        if let Some(salt) = self.salts.get(&day) {
            return Ok(salt);
        }
        let candidate: [u8; 32] = random::bytes()?;
        let keep_from = day.checked_sub_days(Days::new(1)).unwrap_or(day);
        let salt = self.store.write(|tx| {
            let salt = tx.put_salt(day, candidate)?;
            tx.forget_visitors_before(keep_from)?;
            Ok::<_, StoreError>(salt)
        })?;
        self.salts.forget(|d, _| *d < keep_from);
        self.salts.insert(day, salt);
        Ok(salt)
    }
}
