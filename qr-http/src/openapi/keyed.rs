//! What every keyed operation has in common: the error statuses the pipeline can answer before the operation runs, their descriptions, the rate-limit headers, the `Error` body, and the HEAD twin of a GET.

use std::collections::BTreeMap;

use crate::routes::Method;

use super::json_schema::{Constant, Schema, Text, count, integer, object, reference, string};
use super::model::{
    ExampleRequest, Header, HeaderObject, HeaderRef, Operation, Parameter, RequestBody, Response,
    json_body,
};

/// A documented status: the reason phrase used as its description.
pub(super) fn reason(status: u16) -> &'static str {
    match status {
        400 => "Invalid request: the message names the parameter or field",
        401 => "Invalid API key",
        403 => "API key not authorized for this endpoint (key restrictions, plan feature or limit)",
        404 => "Link not found (webhooks: Webhook not found)",
        405 => "Method not allowed (the Allow header lists the methods of the path)",
        408 => "Request body not received in time",
        409 => "shortCode already taken (by a live or a deleted link)",
        413 => "Request body too large",
        422 => {
            "Not answerable as asked: for generate, verify=true decoded the finished image and it did not give back the data; for the account export, the archive exceeds the 64 MiB download cap"
        }
        429 => {
            "Rate limit exceeded: the monthly quota, the batch rate or the per-second rate; or too many wrong keys from this address (that answer has no X-RateLimit headers: no account is known)"
        }
        503 => "Service busy, or storage unavailable: retry after Retry-After seconds",
        _ => "Error",
    }
}

/// Statuses every keyed operation can answer: the pipeline's authentication (401), key
/// restrictions (403), rate limits (429) and validation (400), the router's 405, and 503.
const KEYED_ERRORS: &[u16] = &[400, 401, 403, 405, 429, 503];

/// The rate-limit headers, sent once the key is known (so not on a 429 for wrong keys).
const RATE_LIMIT_HEADERS: [&str; 3] = [
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
];

/// The component headers (`components.headers`), by name.
pub(super) fn component_headers() -> BTreeMap<&'static str, HeaderObject> {
    let header = |minimum: i64, description| {
        HeaderObject::new(integer().minimum(minimum)).describe(description)
    };
    BTreeMap::from([
        (
            "X-RateLimit-Limit",
            header(-1, "Requests allowed this month (-1: unlimited)"),
        ),
        (
            "X-RateLimit-Remaining",
            header(-1, "Requests left this month (-1: unlimited)"),
        ),
        (
            "X-RateLimit-Reset",
            header(0, "Unix time of the next monthly reset"),
        ),
        ("Retry-After", header(0, "Seconds to wait before retrying")),
        (
            "Allow",
            HeaderObject::new(string()).describe("The methods the path answers"),
        ),
    ])
}

/// The `Error` body every error status answers with.
pub(super) fn error_schema() -> Schema {
    object()
        .required(&["error", "message"])
        .closed()
        .property("error", Schema::Const(Constant::Flag(true)))
        .property("message", string())
        .property("retryAfter", count().describe("Seconds to wait (429 only)"))
        .into()
}

/// The headers of a keyed response with `status`: the rate-limit headers once the key is known
/// (not on 401 or 405), `Retry-After` on 429 and 503, `Allow` on 405.
pub(super) fn keyed_headers(status: u16) -> BTreeMap<&'static str, Header> {
    let mut names: Vec<&'static str> = Vec::new();
    if status != 401 && status != 405 {
        names.extend(RATE_LIMIT_HEADERS);
    }
    if status == 429 || status == 503 {
        names.push("Retry-After");
    }
    if status == 405 {
        names.push("Allow");
    }
    names
        .into_iter()
        .map(|name| (name, Header::Ref(HeaderRef { name })))
        .collect()
}

