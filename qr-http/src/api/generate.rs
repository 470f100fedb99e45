//! `GET /api/generate`: one image, with a strong ETag, rendered inline when small and on the CPU pool when not.

use hyper::StatusCode;
use hyper::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, ETAG, HeaderMap, HeaderValue, IF_NONE_MATCH,
};
use qr_core::{Format, RenderOptions};
use qr_generate::Symbol;
use sha2::{Digest, Sha256};

use crate::app::App;
use crate::error::ApiError;
use crate::respond::{HttpResponse, empty, respond, set_header};

/// Largest data, in bytes, of a generate request rendered on the async worker thread.
const INLINE_RENDER_MAX_BYTES: usize = 256;
/// Largest image side, in pixels, of a generate request rendered on the async worker thread
/// (without a logo); such a render takes well under 100 µs.
const INLINE_RENDER_MAX_SIZE: u32 = 512;

/// What kind of image to make besides its options: the symbol, and whether to decode it
/// before answering (`verify=true`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Image {
    pub(crate) symbol: Symbol,
    pub(crate) verify: bool,
}

/// Renders `data`, fetching the logo first when one is asked for.
pub(crate) async fn handle(
    app: &App,
    data: String,
    mut options: RenderOptions,
    logo_url: Option<String>,
    image: Image,
    headers: &HeaderMap,
) -> Result<HttpResponse, ApiError> {
    let Image { symbol, verify } = image;
    if symbol == Symbol::Micro && logo_url.is_some() {
        // Refused before fetching: no network traffic for a request that fails anyway.
        return Err(qr_generate::symbol::logo_refused().into());
    }
    if let Some(url) = logo_url {
        let fetched = app.logos().fetch(&url).await;
        app.metrics().logo(match &fetched {
            Ok((_, outcome)) => *outcome,
            Err(e) => e.outcome(),
        });
        options.logo = Some(fetched?.0);
    }
    let format = options.format;
    // A small image takes well under 100 µs: render it here rather than pay two thread
    // switches; larger ones (up to milliseconds) go to the blocking pool.
    // Styled images, print documents and verified ones take longer: they go to the pool too.
    let image = if data.len() <= INLINE_RENDER_MAX_BYTES
        && options.size.pixels() <= INLINE_RENDER_MAX_SIZE
        && options.logo.is_none()
        && options == plain(&options)
        && !verify
        && symbol == Symbol::Qr
    {
        qr_generate::render(&data, &options)?
    } else {
        app.blocking_heavy(move |_| qr_generate::render_symbol(&data, &options, symbol, verify))
            .await??
    };
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
    Ok(response)
}

/// `options` with only the settings of a plain image (size, format, colours, level, margin)
/// kept, the rest at their defaults: equal to `options` when the image is plain.
fn plain(options: &RenderOptions) -> RenderOptions {
    let mut plain = RenderOptions::default()
        .with_size(options.size)
        .with_color(options.color)
        .with_background(options.background)
        .with_ec_level(options.ec_level)
        .with_margin(options.margin);
    if matches!(options.format, Format::Png | Format::Svg) {
        plain = plain.with_format(options.format);
    }
    plain.logo_size = options.logo_size;
    plain
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
