//! The account export: the account's own records only, every retained scan exactly once in pages
//! (also when thousands share one instant), and nothing of another account.

use std::collections::HashSet;
use std::sync::Arc;

use qr_domain::accounts::caller::Caller;
use qr_domain::chrono::NaiveDate;
use qr_domain::export::{
    ExportError, ExportHeader, ExportSink, ExportedKey, ExportedSession, LinkAnalytics, SCAN_PAGE,
};
use qr_domain::memory::MemoryStore;
use qr_domain::scans::geo::GeoHint;
use qr_domain::scans::scan::ScanRecord;
use qr_domain::service::{ScanOutcome, Visit};
use qr_domain::{AccountId, KeyMode, Link, NoGeoLocator, Plan, Service, TestClock};

#[derive(Default)]
struct Collected {
    header: Option<ExportHeader>,
    keys: Vec<ExportedKey>,
    links: Vec<Link>,
    analytics: Vec<(String, Option<LinkAnalytics>)>,
    scans: Vec<(String, Vec<ScanRecord>)>,
    pages: Vec<usize>,
    finished: bool,
}

impl ExportSink for Collected {
    fn header(&mut self, header: &ExportHeader) -> std::io::Result<()> {
        self.header = Some(header.clone());
        Ok(())
    }
    fn keys(&mut self, keys: &[ExportedKey]) -> std::io::Result<()> {
        self.keys = keys.to_vec();
        Ok(())
    }
    fn sessions(&mut self, _: &[ExportedSession]) -> std::io::Result<()> {
        Ok(())
    }
    fn usage(&mut self, _: &[(NaiveDate, u64)]) -> std::io::Result<()> {
        Ok(())
    }
    fn links(&mut self, links: &[Link]) -> std::io::Result<()> {
        self.links = links.to_vec();
        Ok(())
    }
    fn link_analytics(&mut self, link: &Link, a: Option<&LinkAnalytics>) -> std::io::Result<()> {
        self.analytics
            .push((link.name.as_str().to_owned(), a.cloned()));
        Ok(())
    }
    fn begin_scans(&mut self, link: &Link) -> std::io::Result<()> {
        self.scans.push((link.name.as_str().to_owned(), Vec::new()));
        Ok(())
    }
    fn scans(&mut self, page: &[ScanRecord]) -> std::io::Result<()> {
        assert!(page.len() <= SCAN_PAGE as usize);
        self.pages.push(page.len());
        self.scans.last_mut().unwrap().1.extend_from_slice(page);
        Ok(())
    }
    fn end_scans(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.finished = true;
        Ok(())
    }
}

fn visit(n: u32) -> Visit {
    Visit {
        ip: Some(std::net::IpAddr::from([81, 2, (n >> 8) as u8, n as u8])),
        user_agent: Some(
            "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0".into(),
        ),
        referer: None,
        hint: GeoHint::default(),
    }
}

#[test]
fn every_scan_once_in_pages_even_when_they_share_one_instant() {
    let store = Arc::new(MemoryStore::new());
    // A clock that never moves: every scan has the same timestamp, the worst case for paging.
    let clock = TestClock::new("2024-05-01T10:00:00Z".parse().unwrap());
    let svc = Service::new(store, clock.clone(), Arc::new(NoGeoLocator)).unwrap();
    let mine = svc.create_account("me@example.com", Plan::Pro).unwrap();
    let other = svc.create_account("other@example.com", Plan::Pro).unwrap();
    svc.create_key(mine.id, KeyMode::Live).unwrap();
    let busy = svc
        .create_link(&Caller::operator(mine.id), "Busy", "https://example.com/a")
        .unwrap();
    // Links created in the same instant are ordered by their random ids; one second apart
    // makes the export's oldest-first order checkable. The scans below still share one instant.
    clock.advance(qr_domain::chrono::Duration::seconds(1));
    svc.create_link(&Caller::operator(mine.id), "Quiet", "https://example.com/b")
        .unwrap();
    let theirs = svc
        .create_link(
            &Caller::operator(other.id),
            "Theirs",
            "https://example.com/c",
        )
        .unwrap();
    let total = 2 * SCAN_PAGE + 500;
    for n in 0..total {
        assert!(matches!(
            svc.record_scan(&busy, &visit(n)).unwrap(),
            ScanOutcome::Recorded(_)
        ));
    }
    svc.record_scan(&theirs, &visit(0)).unwrap();

    let mut sink = Collected::default();
    svc.export_account(mine.id, &mut sink).unwrap();
    assert!(sink.finished);
    let header = sink.header.unwrap();
    assert_eq!(header.account.account.id, mine.id);
    assert_eq!(header.retention_days, Some(365));
    assert_eq!(sink.keys.len(), 1);
    let names: Vec<&str> = sink.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["Busy", "Quiet"]);

    let (name, scans) = &sink.scans[0];
    assert_eq!(name, "Busy");
    let ids: HashSet<_> = scans.iter().map(|s| s.id).collect();
    assert_eq!(scans.len(), total as usize);
    assert_eq!(ids.len(), total as usize, "no scan twice");
    assert!(
        scans
            .windows(2)
            .all(|w| (w[0].timestamp, w[0].id) > (w[1].timestamp, w[1].id))
    );
    assert!(sink.pages.iter().all(|&p| p <= SCAN_PAGE as usize));
    assert_eq!(sink.scans[1].1.len(), 0, "Quiet has no scans");

    let busy_days = sink.analytics[0].1.as_ref().unwrap();
    assert_eq!(busy_days.days.len(), 1);
    assert_eq!(busy_days.days[0].scans, u64::from(total));
    assert_eq!(
        busy_days.devices,
        [("desktop".to_owned(), u64::from(total))]
    );

    assert!(matches!(
        svc.export_account(AccountId::random(), &mut Collected::default()),
        Err(ExportError::AccountNotFound(_))
    ));
}