/// The answer of an error status: its reason, its headers and the `Error` body.
pub(super) fn error_response(status: u16) -> Response {
    Response {
        headers: Some(keyed_headers(status)),
        ..Response::new(reason(status)).json(reference("Error"))
    }
}

/// One operation that needs an API key, as its resource documents it.
pub(super) struct KeyedOperation {
    id: &'static str,
    summary: Text,
    parameters: Vec<Parameter>,
    body: Option<RequestBody>,
    /// The success responses, by status.
    success: BTreeMap<u16, Response>,
    /// Error statuses beyond [`KEYED_ERRORS`].
    errors: &'static [u16],
    example_requests: Vec<ExampleRequest>,
}

impl KeyedOperation {
    /// An operation named `id`, without parameters, body or answers yet.
    pub(super) fn new(id: &'static str, summary: impl Into<Text>) -> Self {
        KeyedOperation {
            id,
            summary: summary.into(),
            parameters: Vec::new(),
            body: None,
            success: BTreeMap::new(),
            errors: &[],
            example_requests: Vec::new(),
        }
    }

    /// The parameters.
    pub(super) fn parameters(mut self, parameters: Vec<Parameter>) -> Self {
        self.parameters = parameters;
        self
    }

    /// A JSON request body with the component schema `name`.
    pub(super) fn body(mut self, name: &'static str) -> Self {
        self.body = Some(json_body(name));
        self
    }

    /// A success answer.
    pub(super) fn success(mut self, status: u16, response: Response) -> Self {
        self.success.insert(status, response);
        self
    }

    /// The error statuses of the operation itself (beyond those every keyed operation answers).
    pub(super) fn errors(mut self, statuses: &'static [u16]) -> Self {
        self.errors = statuses;
        self
    }

    /// Whole example requests beyond the parameters' examples.
    pub(super) fn example_requests(mut self, requests: Vec<ExampleRequest>) -> Self {
        self.example_requests = requests;
        self
    }

    /// The full responses: the successes with the keyed headers, and every error status.
    fn responses(&self) -> BTreeMap<u16, Response> {
        let mut responses: BTreeMap<u16, Response> = self
            .success
            .iter()
            .map(|(&status, response)| {
                let mut headers = keyed_headers(status);
                headers.extend(response.headers.clone().unwrap_or_default());
                let response = Response {
                    headers: Some(headers),
                    ..response.clone()
                };
                (status, response)
            })
            .collect();
        for &status in KEYED_ERRORS.iter().chain(self.errors) {
            responses.insert(status, error_response(status));
        }
        responses
    }

    /// The operation as documented for its own method.
    fn operation(&self) -> Operation {
        Operation {
            summary: self.summary.clone(),
            operation_id: self.id.into(),
            security: None,
            parameters: self.parameters.clone(),
            request_body: self.body.clone(),
            responses: self.responses(),
            example_requests: self.example_requests.clone(),
        }
    }

    /// The HEAD twin of a GET operation: the same parameters and statuses, without bodies.
    fn head(&self) -> Operation {
        let responses = self
            .responses()
            .into_iter()
            .map(|(status, response)| {
                let response = Response {
                    content: None,
                    ..response
                };
                (status, response)
            })
            .collect();
        Operation {
            summary: format!("{} (headers only)", self.summary).into(),
            operation_id: format!("{}Head", self.id).into(),
            security: None,
            parameters: self.parameters.clone(),
            request_body: None,
            responses,
            example_requests: Vec::new(),
        }
    }
}

/// The operations of a keyed path by method, each GET with its HEAD twin (HEAD answers like GET
/// without the body, as RFC 9110 requires).
pub(super) fn operations(operations: Vec<(Method, KeyedOperation)>) -> Vec<(Method, Operation)> {
    let mut documented = Vec::new();
    for (method, operation) in operations {
        if method == Method::Get {
            documented.push((Method::Head, operation.head()));
        }
        documented.push((method, operation.operation()));
    }
    documented
}
