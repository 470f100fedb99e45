//! Fuzzes the HTTP router in process: arbitrary requests never panic and always get a well-formed response.
#![no_main]

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use arbitrary::Arbitrary;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use libfuzzer_sys::fuzz_target;
use qr_domain::chrono::Duration;
use qr_domain::{KeyMode, Plan, TestClock};
use qr_http::{App, ServerConfig, SharedClock};

const METHODS: &[&str] = &["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"];
const PATHS: &[&str] = &[
    "/api/generate",
    "/api/batch",
    "/api/links",
    "/api/links/bulk",
    "/api/analytics/export",
    "/api/webhooks",
    "/api/analytics",
    "/api/dashboard",
    "/api/health",
    "/api/openapi.json",
    "/r/",
    "/",
];
const HEADERS: &[&str] = &[
    "authorization",
    "x-api-key",
    "origin",
    "if-none-match",
    "x-forwarded-for",
    "user-agent",
    "referer",
    "content-type",
];

#[derive(Arbitrary, Debug)]
struct Input {
    method: u8,
    path: u8,
    suffix: String,
    query: String,
    key: u8,
    headers: Vec<(u8, String)>,
    body: Vec<u8>,
    /// When present, the body is these link fields as JSON instead of `body`'s bytes: random
    /// bytes almost never form the campaign fields' JSON, so their bounds would go unfuzzed.
    link: Option<LinkFields>,
}

/// A link's fields with arbitrary values of roughly the right JSON types (and some wrong ones).
#[derive(Arbitrary, Debug)]
struct LinkFields {
    name: Option<String>,
    target_url: Option<String>,
    short_code: Option<String>,
    tags: Option<Vec<String>>,
    valid_from: Option<String>,
    valid_until: Option<String>,
    max_scans: Option<i64>,
    expired_url: Option<String>,
    disabled: Option<bool>,
    password: Option<String>,
    /// (device, os, country, language, targetUrl)
    rules: Option<Vec<(Option<String>, Option<String>, Option<String>, Option<String>, String)>>,
    variants: Option<Vec<(String, i64)>>,
    utm: Option<Vec<(u8, String)>>,
    forward_query: Option<bool>,
    /// Wraps the fields as `{"links": [fields, fields]}`, the bulk endpoint's body.
    bulk: bool,
}

impl LinkFields {
    fn to_json(&self) -> Vec<u8> {
        use serde_json::{Map, Value, json};
        let mut m = Map::new();
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(k.to_owned(), v);
            }
        };
        put("name", self.name.clone().map(Value::from));
        put("targetUrl", self.target_url.clone().map(Value::from));
        put("shortCode", self.short_code.clone().map(Value::from));
        put("tags", self.tags.clone().map(Value::from));
        put("validFrom", self.valid_from.clone().map(Value::from));
        put("validUntil", self.valid_until.clone().map(Value::from));
        put("maxScans", self.max_scans.map(Value::from));
        put("expiredUrl", self.expired_url.clone().map(Value::from));
        put("disabled", self.disabled.map(Value::from));
        put("password", self.password.clone().map(Value::from));
        put(
            "rules",
            self.rules.as_ref().map(|rules| {
                Value::from(
                    rules
                        .iter()
                        .map(|(device, os, country, language, target)| {
                            json!({"when": {"device": device, "os": os, "country": country,
                                "language": language}, "targetUrl": target})
                        })
                        .collect::<Vec<_>>(),
                )
            }),
        );
        put(
            "variants",
            self.variants.as_ref().map(|v| {
                Value::from(
                    v.iter()
                        .map(|(t, w)| json!({"targetUrl": t, "weight": w}))
                        .collect::<Vec<_>>(),
                )
            }),
        );
        put(
            "utm",
            self.utm.as_ref().map(|utm| {
                const NAMES: [&str; 6] = ["source", "medium", "campaign", "term", "content", "x"];
                Value::Object(
                    utm.iter()
                        .map(|(k, v)| (NAMES[usize::from(*k) % NAMES.len()].to_owned(), Value::from(v.clone())))
                        .collect(),
                )
            }),
        );
        put("forwardQuery", self.forward_query.map(Value::from));
        let one = Value::Object(m);
        let body = if self.bulk {
            json!({"links": [one.clone(), one]})
        } else {
            one
        };
        serde_json::to_vec(&body).unwrap_or_default()
    }
}

