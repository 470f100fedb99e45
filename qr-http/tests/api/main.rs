//! The API's integration tests in one binary (each binary links the whole server): generation, authentication, limits and CORS (`api`), links and redirects, rule targets that open apps, content types, logos, exports, the OpenAPI document, bulk creation, campaigns, webhooks and scoped keys, one module each.

// The helpers every binary shares; each binary uses a part of them.
#[path = "../common/mod.rs"]
mod common;

mod analytics_export;
mod api;
mod app_targets;
mod audit;
mod bulk;
mod campaigns;
mod content;
mod contract;
mod designs;
mod domains;
mod export;
mod links;
mod logo;
mod openapi;
mod print;
mod scopes;
mod webhooks;
