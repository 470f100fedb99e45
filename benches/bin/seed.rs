//! Fills a database for the load script: an account with 500 links and an account whose one
//! link has 1,000,000 scans spread over the past year, both enterprise with high limits, plus a
//! campaign link (two rules, an A/B split, UTM), a link on a verified customer's domain and a
//! link drawn in a saved design.
//!
//! Run: `seed DB [SCANS]`, where DB is an SQLite path or a `postgres://` URL. Prints shell assignments (`KEY_LINKS=...`) for the script to
//! source: the two keys, the codes of a plain and a campaign link to redirect, the domain and
//! code of the domain link, the id of the scanned link, and the design link's id and look.

use std::sync::{Arc, Mutex};

use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::plan::PerSecond;
use qr_domain::chrono::{Duration, SubsecRound, Utc};
use qr_domain::designs::service::DesignUpdate;
use qr_domain::domains::dns::{DnsFailure, DnsResolver, HostRecords};
use qr_domain::domains::service::DomainConfig;
use qr_domain::links::campaign::UtmPart;
use qr_domain::links::link::{RuleInput, VariantInput};
use qr_domain::scans::scan::{Device, NewScan};
use qr_domain::{
    EnterpriseOverrides, KeyMode, LinkUpdate, NoGeoLocator, Plan, Service, Store, TestClock,
};
use qr_store::{Database, Location};

const LINKS: usize = 500;
const DEFAULT_SCANS: u64 = 1_000_000;
/// The customer's domain of the domain redirect case (`Host: go.load.test`); the load script
/// sends it as the Host header, so it never needs to resolve.
const DOMAIN: &str = "go.load.test";
/// The saved design of the link-code case: a styled look (not the plain writer's fast path), as
/// generate's query takes it.
const DESIGN_LOOK: &str = "color=1a237e&style=rounded&finderStyle=rounded";
const DAYS: i64 = 365;
const BATCH: u64 = 4_096;
const COUNTRIES: [(&str, &str); 8] = [
    ("GB", "London"),
    ("US", "Boston"),
    ("DE", "Berlin"),
    ("FR", "Paris"),
    ("SE", "Stockholm"),
    ("JP", "Tokyo"),
    ("BR", "Unknown"),
    ("XX", "Unknown"),
];
const BROWSERS: [&str; 5] = ["Chrome", "Safari", "Firefox", "Edge", "Samsung Internet"];
const SYSTEMS: [&str; 4] = ["Android", "iOS", "Windows", "macOS"];
const DEVICES: [Device; 3] = [Device::Mobile, Device::Desktop, Device::Tablet];
const REFERRERS: [Option<&str>; 3] = [
    None,
    Some("https://news.example/article"),
    Some("https://social.example/"),
];

/// The DNS answers the seeder's domain check gets: the TXT record the domain asks for, so the
/// domain is verified through the service's own check (nothing else is ever asked).
#[derive(Default)]
struct SeedZone {
    txt: Mutex<Option<(String, String)>>,
}

impl DnsResolver for SeedZone {
    fn txt(&self, name: &str) -> Result<Vec<String>, DnsFailure> {
        match &*self.txt.lock().expect("zone lock") {
            Some((record, value)) if record == name => Ok(vec![value.clone()]),
            _ => Err(DnsFailure::NxDomain),
        }
    }

