//! Contract checks of the store traits themselves: records, transactions, uniqueness, tenant isolation, scans and rollups.

use crate::accounts::access::{Endpoint, IpRule};
use crate::accounts::account::Email;
use crate::accounts::config_change::{ConfigChange, ConfigChanges};
use crate::accounts::key::{ApiKeySecret, KeyMode};
use crate::accounts::limits::UsageMonth;
use crate::accounts::plan::{PerSecond, Plan};
use crate::error::StoreError;
use crate::ids::LinkId;
use crate::links::link::LinkName;
use crate::scans::breakdown::Dimension;
use crate::scans::scan::{Device, NewScan};
use crate::store::Store;

use super::{account, day, key_for, link_for, scan, setup, t, until_changes_heard};

/// Accounts are stored, listed oldest first and updated; updating a missing account reports `false`.
pub fn accounts_roundtrip<S: Store>(store: S) {
    let mut a = account(Plan::Free);
    let mut b = account(Plan::Pro);
    b.created_at = t("2024-02-01T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_account(&b)?;
            tx.insert_account(&a)
        })
        .unwrap();
    assert_eq!(store.read(|tx| tx.account(a.id)).unwrap(), Some(a.clone()));
    assert_eq!(
        store.read(|tx| tx.accounts()).unwrap(),
        vec![a.clone(), b.clone()]
    );
    a.plan = Plan::Enterprise;
    a.overrides.links = Some(3);
    a.overrides.per_second = Some(PerSecond::new(7).unwrap());
    assert!(store.write(|tx| tx.update_account(&a)).unwrap());
    assert_eq!(store.read(|tx| tx.account(a.id)).unwrap(), Some(a.clone()));
    assert!(
        !store
            .write(|tx| tx.update_account(&account(Plan::Free)))
            .unwrap()
    );
    assert!(
        store.write(|tx| tx.insert_account(&a)).is_err(),
        "duplicate ids are refused"
    );
}

/// An account is found by its e-mail address without regard to ASCII case, and no two
/// accounts share an address: inserting or changing to a taken one is a conflict.
pub fn accounts_are_unique_by_email<S: Store>(store: S) {
    let mut a = account(Plan::Free);
    a.email = Email::parse("Owner@Example.com").unwrap();
    store.write(|tx| tx.insert_account(&a)).unwrap();
    let found = |raw: &str| {
        store
            .read(|tx| tx.account_by_email(&Email::parse(raw).unwrap()))
            .unwrap()
    };
    assert_eq!(found("owner@example.COM"), Some(a.clone()));
    assert_eq!(found("other@example.com"), None);

    let mut twin = account(Plan::Pro);
    twin.email = Email::parse("OWNER@example.com").unwrap();
    assert!(matches!(
        store.write(|tx| tx.insert_account(&twin)),
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(store.read(|tx| tx.account(twin.id)).unwrap(), None);

    let mut b = account(Plan::Pro);
    store.write(|tx| tx.insert_account(&b)).unwrap();
    b.email = Email::parse("owner@EXAMPLE.com").unwrap();
    assert!(matches!(
        store.write(|tx| tx.update_account(&b)),
        Err(StoreError::Conflict(_))
    ));
    // An account may change the case of its own address, and frees the old one by moving.
    a.email = Email::parse("owner@example.com").unwrap();
    assert!(store.write(|tx| tx.update_account(&a)).unwrap());
    assert_eq!(found("OWNER@EXAMPLE.COM"), Some(a.clone()));
    a.email = Email::parse("new@example.com").unwrap();
    assert!(store.write(|tx| tx.update_account(&a)).unwrap());
    assert!(store.write(|tx| tx.update_account(&b)).unwrap());
    assert_eq!(found("owner@example.com").map(|x| x.id), Some(b.id));
    assert_eq!(found("new@example.com").map(|x| x.id), Some(a.id));
}

/// A closure returning `Err` leaves no trace of its writes.
pub fn write_rolls_back_on_error<S: Store>(store: S) {
    let a = account(Plan::Free);
    let result: Result<(), StoreError> = store.write(|tx| {
        tx.insert_account(&a)?;
        Err(StoreError::Conflict("abort".into()))
    });
    assert!(result.is_err());
    assert_eq!(store.read(|tx| tx.account(a.id)).unwrap(), None);
}

/// Keys are found by hash; a new hash replaces the old one; last-use times only move forward.
pub fn keys_roundtrip_and_hash_lookup<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let (mut k, secret) = key_for(a.id);
    k.settings
        .ip_allowlist
        .push(IpRule::parse("10.0.0.0/8").unwrap());
    k.settings.disabled_endpoints.insert(Endpoint::Batch);
    store.write(|tx| tx.insert_key(&k)).unwrap();
    assert_eq!(
        store.read(|tx| tx.key_by_hash(&secret.hash())).unwrap(),
        Some(k.clone())
    );
    assert_eq!(store.read(|tx| tx.keys_of(a.id)).unwrap(), vec![k.clone()]);
    let fresh = ApiKeySecret::generate(KeyMode::Live).unwrap();
    let old_hash = k.hash;
    k.hash = fresh.hash();
    k.display_prefix = fresh.display_prefix();
    assert!(store.write(|tx| tx.update_key(&k)).unwrap());
    assert_eq!(store.read(|tx| tx.key_by_hash(&old_hash)).unwrap(), None);
    assert_eq!(
        store
            .read(|tx| tx.key_by_hash(&fresh.hash()))
            .unwrap()
            .map(|x| x.id),
        Some(k.id)
    );
    let later = t("2024-03-01T00:00:00Z");
    store.write(|tx| tx.touch_keys(&[(k.id, later)])).unwrap();
    store
        .write(|tx| tx.touch_keys(&[(k.id, t("2024-02-01T00:00:00Z"))]))
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.key(k.id)).unwrap().unwrap().last_used_at,
        Some(later)
    );
    assert!(store.write(|tx| tx.delete_key(k.id)).unwrap());
    assert_eq!(store.read(|tx| tx.key(k.id)).unwrap(), None);
    assert!(!store.write(|tx| tx.delete_key(k.id)).unwrap());
}

