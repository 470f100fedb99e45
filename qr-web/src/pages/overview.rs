//! `/dashboard`: the plan, this month's usage against the limit with the reset date, requests per day this month, and the plan's rates and limits.

use askama::Template;
use qr_domain::{Clock, Store};

use super::public::{PlanRow, plan_name, plan_row};
use super::{Failure, Layout, User, ok, thousands, when};
use crate::Web;
use crate::charts::BarChart;
use crate::response::WebResponse;

#[derive(Template)]
#[template(path = "overview.html")]
struct Overview {
    layout: Layout,
    plan: &'static str,
    used: String,
    limit: String,
    /// Share of the limit used, 0 to 100, for the meter.
    percent: u64,
    reset: String,
    chart: String,
    days: Vec<(String, u64)>,
    total: String,
    limits: PlanRow,
    keys: usize,
    links: u64,
    pending: Option<&'static str>,
}

pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let account = &user.ctx.account;
    let usage = web
        .service
        .usage_of(account.id)
        .map_err(|e| Failure::Internal(e.to_string()))?;
    let days: Vec<(String, u64)> = web
        .service
        .daily_requests(account.id)?
        .into_iter()
        .map(|(d, n)| (d.format("%Y-%m-%d").to_string(), n))
        .collect();
    let limit = usage.usage.limit;
    let used = usage.usage.current;
    let percent = u64::try_from(limit)
        .ok()
        .filter(|l| *l > 0)
        .map_or(0, |l| (used.saturating_mul(100) / l).min(100));
    // The account's own limits (Enterprise overrides included).
    let limits = plan_row(account.plan, account.limits(), false);
    ok(&Overview {
        layout: user.layout("Overview", "overview"),
        plan: plan_name(account.plan),
        used: thousands(used),
        limit: u64::try_from(limit).map_or_else(|_| "unlimited".to_owned(), thousands),
        percent,
        reset: when(usage.usage.reset_date),
        chart: BarChart::new("API requests per day this month", "requests", &days).svg(),
        total: thousands(days.iter().map(|(_, n)| n).sum()),
        days,
        limits,
        keys: web.service.keys(account.id)?.len(),
        links: web.service.count_links(account.id)?,
        pending: web
            .service
            .pending_plan_request(account.id)?
            .map(|r| plan_name(r.plan)),
    })
}
