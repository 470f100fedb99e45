//! Contract checks of scans: rollups and stats, skipped and deleted links, pruning, forgotten
//! salts, bots, the visitor budget, unique counting, retention and the analytics window; writers at
//! once in `contract/concurrency.rs`.

use crate::accounts::caller::Caller;
use crate::accounts::plan::Plan;
use crate::contract::{DESKTOP, PHONE, day, link_for, query, scan, service, setup, t, visit};
use crate::ids::LinkId;
use crate::scans::analytics::{AnalyticsQuery, QueryError};
use crate::scans::breakdown::Dimension;
use crate::scans::scan::{Device, NewScan, ScanFate};
use crate::service::{MAX_SCANS_PER_VISITOR_MINUTE, ScanOutcome, Skip};
use crate::store::Store;

mod concurrency;
use chrono::Duration;
pub use concurrency::{
    capped_scans_stop_at_the_cap_under_concurrent_writers,
    concurrent_writers_on_one_link_stay_exact,
};

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
    assert!(ids.iter().all(|f| f.id().is_some()));
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
    assert_eq!(ids[0], ScanFate::LinkGone);
    assert!(ids[1].id().is_some());
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

/// Bots are redirected but not counted.
pub fn service_bot_exclusion<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc
        .create_link(&Caller::operator(a.id), "L", "https://example.com")
        .unwrap();
    let bot = visit(
        "66.249.66.1",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    );
    assert_eq!(
        svc.record_scan(&l, &bot).unwrap(),
        ScanOutcome::Skipped(Skip::Bot)
    );
    assert!(matches!(
        svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap(),
        ScanOutcome::Recorded(_)
    ));
    let l = svc.link(a.id, l.id).unwrap();
    assert_eq!(l.scan_count, 1);
    let report = svc.analytics(&a, l.id, &query(None, None, None)).unwrap();
    assert_eq!(report.analytics.total_scans, 1);
    assert_eq!(
        report.recent_scans[0].referrer.as_deref(),
        Some("https://social.example/post")
    );
    assert_eq!(report.recent_scans[0].device, Device::Mobile);
}

/// One visitor's replays of a link count at most `MAX_SCANS_PER_VISITOR_MINUTE` times a minute.
pub fn service_visitor_scan_budget<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-03-10T12:00:10Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc
        .create_link(&Caller::operator(a.id), "L", "https://example.com")
        .unwrap();
    let replay = visit("192.0.2.9", PHONE);
    let mut recorded = 0;
    for _ in 0..MAX_SCANS_PER_VISITOR_MINUTE + 5 {
        match svc.record_scan(&l, &replay).unwrap() {
            ScanOutcome::Recorded(_) => recorded += 1,
            other => assert_eq!(other, ScanOutcome::Skipped(Skip::Repeat)),
        }
    }
    assert_eq!(recorded, MAX_SCANS_PER_VISITOR_MINUTE);
    // Another visitor, and another link of the same visitor, have budgets of their own.
    assert!(matches!(
        svc.record_scan(&l, &visit("192.0.2.10", PHONE)).unwrap(),
        ScanOutcome::Recorded(_)
    ));
    let other = svc
        .create_link(&Caller::operator(a.id), "M", "https://example.org")
        .unwrap();
    assert!(matches!(
        svc.record_scan(&other, &replay).unwrap(),
        ScanOutcome::Recorded(_)
    ));
    // The next minute counts again.
    clock.advance(Duration::seconds(60));
    assert!(matches!(
        svc.record_scan(&l, &replay).unwrap(),
        ScanOutcome::Recorded(_)
    ));
    let l = svc.link(a.id, l.id).unwrap();
    assert_eq!(l.scan_count, u64::from(MAX_SCANS_PER_VISITOR_MINUTE) + 2);
}

/// uniqueScans counts distinct (day, visitor) pairs.
pub fn service_unique_counting<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-03-10T08:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc
        .create_link(&Caller::operator(a.id), "L", "https://example.com")
        .unwrap();
    let other = svc
        .create_link(&Caller::operator(a.id), "M", "https://example.com")
        .unwrap();
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    svc.record_scan(&l, &visit("192.0.2.1", DESKTOP)).unwrap();
    svc.record_scan(&l, &visit("192.0.2.2", PHONE)).unwrap();
    svc.record_scan(&other, &visit("192.0.2.1", PHONE)).unwrap();
    clock.advance(Duration::days(1));
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    let r = svc.analytics(&a, l.id, &query(None, None, None)).unwrap();
    assert_eq!((r.analytics.total_scans, r.analytics.unique_scans), (5, 4));
    let r = svc
        .analytics(
            &a,
            l.id,
            &query(Some("2024-03-10T09:00:00Z"), Some("2024-03-10"), None),
        )
        .unwrap();
    assert_eq!((r.analytics.total_scans, r.analytics.unique_scans), (0, 0));
    let r = svc
        .analytics(
            &a,
            l.id,
            &query(Some("2024-03-10T07:00:00Z"), Some("2024-03-10"), None),
        )
        .unwrap();
    assert_eq!((r.analytics.total_scans, r.analytics.unique_scans), (4, 3));
}

