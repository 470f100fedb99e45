//! Embeds the service without a server: an account and a key, a dynamic link, scans, and the link's analytics, all in memory.
//!
//! Run with `cargo run -p qr-examples --example service`. The store is `MemoryStore` and the
//! clock a `TestClock`, so the dates and counts are the same every run (ids and the key are
//! random); an embedder with a database would pass `qr_sqlite::SqliteStore` and
//! `SystemClock` instead.

use std::sync::Arc;

use qr_domain::accounts::access::AccessRequest;
use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::permissions::Operation;
use qr_domain::chrono::{DateTime, Duration, Utc};
use qr_domain::memory::MemoryStore;
use qr_domain::service::{Resolution, ScanOutcome, Visit};
use qr_domain::{AnalyticsQuery, Endpoint, KeyMode, NoGeoLocator, Plan, Service, TestClock};

const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const LAPTOP: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0";
const CRAWLER: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let start: DateTime<Utc> = "2024-05-01T09:00:00Z".parse()?;
    let clock = TestClock::new(start);
    let service = Service::new(
        Arc::new(MemoryStore::new()),
        clock.clone(),
        Arc::new(NoGeoLocator),
    )?;

    // Administration: an account on the Pro plan and a live key, whose secret is shown once.
    let account = service.create_account("shop@example.com", Plan::Pro)?;
    let (key, secret) = service.create_key(account.id, KeyMode::Live)?;
    println!(
        "account {} ({}, {} plan), key {}…",
        account.id, account.email, account.plan, key.display_prefix
    );

    // The request path an API request takes: authenticate, authorize (creating a link is
    // `WriteLinks`), admit (counted).
    let caller = service.authenticate(Some(secret.expose_secret()), None)?;
    service.authorize(
        &caller,
        Endpoint::Links,
        Some(Operation::WriteLinks),
        AccessRequest::default(),
    )?;
    let admitted = service
        .admit(&caller, false)
        .map_err(|r| r.kind.describe())?;
    let (limit, remaining, _) = admitted.status.header_values();
    println!(
        "authenticated as {}: {remaining} of {limit} requests left this month",
        caller.account.email
    );

    // A dynamic link, then visits to its short code as a redirect handler would record them.
    let link = service.create_link(
        &Caller::operator(caller.account.id),
        "Spring flyer",
        "https://shop.example.com/spring",
    )?;
    println!(
        "link {} -> {} (short code {})",
        link.name, link.target_url, link.short_code
    );
    for (hours, user_agent, ip) in [
        (0, PHONE, "192.0.2.10"),
        (2, LAPTOP, "192.0.2.20"),
        (3, PHONE, "192.0.2.10"),
        (4, CRAWLER, "66.249.66.1"),
        (26, PHONE, "192.0.2.10"),
    ] {
        clock.set(start + Duration::hours(hours));
        let Resolution::Live(live) = service.resolve(None, link.short_code.as_str())? else {
            return Err("the new link does not resolve".into());
        };
        let visit = Visit {
            ip: Some(ip.parse()?),
            user_agent: Some(user_agent.to_owned()),
            referer: Some("https://social.example/post?id=7".to_owned()),
            hint: Default::default(),
        };
        let outcome = match service.record_scan(&live, &visit)? {
            ScanOutcome::Recorded(id) => format!("recorded as scan {id}"),
            ScanOutcome::Skipped(why) => format!("redirected, not counted: {why:?}"),
            ScanOutcome::LinkGone => "the link was deleted meanwhile".to_owned(),
            ScanOutcome::OverCap => "not counted: the link reached its maxScans".to_owned(),
        };
        println!(
            "{}: visit -> {} ({outcome})",
            service.now().format("%Y-%m-%d %H:%M"),
            live.target_url
        );
    }

    // The link's analytics, as GET /api/analytics returns them.
    let report = service.analytics(&caller.account, link.id, &AnalyticsQuery::default())?;
    let a = &report.analytics;
    println!(
        "analytics: {} scans, {} unique, scanCount {}",
        a.total_scans, a.unique_scans, report.link.scan_count
    );
    for day in &a.scans_by_day {
        println!("  {}  {}", day.date, day.scans);
    }
    for device in &a.scans_by_device {
        println!("  {:<8} {}", device.device, device.scans);
    }
    for scan in &report.recent_scans {
        println!(
            "  scan {} at {}: {} / {} / {}, referrer {}",
            scan.id,
            scan.timestamp.format("%Y-%m-%d %H:%M"),
            scan.device,
            scan.browser,
            scan.os,
            scan.referrer.as_deref().unwrap_or("-")
        );
    }
    service.shutdown()?;
    Ok(())
}
