//! What changed in accounts and keys, as a store reports it (`Store::config_changes`), so that every server drops just the cached keys a change concerns, and the bounded log in which a store keeps the latest changes.

use std::collections::VecDeque;

use crate::accounts::key::KeyHash;
use crate::ids::{AccountId, KeyId};

/// One change of an account or a key, named by what a cache of keys needs to find the entries
/// it makes stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigChange {
    /// The account was created, changed (plan, limits, status, role, e-mail…) or deleted: every
    /// cached key of the account is stale.
    Account(AccountId),
    /// The key was created, changed (secret, settings…) or revoked. `hash` is the hash of its
    /// secret after the change (before it, for a revocation): an earlier "no such key" answer
    /// for that hash is stale too. The entry of a replaced secret is found by the key's id.
    Key {
        /// The key.
        id: KeyId,
        /// The hash of its secret.
        hash: KeyHash,
    },
}

/// The account and key changes after a configuration version, as far as the store can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigChanges {
    /// Every change after the version asked for, up to `version` (empty when nothing a key
    /// cache holds changed, for example only a webhook).
    Listed {
        /// The version the changes lead to.
        version: u64,
        /// The changes, oldest first; one may appear more than once.
        changes: Vec<ConfigChange>,
    },
    /// The store no longer knows what changed since the version asked for (it is older than
    /// the store's log, or notifications were missed): anything cached may be stale.
    Unknown {
        /// The current version.
        version: u64,
    },
}

impl ConfigChanges {
    /// The version these changes lead to.
    pub fn version(&self) -> u64 {
        match self {
            ConfigChanges::Listed { version, .. } | ConfigChanges::Unknown { version } => *version,
        }
    }
}

/// Most changes a [`ChangeLog`] holds by default. A server asks for the changes since its last
/// request, so it is behind by the changes of a moment (a few, or some thousands when an account
/// with thousands of keys is deleted); one that falls further behind drops its whole key cache
/// once, which costs a lookup per key then, as every change did before changes were named.
pub const CHANGE_LOG_MAX: usize = 4_096;

/// The latest changes with their configuration versions: what the in-memory store and
/// PostgreSQL's listener keep to answer `Store::config_changes`.
#[derive(Debug, Clone)]
pub struct ChangeLog {
    max: usize,
    /// Every change with a version above this one, up to `latest`, is in `entries`.
    complete_after: u64,
    latest: u64,
    entries: VecDeque<(u64, ConfigChange)>,
}

impl Default for ChangeLog {
    /// An empty log at version 0 holding [`CHANGE_LOG_MAX`] changes.
    fn default() -> Self {
        Self::new(0, CHANGE_LOG_MAX)
    }
}

impl ChangeLog {
    /// An empty log at `version`, holding at most `max` changes.
    pub fn new(version: u64, max: usize) -> Self {
        Self {
            max,
            complete_after: version,
            latest: version,
            entries: VecDeque::new(),
        }
    }

    /// The latest version recorded.
    pub fn latest(&self) -> u64 {
        self.latest
    }

    /// Records what `version` changed (possibly nothing a key cache holds). A version more than
    /// one past the latest means the versions between went unseen; one not past it was already
    /// seen and is ignored.
    pub fn record(&mut self, version: u64, changes: impl IntoIterator<Item = ConfigChange>) {
        if version <= self.latest {
            return;
        }
        if version > self.latest + 1 {
            self.skip_to(version - 1);
        }
        self.entries
            .extend(changes.into_iter().map(|c| (version, c)));
        self.latest = version;
        self.trim();
    }

    /// Records what the versions after `after` up to `version` changed, all at once: what a
    /// writer knows of its own transaction before the notifications of its versions arrive.
    /// Done only when `after` is the latest version recorded; otherwise versions before the
    /// writer's are still unseen, and the notifications will bring every one of them.
    pub fn record_span(
        &mut self,
        after: u64,
        version: u64,
        changes: impl IntoIterator<Item = ConfigChange>,
    ) {
        if after == self.latest && version > after {
            self.entries
                .extend(changes.into_iter().map(|c| (version, c)));
            self.latest = version;
            self.trim();
        }
    }

