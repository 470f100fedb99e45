//! The storage contract suite: every store adapter runs these checks (feature `contract-tests`).
//!
//! An adapter crate invokes [`contract_suite!`](crate::contract_suite) with a factory
//! returning `(guard, store)`; the guard (for example a temporary directory) lives as
//! long as the test. Each check gets a fresh store. The checks live beside what they check, in
//! each aggregate's `contract` module (`accounts` with its users, invitations and keys, `links` with campaigns and bulk creation,
//! `scans`, `dashboard` with its credentials, rules and two-factor login, `webhooks`, `domains`, `designs`, `audit`, `sso`, `passkeys`); `store.rs` here checks the
//! store as a whole (transactions, isolation across aggregates, restarts, health). This file
//! holds the macro and the fixtures the checks share, so every adapter proves the same behaviour.
//! A check is a `pub fn` of one of those files, and the test `every_check_is_in_the_suite`
//! fails until it is also in the macro's list.
#![allow(clippy::missing_panics_doc)]

pub mod store;

// Short names for the aggregates' check modules, so the macro's list names each by one word.
pub use crate::accounts::contract::{accounts, invitations, keys, users};
pub use crate::audit::contract as audit;
pub use crate::dashboard::contract::credentials;
pub use crate::dashboard::contract::rules as dashboard;
pub use crate::dashboard::contract::two_factor;
pub use crate::designs::contract as designs;
pub use crate::domains::contract as domains;
pub use crate::links::contract::{bulk, campaigns, links};
pub use crate::passkeys::contract as passkeys;
pub use crate::scans::contract as scans;
pub use crate::sso::contract as sso;
pub use crate::webhooks::contract as webhooks;

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};

