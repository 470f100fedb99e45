//! `/dashboard/links/<id>`: a link's analytics over a date range (scans per day, unique scans, countries, cities, devices, browsers, operating systems, referrers, A/B variants and rules, recent scans), the plan's retention, and the CSV export.

use askama::Template;
use http::StatusCode;
use qr_domain::accounts::plan::Retention;
use qr_domain::links::link::parse_link_id;
use qr_domain::scans::analytics::{AnalyticsError, AnalyticsQuery, AnalyticsReport};
use qr_domain::scans::geo::UNKNOWN_COUNTRY;
use qr_domain::{Clock, Store};
use qr_export::csv_cell;

use super::links::LinkRow;
use super::public::capitalised;
use super::{Failure, Layout, User, page, thousands, when};
use crate::Web;
use crate::charts::BarChart;
use crate::response::{self, WebResponse};

/// Scans in the CSV (the API's largest `limit`); every figure of the page comes from the
/// rollups, which cover every scan.
const CSV_ROWS: &str = "1000";
/// Rows of the recent-scans table, the only scans the page reads.
const RECENT_ROWS: &str = "50";

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
    /// Every breakdown, from the rollups of every scan in the range.
    breakdowns: Vec<Breakdown>,
    recent: Vec<ScanRow>,
    csv_query: String,
}

/// A country as the page shows it: its code, or "Unknown" for the domain's unknown country
/// (`XX`, which means nothing to a reader).
fn country(code: &str) -> String {
    if code == UNKNOWN_COUNTRY {
        "Unknown".to_owned()
    } else {
        code.to_owned()
    }
}

/// A city with its country ("Berlin, DE"); the city alone when the country is unknown.
fn place(city: &str, code: &str) -> String {
    if code == UNKNOWN_COUNTRY {
        city.to_owned()
    } else {
        format!("{city}, {code}")
    }
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

/// Every breakdown of the report, most scans first; variants and rules only when the link has
/// them, named by their position and target.
fn breakdowns(r: &AnalyticsReport, link: &qr_domain::Link) -> Vec<Breakdown> {
    let a = &r.analytics;
    let total = a.total_scans;
    let rows = |v: Vec<(String, u64)>| shares(v, total);
    let pairs = |it: &mut dyn Iterator<Item = (String, u64)>| rows(it.collect());
    let options = link.options.or_default();
    let mut out = vec![
        Breakdown {
            title: "Countries",
            rows: pairs(
                &mut a
                    .scans_by_country
                    .iter()
                    .map(|c| (country(&c.country), c.scans)),
            ),
        },
        Breakdown {
            title: "Cities",
            rows: pairs(
                &mut a
                    .scans_by_city
                    .iter()
                    .map(|c| (place(&c.city, &c.country), c.scans)),
            ),
        },
        Breakdown {
            title: "Devices",
            rows: pairs(
                &mut a
                    .scans_by_device
                    .iter()
                    .map(|c| (c.device.clone(), c.scans)),
            ),
        },
        Breakdown {
            title: "Browsers",
            rows: pairs(
                &mut a
                    .scans_by_browser
                    .iter()
                    .map(|c| (c.browser.clone(), c.scans)),
            ),
        },
        Breakdown {
            title: "Operating systems",
            rows: pairs(&mut a.scans_by_os.iter().map(|c| (c.os.clone(), c.scans))),
        },
        Breakdown {
            title: "Referrers",
            rows: pairs(&mut a.scans_by_referrer.iter().map(|c| {
                let name = c
                    .referrer
                    .clone()
                    .unwrap_or_else(|| "Direct (none)".to_owned());
                (name, c.scans)
            })),
        },
    ];
    let target = |urls: &[String], i: u8| {
        urls.get(usize::from(i))
            .map_or_else(String::new, |u| format!(" → {u}"))
    };
    if let Some(variants) = &a.scans_by_variant {
        let urls: Vec<String> = options
            .variants
            .iter()
            .map(|v| v.target_url.to_string())
            .collect();
        out.push(Breakdown {
            title: "A/B variants",
            rows: pairs(&mut variants.iter().map(|v| {
                (
                    format!("Variant {}{}", v.variant + 1, target(&urls, v.variant)),
                    v.scans,
                )
            })),
        });
    }
    if !a.scans_by_rule.is_empty() || !options.rules.is_empty() {
        let urls: Vec<String> = options
            .rules
            .iter()
            .map(|v| v.target_url.to_string())
            .collect();
        out.push(Breakdown {
            title: "Redirect rules",
            rows: pairs(&mut a.scans_by_rule.iter().map(|v| {
                (
                    format!("Rule {}{}", v.rule + 1, target(&urls, v.rule)),
                    v.scans,
                )
            })),
        });
    }
    out
}

/// The range typed in the form: empty fields are "not given".
fn range(user: &User<'_>, rows: &str) -> (String, String, Result<AnalyticsQuery, String>) {
    let q = user.req.query();
    let start = q.text("startDate").trim().to_owned();
    let end = q.text("endDate").trim().to_owned();
    let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    let query = AnalyticsQuery::parse(some(&start).as_deref(), some(&end).as_deref(), Some(rows))
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
    let (start, end, parsed) = range(user, RECENT_ROWS);
    let (query, error) = match parsed {
        Ok(q) => (q, None),
        Err(e) => (
            AnalyticsQuery::parse(None, None, Some(RECENT_ROWS))
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
        breakdowns: breakdowns(&r, &link),
        recent: r
            .recent_scans
            .iter()
            .map(|s| ScanRow {
                time: when(s.timestamp),
                country: country(&s.country),
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
    let (_, _, parsed) = range(user, CSV_ROWS);
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
    fn an_unknown_country_reads_unknown() {
        assert_eq!(country("XX"), "Unknown");
        assert_eq!(country("DE"), "DE");
        assert_eq!(place("Berlin", "DE"), "Berlin, DE");
        assert_eq!(place("Unknown", "XX"), "Unknown");
    }

    #[test]
    fn when_reads_well() {
        let t: qr_domain::chrono::DateTime<qr_domain::chrono::Utc> =
            "2024-05-01T12:34:56Z".parse().unwrap();
        assert_eq!(when(t), "2024-05-01 12:34 UTC");
    }
}
