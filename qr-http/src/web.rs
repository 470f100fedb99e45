//! The dashboard's mount: `/`, `/dashboard…` and `/static/…` go to qr-web with the body read within its bound and the client address, on the blocking pool; its failures before qr-web answers are pages too.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use hyper::body::Body;
use hyper::http::request::Parts;
use hyper::{Method, Response};
use qr_web::WebRequest;

use crate::app::App;
use crate::body::ResponseBody;
use crate::bootstrap::AppWeb;
use crate::error::ApiError;
use crate::request::read_body;
use crate::respond::HttpResponse;

/// Answers a request of the dashboard.
pub(crate) async fn handle<B>(app: &App, parts: Parts, body: B, peer: SocketAddr) -> HttpResponse
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let path = parts.uri.path().to_owned();
    let body = if parts.method == Method::POST {
        let limits = app.limits();
        let bound = if AppWeb::takes_uploads(&path) {
            limits.max_upload_body_bytes
        } else {
            limits.max_form_body_bytes
        };
        match read_body(body, bound, limits.body_read_timeout).await {
            Ok(bytes) => bytes,
            Err(e) => return failure(&e),
        }
    } else {
        Bytes::new()
    };
    let request = WebRequest {
        client_ip: app.client_ip(peer, &parts.headers),
        method: parts.method,
        query: parts.uri.query().unwrap_or("").to_owned(),
        path,
        headers: parts.headers,
        body: body.to_vec(),
    };
    // Static files are compiled in: no store, no password hash, no thread switch.
    if AppWeb::is_static(&request.path) {
        return into_hyper(app.web().handle(&request));
    }
    let web = Arc::clone(app.web());
    match app.blocking(move |_| web.handle(&request)).await {
        Ok(response) => into_hyper(response),
        Err(e) => failure(&e),
    }
}

/// The page of a failure decided by the server (a body too large or too slow, a lost thread),
/// with the status and message of `error.rs`.
fn failure(error: &ApiError) -> HttpResponse {
    let (status, message) = error.status_and_message();
    if status.is_server_error() {
        tracing::error!(error = ?error, "dashboard request failed");
    }
    into_hyper(AppWeb::failure_page(status, &message))
}

fn into_hyper(response: qr_web::WebResponse) -> HttpResponse {
    let (parts, body) = response.into_parts();
    Response::from_parts(parts, ResponseBody::full(body))
}
