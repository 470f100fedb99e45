//! The small HTML pages a person sees after scanning a code whose link is unknown, deleted, paused, not active yet, expired or failing, and the password form of a protected link.

use hyper::StatusCode;
use hyper::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, HeaderValue};

use crate::respond::{HttpResponse, respond};

/// Which page a visitor sees: the domain decides it, this file words it.
pub(crate) use qr_domain::service::PageKind;

/// The title and text of a server failure's page.
const UNAVAILABLE: (&str, &str) = (
    "Temporarily unavailable",
    "This link cannot be opened right now. Please scan the code again in a moment.",
);

/// The page for an unknown code (404), a deleted link (410) or a server failure (500/503).
pub(crate) fn page(status: StatusCode, code: &str) -> HttpResponse {
    match status {
        StatusCode::NOT_FOUND => page_of(PageKind::Unknown, status, code),
        StatusCode::GONE => page_of(PageKind::Gone, status, code),
        _ => notice(status, UNAVAILABLE, code),
    }
}

/// The page of `kind`, answered with `status`. The password form is the first visit's, without
/// a notice: a form shown again says why with [`password_form`]'s notice.
pub(crate) fn page_of(kind: PageKind, status: StatusCode, code: &str) -> HttpResponse {
    let wording = match kind {
        PageKind::Unknown => (
            "Link not found",
            "This QR code points to a link that does not exist. Check that the whole code was scanned, or ask whoever printed it for a new one.",
        ),
        PageKind::Gone => (
            "Link no longer active",
            "The owner of this QR code has deleted its link, so it no longer leads anywhere. Ask whoever printed it for a current code.",
        ),
        PageKind::Paused => (
            "Link paused",
            "The owner of this QR code has paused its link for now. Try again later.",
        ),
        PageKind::NotYetActive => (
            "Link not active yet",
            "This QR code's link has not started yet. Scan it again when the campaign begins.",
        ),
        PageKind::Expired => (
            "Link expired",
            "This QR code's link has ended: its campaign is over or it has been used as often as its owner allowed.",
        ),
        PageKind::Password(_) => return password_form(status, code, None),
    };
    notice(status, wording, code)
}

/// What `https://<domain>/` shows when its owner set no `rootUrl`: a neutral page, without the
/// operator's name, since the domain is the customer's.
pub(crate) fn domain_home() -> HttpResponse {
    let title = "QR code links";
    let body = format!(
        "<h1>{title}</h1><p>This address serves the links of printed QR codes. Scan a code to open its link.</p>"
    );
    html_without_code(StatusCode::OK, title, &body)
}

/// What a path of a customer's domain that is no code shows (a missing app association file, a
/// path with several segments): a neutral 404.
pub(crate) fn domain_not_found() -> HttpResponse {
    let title = "Not found";
    let body = format!("<h1>{title}</h1><p>There is nothing at this address.</p>");
    html_without_code(StatusCode::NOT_FOUND, title, &body)
}

fn html_without_code(status: StatusCode, title: &str, body: &str) -> HttpResponse {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:32rem;\
         margin:3rem auto;padding:0 1.25rem;line-height:1.5;color:#222}}h1{{font-size:1.5rem}}\
         </style></head><body>{body}</body></html>\n"
    );
    let mut response = respond(status, Some("text/html; charset=utf-8"), html);
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    response
}

/// A page of a title and a paragraph.
fn notice(status: StatusCode, (title, text): (&str, &str), code: &str) -> HttpResponse {
    let body = format!("<h1>{title}</h1><p>{text}</p>");
    html(status, title, &body, code, CSP)
}

/// The password form of a protected link: posted to the page's own address (query included),
/// with `notice` (a wrong password, a wait) above it.
pub(crate) fn password_form(status: StatusCode, code: &str, notice: Option<&str>) -> HttpResponse {
    let notice = notice.map_or_else(String::new, |n| {
        format!(
            "<p id=\"notice\" role=\"alert\"><strong>{}</strong></p>",
            escape(n)
        )
    });
    let body = format!(
        "<h1>Password required</h1><p>The owner of this QR code protects its link with a password.</p>{notice}\
         <form method=\"post\"><label for=\"password\">Password</label> \
         <input id=\"password\" name=\"password\" type=\"password\" required maxlength=\"128\" \
         autocomplete=\"current-password\" autofocus> <button type=\"submit\">Open</button></form>"
    );
    html(status, "Password required", &body, code, FORM_CSP)
}

/// Nothing but inline style.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'";
/// The form may post to this server only.
const FORM_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'";

fn html(
    status: StatusCode,
    title: &str,
    body: &str,
    code: &str,
    csp: &'static str,
) -> HttpResponse {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:32rem;\
         margin:3rem auto;padding:0 1.25rem;line-height:1.5;color:#222}}h1{{font-size:1.5rem}}\
         small{{color:#666}}</style></head><body>{body}\
         <p><small>Code: <code>{code}</code></small></p></body></html>\n",
        code = escape(code),
    );
    let mut response = respond(status, Some("text/html; charset=utf-8"), html);
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(csp));
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