use crate::accounts::access::KeySettings;
use crate::accounts::account::{Account, Email};
use crate::accounts::key::{ApiKey, ApiKeySecret, KeyMode};
use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::Plan;
use crate::accounts::user::{Membership, User};
use crate::clock::TestClock;
use crate::ids::{AccountId, KeyId, LinkId, UserId};
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
    // The one list of checks, by the module that defines them (named by its alias below);
    // `@list names` gives it as text for the completeness test.
    (@list $then:ident $($make:expr)?) => {
        $crate::contract_suite! {
            @$then $($make)?;
            accounts:
                accounts_roundtrip,
                accounts_may_share_an_address,
                usage_is_never_lowered,
                service_month_rollover_resets_quota,
                service_rate_limit_edges,
                service_usage_and_unlimited_headers,
                service_plan_link_limits,
                service_one_account_per_email;
            users:
                users_roundtrip_and_are_unique_by_email,
                memberships_roundtrip_and_follow_deletions,
                service_workspaces_and_sessions,
                service_members_roles_seats_and_transfer;
            invitations:
                invitations_roundtrip_and_are_unique_per_address,
                service_invitations_follow_their_rules;
            keys:
                keys_roundtrip_and_hash_lookup,
                config_version_tracks_accounts_and_keys,
                config_changes_name_accounts_and_keys,
                service_key_regeneration,
                service_failed_authentication_is_throttled,
                service_valid_keys_pass_a_throttled_address_after_changes,
                service_key_cache_keeps_other_accounts_keys,
                service_access_rules,
                service_key_scopes,
                service_caches_follow_changes;
            links:
                links_are_isolated_per_account, deleted_codes_are_tombstoned,
                service_short_code_lookup;
            campaigns:
                links_keep_tags_options_and_custom_codes, links_are_listed_with_filters_and_cursors,
                scans_keep_their_variant_and_rule, service_campaign_fields_follow_the_plans,
                service_campaign_visits;
            bulk:
                idempotency_records_roundtrip_and_prune,
                service_bulk_creates_valid_items_and_reports_the_rest,
                service_bulk_follows_the_plans, service_bulk_is_idempotent;
            scans:
                salts_and_visitors_are_forgotten, scans_update_rollups_and_stats,
                scans_of_deleted_links_are_skipped, delete_link_removes_its_scans,
                pruning_keeps_scan_count, service_bot_exclusion, service_visitor_scan_budget,
                service_unique_counting, service_retention, service_analytics_window,
                concurrent_writers_on_one_link_stay_exact,
                capped_scans_stop_at_the_cap_under_concurrent_writers,
                service_retention_drops_only_days_no_account_reads;
            credentials:
                accounts_keep_dashboard_fields, tokens_are_single_use_and_replaced,
                sessions_roundtrip_and_end, plan_requests_roundtrip, daily_usage_adds_up,
                delete_account_removes_everything, prune_credentials_removes_ended,
                second_factors_roundtrip_and_follow_deletions;
            dashboard:
                dashboard_signup_and_plan_requests, dashboard_verification_tokens,
                dashboard_password_reset, dashboard_login_and_sessions, dashboard_email_change,
                dashboard_disable_and_roles, dashboard_account_deletion,
                dashboard_usage_renders_and_own_keys, dashboard_link_search;
            two_factor:
                service_two_factor_login, service_failed_logins_are_audited,
                service_workspace_requires_two_factor;
            webhooks:
                webhooks_roundtrip_and_isolation, outbox_fans_out_updates_and_prunes,
                scans_write_events_for_subscribed_accounts, thresholds_once_and_account_deletion,
                service_webhook_events_and_delivery, service_usage_thresholds;
            domains:
                domains_roundtrip_and_isolation, domains_are_due_in_order,
                codes_are_unique_per_domain, orphan_visits_are_counted_and_bounded,
                service_domains_and_their_links, service_app_rules_follow_their_domain;
            designs:
                designs_roundtrip_and_isolation, links_name_designs,
                service_designs_and_their_links, link_codes_follow_designs_and_plans;
            audit:
                audit_entries_read_back_as_appended, audit_filters_by_actor_object_and_time,
                audit_pages_are_stable_under_concurrent_appends, audit_is_isolated_per_workspace,
                audit_prune_deletes_only_old_entries_of_the_workspace,
                service_records_changes_that_outlive_their_objects,
                service_records_keys_members_and_plans,
                service_audit_retention_follows_the_plan;
            sso:
                sso_settings_roundtrip_and_are_found_by_domain,
                sso_attempts_are_taken_once_and_expire,
                sso_identities_link_users_and_go_with_them,
                service_sso_settings_are_for_owners_and_admins_and_audited,
                service_sso_sign_in_links_joins_and_refuses;
            passkeys:
                passkeys_roundtrip_in_order_and_are_unique,
                passkeys_are_used_and_deleted_only_as_told,
                ceremonies_are_taken_once_and_pruned_when_expired,
                passkeys_and_ceremonies_go_with_their_user,
                service_passkey_registration, service_passkey_removal, service_passkey_login,
                service_passkey_second_step, service_passkey_meets_the_workspace_requirement,
                service_prune_removes_expired_ceremonies;
            store:
                write_rolls_back_on_error, service_cross_account_isolation,
                service_sees_changes_made_elsewhere, service_counters_survive_restart,
                service_store_health
        }
    };
    (@each $make:expr; $($module:ident : $($check:ident),*);*) => {
        $($(
            #[test]
            fn $check() {
                // The guard (for example a temporary directory) lives until the check ends.
                let Some((_guard, store)) = ($make)() else { return };
                $crate::contract::$module::$check(store);
            }
        )*)*
    };
    (@names; $($module:ident : $($check:ident),*);*) => {
        [$(
            (stringify!($module), &[$(stringify!($check)),*] as &[&str])
        ),*]
    };
}

pub(crate) fn t(s: &str) -> DateTime<Utc> {
    s.parse().expect("test timestamps are valid")
}

pub(crate) fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("test dates are valid")
}

pub(crate) fn account(plan: Plan) -> Account {
    let id = AccountId::random();
    Account::new(
        id,
        Email::parse(&format!("owner-{id}@example.com")).expect("valid"),
        plan,
        t("2024-01-01T00:00:00Z"),
    )
}

pub(crate) fn key_for(account: AccountId) -> (ApiKey, ApiKeySecret) {
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
        created_by: Some(crate::accounts::key::KeyCreator::User(UserId::random())),
    };
    (key, secret)
}

