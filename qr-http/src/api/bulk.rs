//! `POST /api/links/bulk`: many links from one bounded JSON body, answered as JSON (the created links and the failed items by index) or, with `qrcodes`, as a ZIP of their codes with `links.csv` and `errors.json`.

use std::net::IpAddr;

use bytes::Bytes;
use hyper::StatusCode;
use hyper::body::Body;
use hyper::header::{CONTENT_DISPOSITION, HeaderMap, HeaderName, HeaderValue};
use qr_domain::accounts::caller::Caller;
use qr_domain::links::bulk::{
    BulkError, BulkFailure, BulkRequest, IdempotencyKey, ItemError, ItemFailure,
};
use qr_domain::service::{AuthContext, BulkCaller};
use qr_export::bulk::{BULK_FILE_NAME, links_archive};
use qr_generate::code_settings;
use serde_json::Value;

use crate::api::link_body::{bulk_data, bulk_item};
use crate::api::links::link_json;
use crate::app::App;
use crate::error::{ApiError, INTERNAL, RETRY_CREATION, limit_message};
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
    client: Option<IpAddr>,
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
    let caller = Caller::key(ctx, client);
    // Parsing up to 10,000 items and their one write transaction run off the async threads.
    let (outcome, settings) = app
        .blocking(move |svc| {
            let value = Value::Object(json_object(&body)?);
            let settings = value.get("qrcodes").map(code_settings).transpose()?;
            let request = read_request(&value)?;
            let outcome = svc.create_links_bulk(&caller, request, key, BulkCaller::Api)?;
            Ok::<_, ApiError>((outcome, settings))
        })
        .await??;
    let replayed = outcome.replayed;
    let failures: Vec<BulkFailure> = outcome.failures.iter().map(worded).collect();
    let mut response = match settings {
        None => {
            let links: Vec<_> = outcome
                .created
                .iter()
                .map(|(_, l)| link_json(app, l))
                .collect();
            json(
                StatusCode::OK,
                &serde_json::json!({ "links": links, "errors": failures }),
            )
        }
        Some(settings) => {
            let base = app.base_url().to_owned();
            let account = ctx.account.clone();
            let zip = app
                .blocking_heavy(move |svc| {
                    // Each code in its link's design, `qrcodes` over the design's look.
                    let codes = outcome
                        .created
                        .iter()
                        .map(|(_, link)| {
                            svc.code_of_link(&account, link, &base, settings.given())
                                .map_err(|e| e.to_string())
                        })
                        .collect();
                    let short_url = |l: &qr_domain::Link| l.short_url(&base);
                    links_archive(&outcome.created, codes, &short_url, &failures)
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

/// The request of a body `{"links": [ {…}, … ]}`: each item read as `POST /api/links` reads
/// its body; the fingerprint covers the whole body (other members, such as `qrcodes`,
/// included), its JSON text with object members sorted (serde_json has no `preserve_order`
/// here), so member order and whitespace do not change it.
fn read_request(body: &Value) -> Result<BulkRequest, BulkError> {
    let Some(Value::Array(items)) = body.get("links") else {
        return Err(BulkError::LinksRequired);
    };
    Ok(BulkRequest {
        items: items.iter().map(bulk_item).collect(),
        data: items.iter().map(bulk_data).collect(),
        fingerprint: BulkRequest::fingerprint_of(&serde_json::to_vec(body).unwrap_or_default()),
    })
}

/// A failed item as the API answers it: its error worded as `POST /api/links` words the same
/// failure.
fn worded(failure: &ItemFailure) -> BulkFailure {
    BulkFailure {
        index: failure.index,
        data: failure.data.clone(),
        error: item_message(&failure.error),
    }
}

/// The API's message for a failed item, chosen by its variant.
fn item_message(e: &ItemError) -> String {
    match e {
        ItemError::Unread { message } => message.clone(),
        ItemError::Field { field, rule } => format!("Invalid {field}: {rule}"),
        ItemError::LimitReached { plan, limit } => limit_message(plan, *limit),
        ItemError::PlanRequired { .. } | ItemError::CodeTaken { .. } => e.to_string(),
        ItemError::Unavailable => RETRY_CREATION.to_owned(),
        ItemError::Hash => INTERNAL.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_ignores_member_order_but_not_content() {
        let read = |text: &str| {
            let body: Value = serde_json::from_str(text).unwrap();
            read_request(&body).unwrap().fingerprint
        };
        let a = read(r#"{"links":[{"name":"A","targetUrl":"https://e.com"}]}"#);
        let b = read(r#"{ "links" : [ { "targetUrl":"https://e.com", "name":"A" } ] }"#);
        let c = read(r#"{"links":[{"name":"B","targetUrl":"https://e.com"}]}"#);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(matches!(
            read_request(&serde_json::json!({"items": []})),
            Err(BulkError::LinksRequired)
        ));
    }

    #[test]
    fn failures_are_worded_as_post_answers_them() {
        let limit = ItemError::LimitReached {
            plan: "free".to_owned(),
            limit: 5,
        };
        assert_eq!(
            item_message(&limit),
            "Link limit reached: the free plan allows 5 links; delete a link or upgrade the plan"
        );
        let field = ItemError::Field {
            field: "validUntil".to_owned(),
            rule: "it must be after validFrom".to_owned(),
        };
        assert_eq!(
            item_message(&field),
            "Invalid validUntil: it must be after validFrom"
        );
        assert_eq!(
            item_message(&ItemError::Unavailable),
            "Could not create the link; retry the request"
        );
    }
}