    fn trim(&mut self) {
        while self.entries.len() > self.max {
            if let Some((dropped, _)) = self.entries.pop_front() {
                self.complete_after = self.complete_after.max(dropped);
            }
        }
    }

    /// Notes that the versions up to `version` happened without their changes being known (a
    /// reconnection missed them): asking from before then answers [`ConfigChanges::Unknown`].
    pub fn skip_to(&mut self, version: u64) {
        if version > self.latest {
            self.entries.clear();
            self.complete_after = version;
            self.latest = version;
        }
    }

    /// The changes after `since`.
    pub fn since(&self, since: u64) -> ConfigChanges {
        if since < self.complete_after || since > self.latest {
            return ConfigChanges::Unknown {
                version: self.latest,
            };
        }
        ConfigChanges::Listed {
            version: self.latest,
            changes: self
                .entries
                .iter()
                .filter(|(v, _)| *v > since)
                .map(|(_, c)| *c)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(n: u128) -> ConfigChange {
        ConfigChange::Account(AccountId::from_uuid(uuid::Uuid::from_u128(n)))
    }

    fn listed(log: &ChangeLog, since: u64) -> Vec<ConfigChange> {
        match log.since(since) {
            ConfigChanges::Listed { version, changes } => {
                assert_eq!(version, log.latest());
                changes
            }
            ConfigChanges::Unknown { .. } => panic!("unknown since {since}"),
        }
    }

    #[test]
    fn lists_the_changes_after_a_version() {
        let mut log = ChangeLog::new(10, 100);
        assert_eq!(listed(&log, 10), vec![]);
        log.record(11, [account(1)]);
        log.record(12, []);
        log.record(13, [account(2), account(3)]);
        assert_eq!(listed(&log, 10), vec![account(1), account(2), account(3)]);
        assert_eq!(listed(&log, 12), vec![account(2), account(3)]);
        assert_eq!(listed(&log, 13), vec![]);
        log.record(13, [account(9)]);
        assert_eq!(listed(&log, 12), vec![account(2), account(3)], "seen");
        assert_eq!(log.since(9), ConfigChanges::Unknown { version: 13 });
        assert_eq!(log.since(14), ConfigChanges::Unknown { version: 13 });
    }

    #[test]
    fn a_gap_or_a_full_log_forgets_what_came_before() {
        let mut log = ChangeLog::new(0, 3);
        log.record(1, [account(1)]);
        log.record(4, [account(4)]);
        assert_eq!(log.since(1), ConfigChanges::Unknown { version: 4 });
        assert_eq!(listed(&log, 3), vec![account(4)]);
        log.record(5, [account(5), account(6), account(7)]);
        // Four entries for three places: version 4's went, and with it knowledge of version 4.
        assert_eq!(log.since(3), ConfigChanges::Unknown { version: 5 });
        assert_eq!(listed(&log, 4), vec![account(5), account(6), account(7)]);
        log.skip_to(9);
        assert_eq!(log.since(5), ConfigChanges::Unknown { version: 9 });
        assert_eq!(listed(&log, 9), vec![]);
    }

    #[test]
    fn a_writer_records_its_own_versions_only_after_everything_before() {
        let mut log = ChangeLog::new(5, 100);
        log.record_span(6, 8, [account(1)]);
        assert_eq!(log.latest(), 5, "version 6 is still on its way");
        log.record(6, [account(6)]);
        log.record_span(6, 8, [account(1), account(2)]);
        assert_eq!(listed(&log, 5), vec![account(6), account(1), account(2)]);
        // The writer's own notifications arrive afterwards and change nothing.
        log.record(7, [account(1)]);
        log.record(8, [account(2)]);
        assert_eq!(listed(&log, 6), vec![account(1), account(2)]);
        log.record(9, [account(9)]);
        assert_eq!(listed(&log, 8), vec![account(9)]);
    }
}
