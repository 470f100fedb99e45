//! `GET /api/audit`: the workspace's audit log, asked of the domain with the key as the caller; the permission table lets no key read it, so every key is answered 403 (people read it in the dashboard and with `qr audit`).

use std::net::IpAddr;

use hyper::StatusCode;
use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::permissions::Operation;
use qr_domain::audit::query::{AuditError, AuditQuery, AuditQueryError};
use qr_domain::service::AuthContext;
use qr_export::audit::AuditPageJson;

use crate::app::App;
use crate::error::ApiError;
use crate::respond::{HttpResponse, json};

/// Asks the permission first, so a key hears 403 whatever its parameters; then the query's
/// own errors (400), then the page.
pub(crate) async fn handle(
    app: &App,
    ctx: &AuthContext,
    client: Option<IpAddr>,
    query: Result<AuditQuery, AuditQueryError>,
) -> Result<HttpResponse, ApiError> {
    let caller = Caller::key(ctx, client);
    caller
        .require(Operation::ReadAudit)
        .map_err(AuditError::from)?;
    let query = query?;
    let page = app
        .blocking(move |svc| svc.audit_log(&caller, &query))
        .await??;
    Ok(json(StatusCode::OK, &AuditPageJson::of(&page)))
}
