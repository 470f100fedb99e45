//! `GET /api/generate`: one image, with a strong ETag, rendered inline when small and on the CPU pool when not (the answer `GET /api/links/qr` shares).

use hyper::StatusCode;
use hyper::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, ETAG, HeaderMap, HeaderValue, IF_NONE_MATCH,
};
use qr_core::Format;
use qr_generate::{Code, Symbol};
use sha2::{Digest, Sha256};

use crate::app::App;
use crate::error::ApiError;
use crate::respond::{HttpResponse, empty, respond, set_header};

/// Largest data, in bytes, of a generate request rendered on the async worker thread.
const INLINE_RENDER_MAX_BYTES: usize = 256;
/// Largest image side, in pixels, of a generate request rendered on the async worker thread
/// (without a logo); such a render takes well under 100 µs.
const INLINE_RENDER_MAX_SIZE: u32 = 512;

/// Renders `code`, fetching the logo first when one is asked for.
pub(crate) async fn handle(
    app: &App,
    mut code: Code,
    logo_url: Option<String>,
    headers: &HeaderMap,
) -> Result<HttpResponse, ApiError> {
    if code.symbol() == Symbol::Micro && logo_url.is_some() {
        // Refused before fetching: no network traffic for a request that fails anyway.
        return Err(qr_generate::symbol::logo_refused().into());
    }
    if let Some(url) = logo_url {
        let fetched = app.logos().fetch(&url).await;
        app.metrics().logo(match &fetched {
            Ok((_, outcome)) => *outcome,
            Err(e) => e.outcome(),
        });
        code = code.with_logo(fetched?.0)?;
    }
    respond_image(app, code, headers).await
}

/// Renders a checked `code` (its logo set) and answers it as `/api/generate` does: a strong
/// ETag of the image, 304 on a matching `If-None-Match`, a revalidating private cache policy
/// and, for SVG, a content security policy. `GET /api/links/qr` answers through it too.
pub(crate) async fn respond_image(
    app: &App,
    code: Code,
    headers: &HeaderMap,
) -> Result<HttpResponse, ApiError> {
    let format = code.format();
    // A small plain image takes well under 100 µs: render it here rather than pay two thread
    // switches; larger ones (up to milliseconds) go to the blocking pool.
    // Styled images, print documents, logos, Micro QR codes and verified ones take longer: they
    // go to the pool too.
    let image = if renders_inline(&code) {
        qr_generate::render(&code)?
    } else {
        app.blocking_heavy(move |_| qr_generate::render(&code))
            .await??
    };
    Ok(respond_rendered(format, image, headers))
}

/// Whether `code` is small and plain enough to render on the async worker thread.
fn renders_inline(code: &Code) -> bool {
    code.data().len() <= INLINE_RENDER_MAX_BYTES
        && code.options().size.pixels() <= INLINE_RENDER_MAX_SIZE
        && code.is_plain()
}

/// Answers a rendered image as [`respond_image`] does.
pub(crate) fn respond_rendered(
    format: Format,
    image: Vec<u8>,
    headers: &HeaderMap,
) -> HttpResponse {
    let etag = format!("\"{}\"", hex(&Sha256::digest(&image)[..16]));
    let mut response = if if_none_match(headers, &etag) {
        empty(StatusCode::NOT_MODIFIED)
    } else {
        respond(StatusCode::OK, Some(format.content_type()), image)
    };
    set_header(&mut response, ETAG, &etag);
    let h = response.headers_mut();
    h.insert(CACHE_CONTROL, HeaderValue::from_static("private, no-cache"));
    if format == Format::Svg {
        h.insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
            ),
        );
    }
    response
}

/// Whether `If-None-Match` matches the strong `etag` (weak comparison, as for GET).
fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etags_match_weakly() {
        let mut h = HeaderMap::new();
        h.insert(IF_NONE_MATCH, HeaderValue::from_static("\"a\", W/\"b\""));
        assert!(if_none_match(&h, "\"b\""));
        assert!(if_none_match(&h, "\"a\""));
        assert!(!if_none_match(&h, "\"c\""));
    }
}
