//! `/dashboard/design`: a QR designer with a control for every generate parameter of qr-generate's table (content types with their fields included), a preview (live with JavaScript, on submit without; PDF and EPS are previewed as PNG), and downloads; logos are uploaded, on plans that include them.

use askama::Template;
use base64::Engine as _;
use http::StatusCode;
use qr_domain::{Clock, Feature, Store};
use qr_generate::{GenerateParams, Symbol};

use super::public::capitalised;
use super::{Failure, Layout, User, page, read_or_post};
use crate::Web;
use crate::designer::{self, Field, Kind, LOGO};
use crate::request::Fields;
use crate::response::{self, WebResponse};

/// A control as the template draws it.
struct Control {
    name: String,
    label: String,
    kind: &'static str,
    value: String,
    min: i64,
    max: i64,
    max_len: u64,
    choices: Vec<(String, bool)>,
    /// A toggle's state, or whether a colour's "default" box is ticked.
    checked: bool,
    /// The label of a colour's "default" box, for a colour without an API default.
    unset: Option<String>,
    error: Option<String>,
    locked: bool,
    /// The content types this field belongs to, space-separated ("" for the other controls).
    types: String,
    placeholder: String,
    /// Whether the chosen content type uses this control: the others are drawn hidden and
    /// disabled, as the script keeps them, so nothing moves when the script starts.
    shown: bool,
}

#[derive(Template)]
#[template(path = "design.html")]
struct DesignPage {
    layout: Layout,
    csrf: String,
    controls: Vec<Control>,
    preview: Option<String>,
    error: Option<String>,
}

/// A render that failed, with the field to blame when there is one.
struct Refusal {
    field: Option<String>,
    message: String,
    status: StatusCode,
}

impl Refusal {
    fn of(field: Option<&str>, message: String, status: StatusCode) -> Self {
        Self {
            field: field.map(str::to_owned),
            message,
            status,
        }
    }
}

impl<S: Store, C: Clock> crate::Web<S, C> {
    fn field(&self, name: &str) -> Option<&Field> {
        self.designer.iter().find(|f| f.name == name)
    }
}

/// Whether an image is rendered to be shown in the page (PDF and EPS then become PNG, which
/// an `<img>` shows) or downloaded as asked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Show,
    Download,
}

/// Renders the form's code: the API's parameters and bounds (`qr_generate`), the plan's logo
/// rule and the render rate from the domain.
fn render<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    form: &Fields,
    purpose: Purpose,
) -> Result<(Vec<u8>, qr_core::Format), Refusal> {
    let account = &user.ctx.account;
    web.service.admit_render(account).map_err(|wait| {
        Refusal::of(
            None,
            format!("Too many previews at once; wait {wait} s."),
            StatusCode::TOO_MANY_REQUESTS,
        )
    })?;
    let pairs = form
        .pairs()
        .iter()
        .filter(|(name, value)| name != "csrf" && name != LOGO && !value.is_empty())
        .filter_map(|(name, value)| {
            web.field(name)
                .filter(|f| !designer::follows_default(f, form))
                .map(|f| (name.clone(), designer::api_value(Some(f), value)))
        });
    let params = GenerateParams::from_pairs(pairs);
    let refused = |e: qr_generate::GenerateError| {
        Refusal::of(
            Some(e.parameter()),
            e.to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
        )
    };
    let mut code = params.parse().map_err(refused)?;
    if purpose == Purpose::Show {
        code = code.shown_in_a_page();
    }
    if let Some(upload) = form.file(LOGO) {
        if code.symbol() == Symbol::Micro {
            return Err(refused(qr_generate::symbol::logo_refused()));
        }
        web.service
            .check_features(account, &[Feature::Logo])
            .map_err(|_| {
                Refusal::of(
                    Some(LOGO),
                    "Logos are part of the Pro and Enterprise plans.".into(),
                    StatusCode::FORBIDDEN,
                )
            })?;
        if upload.bytes.len() > web.max_logo_bytes {
            return Err(Refusal::of(
                Some(LOGO),
                format!(
                    "Logo too large: at most {} bytes allowed",
                    web.max_logo_bytes
                ),
                StatusCode::UNPROCESSABLE_ENTITY,
            ));
        }
        let logo = qr_core::Logo::decode(upload.bytes.clone()).map_err(|e| {
            Refusal::of(
                Some(LOGO),
                format!("Invalid logo: {e}"),
                StatusCode::UNPROCESSABLE_ENTITY,
            )
        })?;
        code = code.with_logo(logo).map_err(refused)?;
    }
    qr_generate::render(&code)
        .map(|bytes| (bytes, code.format()))
        .map_err(refused)
}

