//! `/api/webhooks` (list, register, delete) with the webhook schemas.

use std::collections::BTreeMap;

use qr_domain::webhooks::webhook::{
    EventKind, MAX_URL_CHARS, MAX_WEBHOOKS_PER_ACCOUNT, SECRET_CHARS,
};
use serde_json::json;

use crate::routes::Method;

use super::json_schema::{
    ArraySchema, Format, Schema, array, object, one_of_strings, reference, string,
};
use super::keyed::{self, KeyedOperation};
use super::model::{Example, Operation, Parameter, Response};
use super::patterns::WEBHOOK_URL;

/// A webhook id: `wh_` and 32 hex digits.
const WEBHOOK_ID_PATTERN: &str = "^wh_[0-9a-f]{32}$";
/// A secret as given: printable ASCII without spaces.
const SECRET_PATTERN: &str = "^[!-~]+$";
/// The most entries of `events` the API reads (`MAX_EVENTS` of `api/webhooks.rs`: five kinds
/// exist, and repeats are harmless).
const MAX_EVENTS: usize = 16;

/// `/api/webhooks`: list (and HEAD), register, delete.
pub(super) fn webhooks() -> Vec<(Method, Operation)> {
    let list = KeyedOperation::new(
        "listWebhooks",
        "List the account's webhooks, oldest first (never their secrets)",
    )
    .success(
        200,
        Response::new("{webhooks: [Webhook]}").json(reference("WebhookList")),
    );
    let create = KeyedOperation::new(
        "createWebhook",
        "Register a webhook (at most 10 per account); the answer shows its signing secret, once",
    )
    .body("NewWebhook")
    .success(
        201,
        Response::new("The webhook with its secret").json(reference("CreatedWebhook")),
    )
    .errors(&[408, 413]);
    let delete = KeyedOperation::new(
        "deleteWebhook",
        "Delete a webhook with its undelivered events",
    )
    .parameters(vec![
        Parameter::query(
            "id",
            string(),
            "Webhook identifier (wh_ and 32 hex digits; a malformed one is 404 like an unknown one)",
        )
        .required()
        .example(Example::Text("wh_0123456789abcdef0123456789abcdef")),
    ])
    .success(204, Response::new("Deleted"))
    .errors(&[404]);
    keyed::operations(vec![
        (Method::Get, list),
        (Method::Post, create),
        (Method::Delete, delete),
    ])
}

/// The events a webhook subscribes to.
fn events() -> ArraySchema {
    array(one_of_strings(
        EventKind::ALL.iter().map(|kind| kind.as_str()),
    ))
    .min_items(1)
    .max_items(MAX_EVENTS)
}

/// The members of a webhook as answered.
fn webhook_fields() -> BTreeMap<&'static str, Schema> {
    BTreeMap::from([
        ("id", string().pattern(WEBHOOK_ID_PATTERN).into()),
        (
            "url",
            string()
                .format(Format::Uri)
                .max_length(MAX_URL_CHARS)
                .into(),
        ),
        ("events", events().into()),
        ("createdAt", string().format(Format::DateTime).into()),
    ])
}

/// The webhook schemas: `Webhook`, `CreatedWebhook`, `WebhookList`, `NewWebhook`.
pub(super) fn schemas() -> Vec<(&'static str, Schema)> {
    let secret = || {
        string()
            .min_length(*SECRET_CHARS.start())
            .max_length(*SECRET_CHARS.end())
    };
    let webhook = object()
        .required(&["id", "url", "events", "createdAt"])
        .closed()
        .properties(webhook_fields());
    let created = object()
        .required(&["id", "url", "events", "createdAt", "secret"])
        .closed()
        .properties(webhook_fields())
        .property(
            "secret",
            secret().describe("The signing secret, shown in this answer only"),
        );
    let list = object().required(&["webhooks"]).closed().property(
        "webhooks",
        array(reference("Webhook")).max_items(MAX_WEBHOOKS_PER_ACCOUNT),
    );
    let new_webhook = object()
        .required(&["url", "events"])
        .property(
            "url",
            string()
                .format(Format::Uri)
                .min_length(1)
                // At most MAX_URL_CHARS once normalised, and normalising adds a `/` to a URL
                // without a path: one character fewer is always accepted.
                .max_length(MAX_URL_CHARS - 1)
                .pattern(WEBHOOK_URL)
                .describe("http or https, absolute, without credentials or fragment, at most 2,048 characters once normalised; delivered only to public addresses"),
        )
        .property("events", events())
        .property(
            "secret",
            secret()
                .pattern(SECRET_PATTERN)
                .describe("Printable ASCII without spaces; generated when absent"),
        )
        .example(json!({"url": "https://hooks.example.com/qr",
                        "events": ["link.created", "scan.recorded"]}));
    vec![
        ("Webhook", webhook.into()),
        ("CreatedWebhook", created.into()),
        ("WebhookList", list.into()),
        ("NewWebhook", new_webhook.into()),
    ]
}
