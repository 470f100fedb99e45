//! `GET /api/links/qr?id=`: a link's own code, its `shortUrl` drawn in the link's design (else the account's default design, else the plain code), the query's look parameters overriding the design's for that request, answered as `/api/generate` answers.

use hyper::header::HeaderMap;
use qr_domain::Feature;
use qr_domain::service::AuthContext;
use qr_generate::GenerateParams;

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
    let account = ctx.account.id;
    // A design's logo is drawn while the plan includes logos; after a downgrade the code is
    // drawn without it rather than refused, so printed material keeps a working image.
    let logos = ctx.account.limits().includes(Feature::Logo);
    let base_url = app.base_url().to_owned();
    let LinkCodeParams { link, settings } = params;
    let (code, logo) = app
        .blocking(move |svc| -> Result<_, ApiError> {
            let link = svc.link(account, link)?;
            let design = svc.design_for_link(&link)?;
            let short_url = link.short_url(&base_url);
            // The first occurrence wins: the link's address, then the request's settings, then
            // the design's look.
            let look = design.as_ref().map(|d| d.look.pairs().collect::<Vec<_>>());
            let pairs = std::iter::once(("data", short_url.as_str()))
                .chain(settings.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .chain(look.iter().flatten().copied());
            let code = GenerateParams::from_pairs(pairs).parse()?;
            let logo = match design.and_then(|d| d.logo).filter(|_| logos) {
                Some(logo) => Some(
                    logo.decode()
                        .map_err(|e| ApiError::Internal(e.to_string()))?,
                ),
                None => None,
            };
            Ok((code, logo))
        })
        .await??;
    let code = match logo {
        Some(logo) => code.with_logo(logo)?,
        None => code,
    };
    respond_image(app, code, headers).await
}
