//! `/dashboard/webhooks`: the account's webhook endpoints (registering one shows its secret once, in `#new-webhook-secret`), removing one, and the recent deliveries with failed ones marked.

use askama::Template;
use http::StatusCode;
use qr_domain::webhooks::outbox::{DeliveryState, OutboxEvent};
use qr_domain::webhooks::webhook::{EventKind, Webhook, WebhookError, WebhookId};
use qr_domain::{Clock, Store};

use super::{Failure, Layout, User, page, when};
use crate::Web;
use crate::response::{WebResponse, redirect};

/// Most deliveries the page lists.
const DELIVERIES_SHOWN: usize = 50;

struct HookRow {
    id: String,
    url: String,
    events: String,
    created: String,
}

struct DeliveryRow {
    event: String,
    kind: &'static str,
    state: &'static str,
    attempts: u32,
    created: String,
    next: String,
    error: String,
}

struct NewHook {
    url: String,
    secret: String,
}

#[derive(Template)]
#[template(path = "webhooks.html")]
struct WebhooksPage {
    layout: Layout,
    csrf: String,
    hooks: Vec<HookRow>,
    deliveries: Vec<DeliveryRow>,
    failed: usize,
    kinds: Vec<&'static str>,
    new_hook: Option<NewHook>,
    url: String,
    error: Option<String>,
}

fn hook_row(h: &Webhook) -> HookRow {
    HookRow {
        id: h.id.to_string(),
        url: h.url.as_str().to_owned(),
        events: h
            .events
            .kinds()
            .map(EventKind::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        created: when(h.created_at),
    }
}

fn delivery_row(d: &OutboxEvent) -> DeliveryRow {
    DeliveryRow {
        event: d.id.to_string(),
        kind: d.kind.as_str(),
        state: d.state.as_str(),
        attempts: d.attempts,
        created: when(d.created_at),
        next: if d.state == DeliveryState::Pending {
            when(d.next_attempt_at)
        } else {
            "–".to_owned()
        },
        error: d.last_error.clone().unwrap_or_default(),
    }
}

fn list<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    status: StatusCode,
    new_hook: Option<&Webhook>,
    url: String,
    error: Option<String>,
) -> Result<WebResponse, Failure> {
    let account = user.ctx.account.id;
    let hooks = web.service.webhooks(account)?;
    let deliveries = web.service.webhook_deliveries(account, DELIVERIES_SHOWN)?;
    page(
        status,
        &WebhooksPage {
            layout: user.layout("Webhooks", "webhooks"),
            csrf: user.csrf(),
            hooks: hooks.iter().map(hook_row).collect(),
            failed: deliveries
                .iter()
                .filter(|d| d.state == DeliveryState::Failed)
                .count(),
            deliveries: deliveries.iter().map(delivery_row).collect(),
            kinds: EventKind::ALL.iter().map(|k| k.as_str()).collect(),
            new_hook: new_hook.map(|h| NewHook {
                url: h.url.as_str().to_owned(),
                secret: h.secret.expose().to_owned(),
            }),
            url,
            error,
        },
    )
}

/// `GET` lists the webhooks and deliveries; `POST` registers a webhook.
pub(super) fn index<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    super::read_or_post(user.req)?;
    if user.req.is_read() {
        return list(web, user, StatusCode::OK, None, String::new(), None);
    }
    let form = user.form()?;
    let url = form.text("url").to_owned();
    let events = form.all("events");
    let secret = Some(form.text("secret")).filter(|s| !s.is_empty());
    match web
        .service
        .create_webhook(&user.ctx.caller(user.req.client_ip), &url, &events, secret)
    {
        Ok(hook) => list(
            web,
            user,
            StatusCode::CREATED,
            Some(&hook),
            String::new(),
            None,
        ),
        Err(
            e @ (WebhookError::InvalidUrl(_)
            | WebhookError::NonPublicHost { .. }
            | WebhookError::InvalidEvents(_)
            | WebhookError::InvalidSecret
            | WebhookError::LimitReached(_)),
        ) => list(
            web,
            user,
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            url,
            Some(e.to_string()),
        ),
        Err(WebhookError::Store(e)) => Err(e.into()),
        Err(WebhookError::NotPermitted(_)) => Err(Failure::Forbidden),
        Err(e) => Err(Failure::Internal(e.to_string())),
    }
}

/// `POST /dashboard/webhooks/{id}/delete`.
pub(super) fn delete<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let id: WebhookId = id.parse().map_err(|_| Failure::NotFound)?;
    match web
        .service
        .delete_webhook(&user.ctx.caller(user.req.client_ip), id)
    {
        Ok(()) => Ok(redirect("/dashboard/webhooks")),
        Err(WebhookError::Store(e)) => Err(e.into()),
        Err(WebhookError::NotPermitted(_)) => Err(Failure::Forbidden),
        Err(_) => Err(Failure::NotFound),
    }
}