/// The configuration version moves on account and key changes, not on usage, links or scans.
pub fn config_version_tracks_accounts_and_keys<S: Store>(store: S) {
    let v0 = store.config_version().unwrap();
    let mut a = setup(&store, Plan::Free);
    let v1 = store.config_version().unwrap();
    assert_ne!(v0, v1);
    let (k, _) = key_for(a.id);
    store.write(|tx| tx.insert_key(&k)).unwrap();
    let v2 = store.config_version().unwrap();
    assert_ne!(v1, v2);
    let l = link_for(a.id, "2024-01-02T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_link(&l)?;
            tx.save_usage(UsageMonth::of(t("2024-01-02T00:00:00Z")), &[(a.id, 5)])?;
            tx.touch_keys(&[(k.id, t("2024-01-02T00:00:00Z"))])
        })
        .unwrap();
    store
        .record_scans(&[scan(
            l.id,
            "2024-01-02T10:00:00Z",
            1,
            "GB",
            Device::Mobile,
            "Chrome",
        )])
        .unwrap();
    assert_eq!(store.config_version().unwrap(), v2);
    a.plan = Plan::Pro;
    store.write(|tx| tx.update_account(&a)).unwrap();
    assert_ne!(store.config_version().unwrap(), v2);
}

/// The changes after a version name every account and key changed since (a key by its id and
/// the hash of its secret after the change, or before it for a deletion), and nothing for
/// usage, links or scans; a version the store has not reached is unknown.
pub fn config_changes_name_accounts_and_keys<S: Store>(store: S) {
    let changes_since = |since: u64| {
        until_changes_heard(&store);
        match store.config_changes(since).unwrap() {
            ConfigChanges::Listed { version, changes } => {
                assert_eq!(version, store.config_version().unwrap());
                changes
            }
            ConfigChanges::Unknown { version } => panic!("unknown from {since} to {version}"),
        }
    };
    let v0 = store.config_version().unwrap();
    assert_eq!(changes_since(v0), vec![]);
    let mut a = setup(&store, Plan::Free);
    let (mut k, _) = key_for(a.id);
    store.write(|tx| tx.insert_key(&k)).unwrap();
    let created = changes_since(v0);
    assert!(
        created.contains(&ConfigChange::Account(a.id)),
        "{created:?}"
    );
    assert!(
        created.contains(&ConfigChange::Key {
            id: k.id,
            hash: k.hash
        }),
        "{created:?}"
    );
    let v1 = store.config_version().unwrap();
    let l = link_for(a.id, "2024-01-02T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_link(&l)?;
            tx.save_usage(UsageMonth::of(t("2024-01-02T00:00:00Z")), &[(a.id, 5)])?;
            tx.touch_keys(&[(k.id, t("2024-01-02T00:00:00Z"))])
        })
        .unwrap();
    assert_eq!(changes_since(v1), vec![]);

    let regenerated = ApiKeySecret::generate(KeyMode::Live).unwrap();
    k.hash = regenerated.hash();
    store.write(|tx| tx.update_key(&k)).unwrap();
    let key_change = ConfigChange::Key {
        id: k.id,
        hash: k.hash,
    };
    assert_eq!(changes_since(v1), vec![key_change]);
    let v2 = store.config_version().unwrap();
    a.plan = Plan::Pro;
    store.write(|tx| tx.update_account(&a)).unwrap();
    assert_eq!(changes_since(v2), vec![ConfigChange::Account(a.id)]);
    assert_eq!(
        changes_since(v1),
        vec![key_change, ConfigChange::Account(a.id)]
    );
    let v3 = store.config_version().unwrap();
    assert!(store.write(|tx| tx.delete_key(k.id)).unwrap());
    assert_eq!(
        changes_since(v3),
        vec![key_change],
        "revoked: the last hash"
    );
    let v4 = store.config_version().unwrap();
    let (other, _) = key_for(a.id);
    store.write(|tx| tx.insert_key(&other)).unwrap();
    store.write(|tx| tx.delete_account(a.id)).unwrap();
    let deleted = changes_since(v4);
    assert!(
        deleted.contains(&ConfigChange::Account(a.id)),
        "{deleted:?}"
    );

    let now = store.config_version().unwrap();
    assert_eq!(
        store.config_changes(now + 5).unwrap(),
        ConfigChanges::Unknown { version: now }
    );
}

