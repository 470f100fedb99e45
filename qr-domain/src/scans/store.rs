//! The storage traits of scans: their daily visitor salts, the scans themselves and their daily rollups (scan batches are written by [`crate::store::Store::record_scans`]).

use chrono::{DateTime, NaiveDate, Utc};

use crate::error::StoreError;
use crate::ids::{AccountId, LinkId};
use crate::scans::analytics::StatsRows;
use crate::scans::scan::ScanRecord;

/// Scan reads, available in every transaction.
pub trait ScanReads {
    /// The visitor salt of a UTC day, if one exists and has not been destroyed.
    fn salt(&self, day: NaiveDate) -> Result<Option<[u8; 32]>, StoreError>;
    /// Statistics of a link over whole days `first..=last`, from the daily rollups.
    fn rollup_stats(
        &self,
        link: LinkId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<StatsRows, StoreError>;
    /// Statistics of a link over the instants `from..=to` (within one day), from the scans themselves.
    fn raw_stats(
        &self,
        link: LinkId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<StatsRows, StoreError>;
    /// The newest scans of a link in `from..=to`, newest first, at most `limit`.
    fn recent_scans(
        &self,
        link: LinkId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ScanRecord>, StoreError>;
}

/// Scan writes, available in write transactions.
pub trait ScanWrites {
    /// Stores the salt of a day unless one exists; returns the salt in force.
    fn put_salt(&mut self, day: NaiveDate, salt: [u8; 32]) -> Result<[u8; 32], StoreError>;
    /// Destroys salts and visitor ids of days before `day`.
    fn forget_visitors_before(&mut self, day: NaiveDate) -> Result<(), StoreError>;
    /// Deletes scans and rollups of `account`'s links on days before `day`; returns the scans deleted.
    fn prune_scans(&mut self, account: AccountId, day: NaiveDate) -> Result<u64, StoreError>;

    /// Makes room for the scans of days `first..=last` before they arrive: PostgreSQL creates
    /// those days' partitions of scans and visitors. A store keeping every day in one table
    /// has nothing to prepare.
    fn prepare_scan_days(&mut self, first: NaiveDate, last: NaiveDate) -> Result<(), StoreError>;
    /// Deletes the scans of every day before `day` on which no link of an account in `keep`
    /// has a scan, a whole day at once; returns the scans deleted. Rollups are left to
    /// [`ScanWrites::prune_scans`].
    ///
    /// Every scan this deletes is one `prune_scans` would delete for its account (the caller
    /// passes a `day` no account outside `keep` may still read), so a store keeping every day
    /// in one table, where deleting a day costs its rows either way, may delete nothing here;
    /// PostgreSQL drops the day's partition, at the cost of a day instead of its rows.
    fn drop_scan_days_before(
        &mut self,
        day: NaiveDate,
        keep: &[AccountId],
    ) -> Result<u64, StoreError>;
}
