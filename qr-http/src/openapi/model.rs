//! The OpenAPI 3.1 objects the document is made of (document, operation, parameter, response, header, security scheme), typed and serialized by serde with OpenAPI's member names.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use super::json_schema::{Schema, Text};

/// The whole document.
#[derive(Debug, Serialize)]
pub(super) struct Document {
    pub openapi: &'static str,
    pub info: Info,
    pub servers: Vec<Server>,
    /// The schemes any one of which authorizes a request (an operation's own list wins).
    pub security: Vec<SecurityRequirement>,
    /// The path items by path template.
    pub paths: BTreeMap<&'static str, PathItem>,
    pub components: Components,
}

/// The `info` object.
#[derive(Debug, Serialize)]
pub(super) struct Info {
    pub title: &'static str,
    pub version: &'static str,
    pub description: &'static str,
}

/// One server the API is reachable at.
#[derive(Debug, Serialize)]
pub(super) struct Server {
    pub url: String,
}

/// A security requirement: one scheme, by name, without scopes (`{"bearer": []}`).
#[derive(Clone, Copy, Debug)]
pub(super) struct SecurityRequirement(pub &'static str);

impl Serialize for SecurityRequirement {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let no_scopes: [&str; 0] = [];
        BTreeMap::from([(self.0, no_scopes)]).serialize(serializer)
    }
}

/// The operations of one path, by lower-case method name (`get`, `head`, ...).
pub(super) type PathItem = BTreeMap<String, Operation>;

/// One operation.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Operation {
    pub summary: Text,
    pub operation_id: Text,
    /// `Some(vec![])` for a public operation; `None` keeps the document's `security`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<Vec<SecurityRequirement>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<Parameter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<RequestBody>,
    /// The responses by status code.
    pub responses: BTreeMap<u16, Response>,
    /// Whole requests beyond the parameters' own examples; the tests replay each.
    #[serde(rename = "x-example-requests", skip_serializing_if = "Vec::is_empty")]
    pub example_requests: Vec<ExampleRequest>,
}

/// Where a parameter is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Location {
    /// In the query string.
    Query,
    /// As a request header.
    Header,
    /// In the path template.
    Path,
}

/// One parameter of an operation.
#[derive(Clone, Debug, Serialize)]
pub(super) struct Parameter {
    pub name: &'static str,
    #[serde(rename = "in")]
    pub location: Location,
    pub required: bool,
    pub schema: Schema,
    pub description: Text,
    /// A value the tests send; a required parameter must have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Example>,
    /// The content types a content field of `GET /api/generate` belongs to (the designer shows
    /// it for those only).
    #[serde(rename = "x-content-types", skip_serializing_if = "Option::is_none")]
    pub content_types: Option<Vec<&'static str>>,
    /// The content types that require this content field (a rule between parameters that
    /// OpenAPI cannot state).
    #[serde(
        rename = "x-required-for-types",
        skip_serializing_if = "Option::is_none"
    )]
    pub required_for_types: Option<Vec<&'static str>>,
    /// The parameters this one cannot be sent with.
    #[serde(rename = "x-excludes", skip_serializing_if = "Option::is_none")]
    pub excludes: Option<Vec<&'static str>>,
    /// The parameter whose instant this one must not come before.
    #[serde(rename = "x-not-before", skip_serializing_if = "Option::is_none")]
    pub not_before: Option<&'static str>,
}

/// The example value of a parameter.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(super) enum Example {
    /// A string.
    Text(&'static str),
    /// A whole number.
    Integer(i64),
    /// A boolean.
    Flag(bool),
}

/// One whole example request of `GET /api/generate`: its query, parameter by parameter.
#[derive(Clone, Debug, Serialize)]
pub(super) struct ExampleRequest {
    pub summary: &'static str,
    pub query: BTreeMap<&'static str, &'static str>,
}

/// A request body.
#[derive(Clone, Debug, Serialize)]
pub(super) struct RequestBody {
    pub required: bool,
    pub content: Content,
}

/// Bodies by media type.
pub(super) type Content = BTreeMap<&'static str, MediaType>;

/// The body of one media type.
#[derive(Clone, Debug, Serialize)]
pub(super) struct MediaType {
    pub schema: Schema,
}

