//! `/api/webhooks`: list, register and delete the caller's webhook endpoints; the secret is shown once, in the answer that registers it.

use std::net::IpAddr;

use bytes::Bytes;
use hyper::StatusCode;
use hyper::body::Body;
use qr_domain::accounts::caller::Caller;
use qr_domain::service::AuthContext;
use serde_json::{Value, json};

use crate::app::App;
use crate::error::ApiError;
use crate::op::WebhooksOp;
use crate::request::{json_object, read_body, string_field};
use crate::respond::{HttpResponse, empty, json};

/// Most entries of `events` read from a body (there are five kinds; repeats are harmless).
const MAX_EVENTS: usize = 16;

/// Runs one webhooks operation for the caller's account.
pub(crate) async fn handle<B>(
    app: &App,
    ctx: &AuthContext,
    client: Option<IpAddr>,
    op: WebhooksOp,
    body: B,
) -> Result<HttpResponse, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let account = ctx.account.id;
    let caller = Caller::key(ctx, client);
    match op {
        WebhooksOp::List => {
            let hooks = app.blocking(move |svc| svc.webhooks(account)).await??;
            Ok(json(StatusCode::OK, &json!({ "webhooks": hooks })))
        }
        WebhooksOp::Create => {
            let limits = app.limits();
            let body =
                read_body(body, limits.max_json_body_bytes, limits.body_read_timeout).await?;
            let fields = json_object(&body)?;
            let url = string_field(&fields, "url")?
                .ok_or_else(|| ApiError::BadRequest("url field required".into()))?;
            let events = match fields.get("events") {
                None => return Err(ApiError::BadRequest("events field required".into())),
                Some(Value::Array(items)) if items.len() <= MAX_EVENTS => items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<Vec<String>>>(),
                Some(_) => None,
            }
            .ok_or_else(|| {
                ApiError::BadRequest("events must be an array of at most 16 strings".into())
            })?;
            let secret = string_field(&fields, "secret")?;
            let hook = app
                .blocking(move |svc| {
                    let events: Vec<&str> = events.iter().map(String::as_str).collect();
                    svc.create_webhook(&caller, &url, &events, secret.as_deref())
                })
                .await??;
            let mut answer = serde_json::to_value(&hook)
                .map_err(|e| ApiError::Internal(format!("webhook JSON: {e}")))?;
            answer["secret"] = Value::String(hook.secret.expose().to_owned());
            Ok(json(StatusCode::CREATED, &answer))
        }
        WebhooksOp::Delete(id) => {
            app.blocking(move |svc| svc.delete_webhook(&caller, id))
                .await??;
            Ok(empty(StatusCode::NO_CONTENT))
        }
    }
}