/// Another account's link is absent for every link operation.
pub fn links_are_isolated_per_account<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let l = link_for(a.id, "2024-01-02T00:00:00Z");
    store.write(|tx| tx.insert_link(&l)).unwrap();
    assert_eq!(
        store.read(|tx| tx.link(a.id, l.id)).unwrap(),
        Some(l.clone())
    );
    assert_eq!(store.read(|tx| tx.link(b.id, l.id)).unwrap(), None);
    assert_eq!(store.read(|tx| tx.links_of(b.id)).unwrap(), vec![]);
    assert_eq!(store.read(|tx| tx.count_links(a.id)).unwrap(), 1);
    assert_eq!(store.read(|tx| tx.count_links(b.id)).unwrap(), 0);
    let mut stolen = l.clone();
    stolen.account_id = b.id;
    stolen.name = LinkName::parse("mine now").unwrap();
    assert!(!store.write(|tx| tx.update_link(&stolen)).unwrap());
    assert!(!store.write(|tx| tx.delete_link(b.id, l.id)).unwrap());
    assert_eq!(store.read(|tx| tx.link(a.id, l.id)).unwrap(), Some(l));
}

/// A deleted link's code stays taken and cannot be inserted again.
pub fn deleted_codes_are_tombstoned<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let l = link_for(a.id, "2024-01-02T00:00:00Z");
    store.write(|tx| tx.insert_link(&l)).unwrap();
    assert!(store.read(|tx| tx.code_taken(&l.short_code)).unwrap());
    assert_eq!(
        store
            .read(|tx| tx.link_by_code(&l.short_code))
            .unwrap()
            .map(|x| x.id),
        Some(l.id)
    );
    assert!(store.write(|tx| tx.delete_link(a.id, l.id)).unwrap());
    assert_eq!(
        store.read(|tx| tx.link_by_code(&l.short_code)).unwrap(),
        None
    );
    assert!(store.read(|tx| tx.code_taken(&l.short_code)).unwrap());
    let mut again = link_for(a.id, "2024-01-03T00:00:00Z");
    again.short_code = l.short_code;
    assert!(store.write(|tx| tx.insert_link(&again)).is_err());
}

/// Saved usage counts only grow.
pub fn usage_is_never_lowered<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let may = UsageMonth::of(t("2024-05-10T00:00:00Z"));
    let june = UsageMonth::of(t("2024-06-10T00:00:00Z"));
    store.write(|tx| tx.save_usage(may, &[(a.id, 10)])).unwrap();
    store.write(|tx| tx.save_usage(may, &[(a.id, 4)])).unwrap();
    store.write(|tx| tx.save_usage(june, &[(a.id, 1)])).unwrap();
    assert_eq!(store.read(|tx| tx.usage(may)).unwrap(), vec![(a.id, 10)]);
    assert_eq!(store.read(|tx| tx.usage(june)).unwrap(), vec![(a.id, 1)]);
}

