//! The storage contract suite: every store adapter runs these checks (feature `contract-tests`).
//!
//! An adapter crate invokes [`contract_suite!`](crate::contract_suite) with a factory
//! returning `(guard, store)`; the guard (for example a temporary directory) lives as
//! long as the test. Each check gets a fresh store. The checks of the store traits
//! themselves are in `store.rs`, those of the service rules on top of them in `service.rs`,
//! those of the dashboard's records (accounts' passwords, roles and status, tokens, sessions,
//! plan requests, daily usage, deletion) in `credentials.rs` and of its rules in `dashboard.rs`,
//! and of links' campaign fields (tags, options, custom codes, listing, visits) in `campaigns.rs`,
//! and of bulk creation and its idempotency records in `bulk.rs`, so every adapter proves the same behaviour; this file holds the macro and shared fixtures.
//! A check is a `pub fn` of one of those files, and the test `every_check_is_in_the_suite`
//! fails until it is also in the macro's list.
#![allow(clippy::missing_panics_doc)]

pub mod bulk;
pub mod campaigns;
pub mod credentials;
pub mod dashboard;
pub mod service;
pub mod store;
pub mod webhooks;

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};

use crate::accounts::access::KeySettings;
use crate::accounts::account::{Account, Email};
use crate::accounts::key::{ApiKey, ApiKeySecret, KeyMode};
use crate::accounts::plan::Plan;
use crate::clock::TestClock;
use crate::ids::{AccountId, KeyId, LinkId};
use crate::links::link::{Link, LinkName, TargetUrl};
use crate::links::shortcode::ShortCode;
use crate::scans::analytics::AnalyticsQuery;
use crate::scans::geo::NoGeoLocator;
use crate::scans::scan::{Device, NewScan};
use crate::service::{Service, Visit};
use crate::store::Store;

