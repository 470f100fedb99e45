//! The served OpenAPI document: valid OpenAPI 3.1 by a real validator, and every documented example, replayed against the server, answers a documented status with a body its schema accepts.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::{Resp, TestServer};
use serde_json::{Value, json};

/// Whether a missing external tool must fail the suite instead of skipping it (`.ci/run` sets it).
fn suites_required() -> bool {
    std::env::var_os("QR_REQUIRE_SUITES").is_some()
}

/// The base URL the fixture's document is made for.
const FIXTURE_BASE_URL: &str = "https://qr.example.com/prefix";

/// What the fixture writes instead of the crate version, so a version bump needs no new fixture.
const FIXTURE_VERSION: &str = "(the crate version)";

/// The document as served, kept in `tests/data/openapi.json` so a refactoring of the code that
/// builds it cannot change it unnoticed. After a deliberate change to the document, rewrite the
/// fixture with `QR_BLESS=1 cargo test -p qr-http --test openapi the_document_equals_its_fixture`
/// and name the change in the commit.
#[test]
fn the_document_equals_its_fixture() {
    let mut document = qr_http::openapi::document(FIXTURE_BASE_URL);
    assert_eq!(document["info"]["version"], env!("CARGO_PKG_VERSION"));
    document["info"]["version"] = json!(FIXTURE_VERSION);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/openapi.json");
    if std::env::var_os("QR_BLESS").is_some() {
        let mut text = serde_json::to_string_pretty(&document).unwrap();
        text.push('\n');
        std::fs::write(&path, text).unwrap();
    }
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    if let Some(difference) = first_difference(&document, &fixture, "") {
        panic!(
            "the document differs from {} at {difference}; if the change is deliberate, rewrite the fixture with QR_BLESS=1",
            path.display()
        );
    }
}

/// The JSON pointer of the first place where `generated` and `fixture` differ, with both values
/// there; object members compare in any order, array items in order.
fn first_difference(generated: &Value, fixture: &Value, pointer: &str) -> Option<String> {
    match (generated, fixture) {
        (Value::Object(left), Value::Object(right)) => {
            let mut names: Vec<&String> = left.keys().chain(right.keys()).collect();
            names.sort();
            names.dedup();
            names.into_iter().find_map(|name| {
                let at = format!("{pointer}/{}", name.replace('~', "~0").replace('/', "~1"));
                match (left.get(name), right.get(name)) {
                    (Some(l), Some(r)) => first_difference(l, r, &at),
                    (l, r) => Some(format!("{at}: generated {l:?}, fixture {r:?}")),
                }
            })
        }
        (Value::Array(left), Value::Array(right)) if left.len() == right.len() => left
            .iter()
            .zip(right)
            .enumerate()
            .find_map(|(i, (l, r))| first_difference(l, r, &format!("{pointer}/{i}"))),
        (l, r) if l == r => None,
        (l, r) => Some(format!("{pointer}: generated {l}, fixture {r}")),
    }
}

async fn served_document(s: &TestServer) -> Value {
    let r = s.send("GET", "/api/openapi.json", &[], "").await;
    assert_eq!(r.status, 200);
    r.json()
}

