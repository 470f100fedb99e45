//! The public paths, answered without an API key: `/api/openapi.json` (this document) and `/r/{shortCode}` (a dynamic link's redirect and its password form).

use std::collections::BTreeMap;

use qr_domain::links::shortcode::MAX_CODE_CHARS;

use crate::routes::Method;

use super::json_schema::{Format, integer, object, reference, string};
use super::keyed::{keyed_headers, reason};
use super::model::{
    Content, Example, HeaderObject, Location, MediaType, Operation, Parameter, RequestBody,
    Response,
};

/// The example short code: the replay test swaps it for the code of a link it created.
const EXAMPLE_SHORT_CODE: &str = "7K3M9QXZ";

/// A public operation (`"security": []`).
fn public(
    summary: &'static str,
    id: &'static str,
    parameters: Vec<Parameter>,
    responses: BTreeMap<u16, Response>,
) -> Operation {
    Operation {
        summary: summary.into(),
        operation_id: id.into(),
        security: Some(Vec::new()),
        parameters,
        request_body: None,
        responses,
        example_requests: Vec::new(),
    }
}

/// The 405 of a public path: the `Allow` header, without the rate-limit headers (no key).
fn method_not_allowed() -> Response {
    Response {
        headers: Some(keyed_headers(405)),
        ..Response::new(reason(405))
    }
}

/// `/api/openapi.json`: GET and HEAD.
pub(super) fn openapi() -> Vec<(Method, Operation)> {
    let document = Response::new("This OpenAPI 3.1 document");
    vec![
        (
            Method::Get,
            public(
                "This document",
                "openapi",
                Vec::new(),
                BTreeMap::from([
                    (200, document.clone().json(object())),
                    (405, method_not_allowed()),
                ]),
            ),
        ),
        (
            Method::Head,
            public(
                "This document (headers only)",
                "openapiHead",
                Vec::new(),
                BTreeMap::from([(200, document), (405, method_not_allowed())]),
            ),
        ),
    ]
}

/// An HTML page answer, with its body unless it answers HEAD.
fn page(description: &'static str, with_body: bool) -> Response {
    let response = Response::new(description);
    if with_body {
        response.body("text/html", string())
    } else {
        response
    }
}

/// A redirect answer: its `Location`.
fn redirect(description: &'static str) -> Response {
    Response::new(description).header("Location", HeaderObject::new(string().format(Format::Uri)))
}

/// An error answered as JSON before the redirect's own handling (the router's and the body
/// reader's).
fn json_error(status: u16) -> Response {
    Response::new(reason(status)).json(reference("Error"))
}

/// The answers of a GET (`with_body`) or HEAD of a short URL.
fn scan_responses(with_body: bool) -> BTreeMap<u16, Response> {
    BTreeMap::from([
        (
            200,
            page("The password form of a protected link", with_body),
        ),
        (
            302,
            redirect(
                "To the target (the first matching rule's, the visitor's variant, or targetUrl, with utm and the forwarded query), or to expiredUrl (Cache-Control: no-store)",
            ),
        ),
        (
            404,
            page(
                "Unknown code, paused link or link not active yet (HTML page)",
                with_body,
            ),
        ),
        (
            405,
            Response {
                headers: Some(keyed_headers(405)),
                ..json_error(405)
            },
        ),
        (410, page("Deleted or expired link (HTML page)", with_body)),
        (
            503,
            page(
                "Storage busy or unavailable (HTML page); Retry-After says when to retry",
                with_body,
            ),
        ),
    ])
}

/// The answers of the password form's POST: the page answers of a GET without the form and the
/// redirect, plus the outcomes of the password.
fn unlock_responses() -> BTreeMap<u16, Response> {
    let mut responses = scan_responses(true);
    responses.remove(&200);
    responses.remove(&302);
    responses.extend([
        (
            303,
            redirect(
                "The right password (or a link without one): to the target, the scan recorded",
            ),
        ),
        (403, page("A wrong password: the form again", true)),
        (
            408,
            page("The form was not received in time (HTML page)", true),
        ),
        (413, page("The form is too large (HTML page)", true)),
        (
            429,
            page(
                "Too many wrong passwords from this address: the form, with Retry-After",
                true,
            )
            .header("Retry-After", HeaderObject::new(integer())),
        ),
    ]);
    responses
}

/// `/r/{shortCode}`: GET (records the scan), HEAD (does not), POST (the password form).
pub(super) fn redirect_path() -> Vec<(Method, Operation)> {
    let code = Parameter::query(
        "shortCode",
        string().min_length(1).max_length(MAX_CODE_CHARS),
        "The short code: a generated one (lower case and the look-alikes O, I, L accepted) or a custom one (any case)",
    )
    .located(Location::Path)
    .required()
    .example(Example::Text(EXAMPLE_SHORT_CODE));
    let form = RequestBody {
        required: false,
        content: Content::from([(
            "application/x-www-form-urlencoded",
            MediaType {
                schema: object()
                    .property(
                        "password",
                        string().describe("Any text: a wrong one answers the form again (403); the form's size is bounded (413)"),
                    )
                    .into(),
            },
        )]),
    };
    vec![
        (
            Method::Get,
            public(
                "Redirect of a dynamic link (public); records the scan of a person",
                "redirect",
                vec![code.clone()],
                scan_responses(true),
            ),
        ),
        (
            Method::Head,
            public(
                "Redirect without recording a scan",
                "redirectHead",
                vec![code.clone()],
                scan_responses(false),
            ),
        ),
        (
            Method::Post,
            Operation {
                request_body: Some(form),
                ..public(
                    "The password form's answer: the right password redirects (303) and records the scan",
                    "redirectUnlock",
                    vec![code],
                    unlock_responses(),
                )
            },
        ),
    ]
}
