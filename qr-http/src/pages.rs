//! The small HTML pages a person sees after scanning a code whose link is unknown, deleted or failing.

use hyper::StatusCode;
use hyper::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, HeaderValue};

use crate::respond::{HttpResponse, respond};

/// The page for an unknown code (404), a deleted link (410) or a server failure (500/503).
pub(crate) fn page(status: StatusCode, code: &str) -> HttpResponse {
    let (title, text) = match status {
        StatusCode::NOT_FOUND => (
            "Link not found",
            "This QR code points to a link that does not exist. Check that the whole code was scanned, or ask whoever printed it for a new one.",
        ),
        StatusCode::GONE => (
            "Link no longer active",
            "The owner of this QR code has deleted its link, so it no longer leads anywhere. Ask whoever printed it for a current code.",
        ),
        _ => (
            "Temporarily unavailable",
            "This link cannot be opened right now. Please scan the code again in a moment.",
        ),
    };
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:32rem;\
         margin:3rem auto;padding:0 1.25rem;line-height:1.5;color:#222}}h1{{font-size:1.5rem}}\
         small{{color:#666}}</style></head><body><h1>{title}</h1><p>{text}</p>\
         <p><small>Code: <code>{code}</code></small></p></body></html>\n",
        code = escape(code),
    );
    let mut response = respond(status, Some("text/html; charset=utf-8"), html);
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
    );
    response
}

/// Escapes text for HTML element content and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            escape("<script>alert('x')&\"</script>\n"),
            "&lt;script&gt;alert(&#39;x&#39;)&amp;&quot;&lt;/script&gt;\u{FFFD}"
        );
    }
}