/// Scans older than the plan's retention are neither reported nor kept.
pub fn service_retention<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-01-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc
        .create_link(&Caller::operator(a.id), "L", "https://example.com")
        .unwrap();
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    clock.set(t("2024-01-30T10:00:00Z"));
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    let id = l.id;
    let r = svc.analytics(&a, id, &query(None, None, None)).unwrap();
    assert_eq!(
        r.analytics.total_scans, 2,
        "day 30 of 30 still includes Jan 1"
    );
    assert_eq!(r.analytics.scans_by_day.len(), 30);
    clock.set(t("2024-01-31T00:00:00Z"));
    let r = svc
        .analytics(&a, id, &query(Some("2023-12-01"), None, None))
        .unwrap();
    assert_eq!(r.analytics.total_scans, 1);
    assert_eq!(
        r.analytics.scans_by_day.first().map(|d| d.date.as_str()),
        Some("2024-01-02")
    );
    assert_eq!(r.recent_scans.len(), 1);
    let gone = svc
        .analytics(&a, id, &query(Some("2023-12-01"), Some("2023-12-31"), None))
        .unwrap();
    assert_eq!(gone.analytics.total_scans, 0);
    assert!(gone.analytics.scans_by_day.is_empty());
    assert_eq!(svc.prune().unwrap().scans_deleted, 1);
    assert_eq!(
        svc.link(a.id, id).unwrap().scan_count,
        2,
        "pruning never lowers scanCount"
    );
    // Upgrading widens the window only for scans still kept.
    let a = svc.set_plan(a.id, Plan::Pro).unwrap();
    let r = svc.analytics(&a, id, &query(None, None, None)).unwrap();
    assert_eq!(r.analytics.total_scans, 1);
}

/// Dense days, sorting, limits and partial-day edges.
pub fn service_analytics_window<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let l = svc
        .create_link(&Caller::operator(a.id), "L", "https://example.com")
        .unwrap();
    let id = l.id;
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    svc.record_scan(&l, &visit("192.0.2.2", DESKTOP)).unwrap();
    clock.set(t("2024-05-03T18:00:00Z"));
    svc.record_scan(&l, &visit("192.0.2.3", DESKTOP)).unwrap();
    clock.set(t("2024-05-04T12:00:00Z"));
    let r = svc
        .analytics(&a, id, &query(None, None, Some("2")))
        .unwrap();
    let days: Vec<_> = r
        .analytics
        .scans_by_day
        .iter()
        .map(|d| (d.date.as_str(), d.scans))
        .collect();
    assert_eq!(
        days,
        vec![
            ("2024-05-01", 2),
            ("2024-05-02", 0),
            ("2024-05-03", 1),
            ("2024-05-04", 0)
        ]
    );
    let devices: Vec<_> = r
        .analytics
        .scans_by_device
        .iter()
        .map(|d| (d.device.as_str(), d.scans))
        .collect();
    assert_eq!(devices, vec![("desktop", 2), ("mobile", 1)]);
    let browsers: Vec<_> = r
        .analytics
        .scans_by_browser
        .iter()
        .map(|d| (d.browser.as_str(), d.scans))
        .collect();
    assert_eq!(browsers, vec![("Firefox", 2), ("Chrome", 1)]);
    assert_eq!(r.analytics.scans_by_country[0].country, "XX");
    assert_eq!(r.recent_scans.len(), 2);
    assert_eq!(r.recent_scans[0].timestamp, t("2024-05-03T18:00:00Z"));
    assert_eq!(r.link.scan_count, 3);
    let r = svc
        .analytics(
            &a,
            id,
            &query(
                Some("2024-05-01T10:00:00Z"),
                Some("2024-05-03T17:00:00Z"),
                None,
            ),
        )
        .unwrap();
    assert_eq!(r.analytics.total_scans, 2);
    assert_eq!(r.analytics.scans_by_day.len(), 3);
    let r = svc
        .analytics(&a, id, &query(Some("2024-05-02"), Some("2024-05-02"), None))
        .unwrap();
    assert_eq!(
        (r.analytics.total_scans, r.analytics.scans_by_day.len()),
        (0, 1)
    );
    // A start before the link existed is clamped to its creation day (an outside tester asked
    // for year 1 and got 739,943 zero-filled days); an end before it gives an empty window.
    let r = svc
        .analytics(&a, id, &query(Some("0001-01-01"), None, None))
        .unwrap();
    assert_eq!(r.analytics.scans_by_day.len(), 4);
    assert_eq!(r.analytics.scans_by_day[0].date, "2024-05-01");
    assert_eq!(r.analytics.total_scans, 3);
    let r = svc
        .analytics(&a, id, &query(Some("0001-01-01"), Some("2024-04-30"), None))
        .unwrap();
    assert_eq!(
        (r.analytics.total_scans, r.analytics.scans_by_day.len()),
        (0, 0)
    );
    assert_eq!(
        AnalyticsQuery::parse(Some("2024-05-03"), Some("2024-05-02"), None),
        Err(QueryError::StartAfterEnd)
    );
    assert!(matches!(
        AnalyticsQuery::parse(None, None, Some("0")),
        Err(QueryError::InvalidLimit(_))
    ));
    let json = serde_json::to_value(
        svc.analytics(&a, id, &query(None, None, Some("1")))
            .unwrap(),
    )
    .unwrap();
    for field in [
        "totalScans",
        "uniqueScans",
        "scansByDay",
        "scansByCountry",
        "scansByDevice",
        "scansByBrowser",
    ] {
        assert!(json["analytics"].get(field).is_some(), "{field}");
    }
    assert_eq!(json["link"]["shortCode"], l.short_code.to_string());
    assert!(json["recentScans"][0].get("referrer").is_some());
}

