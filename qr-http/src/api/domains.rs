//! `/api/domains`, `/api/domains/check` and `/api/domains/visits`: the caller's own domains (add, list, show, change settings, remove), their DNS check on demand, and their orphan visits.

use std::net::IpAddr;

use bytes::Bytes;
use chrono::{DateTime, SecondsFormat, Utc};
use hyper::StatusCode;
use hyper::body::Body;
use qr_domain::accounts::caller::Caller;
use qr_domain::domains::domain::{CheckOutcome, Domain, Routing};
use qr_domain::domains::orphan::OrphanReport;
use qr_domain::domains::service::{DomainSetting, DomainUpdate};
use qr_domain::service::AuthContext;
use serde::Serialize;
use serde_json::Value;

use crate::app::App;
use crate::error::ApiError;
use crate::op::DomainsOp;
use crate::request::{JsonObject, json_object, read_body, string_field};
use crate::respond::{HttpResponse, empty, json};

/// The members of `PUT /api/domains`' body, in the order they are read.
const SETTINGS: [(&str, DomainSetting); 5] = [
    ("rootUrl", DomainSetting::RootUrl),
    ("notFoundUrl", DomainSetting::NotFoundUrl),
    (
        "appleAppSiteAssociation",
        DomainSetting::AppleAppSiteAssociation,
    ),
    ("assetlinks", DomainSetting::Assetlinks),
    ("appSchemes", DomainSetting::AppSchemes),
];

/// Runs one domains operation for the caller's account.
pub(crate) async fn handle<B>(
    app: &App,
    ctx: &AuthContext,
    client: Option<IpAddr>,
    op: DomainsOp,
    body: B,
) -> Result<HttpResponse, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let id = ctx.account.id;
    let caller = Caller::key(ctx, client);
    match op {
        DomainsOp::List => {
            let domains = app.blocking(move |svc| svc.domains(id)).await??;
            let now = app.service().now();
            let list: Vec<DomainJson<'_>> =
                domains.iter().map(|d| DomainJson::of(d, now)).collect();
            Ok(json(
                StatusCode::OK,
                &serde_json::json!({ "domains": list }),
            ))
        }
        DomainsOp::Get(domain) => {
            let domain = app.blocking(move |svc| svc.domain(id, domain)).await??;
            Ok(one(app, StatusCode::OK, &domain))
        }
        DomainsOp::Add => {
            let fields = body_object(app, body).await?;
            only_members(&fields, &["domain"])?;
            let name = string_field(&fields, "domain")?
                .ok_or_else(|| ApiError::BadRequest("domain field required".into()))?;
            let domain = app
                .blocking(move |svc| svc.add_domain(&caller, &name))
                .await??;
            Ok(one(app, StatusCode::CREATED, &domain))
        }
        DomainsOp::Update(domain) => {
            let fields = body_object(app, body).await?;
            let update = settings(&fields)?;
            let domain = app
                .blocking(move |svc| svc.update_domain(&caller, domain, &update))
                .await??;
            Ok(one(app, StatusCode::OK, &domain))
        }
        DomainsOp::Delete(domain) => {
            app.blocking(move |svc| svc.delete_domain(&caller, domain))
                .await??;
            Ok(empty(StatusCode::NO_CONTENT))
        }
        DomainsOp::Check(domain) => {
            let domain = app
                .blocking(move |svc| svc.check_domain(&caller, domain))
                .await??;
            Ok(one(app, StatusCode::OK, &domain))
        }
        DomainsOp::Visits(domain) => {
            let report = app
                .blocking(move |svc| svc.orphan_visits(id, domain))
                .await??;
            Ok(json(StatusCode::OK, &VisitsJson::of(&report)))
        }
    }
}

async fn body_object<B>(app: &App, body: B) -> Result<JsonObject, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let limits = app.limits();
    let body = read_body(body, limits.max_json_body_bytes, limits.body_read_timeout).await?;
    json_object(&body)
}

/// Refuses members the operation does not know: a misspelt setting must not pass unnoticed.
fn only_members(fields: &JsonObject, known: &[&str]) -> Result<(), ApiError> {
    match fields.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(ApiError::BadRequest(format!(
            "Unknown field {unknown}: expected {}",
            known.join(", ")
        ))),
        None => Ok(()),
    }
}

