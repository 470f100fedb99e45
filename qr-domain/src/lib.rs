//! Accounts, API keys, plans, quotas, rate limits, dynamic links, scans and analytics: the service rules, with storage and the clock behind traits.
//!
//! The crate holds no SQL and no HTTP types. Storage is reached through the
//! [`store::Store`] trait (with [`memory::MemoryStore`] here and the SQLite
//! adapter in `qr-sqlite`), time through [`clock::Clock`], and geolocation
//! through [`scans::geo::GeoLocator`]. [`service::Service`] ties them together and is
//! what the HTTP server, the dashboard and the CLI embed.
#![forbid(unsafe_code)]

pub mod accounts;
pub mod audit;
pub mod clock;
pub mod dashboard;
pub mod designs;
pub mod domains;
pub mod error;
pub mod export;
pub mod ids;
pub mod links;
pub mod memory;
pub mod passkeys;
pub mod print;
pub mod public_address;
pub mod random;
pub mod scans;
pub mod service;
pub mod sso;
pub mod stats;
pub mod store;
pub mod webhooks;

#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;

/// The date-time crate used in this API, re-exported so embedders need not pin it.
pub use chrono;

pub use accounts::access::{Endpoint, KeySettings};
pub use accounts::account::{Account, AccountStatus, Email, PlanRequest, Role, SignupPolicy};
pub use accounts::key::{ApiKey, ApiKeySecret, KeyMode};
pub use accounts::limits::{Admission, LimitKind, RateLimitStatus, Rejection};
pub use accounts::plan::{EnterpriseOverrides, Feature, Limit, LinkFeature, Plan, PlanLimits};
pub use clock::{Clock, SystemClock, TestClock};
pub use dashboard::password::{Password, PasswordHash};
pub use dashboard::session::{Session, SessionSecret};
pub use dashboard::token::{TokenPurpose, TokenSecret};
pub use error::StoreError;
pub use ids::{AccountId, DesignId, DomainId, KeyId, LinkId, ScanId};
pub use links::campaign::{LinkOptions, Options, Tag};
pub use links::link::{Link, LinkName, LinkUpdate, TargetUrl};
pub use links::shortcode::ShortCode;
pub use scans::analytics::{AnalyticsQuery, AnalyticsReport};
pub use scans::geo::{GeoLocator, Location, MaxMindLocator, NoGeoLocator};
pub use service::Service;
pub use store::{ReadTx, Store, WriteTx};
