//! Accounts, API keys, plans, quotas, rate limits, dynamic links, scans and analytics: the service rules, with storage and the clock behind traits.
//!
//! The crate holds no SQL and no HTTP types. Storage is reached through the
//! [`store::Store`] trait (with [`memory::MemoryStore`] here and the SQLite
//! adapter in `qr-sqlite`), time through [`clock::Clock`], and geolocation
//! through [`geo::GeoLocator`]. [`service::Service`] ties them together and is
//! what the HTTP server, the dashboard and the CLI embed.
#![forbid(unsafe_code)]

pub mod access;
pub mod account;
pub mod analytics;
pub mod bots;
pub mod breakdown;
pub mod bulk;
pub mod campaign;
pub mod clock;
pub mod error;
pub mod export;
pub mod geo;
pub mod ids;
pub mod key;
pub mod limit_state;
pub mod limits;
pub mod link;
pub mod listing;
pub mod memory;
pub mod password;
pub mod plan;
pub mod random;
pub mod routing;
pub mod scan;
pub mod service;
pub mod session;
pub mod shortcode;
pub mod stats;
pub mod store;
pub mod token;
pub mod webhook;
pub mod writer;

#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;

/// The date-time crate used in this API, re-exported so embedders need not pin it.
pub use chrono;

pub use access::{Endpoint, KeySettings};
pub use account::{Account, AccountStatus, Email, PlanRequest, Role, SignupPolicy};
pub use analytics::{AnalyticsQuery, AnalyticsReport};
pub use campaign::{LinkOptions, Options, Tag};
pub use clock::{Clock, SystemClock, TestClock};
pub use error::StoreError;
pub use geo::{GeoLocator, Location, MaxMindLocator, NoGeoLocator};
pub use ids::{AccountId, KeyId, LinkId, ScanId};
pub use key::{ApiKey, ApiKeySecret, KeyMode};
pub use limits::{Admission, LimitKind, RateLimitStatus, Rejection};
pub use link::{Link, LinkName, LinkUpdate, TargetUrl};
pub use password::{Password, PasswordHash};
pub use plan::{EnterpriseOverrides, Feature, Limit, LinkFeature, Plan, PlanLimits};
pub use service::Service;
pub use session::{Session, SessionSecret};
pub use shortcode::ShortCode;
pub use store::{ReadTx, Store, WriteTx};
pub use token::{TokenPurpose, TokenSecret};