/// Expands to one `#[test]` per contract check, each calling `$make()` for a fresh `(guard, store)`.
///
/// `contract_suite!(optional $make)` takes a factory answering `Option<(guard, store)>`, for
/// stores that need an outside server: on `None` (the server is not installed, which the
/// factory reports) each check returns at once.
#[macro_export]
macro_rules! contract_suite {
    (optional $make:expr) => {
        $crate::contract_suite!(@list each $make);
    };
    ($make:expr) => {
        $crate::contract_suite!(@list each (|| Some(($make)())));
    };
    // The one list of checks, by file; `@list names` gives it as text for the completeness test.
    (@list $then:ident $($make:expr)?) => {
        $crate::contract_suite! {
            @$then $($make)?;
            store:
                accounts_roundtrip, accounts_are_unique_by_email,
                write_rolls_back_on_error, keys_roundtrip_and_hash_lookup,
                config_version_tracks_accounts_and_keys, config_changes_name_accounts_and_keys,
                links_are_isolated_per_account,
                deleted_codes_are_tombstoned, usage_is_never_lowered,
                salts_and_visitors_are_forgotten, scans_update_rollups_and_stats,
                scans_of_deleted_links_are_skipped, delete_link_removes_its_scans,
                pruning_keeps_scan_count;
            service:
                service_month_rollover_resets_quota, service_rate_limit_edges,
                service_usage_and_unlimited_headers, service_plan_link_limits,
                service_key_regeneration, service_cross_account_isolation,
                service_bot_exclusion, service_visitor_scan_budget, service_failed_authentication_is_throttled,
                service_valid_keys_pass_a_throttled_address_after_changes,
                service_key_cache_keeps_other_accounts_keys, service_unique_counting, service_retention,
                service_analytics_window, service_short_code_lookup,
                service_sees_changes_made_elsewhere, service_counters_survive_restart,
                service_access_rules, service_caches_follow_changes,
                service_one_account_per_email, service_store_health;
            credentials:
                accounts_keep_dashboard_fields, tokens_are_single_use_and_replaced,
                sessions_roundtrip_and_end, plan_requests_roundtrip, daily_usage_adds_up,
                delete_account_removes_everything, prune_credentials_removes_ended;
            dashboard:
                dashboard_signup_and_plan_requests, dashboard_verification_tokens,
                dashboard_password_reset, dashboard_login_and_sessions, dashboard_email_change,
                dashboard_disable_and_roles, dashboard_account_deletion,
                dashboard_usage_renders_and_own_keys, dashboard_link_search;
            campaigns:
                links_keep_tags_options_and_custom_codes, links_are_listed_with_filters_and_cursors,
                scans_keep_their_variant_and_rule, service_campaign_fields_follow_the_plans,
                service_campaign_visits;
            webhooks:
                webhooks_roundtrip_and_isolation, outbox_fans_out_updates_and_prunes,
                scans_write_events_for_subscribed_accounts, thresholds_once_and_account_deletion,
                service_webhook_events_and_delivery, service_usage_thresholds;
            bulk:
                idempotency_records_roundtrip_and_prune,
                service_bulk_creates_valid_items_and_reports_the_rest,
                service_bulk_follows_the_plans, service_bulk_is_idempotent
        }
    };
    (@each $make:expr; store: $($store:ident),*; service: $($service:ident),*; credentials: $($credentials:ident),*; dashboard: $($dashboard:ident),*; campaigns: $($campaigns:ident),*; webhooks: $($webhooks:ident),*; bulk: $($bulk:ident),*) => {
        $(
            #[test]
            fn $bulk() {
                let Some((_guard, store)) = ($make)() else { return };
                $crate::contract::bulk::$bulk(store);
            }
        )*
        $(
            #[test]
            fn $webhooks() {
                let Some((_guard, store)) = ($make)() else { return };
                $crate::contract::webhooks::$webhooks(store);
            }
        )*
        $(
            #[test]
            fn $store() {
                // The guard (for example a temporary directory) lives until the check ends.
                let Some((_guard, store)) = ($make)() else { return };
                $crate::contract::store::$store(store);
            }
        )*
        $(
            #[test]
            fn $service() {
                let Some((_guard, store)) = ($make)() else { return };
                $crate::contract::service::$service(store);
            }
        )*
        $(
            #[test]
            fn $credentials() {
                let Some((_guard, store)) = ($make)() else { return };
                $crate::contract::credentials::$credentials(store);
            }
        )*
        $(
            #[test]
            fn $dashboard() {
                let Some((_guard, store)) = ($make)() else { return };
                $crate::contract::dashboard::$dashboard(store);
            }
        )*
        $(
            #[test]
            fn $campaigns() {
                let Some((_guard, store)) = ($make)() else { return };
                $crate::contract::campaigns::$campaigns(store);
            }
        )*
    };
    (@names; store: $($store:ident),*; service: $($service:ident),*; credentials: $($credentials:ident),*; dashboard: $($dashboard:ident),*; campaigns: $($campaigns:ident),*; webhooks: $($webhooks:ident),*; bulk: $($bulk:ident),*) => {
        (
            [$(stringify!($store)),*],
            [$(stringify!($service)),*],
            [$(stringify!($credentials)),*],
            [$(stringify!($dashboard)),*],
            [$(stringify!($campaigns)),*],
            [$(stringify!($webhooks)),*],
            [$(stringify!($bulk)),*],
        )
    };
}

fn t(s: &str) -> DateTime<Utc> {
    s.parse().expect("test timestamps are valid")
}

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("test dates are valid")
}

fn account(plan: Plan) -> Account {
    let id = AccountId::random();
    Account::new(
        id,
        Email::parse(&format!("owner-{id}@example.com")).expect("valid"),
        plan,
        t("2024-01-01T00:00:00Z"),
    )
}

fn key_for(account: AccountId) -> (ApiKey, ApiKeySecret) {
    let secret = ApiKeySecret::generate(KeyMode::Live).expect("rng");
    let key = ApiKey {
        id: KeyId::random(),
        account_id: account,
        mode: KeyMode::Live,
        hash: secret.hash(),
        display_prefix: secret.display_prefix(),
        last_four: secret.last_four(),
        name: "Server".to_owned(),
        created_at: t("2024-01-01T00:00:00Z"),
        last_used_at: None,
        settings: KeySettings::default(),
    };
    (key, secret)
}

fn link_for(account: AccountId, at: &str) -> Link {
    Link {
        id: LinkId::random(),
        account_id: account,
        name: LinkName::parse("Flyer").expect("valid"),
        short_code: ShortCode::generate().expect("rng"),
        target_url: TargetUrl::parse("https://example.com/").expect("valid"),
        scan_count: 0,
        created_at: t(at),
        updated_at: t(at),
        tags: Vec::new(),
        options: Default::default(),
    }
}