/// The controls with the form's values (`values`; the API default where it has none) and the
/// state of the colours' "default" boxes (`follows`).
fn controls<S: Store, C: Clock>(
    web: &Web<S, C>,
    values: &dyn Fn(&Field) -> Option<String>,
    follows: &dyn Fn(&Field) -> bool,
    logo_plan: bool,
) -> Vec<Control> {
    let chosen_type = designer::content_type_name()
        .and_then(|name| web.designer.iter().find(|f| f.name == name))
        .and_then(values)
        .unwrap_or_default();
    web.designer
        .iter()
        .map(|f| {
            let value = values(f).unwrap_or_else(|| f.default.clone());
            // The script's rule (app.js `showType`): the content box without a type, a type's
            // own fields with it.
            let shown = match &f.kind {
                Kind::Data { .. } => chosen_type.is_empty(),
                _ if !f.types.is_empty() => f.types.contains(&chosen_type),
                _ => true,
            };
            let mut unset = None;
            let (kind, min, max, max_len, choices) = match &f.kind {
                Kind::Data { max } => ("data", 0, 0, *max, Vec::new()),
                Kind::Number { min, max } => ("number", *min, *max, 0, Vec::new()),
                Kind::Choice(options) => (
                    "choice",
                    0,
                    0,
                    0,
                    options
                        .iter()
                        .map(|o| (o.clone(), o.eq_ignore_ascii_case(&value)))
                        .collect(),
                ),
                Kind::Colour { unset: label } => {
                    unset.clone_from(label);
                    ("colour", 0, 0, 0, Vec::new())
                }
                Kind::Toggle => ("toggle", 0, 0, 0, Vec::new()),
                Kind::Upload => ("upload", 0, 0, 0, Vec::new()),
                Kind::Text { max } => ("text", 0, 0, *max, Vec::new()),
            };
            Control {
                name: f.name.clone(),
                label: f.label.clone(),
                kind,
                value: if kind == "colour" {
                    designer::picker_value(&value)
                } else {
                    value.clone()
                },
                min,
                max,
                max_len,
                choices,
                checked: if unset.is_some() {
                    follows(f)
                } else {
                    value == "true"
                },
                unset,
                error: None,
                locked: kind == "upload" && !logo_plan,
                types: f.types.join(" "),
                placeholder: f.placeholder.clone(),
                shown,
            }
        })
        .collect()
}

/// `GET` shows the designer with the defaults; `POST` (the form without JavaScript) shows it with
/// the code made from the form.
pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    let account = &user.ctx.account;
    let logo_plan = account.limits().includes(Feature::Logo);
    let mut view = DesignPage {
        layout: user.layout("Designer", "design"),
        csrf: user.csrf(),
        controls: Vec::new(),
        preview: None,
        error: None,
    };
    if user.req.is_read() {
        let sample = web
            .service
            .links(account.id)?
            .last()
            .map_or_else(|| web.link("/"), |l| web.short_url(l));
        view.controls = controls(
            web,
            &|f| (f.name == "data").then(|| sample.clone()),
            // Nothing chosen yet: every colour without a default follows it.
            &|_| true,
            logo_plan,
        );
        return page(StatusCode::OK, &view);
    }
    let form = user.form()?;
    view.controls = controls(
        web,
        &|f| form.get(&f.name).map(str::to_owned),
        &|f| designer::follows_default(f, &form),
        logo_plan,
    );
    let status = match render(web, user, &form, Purpose::Show) {
        Ok((bytes, format)) => {
            let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
            view.preview = Some(format!("data:{};base64,{b64}", format.content_type()));
            StatusCode::OK
        }
        Err(refusal) => {
            match view
                .controls
                .iter_mut()
                .find(|c| refusal.field.as_deref() == Some(c.name.as_str()))
            {
                Some(control) => control.error = Some(capitalised(&refusal.message)),
                None => view.error = Some(capitalised(&refusal.message)),
            }
            refusal.status
        }
    };
    page(status, &view)
}

/// The live preview (JavaScript): the image, or the refusal as text.
pub(super) fn preview<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    Ok(match render(web, user, &form, Purpose::Show) {
        Ok((bytes, format)) => response::image(format, bytes, None),
        Err(refusal) => plain(refusal),
    })
}

/// The download: the image as a file, or the designer with the refusal.
pub(super) fn download<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    match render(web, user, &form, Purpose::Download) {
        Ok((bytes, format)) => {
            let name = format!("qr-code.{}", format.extension());
            Ok(response::image(format, bytes, Some(&name)))
        }
        Err(_) => show(web, user),
    }
}

fn plain(refusal: Refusal) -> WebResponse {
    let mut r = http::Response::new(refusal.message.into_bytes());
    *r.status_mut() = refusal.status;
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}
