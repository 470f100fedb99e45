//! `/api/designs`: the caller's saved designs (list, show, create, change, remove, and the account default), each a look of generate parameters and an uploaded logo sent as base64 in the JSON body.

use std::net::IpAddr;

use base64::Engine as _;
use bytes::Bytes;
use chrono::{DateTime, SecondsFormat, Utc};
use hyper::StatusCode;
use hyper::body::Body;
use qr_domain::accounts::caller::Caller;
use qr_domain::designs::design::{Design, MAX_LOGO_BYTES};
use qr_domain::designs::service::DesignUpdate;
use qr_domain::service::AuthContext;
use serde::Serialize;
use serde_json::Value;

use crate::app::App;
use crate::error::ApiError;
use crate::op::DesignsOp;
use crate::request::{JsonObject, json_object, read_body};
use crate::respond::{HttpResponse, empty, json};

/// The members a design body may hold.
const MEMBERS: [&str; 4] = ["name", "look", "logo", "isDefault"];
/// Largest design body, in bytes: a logo of [`MAX_LOGO_BYTES`] in base64 (4 characters per 3
/// bytes, 1,398,104 characters) plus 64 KiB for the name, the look and the JSON around them.
pub(crate) const MAX_DESIGN_BODY_BYTES: usize = MAX_LOGO_BYTES.div_ceil(3) * 4 + 64 * 1024;

/// Runs one designs operation for the caller's account.
pub(crate) async fn handle<B>(
    app: &App,
    ctx: &AuthContext,
    client: Option<IpAddr>,
    op: DesignsOp,
    body: B,
) -> Result<HttpResponse, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let id = ctx.account.id;
    let caller = Caller::key(ctx, client);
    match op {
        DesignsOp::List => {
            let designs = app.blocking(move |svc| svc.designs(id)).await??;
            let list: Vec<DesignJson<'_>> =
                designs.iter().map(|d| DesignJson::of(d, false)).collect();
            Ok(json(
                StatusCode::OK,
                &serde_json::json!({ "designs": list }),
            ))
        }
        DesignsOp::Get(design) => {
            let design = app.blocking(move |svc| svc.design(id, design)).await??;
            Ok(json(StatusCode::OK, &DesignJson::of(&design, true)))
        }
        DesignsOp::Create => {
            let fields = design_fields(&body_object(app, body).await?)?;
            let design = app
                .blocking(move |svc| svc.create_design(&caller, &fields))
                .await??;
            Ok(json(StatusCode::CREATED, &DesignJson::of(&design, false)))
        }
        DesignsOp::Update(design) => {
            let fields = design_fields(&body_object(app, body).await?)?;
            let design = app
                .blocking(move |svc| svc.update_design(&caller, design, &fields))
                .await??;
            Ok(json(StatusCode::OK, &DesignJson::of(&design, false)))
        }
        DesignsOp::Delete(design) => {
            app.blocking(move |svc| svc.delete_design(&caller, design))
                .await??;
            Ok(empty(StatusCode::NO_CONTENT))
        }
    }
}

async fn body_object<B>(app: &App, body: B) -> Result<JsonObject, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let body = read_body(body, MAX_DESIGN_BODY_BYTES, app.limits().body_read_timeout).await?;
    json_object(&body)
}

/// The fields of a body: `name` a string, `look` an object of parameter values (strings,
/// numbers or booleans, as a query would spell them), `logo` `{mediaType, data}` or a `data:`
/// URL or `null`, `isDefault` a boolean. Members it does not know are refused.
fn design_fields(fields: &JsonObject) -> Result<DesignUpdate, ApiError> {
    if let Some(unknown) = fields.keys().find(|k| !MEMBERS.contains(&k.as_str())) {
        return Err(ApiError::BadRequest(format!(
            "Unknown field {unknown}: expected {}",
            MEMBERS.join(", ")
        )));
    }
    let mut update = DesignUpdate::default();
    match fields.get("name") {
        None => {}
        Some(Value::String(name)) => update.set_name(name)?,
        Some(_) => {
            return Err(ApiError::BadRequest(
                "Invalid name: it must be a string".into(),
            ));
        }
    }
    match fields.get("look") {
        None => {}
        Some(Value::Null) => update.set_look(std::iter::empty::<(&str, String)>())?,
        Some(Value::Object(look)) => {
            let mut pairs = Vec::with_capacity(look.len());
            for (name, value) in look {
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => {
                        return Err(ApiError::BadRequest(format!(
                            "Invalid look.{}: it must be a string, number or boolean",
                            name.chars().take(100).collect::<String>()
                        )));
                    }
                };
                pairs.push((name.as_str(), text));
            }
            update.set_look(pairs)?;
        }
        Some(_) => {
            return Err(ApiError::BadRequest(
                "Invalid look: it must be an object".into(),
            ));
        }
    }
    match fields.get("logo") {
        None => {}
        Some(Value::Null) => update.clear_logo(),
        Some(value) => {
            let (media_type, data) = logo_parts(value)?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|_| ApiError::BadRequest("Invalid logo: data is not base64".into()))?;
            update.set_logo(media_type.as_deref(), bytes)?;
        }
    }
    match fields.get("isDefault") {
        None => {}
        Some(Value::Bool(is_default)) => update.set_default(*is_default),
        Some(_) => {
            return Err(ApiError::BadRequest(
                "Invalid isDefault: it must be a boolean".into(),
            ));
        }
    }
    Ok(update)
}