struct World {
    runtime: tokio::runtime::Runtime,
    app: App,
    clock: TestClock,
    keys: Vec<String>,
    _dir: tempfile::TempDir,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let config = ServerConfig {
            database: dir.path().join("fuzz.db").into(),
            trusted_proxies: vec!["127.0.0.1".into()],
            ..ServerConfig::default()
        };
        let clock = TestClock::new("2024-05-15T12:00:00Z".parse().unwrap());
        let (app, owner) = App::open(&config, SharedClock::new(Arc::new(clock.clone()))).unwrap();
        let mut keys = vec![owner.unwrap().key.expose_secret().to_owned()];
        for plan in [Plan::Free, Plan::Pro] {
            let svc = app.service();
            let account = svc
                .create_account(&format!("{plan:?}@fuzz.test"), plan)
                .unwrap();
            let (_, secret) = svc.create_key(account.id, KeyMode::Live).unwrap();
            keys.push(secret.expose_secret().to_owned());
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        World {
            runtime,
            app,
            clock,
            keys,
            _dir: dir,
        }
    })
}

/// Percent-encodes what a URI cannot carry, so most inputs reach the router; `?`, `&` and `=`
/// stay literal in the query part so parameters are formed.
fn uri_safe(text: &str, query: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let keep = c.is_ascii_alphanumeric()
            || "-._~!$'()*+,;:@/%".contains(c)
            || (query && "&=?".contains(c));
        if keep {
            out.push(c);
        } else {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

fuzz_target!(|input: Input| {
    let w = world();
    // Each input is a second later, so the per-second limits do not hide the endpoints.
    w.clock.advance(Duration::seconds(1));
    let method = METHODS[usize::from(input.method) % METHODS.len()];
    let path = PATHS[usize::from(input.path) % PATHS.len()];
    let uri = format!(
        "{path}{}?{}",
        uri_safe(&input.suffix, false),
        uri_safe(&input.query, true)
    );
    let mut request = Request::builder().method(method).uri(uri.as_str());
    // Logos are fetched from the network; only the free key (which gets 403) may ask for one.
    let key = if input.query.contains("logo") {
        1
    } else {
        usize::from(input.key) % 4
    };
    if let Some(secret) = w.keys.get(key) {
        request = request.header("x-api-key", secret.as_str());
    }
    for (name, value) in &input.headers {
        // Values a client cannot send (control characters) are left out rather than ending the input.
        if let Ok(value) = hyper::header::HeaderValue::from_str(value) {
            request = request.header(HEADERS[usize::from(*name) % HEADERS.len()], value);
        }
    }
    let body = match &input.link {
        Some(fields) => fields.to_json(),
        None => input.body,
    };
    let Ok(request) = request.body(Full::new(Bytes::from(body))) else {
        return;
    };
    // The path the router sees: a suffix can turn the chosen base path into another route
    // (`/` with the suffix `r/x` is the redirect `/r/x`, whose failures are HTML pages).
    let request_path = request.uri().path().to_owned();
    let redirect = request_path.starts_with("/r/");
    let peer = SocketAddr::from(([127, 0, 0, 1], 40000));
    let response = w.runtime.block_on(w.app.handle(request, peer));
    let status = response.status();
    assert!((100..600).contains(&status.as_u16()));
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let json = content_type == "application/json";
    if status == hyper::StatusCode::METHOD_NOT_ALLOWED {
        assert!(
            response.headers().contains_key("allow"),
            "405 without an Allow header"
        );
    }
    let body = w
        .runtime
        .block_on(response.into_body().collect())
        .unwrap()
        .to_bytes();
    // The API answers errors as JSON; the redirect, the dashboard and the landing page as HTML
    // pages (the fuzz target predates the dashboard: it asked JSON of every path).
    let api = request_path.starts_with("/api/");
    if status.as_u16() >= 400 && api {
        assert!(json, "{status} without a JSON error body");
    }
    if status.as_u16() >= 400 && !api && !redirect {
        assert!(
            json || content_type.starts_with("text/html"),
            "{status} on {request_path} is neither JSON nor a page: {content_type:?}"
        );
    }
    // A HEAD answer has the GET answer's headers, its Content-Length included, and no body.
    if method == "HEAD" {
        assert!(body.is_empty(), "a HEAD answer with a body");
        return;
    }
    if json {
        let value: serde_json::Value = serde_json::from_slice(&body).expect("valid JSON");
        if status.as_u16() >= 400 {
            assert_eq!(value["error"], serde_json::Value::Bool(true));
            assert!(value["message"].is_string());
        }
    }
});