/// Pruning keeps each plan's retention when days go whole: a day no account may still read
/// goes entirely, a day an unlimited account has scans in keeps them, and inside the days a
/// longer retention keeps, a shorter one loses its own scans only.
pub fn service_retention_drops_only_days_no_account_reads<S: Store>(store: S) {
    let free = setup(&store, Plan::Free);
    let pro = setup(&store, Plan::Pro);
    let unlimited = setup(&store, Plan::Enterprise);
    let links = [free.id, pro.id, unlimited.id].map(|a| link_for(a, "2024-01-01T00:00:00Z"));
    // Before the Pro year (whole day gone), the same day with unlimited scans too, within the
    // Pro year but past the Free 30 days, and within every retention.
    let days = ["2024-05-01", "2024-05-02", "2025-03-01", "2025-06-15"];
    store
        .write(|tx| {
            for l in &links {
                tx.insert_link(l)?;
            }
            // Days kept apart where the store keeps them apart (PostgreSQL's partitions), so
            // dropping them is checked as well as the rows of its default partition.
            tx.prepare_scan_days(day(days[0]), day(days[1]))?;
            tx.prepare_scan_days(day(days[2]), day(days[2]))?;
            tx.prepare_scan_days(day(days[3]), day(days[3]))
        })
        .unwrap();
    let [lf, lp, lu] = links.map(|l| l.id);
    let mut batch = Vec::new();
    for (d, who) in [
        (days[0], vec![lf, lp]),
        (days[1], vec![lf, lu]),
        (days[2], vec![lf, lp]),
        (days[3], vec![lf, lp, lu]),
    ] {
        for l in who {
            batch.push(scan(
                l,
                &format!("{d}T08:00:00Z"),
                1,
                "GB",
                Device::Mobile,
                "Chrome",
            ));
        }
    }
    store.record_scans(&batch).unwrap();
    let store = std::sync::Arc::new(store);
    let svc = crate::service::Service::new(
        std::sync::Arc::clone(&store),
        crate::clock::TestClock::new(t("2025-06-30T10:00:00Z")),
        std::sync::Arc::new(crate::scans::geo::NoGeoLocator),
    )
    .unwrap();
    assert_eq!(svc.prune().unwrap().scans_deleted, 4);
    let kept = |l: LinkId| -> Vec<String> {
        let mut days: Vec<String> = store
            .read(|tx| {
                tx.recent_scans(l, t("2000-01-01T00:00:00Z"), t("2100-01-01T00:00:00Z"), 100)
            })
            .unwrap()
            .iter()
            .map(|s| s.timestamp.date_naive().to_string())
            .collect();
        days.sort();
        days
    };
    assert_eq!(kept(lf), vec![days[3]], "Free keeps its last 30 days");
    assert_eq!(kept(lp), vec![days[2], days[3]], "Pro keeps its year");
    assert_eq!(
        kept(lu),
        vec![days[1], days[3]],
        "Enterprise keeps everything"
    );
    // A second run finds nothing more to delete.
    assert_eq!(svc.prune().unwrap().scans_deleted, 0);
}
