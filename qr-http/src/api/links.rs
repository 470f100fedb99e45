//! `/api/links`: list (search, tag, paging), get, create, update and delete the caller's dynamic links with their campaign fields.

use std::net::IpAddr;

use bytes::Bytes;
use hyper::StatusCode;
use hyper::body::Body;
use hyper::header::LOCATION;
use qr_domain::accounts::caller::Caller;
use qr_domain::service::AuthContext;
use qr_domain::{Link, LinkUpdate};
use serde::Serialize;

use crate::api::link_body;
use crate::app::App;
use crate::error::ApiError;
use crate::op::LinksOp;
use crate::request::{JsonObject, json_object, read_body, string_field};
use crate::respond::{HttpResponse, empty, json, set_header};

/// A Link as the API returns it: the stored fields plus the short URL.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LinkJson<'a> {
    #[serde(flatten)]
    link: &'a Link,
    short_url: String,
}

/// Runs one links operation for the caller's account.
pub(crate) async fn handle<B>(
    app: &App,
    ctx: &AuthContext,
    client: Option<IpAddr>,
    op: LinksOp,
    body: B,
) -> Result<HttpResponse, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let account = ctx.account.clone();
    let caller = Caller::key(ctx, client);
    match op {
        LinksOp::List(query) => {
            let page = app
                .blocking(move |svc| svc.list_links(account.id, &query))
                .await??;
            let answer = LinkList {
                links: page.links.iter().map(|l| link_json(app, l)).collect(),
                next_cursor: page.next_cursor.map(|c| c.to_string()),
            };
            Ok(json(StatusCode::OK, &answer))
        }
        LinksOp::Get(id) => {
            let link = app.blocking(move |svc| svc.link(account.id, id)).await??;
            Ok(json(StatusCode::OK, &link_json(app, &link)))
        }
        LinksOp::Create => {
            let fields = read_fields(app, body).await?;
            let link_fields = link_body::creation(&fields)?;
            let link = app
                .blocking(move |svc| svc.create_link_with(&caller, link_fields))
                .await??;
            let mut response = json(StatusCode::CREATED, &link_json(app, &link));
            let location = format!("{}/api/links?id={}", app.base_url(), link.id);
            set_header(&mut response, LOCATION, &location);
            Ok(response)
        }
        LinksOp::Update(id) => {
            let fields = read_fields(app, body).await?;
            let update = LinkUpdate::parse(
                string_field(&fields, "name")?.as_deref(),
                string_field(&fields, "targetUrl")?.as_deref(),
            )?;
            let update = link_body::campaign_fields(update, &fields)?;
            let id = id.id()?;
            let link = app
                .blocking(move |svc| svc.update_link(&caller, id, &update))
                .await??;
            Ok(json(StatusCode::OK, &link_json(app, &link)))
        }
        LinksOp::Delete(id) => {
            app.blocking(move |svc| svc.delete_link(&caller, id))
                .await??;
            Ok(empty(StatusCode::NO_CONTENT))
        }
    }
}

/// The JSON object of a links request body, read within the JSON body limits.
async fn read_fields<B>(app: &App, body: B) -> Result<JsonObject, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let limits = app.limits();
    let body = read_body(body, limits.max_json_body_bytes, limits.body_read_timeout).await?;
    json_object(&body)
}

/// `{"links": [...], "nextCursor": "..."}`, serialized straight from the links: building a
/// `serde_json::Value` first cost a sorted map per link and half the list's throughput.
#[derive(Serialize)]
struct LinkList<'a> {
    links: Vec<LinkJson<'a>>,
    /// Only when there is a next page: a whole list keeps the spec's shape.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

/// A link with its short URL under this server's base URL.
pub(crate) fn link_json<'a>(app: &App, link: &'a Link) -> LinkJson<'a> {
    LinkJson {
        link,
        short_url: link.short_url(app.base_url()),
    }
}
