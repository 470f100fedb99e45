//! `/dashboard/links/<id>`: a link's analytics over a date range (scans per day, unique scans, countries, devices, browsers, operating systems, referrers, recent scans), the plan's retention, and the CSV export.

use askama::Template;
use http::StatusCode;
use qr_domain::analytics::{AnalyticsError, AnalyticsQuery, AnalyticsReport, tally};
use qr_domain::link::parse_link_id;
use qr_domain::plan::Retention;
use qr_domain::{Clock, Store};
use qr_export::csv_cell;

use super::links::LinkRow;
use super::public::capitalised;
use super::{Failure, Layout, User, page, thousands, when};
use crate::Web;
use crate::charts::BarChart;
use crate::response::{self, WebResponse};

/// Scans read for the table, the CSV, and the operating systems and referrers (the API's largest
/// `limit`); the rollups behind the other figures cover every scan.
const SAMPLE: &str = "1000";
/// Rows of the recent-scans table.
const RECENT_ROWS: usize = 50;

/// A breakdown row with its share of the total, for the bar behind it.
struct Share {
    name: String,
    scans: String,
    percent: u64,
}

/// A titled breakdown.
struct Breakdown {
    title: &'static str,
    rows: Vec<Share>,
}

struct ScanRow {
    time: String,
    country: String,
    city: String,
    device: &'static str,
    browser: String,
    os: String,
    referrer: String,
}

#[derive(Template)]
#[template(path = "analytics.html")]
struct AnalyticsPage {
    layout: Layout,
    link: LinkRow,
    start: String,
    end: String,
    error: Option<String>,
    retention: String,
    total: String,
    unique: String,
    chart: String,
    days: Vec<(String, u64)>,
    /// Countries, devices and browsers, from the rollups of every scan.
    breakdowns: Vec<Breakdown>,
    /// Operating systems and referrers, from the latest scans.
    samples: Vec<Breakdown>,
    sampled: usize,
    recent: Vec<ScanRow>,
    csv_query: String,
}

fn shares(rows: impl IntoIterator<Item = (String, u64)>, total: u64) -> Vec<Share> {
    rows.into_iter()
        .take(10)
        .map(|(name, n)| Share {
            name,
            scans: thousands(n),
            percent: (n * 100).checked_div(total).unwrap_or(0),
        })
        .collect()
}

/// The range typed in the form: empty fields are "not given".
fn range(user: &User<'_>) -> (String, String, Result<AnalyticsQuery, String>) {
    let q = user.req.query();
    let start = q.text("startDate").trim().to_owned();
    let end = q.text("endDate").trim().to_owned();
    let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    let query = AnalyticsQuery::parse(some(&start).as_deref(), some(&end).as_deref(), Some(SAMPLE))
        .map_err(|e| capitalised(&e.to_string()));
    (start, end, query)
}

fn report<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
    query: &AnalyticsQuery,
) -> Result<AnalyticsReport, Failure> {
    let id = parse_link_id(id).map_err(|_| Failure::NotFound)?;
    match web.service.analytics(&user.ctx.account, id, query) {
        Ok(r) => Ok(r),
        Err(AnalyticsError::LinkNotFound) => Err(Failure::NotFound),
        Err(AnalyticsError::Store(e)) => Err(e.into()),
    }
}

pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    let (start, end, parsed) = range(user);
    let (query, error) = match parsed {
        Ok(q) => (q, None),
        Err(e) => (
            AnalyticsQuery::parse(None, None, Some(SAMPLE))
                .map_err(|e| Failure::Internal(e.to_string()))?,
            Some(e),
        ),
    };
    let r = report(web, user, id, &query)?;
    let link = web
        .service
        .link(user.ctx.account.id, r.link.id)
        .map_err(|_| Failure::NotFound)?;
    let a = &r.analytics;
    let days: Vec<(String, u64)> = a
        .scans_by_day
        .iter()
        .map(|d| (d.date.clone(), d.scans))
        .collect();
    let total = a.total_scans;
    let sampled = r.recent_scans.len() as u64;
    let mut csv_query = url::form_urlencoded::Serializer::new(String::new());
    if !start.is_empty() {
        csv_query.append_pair("startDate", &start);
    }
    if !end.is_empty() {
        csv_query.append_pair("endDate", &end);
    }
    let view = AnalyticsPage {
        layout: user.layout(&format!("Analytics of {}", link.name.as_str()), "links"),
        link: LinkRow::of(web, &link),
        retention: match user.ctx.account.limits().retention {
            Retention::Unlimited => "Your plan keeps scans for ever.".to_owned(),
            Retention::Days(d) => {
                format!("Your plan keeps scans for {d} days; older days show no scans.")
            }
        },
        total: thousands(total),
        unique: thousands(a.unique_scans),
        chart: BarChart::new("Scans per day", "scans", &days).svg(),
        breakdowns: vec![
            Breakdown {
                title: "Countries",
                rows: shares(
                    a.scans_by_country
                        .iter()
                        .map(|c| (c.country.clone(), c.scans)),
                    total,
                ),
            },
            Breakdown {
                title: "Devices",
                rows: shares(
                    a.scans_by_device
                        .iter()
                        .map(|c| (c.device.clone(), c.scans)),
                    total,
                ),
            },
            Breakdown {
                title: "Browsers",
                rows: shares(
                    a.scans_by_browser
                        .iter()
                        .map(|c| (c.browser.clone(), c.scans)),
                    total,
                ),
            },
        ],
        samples: vec![
            Breakdown {
                title: "Operating systems",
                rows: shares(tally(r.recent_scans.iter().map(|s| s.os.as_str())), sampled),
            },
            Breakdown {
                title: "Referrers",
                rows: shares(
                    tally(
                        r.recent_scans
                            .iter()
                            .map(|s| s.referrer.as_deref().unwrap_or("(none: direct scan)")),
                    ),
                    sampled,
                ),
            },
        ],
        sampled: r.recent_scans.len(),
        recent: r
            .recent_scans
            .iter()
            .take(RECENT_ROWS)
            .map(|s| ScanRow {
                time: when(s.timestamp),
                country: s.country.clone(),
                city: s.city.clone(),
                device: s.device.as_str(),
                browser: s.browser.clone(),
                os: s.os.clone(),
                referrer: s.referrer.clone().unwrap_or_default(),
            })
            .collect(),
        days,
        start,
        end,
        csv_query: csv_query.finish(),
        error,
    };
    let status = if view.error.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    page(status, &view)
}

/// The recent scans of the range as CSV (up to 1,000, newest first), the CLI's columns.
pub(super) fn csv<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    let (_, _, parsed) = range(user);
    let query = parsed.map_err(|_| Failure::NotFound)?;
    let r = report(web, user, id, &query)?;
    let mut out = String::from("id,timestamp,country,city,device,browser,os,referrer\n");
    for s in &r.recent_scans {
        let cells = [
            s.id.to_string(),
            s.timestamp
                .to_rfc3339_opts(qr_domain::chrono::SecondsFormat::Secs, true),
            s.country.clone(),
            s.city.clone(),
            s.device.as_str().to_owned(),
            s.browser.clone(),
            s.os.clone(),
            s.referrer.clone().unwrap_or_default(),
        ];
        let line: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    Ok(response::csv(
        out,
        &format!("scans-{}.csv", r.link.short_code),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn when_reads_well() {
        let t: qr_domain::chrono::DateTime<qr_domain::chrono::Utc> =
            "2024-05-01T12:34:56Z".parse().unwrap();
        assert_eq!(when(t), "2024-05-01 12:34 UTC");
    }
}
