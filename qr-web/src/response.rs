//! Building the dashboard's responses: HTML pages with their security headers, redirects, cookies, images and downloads.

use http::header::{
    CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderName,
    HeaderValue, LOCATION, REFERRER_POLICY, SET_COOKIE, X_FRAME_OPTIONS,
};
use http::{Response, StatusCode};

/// A response of the dashboard.
pub type WebResponse = Response<Vec<u8>>;

/// The policy of every page: only this origin's files, no inline script or style, no framing,
/// forms only to this origin, no `<base>`. Previews are `data:` and `blob:` images.
pub(crate) const PAGE_CSP: &str = "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";
/// Images served by the dashboard (SVG can hold script): nothing runs, as for the API's SVGs.
const IMAGE_CSP: &str = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";

static CROSS_ORIGIN_OPENER_POLICY: HeaderName =
    HeaderName::from_static("cross-origin-opener-policy");

/// A response with a status, a content type and a body.
fn raw(status: StatusCode, content_type: &'static str, body: Vec<u8>) -> WebResponse {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// An HTML page, never cached (it shows an account's data), with the page security headers.
pub(crate) fn html(status: StatusCode, body: String) -> WebResponse {
    let mut r = raw(status, "text/html; charset=utf-8", body.into_bytes());
    secure(&mut r);
    r
}

/// Adds the headers every page carries.
pub(crate) fn secure(r: &mut WebResponse) {
    let h = r.headers_mut();
    h.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_CSP));
    // Links in e-mails carry tokens in the query: no page passes its address on.
    h.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        CROSS_ORIGIN_OPENER_POLICY.clone(),
        HeaderValue::from_static("same-origin"),
    );
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// 303 See Other to a path of this site (after a form, or to the login page).
pub(crate) fn redirect(location: &str) -> WebResponse {
    let mut r = raw(
        StatusCode::SEE_OTHER,
        "text/plain; charset=utf-8",
        Vec::new(),
    );
    if let Ok(value) = HeaderValue::from_str(location) {
        r.headers_mut().insert(LOCATION, value);
    }
    secure(&mut r);
    r
}

/// An image made for the account (a preview or a download).
pub(crate) fn image(
    format: qr_core::Format,
    bytes: Vec<u8>,
    download: Option<&str>,
) -> WebResponse {
    let mut r = raw(StatusCode::OK, format.content_type(), bytes);
    let h = r.headers_mut();
    h.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(IMAGE_CSP));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    if let Some(name) = download {
        attach(&mut r, name);
    }
    r
}

/// An image every user may cache (the designer's swatches: the same bytes for everyone until
/// the server changes), with a strong ETag of its bytes; `304 Not Modified` when `if_none_match`
/// holds it.
pub(crate) fn cached_image(
    format: qr_core::Format,
    bytes: Vec<u8>,
    if_none_match: Option<&HeaderValue>,
) -> WebResponse {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(&bytes);
    let tag: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let etag = format!("\"{tag}\"");
    let matches = if_none_match
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut r = if matches {
        raw(StatusCode::NOT_MODIFIED, format.content_type(), Vec::new())
    } else {
        raw(StatusCode::OK, format.content_type(), bytes)
    };
    let h = r.headers_mut();
    h.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(IMAGE_CSP));
    // A day: swatches change only with the server's version.
    h.insert(
        CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=86400"),
    );
    if let Ok(value) = HeaderValue::from_str(&etag) {
        h.insert(http::header::ETAG, value);
    }
    r
}

/// A JSON answer to the dashboard's own script (a passkey challenge, or why there is none):
/// never cached, and with the page headers, so it is as private as the page that asked.
pub(crate) fn json(status: StatusCode, body: String) -> WebResponse {
    let mut r = raw(status, "application/json", body.into_bytes());
    secure(&mut r);
    r
}

/// A CSV download.
pub(crate) fn csv(body: String, filename: &str) -> WebResponse {
    let mut r = raw(StatusCode::OK, "text/csv; charset=utf-8", body.into_bytes());
    r.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    attach(&mut r, filename);
    r
}

/// A ZIP download (the account export).
pub(crate) fn zip(body: Vec<u8>, filename: &str) -> WebResponse {
    let mut r = raw(StatusCode::OK, qr_export::CONTENT_TYPE, body);
    r.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    attach(&mut r, filename);
    r
}

/// Marks a response as a file download named `filename` (letters, digits, `.`, `-` and `_`).
fn attach(r: &mut WebResponse, filename: &str) {
    let safe: String = filename
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{safe}\"")) {
        r.headers_mut().insert(CONTENT_DISPOSITION, value);
    }
}

/// A static file, cached for a year: its name carries its content hash.
pub(crate) fn asset(content_type: &'static str, bytes: &'static [u8]) -> WebResponse {
    let mut r = raw(StatusCode::OK, content_type, bytes.to_vec());
    r.headers_mut().insert(
        CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    r
}

/// A static file at a fixed address (`/favicon.ico`): cached for a day, as its name cannot change
/// with its content, so a new icon reaches browsers within a day.
pub(crate) fn fixed_asset(content_type: &'static str, bytes: &'static [u8]) -> WebResponse {
    let mut r = raw(StatusCode::OK, content_type, bytes.to_vec());
    r.headers_mut().insert(
        CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    r
}

/// How the site's cookies are named and flagged: with `https` the `__Host-` prefix and `Secure`
/// (the browser then refuses them from plain HTTP and from other hosts).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cookies {
    pub(crate) secure: bool,
}

/// The login session's cookie.
pub(crate) const SESSION: &str = "qr_session";
/// The cookie that binds the CSRF token of forms shown before login.
pub(crate) const FORM: &str = "qr_form";

impl Cookies {
    /// The name a cookie is sent under.
    pub(crate) fn name(self, base: &str) -> String {
        if self.secure {
            format!("__Host-{base}")
        } else {
            base.to_owned()
        }
    }

    /// Sets a cookie for the whole site, readable by no script, sent on top-level navigation from
    /// other sites (so e-mailed links arrive logged in) but not on their forms or fetches.
    pub(crate) fn set(self, r: &mut WebResponse, base: &str, value: &str, max_age_secs: i64) {
        let mut cookie = format!(
            "{}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_secs}",
            self.name(base)
        );
        if self.secure {
            cookie.push_str("; Secure");
        }
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            r.headers_mut().append(SET_COOKIE, v);
        }
    }

    /// Removes a cookie.
    pub(crate) fn clear(self, r: &mut WebResponse, base: &str) {
        self.set(r, base, "", 0);
    }
}
