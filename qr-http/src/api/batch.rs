//! `POST /api/batch`: a bounded JSON body in, the ZIP archive of every item out (failed items in errors.json).

use bytes::Bytes;
use hyper::StatusCode;
use hyper::body::Body;
use hyper::header::{CONTENT_DISPOSITION, HeaderValue};
use qr_domain::service::AuthContext;
use qr_generate::{BatchRequest, build_archive};

use crate::app::App;
use crate::error::ApiError;
use crate::request::read_body;
use crate::respond::{HttpResponse, respond};

/// Reads the items, checks them against the plan's item limit and renders them on the CPU pool.
pub(crate) async fn handle<B>(
    app: &App,
    ctx: &AuthContext,
    body: B,
) -> Result<HttpResponse, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let max_items = ctx.limits().batch.map_or(0, |b| b.max_items);
    let limits = app.limits();
    let body = read_body(body, limits.max_batch_body_bytes, limits.body_read_timeout).await?;
    let archive = app
        .blocking_heavy(move |_| {
            let request = BatchRequest::from_json(&body)?;
            request.validate(max_items)?;
            build_archive(&request)
        })
        .await??;
    if !archive.errors.is_empty() {
        tracing::debug!(
            failed = archive.errors.len(),
            succeeded = archive.succeeded,
            "batch items failed"
        );
    }
    let mut response = respond(StatusCode::OK, Some("application/zip"), archive.zip);
    response.headers_mut().insert(
        CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=qrcodes.zip"),
    );
    Ok(response)
}
