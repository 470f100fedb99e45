//! `/dashboard/designs`: the account's saved designs (a preview of each, its name, whether it is the default, how its logo stands with the plan), renaming one, making one the default or none, and deleting one no link names. Designs are saved from the designer (`design::save`).

use askama::Template;
use http::StatusCode;
use qr_domain::designs::design::Design;
use qr_domain::designs::service::{DesignError, DesignUpdate, parse_design_id};
use qr_domain::{Clock, Feature, Store};

use super::{Failure, Layout, User, page, read_only, when};
use crate::Web;
use crate::response::{self, WebResponse, redirect};

/// What every preview encodes: a short link of typical length, as the designer's swatches.
const PREVIEW_DATA: &str = "https://qr.example/r/7K3M9Q";

/// A preview's width and height in pixels: twice the 96 CSS pixels it is shown at.
const PREVIEW_SIZE: &str = "192";

/// A design as the list shows it.
struct DesignRow {
    id: String,
    name: String,
    is_default: bool,
    /// The preview's address, versioned by the design's last change so a day's caching never
    /// shows an old look.
    preview: String,
    /// The look as `name=value` pairs, for the reader who knows the API.
    look: String,
    /// The logo's state: none, kept, or not drawn on this plan.
    logo: &'static str,
    updated: String,
}

#[derive(Template)]
#[template(path = "designs.html")]
struct DesignsPage {
    layout: Layout,
    csrf: String,
    designs: Vec<DesignRow>,
    has_default: bool,
    error: Option<String>,
}

/// `GET /dashboard/designs`.
pub(super) fn index<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    read_only(user.req)?;
    list(web, user, StatusCode::OK, None)
}

/// The list with `status` and an error above it.
fn list<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    status: StatusCode,
    error: Option<String>,
) -> Result<WebResponse, Failure> {
    let account = &user.ctx.account;
    let logos = account.limits().includes(Feature::Logo);
    let designs = web.service.designs(account.id)?;
    let view = DesignsPage {
        layout: user.layout("Designs", "designs"),
        csrf: user.csrf(),
        has_default: designs.iter().any(|d| d.is_default),
        designs: designs.iter().map(|d| row(d, logos)).collect(),
        error,
    };
    page(status, &view)
}

fn row(d: &Design, logos: bool) -> DesignRow {
    DesignRow {
        id: d.id.to_string(),
        name: d.name.to_string(),
        is_default: d.is_default,
        preview: format!(
            "/dashboard/designs/{}/preview.png?v={}",
            d.id,
            d.updated_at.timestamp_micros()
        ),
        look: d
            .look
            .pairs()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        logo: match (&d.logo, logos) {
            (None, _) => "",
            (Some(_), true) => "Logo",
            (Some(_), false) => "Logo (not drawn: logos need Pro)",
        },
        updated: when(d.updated_at),
    }
}

/// The design `id` of the account; another account's, or a malformed id, is not found.
fn own_design<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<Design, Failure> {
    let id = parse_design_id(id).map_err(|_| Failure::NotFound)?;
    web.service.design(user.ctx.account.id, id).map_err(failure)
}

/// A refusal no form field shows: not found, or the store's failure.
fn failure(e: DesignError) -> Failure {
    match e {
        DesignError::NotFound => Failure::NotFound,
        DesignError::NotPermitted(_) => Failure::Forbidden,
        DesignError::Store(e) => e.into(),
        other => Failure::Internal(other.to_string()),
    }
}

/// `GET /dashboard/designs/{id}/preview.png`: a sample code in the design, as links are drawn
/// in it (the logo only while the plan includes logos), cached for a day by its versioned
/// address and ETag.
pub(super) fn preview<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    let design = own_design(web, user, id)?;
    let code = web
        .service
        .code_in_design(
            &user.ctx.account,
            Some(&design),
            PREVIEW_DATA,
            [("size", PREVIEW_SIZE), ("format", "png")],
        )
        .map_err(|e| Failure::Internal(e.to_string()))?;
    let bytes = qr_generate::render(&code).map_err(|e| Failure::Internal(e.to_string()))?;
    Ok(response::cached_image(
        qr_core::Format::Png,
        bytes,
        user.req.headers.get(http::header::IF_NONE_MATCH),
    ))
}

/// `POST /dashboard/designs/{id}/rename`: a new name, checked by the domain.
pub(super) fn rename<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    let design = own_design(web, user, id)?;
    let mut update = DesignUpdate::default();
    let changed = update.set_name(form.text("name")).and_then(|()| {
        web.service
            .update_design(&user.ctx.caller(user.req.client_ip), design.id, &update)
    });
    match changed {
        Ok(_) => Ok(redirect("/dashboard/designs?done=design-renamed")),
        Err(e @ DesignError::Name(_)) => list(
            web,
            user,
            StatusCode::UNPROCESSABLE_ENTITY,
            Some(format!("{}: {e}", design.name)),
        ),
        Err(e) => Err(failure(e)),
    }
}

/// `POST /dashboard/designs/{id}/default`: links without a design of their own are drawn in it.
pub(super) fn make_default<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let design = own_design(web, user, id)?;
    web.service
        .set_default_design(&user.ctx.caller(user.req.client_ip), Some(design.id))
        .map_err(failure)?;
    Ok(redirect("/dashboard/designs?done=design-default"))
}

/// `POST /dashboard/designs/no-default`: links without a design of their own are plain again.
pub(super) fn clear_default<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    user.form()?;
    web.service
        .set_default_design(&user.ctx.caller(user.req.client_ip), None)
        .map_err(failure)?;
    Ok(redirect("/dashboard/designs?done=design-no-default"))
}

/// `POST /dashboard/designs/{id}/delete`: removes it, unless links name it (409 with how many).
pub(super) fn delete<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let design = own_design(web, user, id)?;
    match web
        .service
        .delete_design(&user.ctx.caller(user.req.client_ip), design.id)
    {
        Ok(()) => Ok(redirect("/dashboard/designs?done=design-deleted")),
        Err(e @ DesignError::InUse { .. }) => {
            list(web, user, StatusCode::CONFLICT, Some(e.to_string()))
        }
        Err(e) => Err(failure(e)),
    }
}