/// The declared media type and the base64 text of a logo: `{mediaType, data}` or a
/// `data:<type>;base64,<data>` URL.
fn logo_parts(value: &Value) -> Result<(Option<String>, &str), ApiError> {
    let invalid = || {
        ApiError::BadRequest(
            "Invalid logo: it must be {\"mediaType\", \"data\"} with base64 data, a data: URL, or null"
                .into(),
        )
    };
    match value {
        Value::String(url) => {
            let rest = url.strip_prefix("data:").ok_or_else(invalid)?;
            let (head, data) = rest.split_once(',').ok_or_else(invalid)?;
            let media_type = head.strip_suffix(";base64").ok_or_else(invalid)?;
            Ok((Some(media_type.to_owned()), data))
        }
        Value::Object(logo) => {
            let data = logo
                .get("data")
                .and_then(Value::as_str)
                .ok_or_else(invalid)?;
            let media_type = match logo.get("mediaType") {
                None | Some(Value::Null) => None,
                Some(Value::String(t)) => Some(t.clone()),
                Some(_) => return Err(invalid()),
            };
            Ok((media_type, data))
        }
        _ => Err(invalid()),
    }
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A design as the API returns it; the logo's bytes only when one design is asked for.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DesignJson<'a> {
    id: String,
    name: &'a str,
    look: &'a qr_domain::designs::look::Look,
    logo: Option<LogoJson>,
    is_default: bool,
    created_at: String,
    updated_at: String,
}

/// A design's logo: its type and size, and its base64 data in `GET ?id=`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogoJson {
    media_type: &'static str,
    bytes: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<String>,
}

impl<'a> DesignJson<'a> {
    fn of(d: &'a Design, with_logo_data: bool) -> Self {
        Self {
            id: d.id.to_string(),
            name: d.name.as_str(),
            look: &d.look,
            logo: d.logo.as_ref().map(|l| LogoJson {
                media_type: l.kind().media_type(),
                bytes: l.bytes().len(),
                data: with_logo_data
                    .then(|| base64::engine::general_purpose::STANDARD.encode(l.bytes())),
            }),
            is_default: d.is_default,
            created_at: time(d.created_at),
            updated_at: time(d.updated_at),
        }
    }
}

// The body bound holds a largest logo (1 MiB in base64 is 1,398,104 characters) and 64 KiB of
// the rest, and stays under 2 MiB: checked when the crate compiles.
const _: () = {
    assert!(MAX_DESIGN_BODY_BYTES >= 1_398_104 + 64 * 1024);
    assert!(MAX_DESIGN_BODY_BYTES < 2 * 1024 * 1024);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logos_come_as_objects_or_data_urls() {
        let object = serde_json::json!({"mediaType": "image/png", "data": "AAAA"});
        assert_eq!(
            logo_parts(&object).unwrap(),
            (Some("image/png".to_owned()), "AAAA")
        );
        let url = Value::String("data:image/jpeg;base64,BBBB".into());
        assert_eq!(
            logo_parts(&url).unwrap(),
            (Some("image/jpeg".to_owned()), "BBBB")
        );
        for bad in [
            Value::String("https://example.com/logo.png".into()),
            Value::String("data:image/png,raw".into()),
            serde_json::json!({"mediaType": "image/png"}),
            serde_json::json!(7),
        ] {
            assert!(logo_parts(&bad).is_err(), "{bad}");
        }
    }
}
