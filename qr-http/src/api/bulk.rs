//! `POST /api/links/bulk`: many links from one bounded JSON body, answered as JSON (the created links and the failed items by index) or, with `qrcodes`, as a ZIP of their codes with `links.csv` and `errors.json`.

use bytes::Bytes;
use hyper::StatusCode;
use hyper::body::Body;
use hyper::header::{CONTENT_DISPOSITION, HeaderMap, HeaderName, HeaderValue};
use qr_domain::bulk::{BulkError, BulkRequest, IdempotencyKey};
use qr_domain::service::{AuthContext, BulkCaller};
use qr_export::bulk::{BULK_FILE_NAME, links_archive};
use qr_generate::code_settings;
use serde_json::Value;

use crate::api::links::link_json;
use crate::app::App;
use crate::error::{ApiError, link_error_message};
use crate::request::{json_object, read_body};
use crate::respond::{HttpResponse, json, respond};

/// The request header that makes a retry create nothing twice.
pub(crate) const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
/// Set on an answer that is the stored answer of an earlier request with the same key
/// (Stripe's name for it).
pub(crate) const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// Reads the body (within the batch body limit), creates the links through the domain and
/// renders the outcome.
pub(crate) async fn handle<B>(
    app: &App,
    ctx: &AuthContext,
    headers: &HeaderMap,
    body: B,
) -> Result<HttpResponse, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let key = headers
        .get(&IDEMPOTENCY_KEY)
        .map(|v| IdempotencyKey::parse(v.to_str().map_err(|_| BulkError::InvalidKey)?))
        .transpose()?;
    let limits = app.limits();
    let body = read_body(body, limits.max_batch_body_bytes, limits.body_read_timeout).await?;
    let account = ctx.account.clone();
    // Parsing up to 10,000 items and their one write transaction run off the async threads.
    let (outcome, settings) = app
        .blocking(move |svc| {
            let value = Value::Object(json_object(&body)?);
            let settings = value.get("qrcodes").map(code_settings).transpose()?;
            let request = BulkRequest::from_json(&value)?;
            let outcome = svc.create_links_bulk(
                &account,
                request,
                key,
                BulkCaller::Api,
                &link_error_message,
            )?;
            Ok::<_, ApiError>((outcome, settings))
        })
        .await??;
    let replayed = outcome.replayed;
    let mut response = match settings {
        None => {
            let links: Vec<_> = outcome
                .created
                .iter()
                .map(|(_, l)| link_json(app, l))
                .collect();
            json(
                StatusCode::OK,
                &serde_json::json!({ "links": links, "errors": outcome.failures }),
            )
        }
        Some(settings) => {
            let base = app.base_url().to_owned();
            let zip = app
                .blocking_heavy(move |_| {
                    let short_url = |l: &qr_domain::Link| format!("{base}/r/{}", l.short_code);
                    links_archive(&outcome.created, &short_url, &outcome.failures, &settings)
                })
                .await??;
            let mut response = respond(StatusCode::OK, Some("application/zip"), zip);
            let disposition = format!("attachment; filename={BULK_FILE_NAME}");
            if let Ok(v) = HeaderValue::from_str(&disposition) {
                response.headers_mut().insert(CONTENT_DISPOSITION, v);
            }
            response
        }
    };
    if replayed {
        response
            .headers_mut()
            .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
    }
    Ok(response)
}