#[tokio::test]
async fn the_document_passes_a_real_openapi_3_1_validator() {
    let s = TestServer::start(|c| c.base_url = Some("https://qr.example.com/prefix".into())).await;
    let document = served_document(&s).await;
    s.stop().await;
    assert_eq!(
        document["servers"],
        json!([{"url": "https://qr.example.com/prefix"}])
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("openapi.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&document).unwrap()).unwrap();
    // openapi-spec-validator (PyPI) is the validator most OpenAPI tooling relies on.
    let probe = Command::new("python3")
        .args(["-c", "import openapi_spec_validator"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        assert!(
            !suites_required(),
            "openapi-spec-validator is required: pip install openapi-spec-validator"
        );
        eprintln!(
            "skipped: the OpenAPI 3.1 validation needs python3 with openapi-spec-validator (pip install openapi-spec-validator)"
        );
        return;
    }
    let script = "import json, sys\n\
                  from openapi_spec_validator import validate\n\
                  from openapi_spec_validator.validation import OpenAPIV31SpecValidator\n\
                  validate(json.load(open(sys.argv[1])), cls=OpenAPIV31SpecValidator)\n\
                  print('valid')";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the document is not valid OpenAPI 3.1:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One documented operation as a request built from its examples.
struct Call {
    method: String,
    path: String,
    keyed: bool,
    body: Option<Value>,
    responses: Value,
}

fn calls(document: &Value) -> Vec<Call> {
    let mut calls = Vec::new();
    for (template, item) in document["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let mut path = template.clone();
            let mut query = Vec::new();
            for parameter in op["parameters"].as_array().into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap();
                let Some(example) = parameter.get("example") else {
                    assert_ne!(
                        parameter["required"], true,
                        "{method} {template}: {name} needs an example"
                    );
                    continue;
                };
                let text = match example {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                match parameter["in"].as_str().unwrap() {
                    "path" => path = path.replace(&format!("{{{name}}}"), &text),
                    _ => query.push((name.to_owned(), text)),
                }
            }
            if !query.is_empty() {
                let pairs: Vec<(&str, &str)> = query
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                path = format!("{path}?{}", common::query(&pairs));
            }
            let body = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
                .as_str()
                .map(|reference| {
                    let name = reference.rsplit('/').next().unwrap();
                    let example = &document["components"]["schemas"][name]["example"];
                    assert!(
                        !example.is_null(),
                        "{method} {template}: {name} needs an example"
                    );
                    example.clone()
                });
            calls.push(Call {
                method: method.to_uppercase(),
                path,
                keyed: op.get("security") != Some(&json!([])),
                body,
                responses: op["responses"].clone(),
            });
        }
    }
    calls
}

/// Checks one answer against the operation's documented responses.
fn check(document: &Value, call: &Call, r: &Resp) {
    let what = format!(
        "{} {} -> {}: {}",
        call.method,
        call.path,
        r.status,
        r.text()
    );
    let documented = &call.responses[r.status.to_string()];
    assert!(documented.is_object(), "undocumented status: {what}");
    let schema = &documented["content"]["application/json"]["schema"];
    if call.method == "HEAD" {
        assert!(r.body.is_empty(), "{what}");
        return;
    }
    if schema.is_null() {
        return;
    }
    assert_eq!(r.header("content-type"), Some("application/json"), "{what}");
    let wrapped = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": document["components"],
        "allOf": [schema],
    });
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&wrapped)
        .unwrap_or_else(|e| panic!("schema of {what}: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(&r.json())
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{what}\n{}", errors.join("\n"));
}

async fn replay(s: &TestServer, document: &Value, call: &Call) -> Resp {
    let mut headers = vec![("content-type", "application/json")];
    if call.keyed {
        headers.push(("x-api-key", s.owner_key.as_str()));
    }
    let body = call.body.as_ref().map(Value::to_string).unwrap_or_default();
    let r = s.send(&call.method, &call.path, &headers, body).await;
    check(document, call, &r);
    r
}

#[tokio::test]
async fn every_documented_example_replays_with_a_documented_answer() {
    let s = TestServer::start(|_| {}).await;
    let document = served_document(&s).await;
    let calls = calls(&document);
    assert!(calls.len() >= 17, "{} operations", calls.len());
    // First as documented: the example ids name no link, so those operations answer 404.
    for call in &calls {
        replay(&s, &document, call).await;
        s.clock.advance(qr_domain::chrono::Duration::seconds(1));
    }
    // Then with the ids of a link the examples created, so every success answer is checked too.
    let create = calls
        .iter()
        .find(|c| c.method == "POST" && c.path == "/api/links")
        .unwrap();
    let created = replay(&s, &document, create).await;
    assert_eq!(created.status, 201);
    let link = created.json();
    let id = link["id"].as_str().unwrap();
    let code = link["shortCode"].as_str().unwrap();
    let mut answered = Vec::new();
    let mut deletes = Vec::new();
    for call in &calls {
        let path = call
            .path
            .replace("6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f", id)
            .replace("7K3M9QXZ", code);
        if path == call.path {
            continue;
        }
        let real = Call {
            method: call.method.clone(),
            path,
            keyed: call.keyed,
            body: call.body.clone(),
            responses: call.responses.clone(),
        };
        if real.method == "DELETE" {
            deletes.push(real);
            continue;
        }
        let r = replay(&s, &document, &real).await;
        answered.push((real.method.clone(), real.path.clone(), r.status));
    }
    for call in &deletes {
        let r = replay(&s, &document, call).await;
        answered.push((call.method.clone(), call.path.clone(), r.status));
    }
    for (method, path, status) in &answered {
        assert!(
            (200..400).contains(status),
            "{method} {path} with a real link answered {status}"
        );
    }
    s.stop().await;
}

#[tokio::test]
async fn every_example_request_makes_an_image_of_its_content() {
    let s = TestServer::start(|_| {}).await;
    let document = served_document(&s).await;
    let operation = &document["paths"]["/api/generate"]["get"];
    let requests = operation["x-example-requests"].as_array().unwrap();
    // One per content type, and a Micro QR code.
    assert_eq!(
        requests.len(),
        qr_generate::content::CONTENT_TYPES.len() + 1
    );
    for request in requests {
        let pairs: Vec<(String, String)> = request["query"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
            .collect();
        let borrowed: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let call = Call {
            method: "GET".into(),
            path: format!("/api/generate?{}", common::query(&borrowed)),
            keyed: true,
            body: None,
            responses: operation["responses"].clone(),
        };
        let r = replay(&s, &document, &call).await;
        assert_eq!(r.status, 200, "{}: {}", call.path, r.text());
        let params = qr_generate::GenerateParams::from_pairs(borrowed.iter().copied());
        if params.content_type.is_some() {
            assert_eq!(
                common::decode_png(&r.body),
                params.payload().unwrap(),
                "{}",
                call.path
            );
        }
    }
    s.stop().await;
}