fn scan(
    link: LinkId,
    at: &str,
    visitor: u8,
    country: &str,
    device: Device,
    browser: &str,
) -> NewScan {
    NewScan {
        link_id: link,
        at: t(at),
        visitor: [visitor; 16],
        country: country.to_owned(),
        city: "Unknown".to_owned(),
        device,
        browser: browser.to_owned(),
        os: "Android".to_owned(),
        referrer: Some("https://ref.example/".to_owned()),
        variant: None,
        rule: None,
    }
}

fn setup<S: Store>(store: &S, plan: Plan) -> Account {
    let a = account(plan);
    store
        .write(|tx| tx.insert_account(&a))
        .expect("insert account");
    a
}

/// Waits (at most 2 s) until the store knows what changed up to its current version: at once
/// for stores that read both from one place, within milliseconds for one that hears of changes
/// by notification (its own writes too, when another notification is on its way).
fn until_changes_heard<S: Store>(store: &S) {
    let started = std::time::Instant::now();
    loop {
        let version = store.config_version().expect("version");
        if store.config_changes(version).expect("changes").version() >= version {
            return;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "the store never heard what changed up to version {version}"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

fn service<S: Store>(store: S, at: &str) -> (Service<S, TestClock>, TestClock) {
    let clock = TestClock::new(t(at));
    let svc = Service::new(Arc::new(store), clock.clone(), Arc::new(NoGeoLocator))
        .expect("service starts");
    (svc, clock)
}

/// A query the check knows to be valid.
fn query(start: Option<&str>, end: Option<&str>, limit: Option<&str>) -> AnalyticsQuery {
    AnalyticsQuery::parse(start, end, limit).expect("valid query")
}

pub(crate) const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
pub(crate) const DESKTOP: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0";

fn visit(ip: &str, ua: &str) -> Visit {
    Visit {
        ip: Some(ip.parse().expect("valid ip")),
        user_agent: Some(ua.to_owned()),
        referer: Some("https://social.example/post?id=7#c".to_owned()),
        hint: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    /// The checks a file defines: its `pub fn` items.
    fn checks_in(source: &str) -> Vec<&str> {
        let mut names: Vec<&str> = source
            .lines()
            .filter_map(|line| line.strip_prefix("pub fn "))
            .filter_map(|rest| rest.split(['<', '(']).next())
            .collect();
        names.sort_unstable();
        names
    }

    fn sorted<const N: usize>(names: [&'static str; N]) -> Vec<&'static str> {
        let mut names = names.to_vec();
        names.sort_unstable();
        names
    }

    #[test]
    fn every_check_is_in_the_suite() {
        let (store, service, credentials, dashboard, campaigns, webhooks, bulk) =
            crate::contract_suite!(@list names);
        assert_eq!(
            sorted(store),
            checks_in(include_str!("store.rs")),
            "contract_suite! must list exactly the pub fn checks of contract/store.rs"
        );
        assert_eq!(
            sorted(service),
            checks_in(include_str!("service.rs")),
            "contract_suite! must list exactly the pub fn checks of contract/service.rs"
        );
        assert_eq!(
            sorted(credentials),
            checks_in(include_str!("credentials.rs")),
            "contract_suite! must list exactly the pub fn checks of contract/credentials.rs"
        );
        assert_eq!(
            sorted(dashboard),
            checks_in(include_str!("dashboard.rs")),
            "contract_suite! must list exactly the pub fn checks of contract/dashboard.rs"
        );
        assert_eq!(
            sorted(campaigns),
            checks_in(include_str!("campaigns.rs")),
            "contract_suite! must list exactly the pub fn checks of contract/campaigns.rs"
        );
        assert_eq!(
            sorted(webhooks),
            checks_in(include_str!("webhooks.rs")),
            "contract_suite! must list exactly the pub fn checks of contract/webhooks.rs"
        );
        assert_eq!(
            sorted(bulk),
            checks_in(include_str!("bulk.rs")),
            "contract_suite! must list exactly the pub fn checks of contract/bulk.rs"
        );
    }
}
