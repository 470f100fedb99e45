//! `GET /api/analytics`: one link's summary and recent scans, within the plan's retention.

use hyper::StatusCode;
use qr_domain::service::AuthContext;

use crate::app::App;
use crate::error::ApiError;
use crate::op::AnalyticsParams;
use crate::respond::{HttpResponse, json};

/// Reads the link's rollups and recent scans on the store pool.
pub(crate) async fn handle(
    app: &App,
    ctx: &AuthContext,
    params: AnalyticsParams,
) -> Result<HttpResponse, ApiError> {
    let account = ctx.account.clone();
    let report = app
        .blocking(move |svc| svc.analytics(&account, params.link, &params.query))
        .await??;
    Ok(json(StatusCode::OK, &report))
}
