//! `/dashboard/design`: a QR designer for people: pick a link or type content, start from a preset, choose shapes and frames from pictures of them, colours with a contrast warning, a logo with its size; a large preview (live with JavaScript, on submit without; PDF and EPS are previewed as PNG) and downloads in every format. Every generate parameter of qr-generate's table has a control, grouped by `designer::SECTIONS`.

use askama::Template;
use base64::Engine as _;
use http::StatusCode;
use qr_domain::designs::look::is_look_parameter;
use qr_domain::designs::service::{DesignError, DesignUpdate};
use qr_domain::{Clock, Feature, Store};
use qr_generate::{GenerateParams, Symbol};

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::public::capitalised;
use super::{Failure, Layout, User, page, read_or_post};
use crate::Web;
use crate::designer::{
    self, DESIGN_DEFAULT, DESIGN_NAME, DOWNLOAD, Field, Kind, LINK, LOGO, PRESET, PRESETS, SECTIONS,
};
use crate::request::Fields;
use crate::response::{self, WebResponse, redirect};

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
    /// A pictured choice's pictures (empty for the other controls).
    pictures: Vec<Picture>,
    /// The API's default in the control's spelling, which the script restores when a preset
    /// resets the control.
    default: String,
}

/// One value of a pictured choice: a radio button whose label is the code drawn with it.
struct Picture {
    value: String,
    /// The swatch's address.
    src: String,
    checked: bool,
}

/// A section of controls as the template draws it.
struct SectionView {
    id: &'static str,
    title: &'static str,
    folded: bool,
    controls: Vec<Control>,
}

/// A preset's button.
struct PresetView {
    id: &'static str,
    label: &'static str,
    /// The values it sets, as the script applies them: `name=value` pairs joined by `&`, the
    /// look parameters it resets first in `data-reset`.
    values: String,
}

/// A link of the account in the picker.
struct LinkChoice {
    id: String,
    label: String,
    short_url: String,
    selected: bool,
}

#[derive(Template)]
#[template(path = "design.html")]
struct DesignPage {
    layout: Layout,
    csrf: String,
    sections: Vec<SectionView>,
    presets: Vec<PresetView>,
    /// The look parameters a preset resets, space-separated.
    preset_reset: String,
    links: Vec<LinkChoice>,
    formats: Vec<&'static str>,
    preview: Option<String>,
    error: Option<String>,
    /// Advice on the colours (low contrast, inverted), when the preview was made.
    advice: Option<String>,
    /// The name the design is saved under, as typed.
    design_name: String,
    /// Whether "make it the default design" is ticked.
    design_default: bool,
    /// Why saving the design failed.
    save_error: Option<String>,
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
) -> Result<Rendered, Refusal> {
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
    let advice = qr_generate::scan::contrast_advice(code.options());
    qr_generate::render(&code)
        .map(|bytes| Rendered {
            bytes,
            format: code.format(),
            advice,
        })
        .map_err(refused)
}

/// A code the designer made, with advice on its colours.
struct Rendered {
    bytes: Vec<u8>,
    format: qr_core::Format,
    advice: Option<String>,
}

/// The form as the designer reads it: a preset's values applied (the look parameters it resets
/// back to their defaults first), a picked link's short URL as the content, and a download
/// button's format as the format. Each is a name no API parameter has, so nothing else reads it.
fn completed<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    mut form: Fields,
) -> Result<Fields, Refusal> {
    let mut pairs: Vec<(String, String)> = form
        .pairs()
        .iter()
        .filter(|(name, _)| name != PRESET && name != DOWNLOAD)
        .cloned()
        .collect();
    let set = |pairs: &mut Vec<(String, String)>, name: &str, value: &str| {
        pairs.retain(|(n, _)| n != name);
        pairs.push((name.to_owned(), value.to_owned()));
    };
    if let Some(id) = form.get(PRESET) {
        let preset = PRESETS.iter().find(|p| p.id == id).ok_or_else(|| {
            Refusal::of(
                None,
                format!("Unknown preset {id:?}"),
                StatusCode::UNPROCESSABLE_ENTITY,
            )
        })?;
        for parameter in designer::preset_parameters() {
            pairs.retain(|(n, v)| {
                n != parameter.name && !(n == designer::DEFAULT && v == parameter.name)
            });
            let field = web.field(parameter.name);
            if let Some(Kind::Colour { unset: Some(_) }) = field.map(|f| &f.kind) {
                pairs.push((designer::DEFAULT.to_owned(), parameter.name.to_owned()));
            }
        }
        for (name, value) in preset.values {
            pairs.retain(|(n, v)| !(n == designer::DEFAULT && v == name));
            let value = match web.field(name).map(|f| &f.kind) {
                Some(Kind::Colour { .. }) => designer::picker_value(value),
                _ => (*value).to_owned(),
            };
            set(&mut pairs, name, &value);
        }
    }
    if let Some(id) = form.get(LINK).filter(|id| !id.is_empty()) {
        let link = super::links::own_link(web, user, id)
            .map_err(|_| Refusal::of(Some(LINK), "Link not found".into(), StatusCode::NOT_FOUND))?
            .1;
        set(&mut pairs, "data", &web.short_url(&link));
        if let Some(kind) = designer::content_type_name() {
            set(&mut pairs, kind, "");
        }
    }
    if let Some(format) = form.get(DOWNLOAD) {
        let format = format.to_owned();
        set(&mut pairs, "format", &format);
    }
    form.set_pairs(pairs);
    Ok(form)
}

