//! Reading a request: the query string, bounded bodies, JSON string fields and header text.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Body;
use hyper::header::{HeaderMap, HeaderName};
use serde_json::Value;

use crate::error::ApiError;

/// Most bytes read and discarded after a body went over its limit, so the client can read the 413.
const MAX_DRAIN_BYTES: usize = 16 * 1024 * 1024;

/// The decoded query string; the first occurrence of a name wins.
#[derive(Debug, Default)]
pub(crate) struct Query {
    pairs: Vec<(String, String)>,
    /// The first parameter whose name or value is not UTF-8 once decoded (kept lossily in
    /// `pairs`); the request is refused with 400 once admitted.
    not_utf8: Option<String>,
}

/// A JSON request body that is an object.
pub(crate) type JsonObject = serde_json::Map<String, Value>;

impl Query {
    /// Decodes `application/x-www-form-urlencoded` pairs (`+` is a space, `%XX` a byte).
    pub(crate) fn parse(query: Option<&str>) -> Self {
        let mut query_out = Query::default();
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (name, name_ok) = decode_component(name);
            let (value, value_ok) = decode_component(value);
            if !(name_ok && value_ok) && query_out.not_utf8.is_none() {
                query_out.not_utf8 = Some(name.clone());
            }
            query_out.pairs.push((name, value));
        }
        query_out
    }

    /// Refuses a query with a parameter that is not UTF-8 text.
    pub(crate) fn require_utf8(&self) -> Result<(), ApiError> {
        match &self.not_utf8 {
            None => Ok(()),
            Some(name) => Err(ApiError::BadRequest(format!(
                "Invalid query string: parameter {name:?} is not UTF-8 text; percent-encode its UTF-8 bytes"
            ))),
        }
    }

    /// The first value of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of `name`, owned.
    pub(crate) fn owned(&self, name: &str) -> Option<String> {
        self.get(name).map(str::to_owned)
    }

    /// Every pair, in order.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// One name or value of a query: the text, and whether its bytes were UTF-8 (if not, the text
/// holds replacement characters).
fn decode_component(raw: &str) -> (String, bool) {
    let spaced = raw.replace('+', " ");
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(&spaced).collect();
    match String::from_utf8(bytes) {
        Ok(text) => (text, true),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), false),
    }
}

/// Reads a body of at most `limit` bytes within `timeout`. A larger body is read on and
/// discarded (up to 16 MiB) so that the client is not cut off before it can read the 413.
pub(crate) async fn read_body<B>(
    body: B,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let declared = body.size_hint().lower();
    if declared > MAX_DRAIN_BYTES as u64 {
        return Err(ApiError::BodyTooLarge(limit));
    }
    let read = async move {
        let mut body = std::pin::pin!(body);
        let mut bytes = BytesMut::new();
        let mut seen = 0usize;
        while let Some(frame) = body.as_mut().frame().await {
            let frame = frame.map_err(|e| {
                ApiError::BadRequest(format!("Could not read the request body: {e}"))
            })?;
            if let Some(data) = frame.data_ref() {
                seen = seen.saturating_add(data.len());
                if seen <= limit {
                    bytes.extend_from_slice(data);
                } else if seen > MAX_DRAIN_BYTES {
                    break;
                }
            }
        }
        if seen > limit {
            Err(ApiError::BodyTooLarge(limit))
        } else {
            Ok(bytes.freeze())
        }
    };
    tokio::time::timeout(timeout, read)
        .await
        .map_err(|_| ApiError::BodyTimeout)?
}

/// The body as a JSON object.
pub(crate) fn json_object(body: &[u8]) -> Result<JsonObject, ApiError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::BadRequest(
            "Request body must be a JSON object".into(),
        )),
        Err(e) => Err(ApiError::BadRequest(format!("Invalid JSON body: {e}"))),
    }
}

/// A string field of a JSON object: absent is `None`; `null` and every other type are a 400
/// (no field of the API is nullable, and `null` meaning "unchanged" would hide client bugs).
pub(crate) fn string_field(fields: &JsonObject, name: &str) -> Result<Option<String>, ApiError> {
    match fields.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::BadRequest(format!("{name} must be a string"))),
    }
}

/// A header as text, cut at `max` bytes on a character boundary.
pub(crate) fn header_text(headers: &HeaderMap, name: &HeaderName, max: usize) -> Option<String> {
    let text = String::from_utf8_lossy(headers.get(name)?.as_bytes()).into_owned();
    if text.len() <= max {
        return Some(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(text[..end].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode_like_forms_and_refuse_bytes_that_are_not_utf8() {
        let q = Query::parse(Some("data=caf%C3%A9+au+lait&&size=300&data=second&flag"));
        assert_eq!(q.get("data"), Some("café au lait"));
        assert_eq!(q.get("size"), Some("300"));
        assert_eq!(q.get("flag"), Some(""));
        assert!(q.require_utf8().is_ok());

        let latin1 = Query::parse(Some("size=300&data=caf%E9"));
        assert_eq!(latin1.get("data"), Some("caf\u{FFFD}"));
        let message = latin1.require_utf8().unwrap_err().status_and_message().1;
        assert_eq!(
            message,
            "Invalid query string: parameter \"data\" is not UTF-8 text; percent-encode its UTF-8 bytes"
        );
        assert!(Query::parse(Some("na%FFme=1")).require_utf8().is_err());
    }
}
