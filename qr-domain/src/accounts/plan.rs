//! Plans and the limits they grant: the spec's plan table plus enterprise overrides.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A subscription plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    /// The free tier.
    Free,
    /// The Starter plan.
    Starter,
    /// The Pro plan (batch generation, logos).
    Pro,
    /// The Enterprise plan, with operator-set overrides.
    Enterprise,
}

/// A count limit that may be unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Limit {
    /// No limit.
    Unlimited,
    /// At most this many.
    Max(u64),
}

/// The per-second request rate of a key, 1 to 1,000,000 requests per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct PerSecond(u32);

/// How long scans are kept and reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Retention {
    /// Scans are kept forever.
    Unlimited,
    /// Scans are kept for this many UTC calendar days, today included.
    Days(u32),
}

/// Batch generation limits of a plan that allows batch generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BatchLimits {
    /// Maximum number of items in one batch request.
    pub max_items: u32,
    /// Maximum number of batch requests per minute, per account.
    pub per_minute: u32,
}

/// Operator-set limits of an enterprise account; `None` means the enterprise default.
///
/// Defaults: monthly requests, links and retention unlimited; 200 requests per
/// second; batch 1,000 items and 100 requests per minute (the spec's table).
/// Overrides are stored for every account but only apply on the Enterprise plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnterpriseOverrides {
    /// Requests per UTC month.
    pub monthly_requests: Option<u64>,
    /// Requests per second per key.
    pub per_second: Option<PerSecond>,
    /// Items per batch request.
    pub batch_items: Option<u32>,
    /// Batch requests per minute per account.
    pub batch_per_minute: Option<u32>,
    /// Number of dynamic links.
    pub links: Option<u64>,
    /// Number of customer domains.
    pub domains: Option<u64>,
    /// Scan retention in days.
    pub retention_days: Option<u32>,
}

/// A capability a request may use that only some plans include.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// A logo in the centre of a generated code (`logo` of `GET /api/generate`).
    Logo,
    /// Creating many links in one request (`POST /api/links/bulk`).
    BulkLinks,
}

/// A link field that only some plans may set (tags, pausing, UTM and query forwarding are in
/// every plan).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkFeature {
    /// A custom `shortCode`.
    ShortCode,
    /// `validFrom`, `validUntil`, `maxScans` and `expiredUrl`.
    Schedule,
    /// A `password`.
    Password,
    /// Redirect `rules`.
    Rules,
    /// A/B `variants`.
    Variants,
}

/// Link fields of Starter: custom codes and schedules.
const STARTER_LINK_FEATURES: &[LinkFeature] = &[LinkFeature::ShortCode, LinkFeature::Schedule];
/// Link fields of Pro and Enterprise: everything.
const PRO_LINK_FEATURES: &[LinkFeature] = &[
    LinkFeature::ShortCode,
    LinkFeature::Schedule,
    LinkFeature::Password,
    LinkFeature::Rules,
    LinkFeature::Variants,
];

impl Feature {
    /// The cheapest plan that includes the feature.
    pub fn plan(self) -> Plan {
        Plan::ALL
            .into_iter()
            .find(|p| p.limits(&EnterpriseOverrides::default()).includes(self))
            .unwrap_or(Plan::Enterprise)
    }
}

impl LinkFeature {
    /// The cheapest plan that includes the feature.
    pub fn plan(self) -> Plan {
        Plan::ALL
            .into_iter()
            .find(|p| {
                p.limits(&EnterpriseOverrides::default())
                    .link_features
                    .contains(&self)
            })
            .unwrap_or(Plan::Enterprise)
    }
}