/// The settings of a `PUT` body: URLs as strings, app association files as JSON values, app
/// schemes as an array of strings, `null` clearing any.
fn settings(fields: &JsonObject) -> Result<DomainUpdate, ApiError> {
    let names: Vec<&str> = SETTINGS.iter().map(|(name, _)| *name).collect();
    only_members(fields, &names)?;
    let mut update = DomainUpdate::default();
    for (name, setting) in SETTINGS {
        let Some(value) = fields.get(name) else {
            continue;
        };
        match (setting, value) {
            (_, Value::Null) => update.clear(setting),
            (DomainSetting::RootUrl, Value::String(url)) => update.set_root_url(url)?,
            (DomainSetting::NotFoundUrl, Value::String(url)) => update.set_not_found_url(url)?,
            (DomainSetting::RootUrl | DomainSetting::NotFoundUrl, _) => {
                return Err(ApiError::BadRequest(format!(
                    "Invalid {name}: it must be a URL string or null"
                )));
            }
            (DomainSetting::AppleAppSiteAssociation, v) => {
                update.set_apple_app_site_association(&v.to_string())?;
            }
            (DomainSetting::Assetlinks, v) => update.set_assetlinks(&v.to_string())?,
            (DomainSetting::AppSchemes, Value::Array(items)) => {
                let schemes = items
                    .iter()
                    .map(|item| {
                        item.as_str().ok_or_else(|| {
                            ApiError::BadRequest(
                                "Invalid appSchemes: it must be an array of strings or null".into(),
                            )
                        })
                    })
                    .collect::<Result<Vec<&str>, ApiError>>()?;
                update.set_app_schemes(&schemes)?;
            }
            (DomainSetting::AppSchemes, _) => {
                return Err(ApiError::BadRequest(
                    "Invalid appSchemes: it must be an array of strings or null".into(),
                ));
            }
        }
    }
    Ok(update)
}

fn one(app: &App, status: StatusCode, domain: &Domain) -> HttpResponse {
    json(status, &DomainJson::of(domain, app.service().now()))
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A domain as the API returns it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DomainJson<'a> {
    id: String,
    /// The ASCII form (what DNS and TLS use).
    domain: &'a str,
    /// The Unicode form (equal to `domain` for ASCII names).
    unicode: String,
    status: qr_domain::domains::domain::DomainStatus,
    /// Why a pending or failing domain is not verified, and what to do.
    reason: Option<String>,
    /// Whether new links may be put on it now.
    accepts_links: bool,
    /// The record that proves ownership.
    verification: RecordJson,
    verified_at: Option<String>,
    failing_since: Option<String>,
    last_checked_at: Option<String>,
    last_check: Option<&'a CheckOutcome>,
    next_check_at: Option<String>,
    /// Where its address records lead, as of the latest check.
    routing: Option<&'a Routing>,
    root_url: Option<&'a str>,
    not_found_url: Option<&'a str>,
    apple_app_site_association: Option<Value>,
    assetlinks: Option<Value>,
    /// The custom schemes its links' rules may target (`[]`: none).
    app_schemes: Vec<&'a str>,
    created_at: String,
}

/// The DNS record to create.
#[derive(Serialize)]
struct RecordJson {
    #[serde(rename = "type")]
    kind: &'static str,
    name: String,
    value: String,
}

impl<'a> DomainJson<'a> {
    fn of(d: &'a Domain, now: DateTime<Utc>) -> Self {
        let v = &d.verification;
        let file = |f: Option<&qr_domain::domains::domain::AppFile>| {
            f.and_then(|f| serde_json::from_str(f.as_str()).ok())
        };
        Self {
            id: d.id.to_string(),
            domain: d.name.as_str(),
            unicode: d.name.unicode(),
            status: d.status(),
            reason: d.reason(),
            accepts_links: d.accepts_links(now),
            verification: RecordJson {
                kind: "TXT",
                name: d.name.verification_name(),
                value: d.token.txt_value(),
            },
            verified_at: v.verified_at.map(time),
            failing_since: v.failing_since.map(time),
            last_checked_at: v.last_check.as_ref().map(|c| time(c.at)),
            last_check: v.last_check.as_ref().map(|c| &c.outcome),
            next_check_at: v.next_check_at.map(time),
            routing: v.routing.as_ref(),
            root_url: d.settings.root_url.as_ref().map(|u| u.as_str()),
            not_found_url: d.settings.not_found_url.as_ref().map(|u| u.as_str()),
            apple_app_site_association: file(d.settings.apple_app_site_association.as_ref()),
            assetlinks: file(d.settings.assetlinks.as_ref()),
            app_schemes: d.settings.app_schemes.iter().map(|s| s.as_str()).collect(),
            created_at: time(d.created_at),
        }
    }
}

/// A domain's orphan visits as the API returns them.
#[derive(Serialize)]
struct VisitsJson<'a> {
    daily: Vec<DayJson>,
    recent: Vec<VisitJson<'a>>,
}

#[derive(Serialize)]
struct DayJson {
    date: String,
    visits: u64,
}

#[derive(Serialize)]
struct VisitJson<'a> {
    path: &'a str,
    at: String,
    country: Option<&'a str>,
    device: qr_domain::scans::scan::Device,
}

impl<'a> VisitsJson<'a> {
    fn of(report: &'a OrphanReport) -> Self {
        Self {
            daily: report
                .daily
                .iter()
                .map(|d| DayJson {
                    date: d.date.to_string(),
                    visits: d.visits,
                })
                .collect(),
            recent: report
                .recent
                .iter()
                .map(|v| VisitJson {
                    path: &v.path,
                    at: time(v.at),
                    country: v.country.as_deref(),
                    device: v.device,
                })
                .collect(),
        }
    }
}
