//! `GET /api/dashboard?action=usage` and `GET /api/health`: the caller's monthly usage, and a check that the store answers.

use hyper::StatusCode;
use qr_domain::service::AuthContext;

use crate::app::App;
use crate::error::ApiError;
use crate::respond::{HttpResponse, json};

/// The usage object of the caller's account, from memory.
pub(crate) fn usage(app: &App, ctx: &AuthContext) -> HttpResponse {
    json(StatusCode::OK, &app.service().usage(ctx))
}

/// 200 with the version once the store has answered.
pub(crate) async fn health(app: &App) -> Result<HttpResponse, ApiError> {
    app.blocking(|svc| svc.check_store()).await??;
    Ok(json(
        StatusCode::OK,
        &serde_json::json!({
            "status": "ok",
            "version": env!("CARGO_PKG_VERSION"),
            "database": "ok",
        }),
    ))
}
