//! The OpenAPI 3.1 description served at `GET /api/openapi.json`: as strict as the server, with every status it can answer and an example for every input (tests replay them and keep the document equal to the route table and to `tests/data/openapi.json`).
//!
//! The paths and methods come from the route table ([`crate::routes::ROUTES`]); each route's
//! operations come from its resource's module through `documentation`, whose `match` on the
//! route kind does not compile without every kind. The document is made of typed OpenAPI objects
//! (`model.rs`) and JSON Schemas (`json_schema.rs`), serialized by serde once, here.
//!
//! Where to look: `generate/` (`/api/generate`, `/api/batch`, and the generate parameters'
//! descriptions and examples in one table), `links.rs` (`/api/links`, `/api/links/bulk`),
//! `designs.rs` (`/api/designs`, `/api/links/qr`), `analytics.rs`, `account.rs` (usage, health, the account export), `webhooks.rs`,
//! `public.rs` (this document, the redirect), `keyed.rs` (what every keyed operation shares),
//! `patterns.rs` (the regular expressions of trimmed text, dates and cursors).

mod account;
mod analytics;
mod audit;
mod designs;
mod domains;
mod generate;
mod json_schema;
mod keyed;
mod links;
mod model;
mod patterns;
mod print;
mod public;
mod reference;
mod webhooks;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::routes::{Kind, Method, ROUTES};
use model::{
    Components, Document, Info, Location, Operation, PathItem, SecurityRequirement, SecurityScheme,
    Server,
};
pub use reference::api_reference;

/// The OpenAPI 3.1 document of the API, for a server reachable at `base_url`.
pub fn document(base_url: &str) -> Value {
    to_json(&typed_document(base_url))
}

/// A part of the document as JSON.
fn to_json(part: &impl serde::Serialize) -> Value {
    // Serializing into a `Value` fails only for a map whose keys are not strings; every map of
    // the model is keyed by text or by a status code, which serde_json writes as text.
    serde_json::to_value(part).expect("every map of the document is keyed by text or a number")
}

/// The operations of a route by method, from the module documenting its resource.
fn documentation(kind: Kind) -> Vec<(Method, Operation)> {
    match kind {
        Kind::Generate => generate::generate(),
        Kind::Batch => generate::batch(),
        Kind::Print => print::print(),
        Kind::Links => links::links(),
        Kind::BulkLinks => links::bulk(),
        Kind::Analytics => analytics::analytics(),
        Kind::AnalyticsExport => analytics::export(),
        Kind::Dashboard => account::usage(),
        Kind::Health => account::health(),
        Kind::Webhooks => webhooks::webhooks(),
        Kind::Export => account::export(),
        Kind::Domains => domains::domains(),
        Kind::DomainCheck => domains::check(),
        Kind::DomainVisits => domains::visits(),
        Kind::Designs => designs::designs(),
        Kind::LinkCode => designs::link_code(),
        Kind::Audit => audit::audit(),
        Kind::OpenApi => public::openapi(),
        Kind::Redirect => public::redirect_path(),
    }
}

/// Every routed path with the operations of the methods it answers.
fn paths() -> BTreeMap<&'static str, PathItem> {
    ROUTES
        .iter()
        .map(|route| {
            let item = documentation(route.kind)
                .into_iter()
                .filter(|(method, _)| route.methods.contains(method))
                .map(|(method, operation)| (method.as_str().to_lowercase(), operation))
                .collect();
            (route.path, item)
        })
        .collect()
}

/// Every component schema, by name.
fn component_schemas() -> BTreeMap<&'static str, json_schema::Schema> {
    let mut schemas = BTreeMap::from([("Error", keyed::error_schema())]);
    schemas.extend(generate::schemas());
    schemas.extend(print::schemas());
    schemas.extend(links::schemas());
    schemas.extend(analytics::schemas());
    schemas.extend(account::schemas());
    schemas.extend(webhooks::schemas());
    schemas.extend(domains::schemas());
    schemas.extend(designs::schemas());
    schemas.extend(audit::schemas());
    schemas
}