/// One response.
#[derive(Clone, Debug, Serialize)]
pub(super) struct Response {
    pub description: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<&'static str, Header>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
}

/// A response header: a reference to a component header, or written in place.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(super) enum Header {
    /// `{"$ref": "#/components/headers/<name>"}`.
    Ref(HeaderRef),
    /// The header itself.
    Inline(HeaderObject),
}

/// A reference to a component header, by name.
#[derive(Clone, Debug, Serialize)]
pub(super) struct HeaderRef {
    #[serde(rename = "$ref", serialize_with = "header_path")]
    pub name: &'static str,
}

fn header_path<S: Serializer>(name: &&'static str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format!("#/components/headers/{name}"))
}

/// A header's schema and description.
#[derive(Clone, Debug, Serialize)]
pub(super) struct HeaderObject {
    pub schema: Schema,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'static str>,
}

/// The `components` object.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Components {
    pub security_schemes: BTreeMap<&'static str, SecurityScheme>,
    pub headers: BTreeMap<&'static str, HeaderObject>,
    pub schemas: BTreeMap<&'static str, Schema>,
}

/// A way to present the API key.
#[derive(Debug, Serialize)]
#[serde(tag = "type")]
pub(super) enum SecurityScheme {
    /// HTTP authentication (`Authorization: <scheme> <key>`).
    #[serde(rename = "http")]
    Http {
        scheme: &'static str,
        description: &'static str,
    },
    /// The key as a named header or query parameter.
    #[serde(rename = "apiKey")]
    ApiKey {
        #[serde(rename = "in")]
        location: Location,
        name: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<&'static str>,
    },
}

impl Response {
    /// A response with a description only.
    pub(super) fn new(description: impl Into<Text>) -> Self {
        Response {
            description: description.into(),
            headers: None,
            content: None,
        }
    }

    /// Adds a header written in place.
    pub(super) fn header(mut self, name: &'static str, header: HeaderObject) -> Self {
        self.headers
            .get_or_insert_with(BTreeMap::new)
            .insert(name, Header::Inline(header));
        self
    }

    /// Adds a body of `media_type`.
    pub(super) fn body(mut self, media_type: &'static str, schema: impl Into<Schema>) -> Self {
        self.content.get_or_insert_with(BTreeMap::new).insert(
            media_type,
            MediaType {
                schema: schema.into(),
            },
        );
        self
    }

    /// Adds a JSON body.
    pub(super) fn json(self, schema: impl Into<Schema>) -> Self {
        self.body("application/json", schema)
    }
}

impl HeaderObject {
    /// A header with its schema, undescribed.
    pub(super) fn new(schema: impl Into<Schema>) -> Self {
        HeaderObject {
            schema: schema.into(),
            description: None,
        }
    }

    /// The description.
    pub(super) fn describe(mut self, text: &'static str) -> Self {
        self.description = Some(text);
        self
    }
}

impl Parameter {
    /// A query parameter.
    pub(super) fn query(
        name: &'static str,
        schema: impl Into<Schema>,
        description: impl Into<Text>,
    ) -> Self {
        Parameter {
            name,
            location: Location::Query,
            required: false,
            schema: schema.into(),
            description: description.into(),
            example: None,
            content_types: None,
            required_for_types: None,
            excludes: None,
            not_before: None,
        }
    }

    /// The parameter whose instant this one must not come before.
    pub(super) fn not_before(mut self, name: &'static str) -> Self {
        self.not_before = Some(name);
        self
    }

    /// The parameters this one cannot be sent with.
    pub(super) fn excludes(mut self, names: Vec<&'static str>) -> Self {
        self.excludes = Some(names);
        self
    }

    /// Makes the parameter required.
    pub(super) fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Moves the parameter to `location`.
    pub(super) fn located(mut self, location: Location) -> Self {
        self.location = location;
        self
    }

    /// The example value.
    pub(super) fn example(mut self, example: Example) -> Self {
        self.example = Some(example);
        self
    }
}

/// A JSON request body that must be present, with the component schema `name`.
pub(super) fn json_body(name: &'static str) -> RequestBody {
    RequestBody {
        required: true,
        content: BTreeMap::from([(
            "application/json",
            MediaType {
                schema: super::json_schema::reference(name).into(),
            },
        )]),
    }
}
