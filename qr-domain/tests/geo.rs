//! Geolocation with the MaxMind test databases in `../shared/testdata/geoip/`.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;

use qr_domain::accounts::caller::Caller;
use qr_domain::scans::geo::{GeoError, GeoHint};
use qr_domain::service::{ScanOutcome, Visit};
use qr_domain::{
    AnalyticsQuery, GeoLocator, Location, MaxMindLocator, NoGeoLocator, Plan, Service, TestClock,
};

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/testdata/geoip")
        .join(name)
}

fn check(locator: &dyn GeoLocator, ip: &str, country: &str, city: &str) {
    let ip: IpAddr = ip.parse().unwrap();
    assert_eq!(
        locator.locate(ip),
        Location {
            country: country.to_owned(),
            city: city.to_owned()
        },
        "{ip}"
    );
}

#[test]
fn city_databases_locate_the_documented_addresses() {
    for db in ["GeoIP2-City-Test.mmdb", "GeoLite2-City-Test.mmdb"] {
        let locator = MaxMindLocator::open(testdata(db)).unwrap_or_else(|e| panic!("{db}: {e}"));
        check(&locator, "81.2.69.142", "GB", "London");
        check(&locator, "216.160.83.56", "US", "Milton");
        check(&locator, "89.160.20.128", "SE", "Linköping");
        check(&locator, "175.16.199.0", "CN", "Changchun");
        check(&locator, "2.125.160.216", "GB", "Boxford");
        check(&locator, "::ffff:81.2.69.142", "GB", "London");
        check(&locator, "2001:218::1", "JP", "Unknown");
        check(&locator, "10.0.0.1", "XX", "Unknown");
        check(&locator, "127.0.0.1", "XX", "Unknown");
    }
}

#[test]
fn no_database_means_unknown() {
    check(&NoGeoLocator, "81.2.69.142", "XX", "Unknown");
}

#[test]
fn the_broken_database_is_reported_at_open() {
    let path = testdata("GeoIP2-City-Test-Broken-Double-Format.mmdb");
    let err = MaxMindLocator::open(&path).expect_err("the broken database must be refused");
    assert!(
        matches!(err, GeoError::Corrupt { .. } | GeoError::Open { .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("Broken-Double-Format"),
        "the message names the file: {err}"
    );
}

#[test]
fn garbage_and_missing_files_are_reported_at_open() {
    let dir = std::env::temp_dir().join(format!("qr-geo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("garbage.mmdb");
    std::fs::write(
        &garbage,
        b"\x00\x01 not a maxmind database at all ".repeat(64),
    )
    .unwrap();
    let err = MaxMindLocator::open(&garbage).expect_err("garbage must be refused");
    assert!(
        matches!(err, GeoError::Open { .. } | GeoError::Corrupt { .. }),
        "{err}"
    );
    let empty = dir.join("empty.mmdb");
    std::fs::write(&empty, b"").unwrap();
    assert!(MaxMindLocator::open(&empty).is_err());
    assert!(matches!(
        MaxMindLocator::open(dir.join("missing.mmdb")),
        Err(GeoError::Open { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn scans_store_the_location_and_never_the_ip() {
    let locator = Arc::new(MaxMindLocator::open(testdata("GeoIP2-City-Test.mmdb")).unwrap());
    let store = Arc::new(qr_domain::memory::MemoryStore::new());
    let clock = TestClock::new("2024-05-01T10:00:00Z".parse().unwrap());
    let svc = Service::new(store, clock, locator).unwrap();
    let account = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let link = svc
        .create_link(&Caller::operator(account.id), "Geo", "https://example.com")
        .unwrap();
    let visit = |ip: &str, hint: GeoHint| {
        Visit {
        ip: Some(ip.parse().unwrap()),
        user_agent: Some("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1".into()),
        referer: None,
        hint,
    }
    };
    assert!(matches!(
        svc.record_scan(&link, &visit("81.2.69.142", GeoHint::default()))
            .unwrap(),
        ScanOutcome::Recorded(_)
    ));
    svc.record_scan(&link, &visit("10.0.0.1", GeoHint::default()))
        .unwrap();
    let hinted = GeoHint {
        country: Some("FR".into()),
        city: None,
    };
    svc.record_scan(&link, &visit("81.2.69.142", hinted))
        .unwrap();
    let report = svc
        .analytics(&account, link.id, &AnalyticsQuery::default())
        .unwrap();
    let places: Vec<_> = report
        .recent_scans
        .iter()
        .map(|s| (s.country.as_str(), s.city.as_str()))
        .collect();
    assert_eq!(
        places,
        vec![("FR", "Unknown"), ("XX", "Unknown"), ("GB", "London")]
    );
    assert_eq!(report.recent_scans[0].referrer, None);
    let json = serde_json::to_string(&report).unwrap();
    assert!(
        !json.contains("81.2.69.142") && !json.contains("10.0.0.1"),
        "no IP in reports"
    );
}