/// The effective limits and features of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanLimits {
    /// Requests per UTC calendar month.
    pub monthly_requests: Limit,
    /// Requests per second per key (a key may set a lower rate).
    pub per_second: PerSecond,
    /// Batch limits, `None` when the plan cannot use batch generation.
    pub batch: Option<BatchLimits>,
    /// The most links one `POST /api/links/bulk` may create, `None` when the plan cannot use
    /// bulk creation (the spec's "plans below Pro cannot use batch"). Left out of the JSON form,
    /// like `logo`.
    #[serde(skip_serializing)]
    pub bulk_links: Option<u32>,
    /// Whether generated codes may carry a logo. Left out of the JSON form, which
    /// `qr accounts show --json` prints and which stays as it was before the field existed.
    #[serde(skip_serializing)]
    pub logo: bool,
    /// Number of dynamic links the account may hold.
    pub links: Limit,
    /// Number of customer domains the account may hold (left out of the JSON form, like
    /// `logo`).
    #[serde(skip_serializing)]
    pub domains: Limit,
    /// The link fields the plan may set (left out of the JSON form, like `logo`).
    #[serde(skip_serializing)]
    pub link_features: &'static [LinkFeature],
    /// Members the workspace may have, its owner and pending invitations included (left out
    /// of the JSON form, like `logo`).
    #[serde(skip_serializing)]
    pub seats: Limit,
    /// Scan retention.
    pub retention: Retention,
}

/// A plan name or limit value that is out of range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlanError {
    /// The plan name is not one of the four plans.
    #[error("unknown plan {0:?}: expected free, starter, pro or enterprise")]
    UnknownPlan(String),
    /// A per-second rate outside 1 to 1,000,000.
    #[error("a per-second rate must be between 1 and 1000000, got {0}")]
    RateOutOfRange(u64),
    /// A zero batch limit or retention.
    #[error("{0} must be at least 1")]
    Zero(&'static str),
}

/// The most links an Enterprise bulk request creates (not overridable: it is also the bound of
/// one call, `qr_domain::links::bulk::MAX_BULK_LINKS`).
pub const ENTERPRISE_BULK_LINKS: u32 = 10_000;

/// The enterprise per-second default when no override is set.
pub const ENTERPRISE_DEFAULT_PER_SECOND: u32 = 200;

impl Plan {
    /// All plans, cheapest first.
    pub const ALL: [Plan; 4] = [Plan::Free, Plan::Starter, Plan::Pro, Plan::Enterprise];

    /// The plan's name as a title (`Pro`), as the spec's messages write it.
    pub fn title(self) -> &'static str {
        match self {
            Plan::Free => "Free",
            Plan::Starter => "Starter",
            Plan::Pro => "Pro",
            Plan::Enterprise => "Enterprise",
        }
    }

    /// The lower-case plan name used in the usage object.
    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Starter => "starter",
            Plan::Pro => "pro",
            Plan::Enterprise => "enterprise",
        }
    }

    /// The limits of this plan; `overrides` only apply to Enterprise.
    pub fn limits(self, overrides: &EnterpriseOverrides) -> PlanLimits {
        let fixed =
            |monthly, rate, batch: Option<BatchLimits>, logo, links, domains, days, seats| {
                PlanLimits {
                    monthly_requests: Limit::Max(monthly),
                    per_second: PerSecond(rate),
                    batch,
                    // Pro: its batch size (100 links, a fifth of its 500-link limit per request).
                    bulk_links: batch.map(|b| b.max_items),
                    logo,
                    links: Limit::Max(links),
                    domains: Limit::Max(domains),
                    link_features: match self {
                        Plan::Free => &[],
                        Plan::Starter => STARTER_LINK_FEATURES,
                        Plan::Pro | Plan::Enterprise => PRO_LINK_FEATURES,
                    },
                    seats: Limit::Max(seats),
                    retention: Retention::Days(days),
                }
            };
        match self {
            Plan::Free => fixed(1_000, 2, None, false, 5, 0, 30, 1),
            Plan::Starter => fixed(10_000, 10, None, false, 50, 1, 90, 3),
            Plan::Pro => fixed(
                100_000,
                50,
                Some(BatchLimits {
                    max_items: 100,
                    per_minute: 10,
                }),
                true,
                500,
                5,
                365,
                10,
            ),
            Plan::Enterprise => PlanLimits {
                monthly_requests: overrides
                    .monthly_requests
                    .map_or(Limit::Unlimited, Limit::Max),
                per_second: overrides
                    .per_second
                    .unwrap_or(PerSecond(ENTERPRISE_DEFAULT_PER_SECOND)),
                batch: Some(BatchLimits {
                    max_items: overrides.batch_items.unwrap_or(1_000).max(1),
                    per_minute: overrides.batch_per_minute.unwrap_or(100).max(1),
                }),
                // The target: a 10,000-row spreadsheet in one request.
                bulk_links: Some(ENTERPRISE_BULK_LINKS),
                logo: true,
                links: overrides.links.map_or(Limit::Unlimited, Limit::Max),
                domains: overrides.domains.map_or(Limit::Unlimited, Limit::Max),
                link_features: PRO_LINK_FEATURES,
                seats: Limit::Unlimited,
                retention: overrides
                    .retention_days
                    .map_or(Retention::Unlimited, |d| Retention::Days(d.max(1))),
            },
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Plan {
    type Err = PlanError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "free" => Ok(Plan::Free),
            "starter" => Ok(Plan::Starter),
            "pro" => Ok(Plan::Pro),
            "enterprise" => Ok(Plan::Enterprise),
            _ => Err(PlanError::UnknownPlan(s.to_owned())),
        }
    }
}

