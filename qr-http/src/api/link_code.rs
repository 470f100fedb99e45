//! `GET /api/links/qr?id=`: a link's own code (the domain's `Service::link_code`: its `shortUrl` in its design, the query's look parameters overriding the design's), answered as `/api/generate` answers (`respond_rendered`).

use hyper::header::HeaderMap;
use qr_domain::service::AuthContext;

use crate::api::generate::respond_rendered;
use crate::app::App;
use crate::error::ApiError;
use crate::op::LinkCodeParams;
use crate::respond::HttpResponse;

/// Renders the link's code for the caller's account; another account's link is "Link not found".
pub(crate) async fn handle(
    app: &App,
    ctx: &AuthContext,
    params: LinkCodeParams,
    headers: &HeaderMap,
) -> Result<HttpResponse, ApiError> {
    let account = ctx.account.clone();
    let base_url = app.base_url().to_owned();
    let LinkCodeParams { link, settings } = params;
    // The link is read and its code rendered in one task on the CPU pool: a read and a render
    // in two tasks cost 16 % of generate's rate in the load script (COMPARE=linkcode).
    let (format, image) = app
        .blocking_heavy(move |svc| -> Result<_, ApiError> {
            let settings = settings.iter().map(|(k, v)| (k.as_str(), v.as_str()));
            let code = svc.link_code(&account, link, &base_url, settings)?;
            Ok((code.format(), qr_generate::render(&code)?))
        })
        .await??;
    Ok(respond_rendered(format, image, headers))
}
