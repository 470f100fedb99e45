//! Single sign-on pages: the workspace's settings (owners and admins), the public form that starts a sign-in from a work address (or a workspace's own link), and the callback that ends it in a session.

use askama::Template;
use http::StatusCode;
use http::header::{HeaderName, HeaderValue};
use qr_domain::sso::{
    SsoEnvironment, SsoLoginError, SsoSettingsChangeError, SsoSettingsInput, SsoTarget,
};
use qr_domain::{AccountId, Clock, Store};

use super::public::capitalised;
use super::{Failure, Layout, User, page, read_or_post, when};
use crate::Web;
use crate::request::WebRequest;
use crate::response::{WebResponse, redirect};

/// The cookie that binds a sign-in's state to the browser that began it (10 minutes, the
/// attempt's life).
const SSO_STATE: &str = "qr_sso";
/// The attempt's life in seconds, for the cookie.
const SSO_STATE_SECONDS: i64 = 600;

/// The public pages' description.
const SSO_PAGES: &str =
    "Sign in to the QR Platform with your company's identity provider (single sign-on).";

#[derive(Template)]
#[template(path = "sso.html")]
struct SettingsPage {
    layout: Layout,
    csrf: String,
    issuer: String,
    client_id: String,
    domains: String,
    roles: Vec<(&'static str, &'static str, bool)>,
    secret_saved: Option<String>,
    enabled: bool,
    redirect_uri: String,
    start_link: String,
    error: Option<String>,
}

/// The roles a workspace may give people who sign in (owner never).
const ROLES: [(&str, &str); 3] = [
    ("admin", "Admin"),
    ("member", "Member"),
    ("viewer", "Viewer"),
];

/// `GET /dashboard/sso` shows the settings; `POST` saves them (enabled).
pub(super) fn settings<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    let caller = user.caller();
    let mut error = None;
    let mut status = StatusCode::OK;
    let mut typed = None;
    if user.req.is_post() {
        let form = user.form()?;
        let input = SsoSettingsInput {
            issuer: form.text("issuer"),
            client_id: form.text("client_id"),
            client_secret: form.text("client_secret"),
            allowed_domains: form.text("allowed_domains"),
            default_role: form.text("default_role"),
        };
        match web
            .service
            .save_sso_settings(&caller, input, web.sso.addresses)
        {
            Ok(_) => return Ok(redirect("/dashboard/sso?done=sso-saved")),
            Err(SsoSettingsChangeError::Store(e)) => return Err(e.into()),
            Err(SsoSettingsChangeError::NotPermitted(_)) => return Err(Failure::Forbidden),
            Err(e) => {
                status = StatusCode::UNPROCESSABLE_ENTITY;
                error = Some(capitalised(&e.to_string()));
                typed = Some((
                    input.issuer.to_owned(),
                    input.client_id.to_owned(),
                    input.allowed_domains.to_owned(),
                    input.default_role.to_owned(),
                ));
            }
        }
    }
    let stored = match web.service.sso_settings(&caller) {
        Ok(stored) => stored,
        Err(SsoSettingsChangeError::Store(e)) => return Err(e.into()),
        Err(_) => return Err(Failure::Forbidden),
    };
    let (issuer, client_id, domains, role) = typed.unwrap_or_else(|| {
        stored.as_ref().map_or_else(
            || {
                (
                    String::new(),
                    String::new(),
                    String::new(),
                    "member".to_owned(),
                )
            },
            |s| {
                (
                    s.settings.issuer.as_str().to_owned(),
                    s.settings.client_id.as_str().to_owned(),
                    s.settings
                        .allowed_domains
                        .iter()
                        .collect::<Vec<_>>()
                        .join("\n"),
                    s.settings.default_role.role().as_str().to_owned(),
                )
            },
        )
    });
    let template = SettingsPage {
        layout: user.layout("Single sign-on", "sso"),
        csrf: user.csrf(),
        issuer,
        client_id,
        domains,
        roles: ROLES
            .iter()
            .map(|(value, label)| (*value, *label, *value == role))
            .collect(),
        secret_saved: stored.as_ref().map(|s| when(s.updated_at)),
        enabled: stored.as_ref().is_some_and(|s| s.enabled),
        redirect_uri: web.link(super::SSO_CALLBACK_PATH),
        start_link: web.link(&format!(
            "/dashboard/login/sso?workspace={}",
            caller.account
        )),
        error,
    };
    page(status, &template)
}

/// `POST /dashboard/sso/disable`: turns single sign-on off, keeping the settings.
pub(super) fn disable<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    user.form()?;
    match web.service.disable_sso(&user.caller()) {
        Ok(()) | Err(SsoSettingsChangeError::NotSetUp) => {
            Ok(redirect("/dashboard/sso?done=sso-off"))
        }
        Err(SsoSettingsChangeError::Store(e)) => Err(e.into()),
        Err(_) => Err(Failure::Forbidden),
    }
}

