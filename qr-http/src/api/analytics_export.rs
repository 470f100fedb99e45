//! `GET /api/analytics/export`: every scan of a link in the range, within the plan's retention,
//! as CSV or NDJSON, streamed a page at a time so memory stays constant whatever the count.

use bytes::Bytes;
use hyper::StatusCode;
use hyper::header::CONTENT_DISPOSITION;
use qr_domain::service::{AuthContext, ScanExport};
use qr_export::ScanFormat;
use tokio::sync::mpsc;

use crate::app::App;
use crate::body::{Chunk, ResponseBody};
use crate::error::ApiError;
use crate::op::AnalyticsParams;
use crate::respond::{HttpResponse, set_header};

/// Checks the link and the window on the store pool (404, 503 and the like answer as usual),
/// then answers 200 with a body that reads and encodes the scans page by page.
pub(crate) async fn handle(
    app: &App,
    ctx: &AuthContext,
    params: AnalyticsParams,
    format: ScanFormat,
) -> Result<HttpResponse, ApiError> {
    let account = ctx.account.clone();
    let export = app
        .blocking(move |svc| svc.begin_scan_export(&account, params.link, &params.query))
        .await??;
    let file_name = format.file_name(&export.link.short_code);
    let app = app.clone();
    let body = ResponseBody::stream(move |tx| produce(app, export, format, tx));
    let mut response = HttpResponse::new(body);
    *response.status_mut() = StatusCode::OK;
    set_header(
        &mut response,
        hyper::header::CONTENT_TYPE,
        format.content_type(),
    );
    set_header(
        &mut response,
        CONTENT_DISPOSITION,
        &format!("attachment; filename=\"{file_name}\""),
    );
    Ok(response)
}

/// Sends the head, then one chunk per page (read and encoded on the store pool) until the
/// export is done, the client leaves (the send fails) or the store fails (the body ends with an
/// error, so the download is visibly incomplete).
async fn produce(app: App, mut export: ScanExport, format: ScanFormat, tx: mpsc::Sender<Chunk>) {
    if !format.head().is_empty()
        && tx
            .send(Ok(Bytes::from_static(format.head().as_bytes())))
            .await
            .is_err()
    {
        return;
    }
    while !export.is_done() {
        let read = app
            .blocking(move |svc| {
                let page = svc.scan_export_page(&mut export).map(|scans| {
                    // About 120 bytes a CSV line, 200 an NDJSON one.
                    let mut text = String::with_capacity(scans.len() * 160);
                    format.write_page(&scans, &mut text);
                    text
                });
                (page, export)
            })
            .await;
        let text = match read {
            Ok((Ok(text), back)) => {
                export = back;
                text
            }
            Ok((Err(e), _)) => return fail(&tx, ApiError::Store(e)).await,
            Err(e) => return fail(&tx, e).await,
        };
        if !text.is_empty() && tx.send(Ok(Bytes::from(text))).await.is_err() {
            return;
        }
    }
}

/// Ends the body with an error after logging why.
async fn fail(tx: &mpsc::Sender<Chunk>, error: ApiError) {
    tracing::error!(error = ?error, "scan export stopped after its headers were sent");
    let _ = tx
        .send(Err(std::io::Error::other("scan export failed")))
        .await;
}