/// The ways to present the API key.
fn security_schemes() -> BTreeMap<&'static str, SecurityScheme> {
    BTreeMap::from([
        (
            "bearer",
            SecurityScheme::Http {
                scheme: "bearer",
                description: "Authorization: Bearer <API_KEY> (wins over the other two)",
            },
        ),
        (
            "apiKeyHeader",
            SecurityScheme::ApiKey {
                location: Location::Header,
                name: "X-API-Key",
                description: None,
            },
        ),
        (
            "apiKeyQuery",
            SecurityScheme::ApiKey {
                location: Location::Query,
                name: "api_key",
                description: Some("Testing only: keys in URLs leak into logs and history"),
            },
        ),
    ])
}

fn typed_document(base_url: &str) -> Document {
    Document {
        openapi: "3.1.0",
        info: Info {
            title: "QR Code Generation Service",
            version: env!("CARGO_PKG_VERSION"),
            description: "QR code generation (single and batch), dynamic links with redirecting short codes, scan analytics and usage. Every /api endpoint except this document needs an API key. Every keyed answer carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset once the key is known. HEAD is answered like GET without the body, and counted like GET.",
        },
        servers: vec![Server {
            url: base_url.to_owned(),
        }],
        security: vec![
            SecurityRequirement("bearer"),
            SecurityRequirement("apiKeyHeader"),
            SecurityRequirement("apiKeyQuery"),
        ],
        paths: paths(),
        components: Components {
            security_schemes: security_schemes(),
            headers: keyed::component_headers(),
            schemas: component_schemas(),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_routed_method_has_exactly_one_operation_and_no_other_is_documented() {
        for route in ROUTES {
            let documented: Vec<Method> = documentation(route.kind)
                .into_iter()
                .map(|(method, _)| method)
                .collect();
            let unique: BTreeSet<&str> = documented.iter().map(|m| m.as_str()).collect();
            assert_eq!(unique.len(), documented.len(), "{}", route.path);
            let routed: BTreeSet<&str> = route.methods.iter().map(|m| m.as_str()).collect();
            assert_eq!(unique, routed, "{}", route.path);
        }
    }

    /// Every `$ref` of `value`, recursively.
    fn references<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    found.push(target);
                }
                map.values().for_each(|v| references(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| references(v, found)),
            _ => {}
        }
    }

    #[test]
    fn every_reference_names_a_component() {
        let document = document("http://localhost");
        let mut found = Vec::new();
        references(&document, &mut found);
        assert!(found.len() > 50, "{} references", found.len());
        for target in found {
            let pointer = target.trim_start_matches('#');
            assert!(document.pointer(pointer).is_some(), "{target}");
        }
    }

    /// Every parameter of qr-generate's table is a query parameter of `/api/generate` with the
    /// table's description, and so is every content field: adding a table entry documents it.
    #[test]
    fn every_generate_parameter_of_the_table_is_documented() {
        let document = document("http://localhost");
        let documented = document["paths"]["/api/generate"]["get"]["parameters"]
            .as_array()
            .expect("the generate parameters");
        let description = |name: &str| {
            documented
                .iter()
                .find(|p| p["name"] == name)
                .map(|p| p["description"].as_str().unwrap_or_default().to_owned())
        };
        for parameter in qr_generate::parameters::PARAMETERS {
            assert_eq!(
                description(parameter.name),
                Some(parameter.full_description()),
                "{}",
                parameter.name
            );
        }
        for field in qr_generate::content::field_parameters() {
            assert_eq!(
                description(field.name),
                Some(field.description()),
                "{}",
                field.name
            );
        }
        assert_eq!(
            documented.len(),
            qr_generate::parameters::PARAMETERS.len()
                + qr_generate::content::field_parameters().len()
        );
        assert_eq!(
            document["paths"]["/api/generate"]["get"]["x-example-requests"],
            Value::Array(
                generate::parameters::example_requests()
                    .iter()
                    .map(to_json)
                    .collect()
            )
        );
    }
}
