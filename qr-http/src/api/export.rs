//! `GET /api/account/export`: the key's own account (links, keys' metadata, analytics) as a ZIP download, built on the CPU pool up to the download cap.

use hyper::StatusCode;
use hyper::header::CONTENT_DISPOSITION;
use qr_domain::export::ExportError;
use qr_domain::service::AuthContext;
use qr_export::{DownloadError, MAX_DOWNLOAD_BYTES};

use crate::app::App;
use crate::error::ApiError;
use crate::respond::{HttpResponse, respond, set_header};

/// Builds the archive of the caller's account (never another's: the id is the key's) on the
/// heavy pool, since compressing every scan is CPU work, one export per core at a time.
pub(crate) async fn handle(app: &App, ctx: &AuthContext) -> Result<HttpResponse, ApiError> {
    let account = ctx.key.account_id;
    let zip = app
        .blocking_heavy(move |svc| qr_export::zip_bytes(svc, account, MAX_DOWNLOAD_BYTES))
        .await?
        .map_err(|e| match e {
            DownloadError::TooLarge(cap) => ApiError::ExportTooLarge(cap),
            // The key was just authenticated, so its account existed a moment ago.
            DownloadError::Export(ExportError::AccountNotFound(_)) => ApiError::NotFound,
            DownloadError::Export(ExportError::Store(e)) => ApiError::Store(e),
            DownloadError::Export(ExportError::Write(e)) => {
                ApiError::Internal(format!("export archive: {e}"))
            }
        })?;
    let mut response = respond(StatusCode::OK, Some(qr_export::CONTENT_TYPE), zip);
    set_header(
        &mut response,
        CONTENT_DISPOSITION,
        &format!("attachment; filename=\"account-{account}.zip\""),
    );
    Ok(response)
}
