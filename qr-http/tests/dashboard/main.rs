//! The dashboard's integration tests in one binary (each binary links the whole server): its pages, keys, links, domains, webhooks, accounts and the browser journey, one module each.

// The helpers every binary shares; each binary uses a part of them.
#[path = "../common/mod.rs"]
mod common;

mod audit;
mod browser;
mod browser_domains;
mod browser_sso;
mod browser_teams;
mod dashboard;
mod dashboard_audit_log;
mod dashboard_designer;
mod dashboard_designs;
mod dashboard_domains;
mod dashboard_import;
mod dashboard_keys;
mod dashboard_links;
mod dashboard_pages;
mod dashboard_print;
mod dashboard_webhooks;
mod invitations;
mod passkeys;
mod sso;
mod teams;
mod two_factor;
