//! `BoundedCache`: the one in-memory cache type behind the service's key, link, rollup and salt caches.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A map of at most `max` entries behind a mutex; when full it starts over (empties itself)
/// rather than tracking which entry to evict, since every cached value can be read again.
///
/// Two optional checks keep it from answering with stale values:
/// - a value read from the store is inserted with [`BoundedCache::insert_since`] and the
///   [`Generation`] noted before the read, so it is dropped if entries were forgotten meanwhile
///   (a change made here raced with the read);
/// - [`BoundedCache::read_at_version`] ties the entries to a version of their source (the
///   store's config version): at a different version, the entries the source's changes made
///   stale are forgotten first (all of them when the source cannot say which).
pub(crate) struct BoundedCache<K, V> {
    max: usize,
    state: Mutex<State<K, V>>,
}

struct State<K, V> {
    /// Moves on whenever entries are forgotten or dropped for a new version.
    generation: u64,
    /// The source version the entries belong to, for versioned caches.
    version: Option<u64>,
    entries: HashMap<K, V>,
}

/// Which entries a new version of the source made stale.
pub(crate) enum Stale<F> {
    /// None: nothing the cache holds changed.
    None,
    /// Every entry: the source cannot say which.
    All,
    /// The entries for which the function holds.
    Those(F),
}

/// Tells the entries a change made stale.
pub(crate) trait Staleness<K, V> {
    /// Whether the entry of `key` is stale.
    fn is_stale(&mut self, key: &K, value: &V) -> bool;
}

impl<K, V, F: FnMut(&K, &V) -> bool> Staleness<K, V> for F {
    fn is_stale(&mut self, key: &K, value: &V) -> bool {
        self(key, value)
    }
}

/// A point in a cache's history, noted before a store read (see [`BoundedCache::insert_since`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Generation(u64);