/// The first salt of a day wins; salts and visitor ids before a day are destroyed on request.
pub fn salts_and_visitors_are_forgotten<S: Store>(store: S) {
    let first = store
        .write(|tx| tx.put_salt(day("2024-05-01"), [1; 32]))
        .unwrap();
    let second = store
        .write(|tx| tx.put_salt(day("2024-05-01"), [2; 32]))
        .unwrap();
    assert_eq!((first, second), ([1; 32], [1; 32]));
    store
        .write(|tx| tx.put_salt(day("2024-05-03"), [3; 32]))
        .unwrap();
    store
        .write(|tx| tx.forget_visitors_before(day("2024-05-02")))
        .unwrap();
    assert_eq!(store.read(|tx| tx.salt(day("2024-05-01"))).unwrap(), None);
    assert_eq!(
        store.read(|tx| tx.salt(day("2024-05-03"))).unwrap(),
        Some([3; 32])
    );
}

/// Scans feed the rollups; rollups and raw statistics agree; recent scans come newest first.
pub fn scans_update_rollups_and_stats<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let l = link_for(a.id, "2024-05-01T00:00:00Z");
    store.write(|tx| tx.insert_link(&l)).unwrap();
    let batch = vec![
        scan(
            l.id,
            "2024-05-01T08:00:00Z",
            1,
            "GB",
            Device::Mobile,
            "Chrome",
        ),
        NewScan {
            variant: Some(1),
            ..scan(
                l.id,
                "2024-05-01T09:00:00Z",
                1,
                "GB",
                Device::Mobile,
                "Chrome",
            )
        },
        NewScan {
            variant: Some(0),
            rule: Some(2),
            ..scan(
                l.id,
                "2024-05-01T10:00:00Z",
                2,
                "US",
                Device::Desktop,
                "Firefox",
            )
        },
        scan(
            l.id,
            "2024-05-02T08:00:00Z",
            1,
            "GB",
            Device::Tablet,
            "Safari",
        ),
    ];
    let ids = store.record_scans(&batch).unwrap();
    assert!(ids.iter().all(Option::is_some));
    let rolled = store
        .read(|tx| tx.rollup_stats(l.id, day("2024-05-01"), day("2024-05-02")))
        .unwrap();
    let raw = store
        .read(|tx| tx.raw_stats(l.id, t("2024-05-01T00:00:00Z"), t("2024-05-02T23:59:59Z")))
        .unwrap();
    for rows in [&rolled, &raw] {
        let mut days = rows.days.clone();
        days.sort_by_key(|d| d.day);
        let got: Vec<_> = days.iter().map(|d| (d.day, d.scans, d.uniques)).collect();
        assert_eq!(
            got,
            vec![(day("2024-05-01"), 3, 2), (day("2024-05-02"), 1, 1)]
        );
        let totals = |dim| {
            let mut v = rows.breakdowns.totals(dim);
            v.sort();
            v
        };
        let owned = |v: &[(&str, u64)]| -> Vec<(String, u64)> {
            v.iter().map(|(s, n)| ((*s).to_owned(), *n)).collect()
        };
        assert_eq!(totals(Dimension::Country), owned(&[("GB", 3), ("US", 1)]));
        assert_eq!(
            totals(Dimension::Device),
            owned(&[("desktop", 1), ("mobile", 2), ("tablet", 1)])
        );
        assert_eq!(totals(Dimension::Os), owned(&[("Android", 4)]));
        assert_eq!(totals(Dimension::Referrer), owned(&[("ref.example", 4)]));
        assert_eq!(
            totals(Dimension::City),
            owned(&[("GB/Unknown", 3), ("US/Unknown", 1)])
        );
        assert_eq!(totals(Dimension::Variant), owned(&[("0", 1), ("1", 1)]));
        assert_eq!(totals(Dimension::Rule), owned(&[("2", 1)]));
    }
    let part = store
        .read(|tx| tx.raw_stats(l.id, t("2024-05-01T08:30:00Z"), t("2024-05-01T23:59:59Z")))
        .unwrap();
    assert_eq!(
        part.days
            .iter()
            .map(|d| (d.scans, d.uniques))
            .collect::<Vec<_>>(),
        vec![(2, 2)]
    );
    let recent = store
        .read(|tx| {
            tx.recent_scans(
                l.id,
                t("2024-05-01T00:00:00Z"),
                t("2024-05-02T23:59:59Z"),
                3,
            )
        })
        .unwrap();
    let times: Vec<_> = recent.iter().map(|s| s.timestamp).collect();
    assert_eq!(
        times,
        vec![
            t("2024-05-02T08:00:00Z"),
            t("2024-05-01T10:00:00Z"),
            t("2024-05-01T09:00:00Z")
        ]
    );
    assert_eq!(recent[0].referrer.as_deref(), Some("https://ref.example/"));
    assert_eq!(
        store
            .read(|tx| tx.link(a.id, l.id))
            .unwrap()
            .unwrap()
            .scan_count,
        4
    );
    // A later batch sees the visitor ids of earlier batches.
    store
        .record_scans(&[scan(
            l.id,
            "2024-05-02T12:00:00Z",
            1,
            "GB",
            Device::Tablet,
            "Safari",
        )])
        .unwrap();
    let d2 = store
        .read(|tx| tx.rollup_stats(l.id, day("2024-05-02"), day("2024-05-02")))
        .unwrap();
    assert_eq!(
        d2.days
            .iter()
            .map(|d| (d.scans, d.uniques))
            .collect::<Vec<_>>(),
        vec![(2, 1)]
    );
}