/// The controls with the form's values (`values`; the API default where it has none) and the
/// state of the colours' "default" boxes (`follows`), in their sections.
fn sections<S: Store, C: Clock>(
    web: &Web<S, C>,
    values: &dyn Fn(&Field) -> Option<String>,
    follows: &dyn Fn(&Field) -> bool,
    logo_plan: bool,
) -> Vec<SectionView> {
    let mut views: Vec<SectionView> = SECTIONS
        .iter()
        .map(|s| SectionView {
            id: s.id,
            title: s.title,
            folded: s.folded,
            controls: Vec::new(),
        })
        .collect();
    let all = controls(web, values, follows, logo_plan);
    for (field, control) in web.designer.iter().zip(all) {
        let home = designer::section_of(field).id;
        if let Some(view) = views.iter_mut().find(|v| v.id == home) {
            view.controls.push(control);
        }
    }
    // Within a section, the table's order, except that each section's controls follow the
    // section's own order of parameters (content fields stay after `type`).
    for (view, section) in views.iter_mut().zip(SECTIONS) {
        let rank = |name: &str| {
            section
                .parameters
                .iter()
                .position(|p| p.name == name)
                .unwrap_or(1)
        };
        view.controls.sort_by_key(|c| rank(&c.name));
    }
    views
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
                pictures: if f.pictured {
                    match &f.kind {
                        Kind::Choice(options) => options
                            .iter()
                            .map(|o| Picture {
                                src: format!("/dashboard/design/swatch/{}/{o}.png", f.name),
                                checked: o.eq_ignore_ascii_case(&value),
                                value: o.clone(),
                            })
                            .collect(),
                        _ => Vec::new(),
                    }
                } else {
                    Vec::new()
                },
                default: if kind == "colour" {
                    designer::picker_value(&f.default)
                } else {
                    f.default.clone()
                },
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
    designer(web, user, None)
}