impl<K: Eq + Hash, V> BoundedCache<K, V> {
    /// An empty cache holding at most `max` entries.
    pub(crate) fn new(max: usize) -> Self {
        Self {
            max,
            state: Mutex::new(State {
                generation: 0,
                version: None,
                entries: HashMap::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<K, V>> {
        // A panic while holding the lock cannot leave the map half-changed in a way that
        // matters: every entry is a complete value that could be read again.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What `read` makes of the entry of `key`: `None` when there is no entry or `read` gives
    /// none. (One `Option`, not two: on the redirect path moving a link through a nested
    /// `Option` cost 10 ns of its 100.)
    pub(crate) fn read<R>(&self, key: &K, read: impl FnOnce(&V) -> Option<R>) -> Option<R> {
        let state = self.lock();
        read(state.entries.get(key)?)
    }

    /// A copy of the entry of `key`, if there is one.
    pub(crate) fn get(&self, key: &K) -> Option<V>
    where
        V: Clone,
    {
        self.read(key, |value| Some(value.clone()))
    }

    /// [`BoundedCache::read`] for entries of the source's `version`. When the entries belong
    /// to another version, `changed_since` (given theirs) answers the version its changes lead
    /// to and which entries they made stale, and those are forgotten first; reads begun before
    /// are then not inserted. Also returns the generation, for inserting what a store read
    /// finds. The source is asked under the cache's lock, so racing readers ask once and none
    /// reads an entry a change it has seen made stale.
    pub(crate) fn read_at_version<R, E, F>(
        &self,
        version: u64,
        key: &K,
        read: impl FnOnce(&V) -> R,
        changed_since: impl FnOnce(u64) -> Result<(u64, Stale<F>), E>,
    ) -> Result<(Generation, Option<R>), E>
    where
        F: Staleness<K, V>,
    {
        let mut state = self.lock();
        if state.version != Some(version) {
            let (reached, stale) = match state.version {
                Some(since) => changed_since(since)?,
                None => (version, Stale::All),
            };
            match stale {
                Stale::None => {}
                Stale::All => state.entries.clear(),
                Stale::Those(mut stale) => state.entries.retain(|k, v| !stale.is_stale(k, v)),
            }
            state.version = Some(reached);
            state.generation += 1;
        }
        Ok((
            Generation(state.generation),
            state.entries.get(key).map(read),
        ))
    }

    /// How many entries the cache holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// The current generation; note it before reading what will be inserted.
    pub(crate) fn generation(&self) -> Generation {
        Generation(self.lock().generation)
    }

    /// Inserts `value`, emptying the cache first when it is full.
    pub(crate) fn insert(&self, key: K, value: V) {
        let mut state = self.lock();
        Self::put(&mut state, self.max, key, value);
    }

    /// Inserts a value read after `seen`, unless entries were forgotten since.
    pub(crate) fn insert_since(&self, seen: Generation, key: K, value: V) {
        let mut state = self.lock();
        if state.generation == seen.0 {
            Self::put(&mut state, self.max, key, value);
        }
    }

    /// Removes the entry of `key` after a read (begun at `seen`) found nothing, unless entries
    /// were forgotten since.
    pub(crate) fn remove_since(&self, seen: Generation, key: &K) {
        let mut state = self.lock();
        if state.generation == seen.0 {
            state.entries.remove(key);
        }
    }

    /// Changes the entry of `key` in place, if there is one.
    pub(crate) fn modify(&self, key: &K, change: impl FnOnce(&mut V)) {
        if let Some(value) = self.lock().entries.get_mut(key) {
            change(value);
        }
    }

    /// Replaces the entry of `key` by what `change` makes of it (`None`: no entry yet), under
    /// one lock, and returns `change`'s answer.
    pub(crate) fn update<R>(&self, key: K, change: impl FnOnce(Option<&V>) -> (V, R)) -> R {
        let mut state = self.lock();
        let (value, answer) = change(state.entries.get(&key));
        Self::put(&mut state, self.max, key, value);
        answer
    }

    /// Forgets the entries for which `stale` holds; reads begun before are not inserted.
    pub(crate) fn forget(&self, mut stale: impl FnMut(&K, &V) -> bool) {
        let mut state = self.lock();
        state.generation += 1;
        state.entries.retain(|k, v| !stale(k, v));
    }

    fn put(state: &mut State<K, V>, max: usize, key: K, value: V) {
        if state.entries.len() >= max && !state.entries.contains_key(&key) {
            state.entries.clear();
        }
        state.entries.insert(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_over_when_full() {
        let cache = BoundedCache::new(2);
        cache.insert(1, "a");
        cache.insert(2, "b");
        cache.insert(2, "B");
        assert_eq!(cache.get(&1), Some("a"), "replacing is not growing");
        cache.insert(3, "c");
        assert_eq!(cache.get(&1), None);
        assert_eq!(cache.get(&2), None);
        assert_eq!(cache.get(&3), Some("c"));
    }

    #[test]
    fn reads_that_raced_with_a_change_are_not_inserted() {
        let cache = BoundedCache::new(10);
        let seen = cache.generation();
        cache.forget(|_, _: &&str| false);
        cache.insert_since(seen, 1, "stale");
        assert_eq!(cache.get(&1), None);
        let seen = cache.generation();
        cache.insert_since(seen, 1, "fresh");
        assert_eq!(cache.get(&1), Some("fresh"));
        cache.forget(|k, _| *k == 1);
        assert_eq!(cache.get(&1), None);
    }

    /// Whether an entry of the tests' caches is stale.
    type IsStale = fn(&i32, &&str) -> bool;

    /// The source of versions in these tests: version 8 changed key 1 only; before 7 it
    /// cannot say.
    fn changes(since: u64) -> Result<(u64, Stale<IsStale>), ()> {
        match since {
            7 => Ok((8, Stale::Those(|k, _| *k == 1))),
            8 => Ok((8, Stale::None)),
            _ => Ok((8, Stale::All)),
        }
    }

    fn read_at(
        cache: &BoundedCache<i32, &'static str>,
        version: u64,
        key: i32,
    ) -> Option<&'static str> {
        cache
            .read_at_version(version, &key, |v| *v, changes)
            .unwrap()
            .1
    }

    #[test]
    fn a_new_version_forgets_what_its_changes_made_stale() {
        let cache = BoundedCache::new(10);
        let (seen, found) = cache.read_at_version(7, &1, |v| *v, changes).unwrap();
        assert_eq!(found, None);
        cache.insert_since(seen, 1, "v7");
        cache.insert_since(seen, 2, "v7");
        assert_eq!(read_at(&cache, 7, 1), Some("v7"));
        assert_eq!(read_at(&cache, 8, 1), None, "changed in version 8");
        assert_eq!(read_at(&cache, 8, 2), Some("v7"), "untouched by version 8");
        cache.insert_since(seen, 1, "read under v7");
        assert_eq!(cache.get(&1), None, "a read of the old version is dropped");
        // A reader that saw an older version than the cache's asks from the cache's.
        assert_eq!(read_at(&cache, 7, 2), Some("v7"));
        // A source that cannot say what changed empties the cache.
        let emptied = cache
            .read_at_version(9, &2, |v| *v, |_| changes(0))
            .unwrap();
        assert_eq!(emptied.1, None);
        assert_eq!(cache.len(), 0);
    }
}
