//! `/docs/api`: the API reference, readable in a browser: every operation with its parameters and their bounds, request bodies, answers and examples, and the schemas they use, from the same typed tables as `/api/openapi.json`.

use askama::Template;
use qr_domain::{Clock, Store};

use super::{Failure, Layout, ok};
use crate::Web;
use crate::reference::ApiReference;
use crate::request::WebRequest;
use crate::response::WebResponse;

#[derive(Template)]
#[template(path = "reference.html")]
struct ReferencePage<'a> {
    layout: Layout,
    api: &'a ApiReference,
}

pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let mut layout = Layout::public(
        "API reference",
        "The QR Platform API: every operation with its parameters, bounds, examples and errors.",
    );
    if let Some(ctx) = web.session(req)? {
        layout = Layout {
            description: layout.description,
            ..Layout::user(&layout.title, "", &ctx, req)
        };
    }
    ok(&ReferencePage {
        layout,
        api: &web.api_reference,
    })
}
