//! Contract checks of scans recorded by writers at once: one link's counts, rollups and breakdowns stay exact, and a capped link stores exactly its cap.

use std::collections::HashSet;

use chrono::NaiveDate;

use crate::accounts::plan::Plan;
use crate::contract::{day, link_for, scan, setup, t};
use crate::scans::breakdown::Dimension;
use crate::scans::scan::{Device, NewScan, ScanFate};
use crate::store::Store;

/// Writers recording batches at once, all on one link (as every server's writer does when one
/// code goes viral), lose nothing and count nothing twice: the link's count, the daily totals
/// and uniques and every breakdown equal the scans sent, from the rollups as from the scans.
pub fn concurrent_writers_on_one_link_stay_exact<S: Store>(store: S) {
    const WRITERS: u8 = 4;
    const BATCHES: u8 = 25;
    const PER_BATCH: u8 = 16;
    // 40 visitors shared by every writer: each is new to the link once per day, whichever
    // writer records it first.
    const VISITORS: u8 = 40;
    let a = setup(&store, Plan::Free);
    let l = link_for(a.id, "2024-05-01T00:00:00Z");
    store.write(|tx| tx.insert_link(&l)).unwrap();
    let scan_of = |writer: u8, batch: u8, i: u8| {
        let n = writer
            .wrapping_mul(31)
            .wrapping_add(batch.wrapping_mul(7))
            .wrapping_add(i);
        let at = if i.is_multiple_of(4) {
            "2024-05-02T08:00:00Z"
        } else {
            "2024-05-01T10:00:00Z"
        };
        let (country, device) = if i.is_multiple_of(3) {
            ("US", Device::Desktop)
        } else {
            ("GB", Device::Mobile)
        };
        scan(l.id, at, n % VISITORS, country, device, "Chrome")
    };
    std::thread::scope(|s| {
        for writer in 0..WRITERS {
            let store = &store;
            s.spawn(move || {
                for batch in 0..BATCHES {
                    let scans: Vec<NewScan> =
                        (0..PER_BATCH).map(|i| scan_of(writer, batch, i)).collect();
                    let fates = store.record_scans(&scans).unwrap();
                    assert!(fates.iter().all(|f| f.id().is_some()), "{fates:?}");
                }
            });
        }
    });
    let sent: Vec<NewScan> = (0..WRITERS)
        .flat_map(|w| (0..BATCHES).flat_map(move |b| (0..PER_BATCH).map(move |i| (w, b, i))))
        .map(|(w, b, i)| scan_of(w, b, i))
        .collect();
    let expected_days: Vec<(NaiveDate, u64, u64)> = ["2024-05-01", "2024-05-02"]
        .into_iter()
        .map(|d| {
            let of_day: Vec<&NewScan> = sent.iter().filter(|s| s.day() == day(d)).collect();
            let uniques: HashSet<[u8; 16]> = of_day.iter().map(|s| s.visitor).collect();
            (day(d), of_day.len() as u64, uniques.len() as u64)
        })
        .collect();
    let us = sent.iter().filter(|s| s.country == "US").count() as u64;
    let total = sent.len() as u64;
    let link = store.read(|tx| tx.link(a.id, l.id)).unwrap().unwrap();
    assert_eq!(link.scan_count, total);
    let rolled = store
        .read(|tx| tx.rollup_stats(l.id, day("2024-05-01"), day("2024-05-02")))
        .unwrap();
    let raw = store
        .read(|tx| tx.raw_stats(l.id, t("2024-05-01T00:00:00Z"), t("2024-05-02T23:59:59Z")))
        .unwrap();
    for rows in [&rolled, &raw] {
        let mut days: Vec<_> = rows
            .days
            .iter()
            .map(|d| (d.day, d.scans, d.uniques))
            .collect();
        days.sort();
        assert_eq!(days, expected_days);
        let mut countries = rows.breakdowns.totals(Dimension::Country);
        countries.sort();
        assert_eq!(
            countries,
            vec![("GB".to_owned(), total - us), ("US".to_owned(), us)]
        );
    }
}

/// Writers recording capped scans at once on one link: exactly `maxScans` are stored whatever
/// the interleaving, the rest are refused as over the cap, and the count stops at the cap.
/// Scans of another, uncapped link in the same batches are all stored.
pub fn capped_scans_stop_at_the_cap_under_concurrent_writers<S: Store>(store: S) {
    const CAP: u64 = 150;
    let a = setup(&store, Plan::Pro);
    let capped = link_for(a.id, "2024-05-01T00:00:00Z");
    let open = link_for(a.id, "2024-05-01T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_link(&capped)?;
            tx.insert_link(&open)
        })
        .unwrap();
    let fates: Vec<Vec<ScanFate>> = std::thread::scope(|s| {
        let writers: Vec<_> = (0..4u8)
            .map(|writer| {
                let store = &store;
                let (capped, open) = (capped.id, open.id);
                s.spawn(move || {
                    let mut fates = Vec::new();
                    for batch in 0..20u8 {
                        let scans: Vec<NewScan> = (0..6u8)
                            .map(|i| {
                                let link = if i < 3 { capped } else { open };
                                NewScan {
                                    max_scans: (link == capped).then_some(CAP),
                                    ..scan(
                                        link,
                                        "2024-05-01T10:00:00Z",
                                        writer.wrapping_mul(60).wrapping_add(batch * 3 + i),
                                        "GB",
                                        Device::Mobile,
                                        "Chrome",
                                    )
                                }
                            })
                            .collect();
                        let got = store.record_scans(&scans).unwrap();
                        for (scan, fate) in scans.iter().zip(&got) {
                            if scan.link_id == open {
                                assert!(fate.id().is_some(), "{fate:?}");
                            }
                        }
                        fates.push(got[..3].to_vec());
                    }
                    fates.concat()
                })
            })
            .collect();
        writers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let all: Vec<ScanFate> = fates.concat();
    assert_eq!(all.len(), 240);
    let stored = all.iter().filter(|f| f.id().is_some()).count() as u64;
    let refused = all.iter().filter(|f| **f == ScanFate::OverCap).count() as u64;
    assert_eq!((stored, refused), (CAP, 240 - CAP));
    let read = |id| store.read(|tx| tx.link(a.id, id)).unwrap().unwrap();
    assert_eq!(read(capped.id).scan_count, CAP);
    assert_eq!(read(open.id).scan_count, 240);
    let rolled = store
        .read(|tx| tx.rollup_stats(capped.id, day("2024-05-01"), day("2024-05-01")))
        .unwrap();
    assert_eq!(rolled.days.iter().map(|d| d.scans).sum::<u64>(), CAP);
    // The raw scans agree with the count.
    let raw = store
        .read(|tx| {
            tx.raw_stats(
                capped.id,
                t("2024-05-01T00:00:00Z"),
                t("2024-05-01T23:59:59Z"),
            )
        })
        .unwrap();
    assert_eq!(raw.days.iter().map(|d| d.scans).sum::<u64>(), CAP);
}