#[derive(Template)]
#[template(path = "sso_login.html")]
struct StartPage {
    layout: Layout,
    csrf: String,
    email: String,
    workspace: String,
    error: Option<String>,
    continue_to: Option<String>,
}

impl<S: Store, C: Clock> Web<S, C> {
    /// What a sign-in needs from the server: the client and the callback URL (`None` when the
    /// base URL cannot make one, a configuration error shown as such).
    fn sso_environment(&self) -> Result<SsoEnvironment<'_>, Failure> {
        let redirect_uri = self.sso_redirect.as_ref().ok_or_else(|| {
            Failure::Internal("the base URL makes no valid single sign-on callback URL".into())
        })?;
        Ok(SsoEnvironment {
            provider: &*self.sso.provider,
            addresses: self.sso.addresses,
            redirect_uri,
        })
    }
}

/// `GET /dashboard/login/sso` shows the form (`?workspace=` names the workspace instead of an
/// address); `POST` starts the sign-in and answers a page that sends the browser on to the
/// provider.
pub(super) fn start<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    read_or_post(req)?;
    let (csrf, fresh) = web.anonymous_csrf(req);
    let query = req.query();
    let mut form = StartPage {
        layout: Layout::public("Sign in with single sign-on", SSO_PAGES),
        csrf,
        email: String::new(),
        workspace: query.text("workspace").trim().to_owned(),
        error: None,
        continue_to: None,
    };
    let mut status = StatusCode::OK;
    let mut state_cookie = None;
    if req.is_post() {
        let fields = web.anonymous_form(req)?;
        form.email = fields.text("email").trim().to_owned();
        form.workspace = fields.text("workspace").trim().to_owned();
        let workspace = if form.workspace.is_empty() {
            None
        } else {
            Some(
                form.workspace
                    .parse::<AccountId>()
                    .map_err(|_| Failure::NotFound)?,
            )
        };
        let target = match workspace {
            Some(id) => SsoTarget::Workspace(id),
            None => SsoTarget::Email(&form.email),
        };
        match web.service.begin_sso(web.sso_environment()?, target) {
            Ok(started) => {
                form.continue_to = Some(started.authorization_url);
                state_cookie = Some(started.state);
            }
            Err(e) => {
                let (code, message) = login_failure(e)?;
                status = code;
                form.error = Some(message);
            }
        }
    }
    let mut response = page(status, &form)?;
    web.set_form_cookie(&mut response, fresh);
    if let (Some(state), Some(url)) = (state_cookie, form.continue_to.as_deref()) {
        web.cookies
            .set(&mut response, SSO_STATE, state.as_str(), SSO_STATE_SECONDS);
        // The page's CSP allows forms to post to this site only (`form-action 'self'`), which
        // browsers also apply to a redirect answering the form; a refresh is a navigation of
        // its own, so the provider is reached without loosening the policy.
        if let Ok(value) = HeaderValue::from_str(&format!("0; url={url}")) {
            response
                .headers_mut()
                .insert(HeaderName::from_static("refresh"), value);
        }
    }
    Ok(response)
}

#[derive(Template)]
#[template(path = "message.html")]
struct Refused {
    layout: Layout,
    heading: &'static str,
    text: String,
    link: Option<(&'static str, &'static str)>,
}

/// `GET /dashboard/login/sso/callback`: completes the sign-in and opens the session, or shows
/// why not (and opens none).
pub(super) fn callback<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let query = req.query();
    let bound = req.cookie(&web.cookies.name(SSO_STATE));
    let ua = req.user_agent();
    let result = web.service.finish_sso(
        web.sso_environment()?,
        query.pairs(),
        bound.as_deref(),
        req.client_ip,
        ua.as_deref(),
    );
    let mut response = match result {
        Ok(login) => {
            let mut response = redirect("/dashboard");
            web.set_session(&mut response, login.secret.expose());
            response
        }
        Err(e) => {
            let (status, text) = login_failure(e)?;
            page(
                status,
                &Refused {
                    layout: Layout::public("Single sign-on failed", SSO_PAGES),
                    heading: "Single sign-on failed",
                    text,
                    link: Some(("/dashboard/login/sso", "Start again")),
                },
            )?
        }
    };
    web.cookies.clear(&mut response, SSO_STATE);
    Ok(response)
}

/// A refused sign-in's status and message; the store's and the random source's failures are
/// the server's own (500/503 pages).
fn login_failure(e: SsoLoginError) -> Result<(StatusCode, String), Failure> {
    let status = match &e {
        SsoLoginError::Store(e) => return Err(Failure::Store(e.clone())),
        SsoLoginError::Random(e) => return Err(Failure::Internal(e.to_string())),
        SsoLoginError::Members(_) | SsoLoginError::Disabled | SsoLoginError::ExistingAccount(_) => {
            StatusCode::FORBIDDEN
        }
        SsoLoginError::NoWorkspace { .. } | SsoLoginError::NotEnabled => StatusCode::NOT_FOUND,
        _ => StatusCode::BAD_REQUEST,
    };
    Ok((status, capitalised(&e.to_string())))
}
