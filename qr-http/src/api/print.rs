//! `POST /api/print`: a bounded JSON body in (links by id, tag or all, or data items; the paper, layout, captions and crop marks), the label sheet PDF out.

use bytes::Bytes;
use hyper::StatusCode;
use hyper::body::Body;
use hyper::header::{CONTENT_DISPOSITION, HeaderValue};
use qr_domain::print::PrintError;
use qr_domain::service::AuthContext;
use qr_generate::print::{PrintRequest, file_name};

use crate::app::App;
use crate::error::ApiError;
use crate::request::read_body;
use crate::respond::{HttpResponse, respond};

/// Reads the request (as large as a batch's body may be), resolves and draws it on the CPU pool.
pub(crate) async fn handle<B>(
    app: &App,
    ctx: &AuthContext,
    body: B,
) -> Result<HttpResponse, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let limits = app.limits();
    let body = read_body(body, limits.max_batch_body_bytes, limits.body_read_timeout).await?;
    let ctx = ctx.clone();
    let base_url = app.base_url().to_owned();
    let (pdf, name) = app
        .blocking_heavy(move |svc| {
            let request = PrintRequest::from_json(&body)?;
            let pdf = svc.print_for_key(&ctx, &request, &base_url)?;
            Ok::<_, PrintError>((pdf, file_name(&request.sheet)))
        })
        .await??;
    let mut response = respond(StatusCode::OK, Some("application/pdf"), pdf);
    let disposition = format!("attachment; filename={name}");
    // The name is `qrcodes-<stock>.pdf` or `qrcodes-custom.pdf`: ASCII letters and digits.
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        response.headers_mut().insert(CONTENT_DISPOSITION, value);
    }
    Ok(response)
}
