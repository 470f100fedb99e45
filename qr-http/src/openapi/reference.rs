//! The API reference page's content (`/docs/api`, rendered by qr-web): the typed document served at `/api/openapi.json`, walked into `qr_web::reference` values, each schema as the JSON Schema the document writes so that every keyword reaches the page.

use qr_web::reference::{self as page, ApiReference};

use super::model::{Document, Header, Location, MediaType, Operation, SecurityScheme};
use super::{to_json, typed_document};

/// The reference of the API reachable at `base_url`.
pub fn api_reference(base_url: &str) -> ApiReference {
    of(&typed_document(base_url))
}

fn of(document: &Document) -> ApiReference {
    ApiReference {
        title: document.info.title.to_owned(),
        version: document.info.version.to_owned(),
        description: document.info.description.to_owned(),
        server: document
            .servers
            .first()
            .map(|s| s.url.clone())
            .unwrap_or_default(),
        auth: document
            .components
            .security_schemes
            .iter()
            .map(|(name, scheme)| ((*name).to_owned(), presented(scheme)))
            .collect(),
        operations: document
            .paths
            .iter()
            .flat_map(|(path, item)| {
                item.iter()
                    .map(move |(method, operation)| operation_of(path, method, operation))
            })
            .collect(),
        schemas: document
            .components
            .schemas
            .iter()
            .map(|(name, schema)| ((*name).to_owned(), page::Schema::of(&to_json(schema))))
            .collect(),
    }
}

/// How a scheme presents the key, in words.
fn presented(scheme: &SecurityScheme) -> String {
    match scheme {
        SecurityScheme::Http {
            scheme,
            description,
        } => format!("HTTP {scheme} authentication. {description}"),
        SecurityScheme::ApiKey {
            location,
            name,
            description,
        } => {
            let place = match location {
                Location::Header => "header",
                Location::Query => "query parameter",
                Location::Path => "path parameter",
            };
            let mut text = format!("the {place} {name}");
            if let Some(more) = description {
                text.push_str(&format!(". {more}"));
            }
            text
        }
    }
}

fn operation_of(path: &str, method: &str, operation: &Operation) -> page::Operation {
    page::Operation {
        method: method.to_uppercase(),
        path: path.to_owned(),
        summary: operation.summary.to_string(),
        id: operation.operation_id.to_string(),
        public: operation.security.as_ref().is_some_and(Vec::is_empty),
        parameters: operation
            .parameters
            .iter()
            .map(|p| page::Parameter {
                name: p.name.to_owned(),
                location: written(&p.location),
                required: p.required,
                schema: page::Schema::of(&to_json(&p.schema)),
                description: p.description.to_string(),
                example: p.example.as_ref().map(|e| match to_json(e) {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                }),
            })
            .collect(),
        bodies: operation
            .request_body
            .iter()
            .flat_map(|body| bodies(&body.content))
            .collect(),
        responses: operation
            .responses
            .iter()
            .map(|(status, response)| page::Response {
                status: *status,
                description: response.description.to_string(),
                headers: response
                    .headers
                    .iter()
                    .flatten()
                    .map(|(name, header)| match header {
                        Header::Ref(_) | Header::Inline(_) => (*name).to_owned(),
                    })
                    .collect(),
                bodies: response.content.as_ref().map(bodies).unwrap_or_default(),
            })
            .collect(),
        examples: operation
            .example_requests
            .iter()
            .map(|example| {
                let query = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(example.query.iter())
                    .finish();
                (example.summary.to_owned(), query)
            })
            .collect(),
    }
}

/// A location as the document writes it (`query`, `header`, `path`).
fn written(location: &Location) -> String {
    match to_json(location) {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

fn bodies(content: &std::collections::BTreeMap<&'static str, MediaType>) -> Vec<page::Body> {
    content
        .iter()
        .map(|(media_type, body)| page::Body {
            media_type: (*media_type).to_owned(),
            schema: page::Schema::of(&to_json(&body.schema)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation and parameter of the document is in the reference, with the schema the
    /// document gives it.
    #[test]
    fn the_reference_holds_every_operation_and_parameter_of_the_document() {
        let document = super::super::document("http://localhost");
        let reference = api_reference("http://localhost");
        let mut count = 0;
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                count += 1;
                let shown = reference
                    .operations
                    .iter()
                    .find(|o| &o.path == path && o.method == method.to_uppercase())
                    .unwrap_or_else(|| panic!("{method} {path}"));
                let parameters = operation["parameters"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                assert_eq!(shown.parameters.len(), parameters.len(), "{method} {path}");
                for (parameter, row) in parameters.iter().zip(&shown.parameters) {
                    assert_eq!(parameter["name"], row.name.as_str());
                    assert_eq!(row.schema, page::Schema::of(&parameter["schema"]));
                }
                let statuses: Vec<String> = operation["responses"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .cloned()
                    .collect();
                let shown_statuses: Vec<String> = shown
                    .responses
                    .iter()
                    .map(|r| r.status.to_string())
                    .collect();
                assert_eq!(statuses, shown_statuses, "{method} {path}");
            }
        }
        assert_eq!(reference.operations.len(), count);
        assert_eq!(
            reference.schemas.len(),
            document["components"]["schemas"].as_object().unwrap().len()
        );
    }
}