impl PlanLimits {
    /// Whether the plan includes `feature`.
    pub fn includes(&self, feature: Feature) -> bool {
        match feature {
            Feature::Logo => self.logo,
            Feature::BulkLinks => self.bulk_links.is_some(),
        }
    }
}

impl Limit {
    /// The smaller of two limits.
    pub fn min_with(self, other: Limit) -> Limit {
        match (self, other) {
            (Limit::Unlimited, x) | (x, Limit::Unlimited) => x,
            (Limit::Max(a), Limit::Max(b)) => Limit::Max(a.min(b)),
        }
    }

    /// Whether `used` has reached this limit.
    pub fn is_reached(self, used: u64) -> bool {
        matches!(self, Limit::Max(max) if used >= max)
    }

    /// What is left after `used`, never below zero.
    pub fn remaining(self, used: u64) -> Limit {
        match self {
            Limit::Unlimited => Limit::Unlimited,
            Limit::Max(max) => Limit::Max(max.saturating_sub(used)),
        }
    }

    /// The wire form: the number, or -1 for unlimited (see `docs/api.md`).
    pub fn wire(self) -> i64 {
        match self {
            Limit::Unlimited => -1,
            Limit::Max(max) => i64::try_from(max).unwrap_or(i64::MAX),
        }
    }
}

impl PerSecond {
    /// The largest accepted rate.
    pub const MAX: u32 = 1_000_000;

    /// A rate of `n` requests per second, 1 to 1,000,000.
    pub fn new(n: u64) -> Result<Self, PlanError> {
        match u32::try_from(n) {
            Ok(v) if (1..=Self::MAX).contains(&v) => Ok(Self(v)),
            _ => Err(PlanError::RateOutOfRange(n)),
        }
    }

    /// The rate as a number.
    pub fn get(self) -> u32 {
        self.0
    }
}

impl TryFrom<u32> for PerSecond {
    type Error = PlanError;

    fn try_from(n: u32) -> Result<Self, Self::Error> {
        Self::new(u64::from(n))
    }
}

impl From<PerSecond> for u32 {
    fn from(rate: PerSecond) -> u32 {
        rate.0
    }
}

