//! `X-Request-Id`: taken from a trusted proxy's request when it is a short plain token, else made here from a random per-start prefix and a counter (one atomic addition, no system call per request).

use std::sync::atomic::{AtomicU64, Ordering};

use hyper::HeaderMap;
use hyper::header::{HeaderName, HeaderValue};

/// The header, on requests (from a trusted proxy) and on every response.
pub(crate) static X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Longest request id accepted from a proxy (a UUID is 36 characters, a W3C trace id 32).
const MAX_CHARS: usize = 64;

/// Makes request ids.
#[derive(Debug)]
pub(crate) struct RequestIds {
    /// 12 random hex digits: ids of different starts and servers do not collide.
    prefix: String,
    next: AtomicU64,
}

impl RequestIds {
    /// A generator with a fresh random prefix.
    pub(crate) fn new() -> Self {
        // Without the system's random source (never seen in practice) the start time still
        // tells servers' starts apart.
        let seed = qr_domain::random::bytes::<6>().unwrap_or_else(|_| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let b = nanos.to_le_bytes();
            [b[0], b[1], b[2], b[3], b[4], b[5]]
        });
        Self {
            prefix: qr_domain::random::hex(&seed),
            next: AtomicU64::new(1),
        }
    }

    /// The request's id: the proxy's `X-Request-Id` when the peer is a trusted proxy and the
    /// value is 1 to 64 characters of `A-Z a-z 0-9 . _ -`, else a new one.
    pub(crate) fn assign(&self, from_trusted_proxy: bool, headers: &HeaderMap) -> HeaderValue {
        if from_trusted_proxy
            && let Some(value) = headers.get(&X_REQUEST_ID)
            && is_sane(value.as_bytes())
        {
            return value.clone();
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("{}-{n:x}", self.prefix);
        // Hex digits and a hyphen are always a valid header value.
        HeaderValue::from_str(&id).unwrap_or(HeaderValue::from_static("-"))
    }
}

fn is_sane(value: &[u8]) -> bool {
    (1..=MAX_CHARS).contains(&value.len())
        && value
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_id_is_kept_only_from_a_trusted_proxy_and_when_sane() {
        let ids = RequestIds::new();
        let mut h = HeaderMap::new();
        h.insert(&X_REQUEST_ID, HeaderValue::from_static("edge-42.a_b"));
        assert_eq!(ids.assign(true, &h), "edge-42.a_b");
        let own = ids.assign(false, &h);
        assert!(own.to_str().unwrap().starts_with(&ids.prefix), "{own:?}");
        for bad in ["", "has space", "quote\"", "ü"] {
            let mut h = HeaderMap::new();
            if let Ok(v) = HeaderValue::from_str(bad) {
                h.insert(&X_REQUEST_ID, v);
            }
            assert_ne!(ids.assign(true, &h), bad);
        }
        let mut h = HeaderMap::new();
        h.insert(
            &X_REQUEST_ID,
            HeaderValue::from_str(&"a".repeat(65)).unwrap(),
        );
        let replaced = ids.assign(true, &h);
        assert!(replaced.to_str().unwrap().starts_with(&ids.prefix));
        assert_ne!(
            ids.assign(false, &h),
            ids.assign(false, &h),
            "ids are unique"
        );
    }
}