    fn host(&self, _name: &str) -> Result<HostRecords, DnsFailure> {
        Err(DnsFailure::NxDomain)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let location: Location = args.next().ok_or("usage: seed DB [SCANS]")?.parse()?;
    let scans: u64 = match args.next() {
        Some(n) => n.parse()?,
        None => DEFAULT_SCANS,
    };
    let now = Utc::now().trunc_subsecs(6);
    let year_ago = now - Duration::days(DAYS);
    let clock = TestClock::new(year_ago);
    let store = Arc::new(Database::open(&location)?);
    let zone = Arc::new(SeedZone::default());
    let service = Service::new(Arc::clone(&store), clock.clone(), Arc::new(NoGeoLocator))?
        .with_domains(DomainConfig {
            service_host: "127.0.0.1".to_owned(),
            target: None,
            resolver: Some(Arc::clone(&zone) as Arc<dyn DnsResolver>),
        });
    let generous = EnterpriseOverrides {
        per_second: Some(PerSecond::new(u64::from(PerSecond::MAX))?),
        batch_per_minute: Some(1_000_000),
        ..EnterpriseOverrides::default()
    };

    let lister = service.create_account("links@load.example", Plan::Enterprise)?;
    service.set_overrides(lister.id, generous)?;
    let lister = service.account(lister.id)?;
    let (_, key_links) = service.create_key(lister.id, KeyMode::Live)?;
    let mut first_code = None;
    for i in 0..LINKS {
        let link = service.create_link(
            &Caller::operator(lister.id),
            &format!("Flyer {i}"),
            &format!("https://example.com/campaign/{i}?utm_source=qr"),
        )?;
        first_code.get_or_insert(link.short_code);
    }
    // The domain case: the same target as the first link, on a domain verified by its TXT
    // record, so the two redirects differ only in how the code is found.
    let domain = service.add_domain(&Caller::operator(lister.id), DOMAIN)?;
    *zone.txt.lock().expect("zone lock") =
        Some((domain.name.verification_name(), domain.token.txt_value()));
    let domain = service.check_domain(&Caller::operator(lister.id), domain.id)?;
    if !domain.serves_requests() {
        return Err(format!("{DOMAIN} was not verified: {:?}", domain.reason()).into());
    }
    let mut on_domain = LinkUpdate::parse(
        Some("Flyer on a domain"),
        Some("https://example.com/campaign/0?utm_source=qr"),
    )?;
    on_domain.set_domain(DOMAIN)?;
    let domain_link = service.create_link_with(&Caller::operator(lister.id), on_domain)?;

    let analyst = service.create_account("analytics@load.example", Plan::Enterprise)?;
    service.set_overrides(analyst.id, generous)?;
    let analyst = service.account(analyst.id)?;
    let (_, key_analytics) = service.create_key(analyst.id, KeyMode::Live)?;
    let scanned = service.create_link(
        &Caller::operator(analyst.id),
        "Poster",
        "https://example.com/poster",
    )?;
    // The link-code case: a link drawn in a saved design, measured against generate drawing
    // the same image from the same parameters (issue 27: within 5 %).
    let mut brand = DesignUpdate::default();
    brand.set_name("Brand")?;
    brand.set_look(
        DESIGN_LOOK
            .split('&')
            .filter_map(|pair| pair.split_once('=')),
    )?;
    let brand = service.create_design(&Caller::operator(analyst.id), &brand)?;
    let mut in_design = LinkUpdate::parse(
        Some("Flyer in a design"),
        Some("https://example.com/campaign/0?utm_source=qr"),
    )?;
    in_design.set_design(brand.id);
    let design_link = service.create_link_with(&Caller::operator(analyst.id), in_design)?;
    // The campaign case (in this account, so the links case still lists 500 links): two rules
    // an iPhone matches neither of (so both are evaluated), an A/B split and UTM parameters,
    // measured against the plain redirect of `first_code`.
    let mut fields = LinkUpdate::parse(Some("Campaign"), Some("https://example.com/campaign"))?;
    fields.set_rules(&[
        RuleInput {
            os: Some("android"),
            target_url: "https://example.com/campaign/android",
            ..RuleInput::default()
        },
        RuleInput {
            country: Some("JP"),
            device: Some("mobile"),
            target_url: "https://example.com/campaign/jp",
            ..RuleInput::default()
        },
    ])?;
    fields.set_variants(&[
        VariantInput {
            target_url: "https://example.com/campaign/a",
            weight: Some(1),
        },
        VariantInput {
            target_url: "https://example.com/campaign/b",
            weight: Some(1),
        },
    ])?;
    fields.set_utm(Some(&[
        (UtmPart::Source, "poster"),
        (UtmPart::Medium, "print"),
        (UtmPart::Campaign, "load"),
    ]))?;
    let campaign = service.create_link_with(&Caller::operator(analyst.id), fields)?;

    let span_micros = DAYS * 86_400_000_000;
    let step = span_micros / i64::try_from(scans.max(1))?;
    let mut batch = Vec::with_capacity(BATCH as usize);
    for i in 0..scans {
        let k = usize::try_from(i)?;
        let mut visitor = [0u8; 16];
        visitor[..8].copy_from_slice(&(i % 20_000).to_le_bytes());
        let (country, city) = COUNTRIES[k % COUNTRIES.len()];
        batch.push(NewScan {
            link_id: scanned.id,
            at: year_ago + Duration::microseconds(i64::try_from(i)? * step),
            visitor,
            country: country.to_owned(),
            city: city.to_owned(),
            device: DEVICES[k % DEVICES.len()],
            browser: BROWSERS[k % BROWSERS.len()].to_owned(),
            os: SYSTEMS[k % SYSTEMS.len()].to_owned(),
            referrer: REFERRERS[k % REFERRERS.len()].map(str::to_owned),
            variant: None,
            rule: None,
            max_scans: None,
        });
        if batch.len() as u64 == BATCH || i + 1 == scans {
            store.record_scans(&batch)?;
            batch.clear();
        }
    }
    service.shutdown()?;

    let code = first_code.ok_or("no link was created")?;
    println!("KEY_LINKS={}", key_links.expose_secret());
    println!("KEY_ANALYTICS={}", key_analytics.expose_secret());
    println!("REDIRECT_CODE={code}");
    println!("CAMPAIGN_CODE={}", campaign.short_code);
    println!("DOMAIN={DOMAIN}");
    println!("DOMAIN_CODE={}", domain_link.short_code);
    println!("ANALYTICS_LINK={}", scanned.id);
    println!("DESIGN_LINK={}", design_link.id);
    println!("DESIGN_LOOK='{DESIGN_LOOK}'");
    Ok(())
}