/// The designer page; after a submission, the code made from the form and `not_saved`, why
/// saving it as a design failed.
fn designer<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    not_saved: Option<Refusal>,
) -> Result<WebResponse, Failure> {
    let account = &user.ctx.account;
    let logo_plan = account.limits().includes(Feature::Logo);
    let links = web.service.links(account.id)?;
    let mut view = DesignPage {
        layout: user.layout("Designer", "design"),
        csrf: user.csrf(),
        sections: Vec::new(),
        presets: PRESETS
            .iter()
            .map(|p| PresetView {
                id: p.id,
                label: p.label,
                values: p
                    .values
                    .iter()
                    .map(|(name, value)| format!("{name}={value}"))
                    .collect::<Vec<_>>()
                    .join("&"),
            })
            .collect(),
        preset_reset: designer::preset_parameters()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(" "),
        links: Vec::new(),
        formats: qr_core::Format::ALL.iter().map(|f| f.extension()).collect(),
        preview: None,
        error: None,
        advice: None,
        design_name: String::new(),
        design_default: false,
        save_error: None,
    };
    let choices = |chosen: Option<&str>| {
        links
            .iter()
            .rev()
            .map(|l| LinkChoice {
                id: l.id.to_string(),
                label: l.name.as_str().to_owned(),
                short_url: web.short_url(l),
                selected: chosen == Some(l.id.to_string().as_str()),
            })
            .collect::<Vec<_>>()
    };
    if user.req.is_read() {
        // The newest link's address, so the first preview is a code the account would print.
        let sample = links
            .last()
            .map_or_else(|| web.link("/"), |l| web.short_url(l));
        view.links = choices(links.last().map(|l| l.id.to_string()).as_deref());
        view.sections = sections(
            web,
            &|f| (f.name == "data").then(|| sample.clone()),
            // Nothing chosen yet: every colour without a default follows it.
            &|_| true,
            logo_plan,
        );
        return page(StatusCode::OK, &view);
    }
    let posted = user.form()?;
    view.links = choices(posted.get(LINK));
    posted.text(DESIGN_NAME).clone_into(&mut view.design_name);
    view.design_default = posted.get(DESIGN_DEFAULT).is_some();
    let (form, made) = match completed(web, user, posted.clone()) {
        Ok(form) => {
            let made = render(web, user, &form, Purpose::Show);
            (form, made)
        }
        Err(refusal) => (posted, Err(refusal)),
    };
    view.sections = sections(
        web,
        &|f| form.get(&f.name).map(str::to_owned),
        &|f| designer::follows_default(f, &form),
        logo_plan,
    );
    let status = match made {
        Ok(rendered) => {
            let b64 = base64::engine::general_purpose::STANDARD.encode(&rendered.bytes);
            view.preview = Some(format!(
                "data:{};base64,{b64}",
                rendered.format.content_type()
            ));
            view.advice = rendered.advice;
            StatusCode::OK
        }
        Err(refusal) => {
            match view
                .sections
                .iter_mut()
                .flat_map(|s| s.controls.iter_mut())
                .find(|c| refusal.field.as_deref() == Some(c.name.as_str()))
            {
                Some(control) => control.error = Some(capitalised(&refusal.message)),
                None => view.error = Some(capitalised(&refusal.message)),
            }
            refusal.status
        }
    };
    let status = match not_saved {
        Some(refusal) => {
            view.save_error = Some(capitalised(&refusal.message));
            refusal.status
        }
        None => status,
    };
    page(status, &view)
}

/// `POST /dashboard/design/save`: the form's look (the look parameters it sets apart from
/// their defaults) and uploaded logo saved as a design of the account under the typed name,
/// optionally its default; the designs page follows. A refusal shows the designer again with
/// the form as posted and the domain's message by the save button.
pub(super) fn save<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let posted = user.form()?;
    let refusal = match completed(web, user, posted).and_then(|form| design_of(web, &form)) {
        Err(refusal) => refusal,
        Ok(update) => match web
            .service
            .create_design(&user.ctx.caller(user.req.client_ip), &update)
        {
            Ok(_) => return Ok(redirect("/dashboard/designs?done=design-saved")),
            Err(DesignError::Store(e)) => return Err(e.into()),
            Err(DesignError::NotPermitted(_)) => return Err(Failure::Forbidden),
            Err(e @ DesignError::LogoRequiresPlan(_)) => {
                Refusal::of(Some(LOGO), e.to_string(), StatusCode::FORBIDDEN)
            }
            Err(e @ DesignError::Logo(_)) => {
                Refusal::of(Some(LOGO), e.to_string(), StatusCode::UNPROCESSABLE_ENTITY)
            }
            Err(e @ DesignError::LimitReached) => {
                Refusal::of(None, e.to_string(), StatusCode::CONFLICT)
            }
            Err(e) => Refusal::of(
                Some(DESIGN_NAME),
                e.to_string(),
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
        },
    };
    designer(web, user, Some(refusal))
}

/// The design a completed form describes: its name, the look parameters it sets to other than
/// their defaults, its uploaded logo, and whether it becomes the default.
fn design_of<S: Store, C: Clock>(web: &Web<S, C>, form: &Fields) -> Result<DesignUpdate, Refusal> {
    let invalid = |e: DesignError| {
        Refusal::of(
            Some(DESIGN_NAME),
            e.to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
        )
    };
    let mut update = DesignUpdate::default();
    update.set_name(form.text(DESIGN_NAME)).map_err(invalid)?;
    let look: Vec<(String, String)> = form
        .pairs()
        .iter()
        .filter(|(name, value)| is_look_parameter(name) && !value.is_empty())
        .filter_map(|(name, value)| {
            let field = web.field(name)?;
            let value = designer::api_value(Some(field), value);
            let default = designer::api_value(Some(field), &field.default);
            let set = !designer::follows_default(field, form) && value != default;
            set.then(|| (name.clone(), value))
        })
        .collect();
    update.set_look(look).map_err(invalid)?;
    if let Some(upload) = form.file(LOGO) {
        update.set_logo(None, upload.bytes.clone()).map_err(|e| {
            Refusal::of(Some(LOGO), e.to_string(), StatusCode::UNPROCESSABLE_ENTITY)
        })?;
    }
    if form.get(DESIGN_DEFAULT).is_some() {
        update.set_default(true);
    }
    Ok(update)
}