/// A scan of a deleted link is skipped; the rest of its batch is stored.
pub fn scans_of_deleted_links_are_skipped<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let l = link_for(a.id, "2024-05-01T00:00:00Z");
    store.write(|tx| tx.insert_link(&l)).unwrap();
    let ids = store
        .record_scans(&[
            scan(
                LinkId::random(),
                "2024-05-01T08:00:00Z",
                1,
                "GB",
                Device::Mobile,
                "Chrome",
            ),
            scan(
                l.id,
                "2024-05-01T08:00:01Z",
                1,
                "GB",
                Device::Mobile,
                "Chrome",
            ),
        ])
        .unwrap();
    assert!(ids[0].is_none());
    assert!(ids[1].is_some());
}

/// Deleting a link deletes its scans and rollups for good.
pub fn delete_link_removes_its_scans<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let l = link_for(a.id, "2024-05-01T00:00:00Z");
    let keep = link_for(a.id, "2024-05-01T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_link(&l)?;
            tx.insert_link(&keep)
        })
        .unwrap();
    store
        .record_scans(&[
            scan(
                l.id,
                "2024-05-01T08:00:00Z",
                1,
                "GB",
                Device::Mobile,
                "Chrome",
            ),
            scan(
                keep.id,
                "2024-05-01T08:00:00Z",
                1,
                "GB",
                Device::Mobile,
                "Chrome",
            ),
        ])
        .unwrap();
    assert!(store.write(|tx| tx.delete_link(a.id, l.id)).unwrap());
    let (from, to) = (t("2024-05-01T00:00:00Z"), t("2024-05-01T23:59:59Z"));
    assert!(
        store
            .read(|tx| tx.recent_scans(l.id, from, to, 10))
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .read(|tx| tx.rollup_stats(l.id, day("2024-05-01"), day("2024-05-01")))
            .unwrap()
            .days
            .is_empty()
    );
    assert_eq!(
        store
            .read(|tx| tx.recent_scans(keep.id, from, to, 10))
            .unwrap()
            .len(),
        1
    );
}

/// Pruning removes old scans and rollups of one account only and keeps scanCount.
pub fn pruning_keeps_scan_count<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let la = link_for(a.id, "2024-01-01T00:00:00Z");
    let lb = link_for(b.id, "2024-01-01T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_link(&la)?;
            tx.insert_link(&lb)
        })
        .unwrap();
    store
        .record_scans(&[
            scan(
                la.id,
                "2024-01-05T08:00:00Z",
                1,
                "GB",
                Device::Mobile,
                "Chrome",
            ),
            scan(
                la.id,
                "2024-03-05T08:00:00Z",
                1,
                "GB",
                Device::Mobile,
                "Chrome",
            ),
            scan(
                lb.id,
                "2024-01-05T08:00:00Z",
                1,
                "GB",
                Device::Mobile,
                "Chrome",
            ),
        ])
        .unwrap();
    assert_eq!(
        store
            .write(|tx| tx.prune_scans(a.id, day("2024-03-01")))
            .unwrap(),
        1
    );
    let all = |l: LinkId| {
        store
            .read(|tx| {
                tx.recent_scans(l, t("2000-01-01T00:00:00Z"), t("2100-01-01T00:00:00Z"), 100)
            })
            .unwrap()
            .len()
    };
    assert_eq!((all(la.id), all(lb.id)), (1, 1));
    let rolled = store
        .read(|tx| tx.rollup_stats(la.id, day("2024-01-01"), day("2024-12-31")))
        .unwrap();
    assert_eq!(rolled.days.len(), 1);
    assert_eq!(
        store
            .read(|tx| tx.link(a.id, la.id))
            .unwrap()
            .unwrap()
            .scan_count,
        2
    );
}