impl EnterpriseOverrides {
    /// Checks that no override is zero (a zero limit would make the account unusable by accident).
    pub fn validate(&self) -> Result<(), PlanError> {
        if self.batch_items == Some(0) {
            return Err(PlanError::Zero("batch items"));
        }
        if self.batch_per_minute == Some(0) {
            return Err(PlanError::Zero("batch requests per minute"));
        }
        if self.retention_days == Some(0) {
            return Err(PlanError::Zero("retention days"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_table_matches_the_spec() {
        let none = EnterpriseOverrides::default();
        let check = |plan: Plan, monthly, rate, links, batch: Option<(u32, u32)>, retention| {
            let l = plan.limits(&none);
            assert_eq!(l.monthly_requests, monthly, "{plan} monthly");
            assert_eq!(l.per_second.get(), rate, "{plan} rate");
            assert_eq!(l.links, links, "{plan} links");
            assert_eq!(
                l.batch.map(|b| (b.max_items, b.per_minute)),
                batch,
                "{plan} batch"
            );
            assert_eq!(l.retention, retention, "{plan} retention");
        };
        check(
            Plan::Free,
            Limit::Max(1_000),
            2,
            Limit::Max(5),
            None,
            Retention::Days(30),
        );
        check(
            Plan::Starter,
            Limit::Max(10_000),
            10,
            Limit::Max(50),
            None,
            Retention::Days(90),
        );
        check(
            Plan::Pro,
            Limit::Max(100_000),
            50,
            Limit::Max(500),
            Some((100, 10)),
            Retention::Days(365),
        );
        check(
            Plan::Enterprise,
            Limit::Unlimited,
            200,
            Limit::Unlimited,
            Some((1_000, 100)),
            Retention::Unlimited,
        );
    }

    #[test]
    fn logos_need_pro_or_enterprise() {
        let with_logo: Vec<Plan> = Plan::ALL
            .into_iter()
            .filter(|p| {
                p.limits(&EnterpriseOverrides::default())
                    .includes(Feature::Logo)
            })
            .collect();
        assert_eq!(with_logo, vec![Plan::Pro, Plan::Enterprise]);
    }

    #[test]
    fn bulk_links_from_pro_and_ten_thousand_on_enterprise() {
        let none = EnterpriseOverrides::default();
        let sizes: Vec<Option<u32>> = Plan::ALL
            .into_iter()
            .map(|p| p.limits(&none).bulk_links)
            .collect();
        assert_eq!(sizes, vec![None, None, Some(100), Some(10_000)]);
        assert_eq!(Feature::BulkLinks.plan(), Plan::Pro);
        let small = EnterpriseOverrides {
            batch_items: Some(5),
            ..none
        };
        assert_eq!(Plan::Enterprise.limits(&small).bulk_links, Some(10_000));
    }

    #[test]
    fn overrides_apply_only_to_enterprise() {
        let o = EnterpriseOverrides {
            monthly_requests: Some(7),
            per_second: Some(PerSecond::new(3).unwrap()),
            batch_items: Some(5),
            batch_per_minute: Some(6),
            links: Some(8),
            domains: Some(4),
            retention_days: Some(9),
        };
        let e = Plan::Enterprise.limits(&o);
        assert_eq!(e.domains, Limit::Max(4));
        assert_eq!(Plan::Pro.limits(&o).domains, Limit::Max(5));
        assert_eq!(
            Plan::Enterprise
                .limits(&EnterpriseOverrides::default())
                .domains,
            Limit::Unlimited
        );
        assert_eq!(e.monthly_requests, Limit::Max(7));
        assert_eq!(e.per_second.get(), 3);
        assert_eq!(
            e.batch,
            Some(BatchLimits {
                max_items: 5,
                per_minute: 6
            })
        );
        assert_eq!(e.links, Limit::Max(8));
        assert_eq!(e.retention, Retention::Days(9));
        assert_eq!(
            Plan::Free.limits(&o),
            Plan::Free.limits(&EnterpriseOverrides::default())
        );
    }

    #[test]
    fn parses_plan_names_and_rejects_others() {
        for plan in Plan::ALL {
            assert_eq!(plan.as_str().parse::<Plan>().unwrap(), plan);
        }
        assert_eq!(" PRO ".parse::<Plan>().unwrap(), Plan::Pro);
        assert!("gold".parse::<Plan>().is_err());
    }

    #[test]
    fn rate_bounds() {
        assert!(PerSecond::new(0).is_err());
        assert!(PerSecond::new(1).is_ok());
        assert!(PerSecond::new(1_000_000).is_ok());
        assert!(PerSecond::new(1_000_001).is_err());
    }

    #[test]
    fn wire_form_of_limits() {
        assert_eq!(Limit::Unlimited.wire(), -1);
        assert_eq!(Limit::Max(10).remaining(3).wire(), 7);
        assert_eq!(Limit::Max(10).remaining(30).wire(), 0);
        assert!(Limit::Max(2).is_reached(2));
        assert!(!Limit::Unlimited.is_reached(u64::MAX));
    }
}
