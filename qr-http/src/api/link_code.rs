//! `GET /api/links/qr?id=`: a link's own code (the domain's `Service::link_code`: its `shortUrl` in its design, the query's look parameters overriding the design's), answered as `/api/generate` answers.

use hyper::header::HeaderMap;
use qr_domain::service::AuthContext;

use crate::api::generate::respond_image;
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
    let code = app
        .blocking(move |svc| {
            let settings = settings.iter().map(|(k, v)| (k.as_str(), v.as_str()));
            svc.link_code(&account, link, &base_url, settings)
        })
        .await??;
    respond_image(app, code, headers).await
}
