//! Building responses: one constructor for status, type and body, and the JSON and empty forms every handler uses.

use bytes::Bytes;
use hyper::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};
use serde::Serialize;

use crate::body::ResponseBody;
use crate::error::ApiError;

/// Every response the server writes.
pub(crate) type HttpResponse = Response<ResponseBody>;

/// A response with `status`, an optional `Content-Type` and `body`.
pub(crate) fn respond(
    status: StatusCode,
    content_type: Option<&'static str>,
    body: impl Into<Bytes>,
) -> HttpResponse {
    let mut response = Response::new(ResponseBody::full(body));
    *response.status_mut() = status;
    if let Some(media_type) = content_type {
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(media_type));
    }
    response
}

/// A response without a body (204, 304, 302).
pub(crate) fn empty(status: StatusCode) -> HttpResponse {
    respond(status, None, Bytes::new())
}

/// `value` as a JSON response; an encoding failure (a bug) becomes the 500 error response.
pub(crate) fn json(status: StatusCode, value: &impl Serialize) -> HttpResponse {
    match serde_json::to_vec(value) {
        Ok(body) => respond(status, Some("application/json"), body),
        Err(e) => ApiError::Internal(format!("JSON encoding failed: {e}")).into_response(),
    }
}

/// Sets a header whose value is computed text; a value that cannot be a header (a control
/// character) is left out, which only happens for inputs that were validated before.
pub(crate) fn set_header(response: &mut HttpResponse, name: HeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
}