pub(crate) fn link_for(account: AccountId, at: &str) -> Link {
    Link {
        id: LinkId::random(),
        account_id: account,
        name: LinkName::parse("Flyer").expect("valid"),
        short_code: ShortCode::generate().expect("rng"),
        domain: None,
        design: None,
        target_url: TargetUrl::parse("https://example.com/").expect("valid"),
        scan_count: 0,
        created_at: t(at),
        updated_at: t(at),
        tags: Vec::new(),
        options: Default::default(),
    }
}

pub(crate) fn scan(
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
        max_scans: None,
    }
}

/// A new user (not stored).
pub(crate) fn user() -> User {
    let id = UserId::random();
    User::new(
        id,
        Email::parse(&format!("user-{id}@example.com")).expect("valid"),
        t("2024-01-01T00:00:00Z"),
    )
}

/// A stored user who is a member of `account` with `role`.
pub(crate) fn member_of<S: Store>(store: &S, account: AccountId, role: MemberRole) -> User {
    let u = user();
    store
        .write(|tx| {
            tx.insert_user(&u)?;
            tx.put_membership(&Membership {
                account_id: account,
                user_id: u.id,
                role,
                created_at: t("2024-01-01T00:00:00Z"),
            })
        })
        .expect("insert member");
    u
}

pub(crate) fn setup<S: Store>(store: &S, plan: Plan) -> Account {
    let a = account(plan);
    store
        .write(|tx| tx.insert_account(&a))
        .expect("insert account");
    a
}

/// Waits (at most 2 s) until the store knows what changed up to its current version: at once
/// for stores that read both from one place, within milliseconds for one that hears of changes
/// by notification (its own writes too, when another notification is on its way).
pub(crate) fn until_changes_heard<S: Store>(store: &S) {
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

pub(crate) fn service<S: Store>(store: S, at: &str) -> (Service<S, TestClock>, TestClock) {
    let clock = TestClock::new(t(at));
    let svc = Service::new(Arc::new(store), clock.clone(), Arc::new(NoGeoLocator))
        .expect("service starts");
    (svc, clock)
}

/// A query the check knows to be valid.
pub(crate) fn query(start: Option<&str>, end: Option<&str>, limit: Option<&str>) -> AnalyticsQuery {
    AnalyticsQuery::parse(start, end, limit).expect("valid query")
}

pub(crate) const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
pub(crate) const DESKTOP: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0";

pub(crate) fn visit(ip: &str, ua: &str) -> Visit {
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

    /// The source of each module the suite names.
    fn source_of(module: &str) -> &'static str {
        match module {
            "accounts" => include_str!("../accounts/contract/accounts.rs"),
            "keys" => include_str!("../accounts/contract/keys.rs"),
            "users" => include_str!("../accounts/contract/users.rs"),
            "invitations" => include_str!("../accounts/contract/invitations.rs"),
            "links" => include_str!("../links/contract/links.rs"),
            "campaigns" => include_str!("../links/contract/campaigns.rs"),
            "bulk" => include_str!("../links/contract/bulk.rs"),
            "scans" => concat!(
                include_str!("../scans/contract.rs"),
                include_str!("../scans/contract/concurrency.rs")
            ),
            "credentials" => {
                include_str!("../dashboard/contract/credentials.rs")
            }
            "dashboard" => include_str!("../dashboard/contract/rules.rs"),
            "two_factor" => include_str!("../dashboard/contract/two_factor.rs"),
            "webhooks" => include_str!("../webhooks/contract.rs"),
            "domains" => include_str!("../domains/contract.rs"),
            "designs" => include_str!("../designs/contract.rs"),
            "audit" => include_str!("../audit/contract.rs"),
            "sso" => include_str!("../sso/contract.rs"),
            "passkeys" => concat!(
                include_str!("../passkeys/contract.rs"),
                include_str!("../passkeys/contract/service.rs")
            ),
            "store" => include_str!("store.rs"),
            other => panic!("contract_suite! names {other}: add its source here"),
        }
    }

    #[test]
    fn every_check_is_in_the_suite() {
        let listed = crate::contract_suite!(@list names);
        assert_eq!(listed.len(), 18, "every contract module is listed once");
        for (module, names) in listed {
            let mut names = names.to_vec();
            names.sort_unstable();
            assert_eq!(
                names,
                checks_in(source_of(module)),
                "contract_suite! must list exactly the pub fn checks of {module}"
            );
        }
    }
}