/// The live preview (JavaScript): the image, or the refusal as text.
pub(super) fn preview<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let made =
        completed(web, user, user.form()?).and_then(|form| render(web, user, &form, Purpose::Show));
    Ok(match made {
        Ok(rendered) => {
            let mut r = response::image(rendered.format, rendered.bytes, None);
            // The script shows the advice beside the preview (ASCII text: a header value).
            if let Some(advice) = rendered.advice
                && let Ok(value) = http::HeaderValue::from_str(&advice)
            {
                r.headers_mut().insert(ADVICE_HEADER, value);
            }
            r
        }
        Err(refusal) => plain(refusal),
    })
}

/// The download: the image as a file, or the designer with the refusal.
pub(super) fn download<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let made = completed(web, user, user.form()?)
        .and_then(|form| render(web, user, &form, Purpose::Download));
    match made {
        Ok(rendered) => {
            let name = format!("qr-code.{}", rendered.format.extension());
            Ok(response::image(
                rendered.format,
                rendered.bytes,
                Some(&name),
            ))
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

/// The response header carrying the colour advice of a live preview (the script shows it).
const ADVICE_HEADER: &str = "x-design-advice";

/// What every swatch encodes: a short link, so each picture is a small code (25 modules) that
/// shows its shapes at 80 CSS pixels.
const SWATCH_DATA: &str = "https://qr.example/r/7K3M9Q";

/// A swatch's width and height in pixels: twice the 80 CSS pixels it is shown at, for sharp
/// pictures on high-density screens; 6 pixels per module with the 2-module margin.
const SWATCH_SIZE: &str = "174";

/// `GET /dashboard/design/swatch/<parameter>/<value>.png` (a pictured choice's value drawn) and
/// `/dashboard/design/swatch/preset/<id>.png` (a preset): rendered once per process and kept
/// (a few dozen images of a few kilobytes), answered with an ETag and a day of caching.
pub(super) fn swatch<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    parameter: &str,
    file: &str,
) -> Result<WebResponse, Failure> {
    let value = file.strip_suffix(".png").ok_or(Failure::NotFound)?;
    let mut pairs: Vec<(String, String)> = vec![
        ("data".into(), SWATCH_DATA.into()),
        ("size".into(), SWATCH_SIZE.into()),
        ("margin".into(), "2".into()),
    ];
    if parameter == PRESET {
        let preset = PRESETS
            .iter()
            .find(|p| p.id == value)
            .ok_or(Failure::NotFound)?;
        pairs.extend(
            preset
                .values
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned())),
        );
    } else {
        let field = web
            .field(parameter)
            .filter(|f| f.pictured)
            .ok_or(Failure::NotFound)?;
        let known =
            matches!(&field.kind, Kind::Choice(options) if options.iter().any(|o| o == value));
        if !known {
            return Err(Failure::NotFound);
        }
        pairs.push((parameter.to_owned(), value.to_owned()));
        if parameter == "frame" && value != "none" {
            pairs.push(("frameText".into(), "SCAN ME".into()));
        }
    }
    let key = format!("{parameter}/{value}");
    static CACHE: OnceLock<Mutex<HashMap<String, Vec<u8>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    let cached = cache
        .lock()
        .map_err(|_| Failure::Internal("swatch cache poisoned".into()))?
        .get(&key)
        .cloned();
    let bytes = match cached {
        Some(bytes) => bytes,
        None => {
            let code = GenerateParams::from_pairs(pairs)
                .parse()
                .map_err(|e| Failure::Internal(format!("swatch {key}: {e}")))?;
            let bytes = qr_generate::render(&code)
                .map_err(|e| Failure::Internal(format!("swatch {key}: {e}")))?;
            cache
                .lock()
                .map_err(|_| Failure::Internal("swatch cache poisoned".into()))?
                .insert(key, bytes.clone());
            bytes
        }
    };
    Ok(response::cached_image(
        qr_core::Format::Png,
        bytes,
        user.req.headers.get(http::header::IF_NONE_MATCH),
    ))
}
