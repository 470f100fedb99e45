//! Routing of the dashboard's paths, the layout every page shares, the session and CSRF checks, and the failure pages.
//!
//! One file per area: `public` (landing, sign-up, login, verification, password reset),
//! `overview`, `workspaces` (the switcher), `members` (members, roles and invitations), `invitation`
//! (an invitation's link: accept, decline, or sign up through it), `sso` (single sign-on's settings, start and callback), `security` (two-factor login and the workspace's requirement of it), `passkeys` (adding and removing one, logging in with one, alone or as the second step), `keys`, `webhooks`, `domains` (the account's own domains), `links` (list, edit,
//! delete, code images) with `link_form` (the link form's fields and errors) and `link_import`
//! (another service's export), `analytics`, `design`, `account`, `admin` and `api_reference`
//! (the API reference, public).

mod account;
mod admin;
mod analytics;
mod api_reference;
mod audit;
mod design;
mod designs;
mod domains;
mod invitation;
mod keys;
mod link_form;
mod link_import;
mod link_input;
mod links;
mod members;
mod overview;
mod passkeys;
mod print;
mod public;
mod security;
mod sso;
mod webhooks;
mod workspaces;

use askama::Template;
use http::StatusCode;
use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::permissions::Operation;
use qr_domain::dashboard::session::{SESSION_ABSOLUTE, csrf_of};
use qr_domain::service::SessionContext;
use qr_domain::{Clock, Store, StoreError, random};

use crate::Web;
use crate::assets;
use crate::request::{Fields, WebRequest};
use crate::response::{self, FORM, SESSION, WebResponse, html, redirect};

/// The API reference page's path (the document itself stays at `/api/openapi.json`).
pub(crate) const REFERENCE_PATH: &str = "/docs/api";

/// Where identity providers send browsers back after a single sign-on (registered at each
/// workspace's provider, after the base URL).
pub(crate) const SSO_CALLBACK_PATH: &str = "/dashboard/login/sso/callback";

/// Why a request gets an error page instead of its answer.
#[derive(Debug)]
pub(crate) enum Failure {
    /// No such page, or not this account's object, or an admin page for a non-admin (404).
    NotFound,
    /// The path exists, the method does not (405, with these methods in `Allow`).
    Method(&'static str),
    /// A state-changing form without this session's (or form cookie's) CSRF token (403).
    Csrf,
    /// The user's role in the workspace shown does not allow this page or form (403).
    Forbidden,
    /// The store failed (503 when it may pass, else 500).
    Store(StoreError),
    /// A bug; the detail is logged, not shown (500).
    Internal(String),
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

/// What every page's layout shows.
pub(crate) struct Layout {
    pub(crate) title: String,
    /// The page's `<meta name="description">`: what a search result says under the title.
    pub(crate) description: &'static str,
    pub(crate) css: String,
    pub(crate) js: String,
    /// The SVG icon (`/favicon.ico` serves the same mark for browsers that ask by themselves).
    pub(crate) icon: String,
    /// The logged-in account, for the navigation.
    pub(crate) user: Option<NavUser>,
    /// Which navigation entry is this page.
    pub(crate) active: &'static str,
    /// A one-line confirmation after a form (fixed texts, chosen by code).
    pub(crate) notice: Option<&'static str>,
}

/// The navigation's view of the logged-in user and the workspace shown.
pub(crate) struct NavUser {
    pub(crate) email: String,
    pub(crate) admin: bool,
    pub(crate) csrf: String,
    pub(crate) verified: bool,
    /// The workspace shown: its address and the user's role there.
    pub(crate) workspace: String,
    pub(crate) role: &'static str,
    /// The user's other workspaces for the switcher: id and label (address and role).
    pub(crate) others: Vec<(String, String)>,
    /// Which areas the role opens (the navigation shows only those).
    pub(crate) can: Areas,
}

/// The dashboard's areas a role opens, read from the domain's permission table.
pub(crate) struct Areas {
    pub(crate) keys: bool,
    pub(crate) webhooks: bool,
    pub(crate) domains: bool,
    pub(crate) design: bool,
    pub(crate) write_links: bool,
    pub(crate) write_designs: bool,
    pub(crate) audit: bool,
    pub(crate) members: bool,
    /// The workspace's settings (single sign-on).
    pub(crate) settings: bool,
}

impl Areas {
    fn of(ctx: &SessionContext) -> Self {
        Self {
            keys: ctx.may(Operation::WriteKeys),
            webhooks: ctx.may(Operation::WriteWebhooks),
            domains: ctx.may(Operation::WriteDomains),
            design: ctx.may(Operation::Generate),
            write_links: ctx.may(Operation::WriteLinks),
            write_designs: ctx.may(Operation::WriteDesigns),
            audit: ctx.may(Operation::ReadAudit),
            members: ctx.may(Operation::ReadMembers),
            settings: ctx.may(Operation::WriteSettings),
        }
    }
}

impl Layout {
    /// The layout of a page for visitors, with the description search results show.
    pub(crate) fn public(title: &str, description: &'static str) -> Self {
        Self {
            title: title.to_owned(),
            description,
            css: assets::css_path(),
            js: assets::js_path(),
            icon: assets::icon_path(),
            user: None,
            active: "",
            notice: None,
        }
    }

    /// The layout of a page of the logged-in account; `?done=` picks the notice.
    pub(crate) fn user(
        title: &str,
        active: &'static str,
        ctx: &SessionContext,
        req: &WebRequest,
    ) -> Self {
        Self {
            user: Some(NavUser {
                email: ctx.user.email.to_string(),
                admin: ctx.user.is_admin(),
                csrf: ctx.csrf_token(),
                verified: ctx.user.is_verified(),
                workspace: ctx.account.email.to_string(),
                role: ctx.role().title(),
                others: ctx
                    .workspaces
                    .iter()
                    .filter(|(a, _)| a.id != ctx.account.id)
                    .map(|(a, m)| {
                        (
                            a.id.to_string(),
                            format!("{} ({})", a.email, m.role.title()),
                        )
                    })
                    .collect(),
                can: Areas::of(ctx),
            }),
            active,
            notice: req.query().get("done").and_then(notice),
            ..Self::public(title, area_description(active))
        }
    }
}

/// The description of a logged-in page, by its navigation entry. Crawlers never see these pages
/// (without a session they are sent to the login page); a description keeps them as complete as
/// the public ones for whoever audits them (docs/api.md).
fn area_description(active: &str) -> &'static str {
    match active {
        "overview" => {
            "Your QR Platform account at a glance: this month's usage, your keys and links."
        }
        "keys" => {
            "Create, restrict, regenerate and revoke the API keys of your QR Platform account."
        }
        "webhooks" => {
            "The webhooks of your QR Platform account: the addresses it notifies, and their secrets."
        }
        "domains" => {
            "Your own domains for short links: DNS verification, settings and visits to unknown codes."
        }
        "links" => {
            "Your dynamic links: short addresses printed in QR codes, their targets and their scans."
        }
        "designs" => {
            "Your saved designs: the looks your links' codes are drawn in, and the default one."
        }
        "design" => {
            "Design a QR code with every option of the API and download it as PNG, SVG, PDF or EPS."
        }
        "audit" => "Who changed what in your QR Platform workspace, when and from which network.",
        "members" => {
            "The people in your QR Platform workspace, their roles, and the invitations waiting."
        }
        "sso" => {
            "Single sign-on for your workspace: your OpenID Connect provider, the allowed e-mail domains and the role of people who join."
        }
        "account" => {
            "Your QR Platform account: e-mail address, password, sessions, plan, export and deletion."
        }
        "admin" => "Administration of the QR Platform: accounts, plans and plan requests.",
        _ => {
            "QR Platform: QR codes through an API, dynamic links you can change after printing, and scan analytics."
        }
    }
}
/// The confirmations shown after a redirect, by code (no text comes from the request).
fn notice(code: &str) -> Option<&'static str> {
    Some(match code {
        "verified" => "Your e-mail address is verified. You can create API keys now.",
        "sent" => "We sent you an e-mail with a link. It works once, for 24 hours.",
        "link-created" => "The link was created.",
        "link-saved" => "The link was saved.",
        "link-deleted" => "The link was deleted; its printed codes now answer that it is gone.",
        "key-revoked" => "The key was revoked; requests with it fail from now on.",
        "key-saved" => "The key's settings were saved.",
        "password" => "Your password was changed. Your other sessions have ended.",
        "email" => "Your e-mail address was changed.",
        "email-sent" => {
            "We sent a link to the new address; your address changes when you follow it."
        }
        "plan" => "Your plan was changed.",
        "domain-added" => "The domain was added. Create the TXT record below to prove you own it.",
        "domain-checked" => "The domain's DNS was checked.",
        "domain-saved" => "The domain's settings were saved.",
        "domain-deleted" => "The domain was removed.",
        "plan-requested" => "Your plan request was sent; the operator will decide on it.",
        "admin-saved" => "The change was saved.",
        "design-saved" => "The design was saved.",
        "design-renamed" => "The design was renamed.",
        "design-default" => "Links without a design of their own now use this default design.",
        "design-no-default" => "Links without a design of their own now draw the plain code.",
        "design-deleted" => "The design was deleted.",
        "invited" => "The invitation was sent. Its link works once, for 7 days.",
        "invitation-resent" => "The invitation was sent again; the earlier link no longer works.",
        "invitation-revoked" => "The invitation was revoked; its link no longer works.",
        "role-changed" => "The member's role was changed.",
        "member-removed" => "The member was removed; the workspace keeps their links and keys.",
        "owner-changed" => "The workspace has a new owner; you stay as an admin.",
        "left" => "You left the workspace.",
        "joined" => "You joined the workspace.",
        "sso-saved" => "The single sign-on settings were saved; single sign-on is on.",
        "sso-off" => "Single sign-on is off; its settings are kept.",
        "two-factor-off" => "Two-factor login is off. Logins ask for your password only.",
        "passkey-added" => "Passkey added. It signs you in, and counts as your second factor.",
        "passkey-removed" => "Passkey removed.",
        "two-factor-required" => "Members of this workspace must now use two-factor login.",
        "two-factor-optional" => "Two-factor login is now optional in this workspace.",
        _ => return None,
    })
}

/// Renders a template as a page with `status`.
pub(crate) fn page(status: StatusCode, template: &impl Template) -> Result<WebResponse, Failure> {
    template
        .render()
        .map(|body| html(status, body))
        .map_err(|e| Failure::Internal(format!("template failed: {e}")))
}

/// Renders a template as a 200 page.
pub(crate) fn ok(template: &impl Template) -> Result<WebResponse, Failure> {
    page(StatusCode::OK, template)
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    layout: Layout,
    status: u16,
    message: String,
}

/// The page of a failure with `status` and `message`.
pub(crate) fn failure_page(status: StatusCode, message: &str) -> WebResponse {
    let body = ErrorPage {
        layout: Layout::public(
            status.canonical_reason().unwrap_or("Error"),
            "The QR Platform could not show this page.",
        ),
        status: status.as_u16(),
        message: message.to_owned(),
    }
    .render()
    .unwrap_or_else(|_| message.to_owned());
    html(status, body)
}

fn render_failure(failure: Failure) -> WebResponse {
    let mut allow = None;
    let (status, message) = match failure {
        Failure::NotFound => (
            StatusCode::NOT_FOUND,
            "There is no such page, or it is not yours to see.",
        ),
        Failure::Method(allowed) => {
            allow = Some(allowed);
            (
                StatusCode::METHOD_NOT_ALLOWED,
                "This address does not take that kind of request.",
            )
        }
        Failure::Csrf => (
            StatusCode::FORBIDDEN,
            "This form has expired or did not come from this site. Go back, reload the page and try again.",
        ),
        Failure::Forbidden => (
            StatusCode::FORBIDDEN,
            "Your role in this workspace does not allow this. Ask one of its owners or admins.",
        ),
        Failure::Store(e) if e == StoreError::Busy || e.is_unavailable() => {
            tracing::warn!(error = %e, "dashboard request failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "The service cannot save changes right now. Please try again in a moment.",
            )
        }
        Failure::Store(e) => {
            tracing::error!(error = %e, "dashboard request failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong on our side.",
            )
        }
        Failure::Internal(detail) => {
            tracing::error!(%detail, "dashboard request failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong on our side.",
            )
        }
    };
    let mut page = failure_page(status, message);
    // RFC 9110 (15.5.6): a 405 names the methods the page takes.
    if let Some(allowed) = allow {
        page.headers_mut()
            .insert(http::header::ALLOW, http::HeaderValue::from_static(allowed));
    }
    page
}

/// A request with the logged-in account.
pub(crate) struct User<'a> {
    pub(crate) ctx: SessionContext,
    pub(crate) req: &'a WebRequest,
}

impl User<'_> {
    /// The layout of this account's page.
    pub(crate) fn layout(&self, title: &str, active: &'static str) -> Layout {
        Layout::user(title, active, &self.ctx, self.req)
    }

    /// The form, after checking its CSRF token against the session.
    pub(crate) fn form(&self) -> Result<Fields, Failure> {
        let form = self.req.form();
        if self.ctx.check_csrf(form.text("csrf")) {
            Ok(form)
        } else {
            Err(Failure::Csrf)
        }
    }

    /// The logged-in user as the caller of workspace operations.
    pub(crate) fn caller(&self) -> Caller {
        self.ctx.caller(self.req.client_ip)
    }

    /// The CSRF token for this session's forms.
    pub(crate) fn csrf(&self) -> String {
        self.ctx.csrf_token()
    }
}

impl<S: Store, C: Clock> Web<S, C> {
    /// The live session of the request's cookie, if any.
    pub(crate) fn session(&self, req: &WebRequest) -> Result<Option<SessionContext>, Failure> {
        match req.cookie(&self.cookies.name(SESSION)) {
            Some(secret) => Ok(self.service.session(&secret)?),
            None => Ok(None),
        }
    }

    /// Sets the session cookie on a response.
    pub(crate) fn set_session(&self, r: &mut WebResponse, secret: &str) {
        self.cookies
            .set(r, SESSION, secret, SESSION_ABSOLUTE.num_seconds());
    }

    /// Removes the session cookie.
    pub(crate) fn clear_session(&self, r: &mut WebResponse) {
        self.cookies.clear(r, SESSION);
    }

    /// The CSRF token for a form shown before login, and the form cookie to set when the browser
    /// has none yet.
    pub(crate) fn anonymous_csrf(&self, req: &WebRequest) -> (String, Option<String>) {
        match req.cookie(&self.cookies.name(FORM)) {
            Some(secret) if secret.len() == 64 => (csrf_of(&secret), None),
            _ => {
                let secret = random::hex_secret().unwrap_or_default();
                (csrf_of(&secret), Some(secret))
            }
        }
    }

    /// Sets the form cookie when `fresh` holds a new one (for a day: forms are filled in minutes).
    pub(crate) fn set_form_cookie(&self, r: &mut WebResponse, fresh: Option<String>) {
        if let Some(secret) = fresh {
            self.cookies.set(r, FORM, &secret, 86_400);
        }
    }

    /// A form shown before login, after checking its CSRF token against the form cookie.
    pub(crate) fn anonymous_form(&self, req: &WebRequest) -> Result<Fields, Failure> {
        let form = req.form();
        let expected = req
            .cookie(&self.cookies.name(FORM))
            .filter(|s| s.len() == 64)
            .map(|s| csrf_of(&s));
        match expected {
            Some(token)
                if random::constant_time_eq(token.as_bytes(), form.text("csrf").as_bytes()) =>
            {
                Ok(form)
            }
            _ => Err(Failure::Csrf),
        }
    }

    /// A link of this site to put in an e-mail.
    pub(crate) fn link(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.base_url)
    }
}

/// Answers a request of the dashboard.
pub(crate) fn handle<S: Store, C: Clock>(web: &Web<S, C>, req: &WebRequest) -> WebResponse {
    route(web, req).unwrap_or_else(render_failure)
}

fn route<S: Store, C: Clock>(web: &Web<S, C>, req: &WebRequest) -> Result<WebResponse, Failure> {
    let path = req.path.as_str();
    if path == "/" {
        return read_only(req).and_then(|()| public::landing(web, req));
    }
    if path == "/favicon.ico" {
        read_only(req)?;
        let icon = &assets::FAVICON_ICO;
        return Ok(response::fixed_asset(icon.content_type, icon.bytes));
    }
    if path == REFERENCE_PATH {
        return read_only(req).and_then(|()| api_reference::show(web, req));
    }
    if let Some(name) = path.strip_prefix("/static/") {
        read_only(req)?;
        let file = assets::find(name).ok_or(Failure::NotFound)?;
        return Ok(response::asset(file.content_type, file.bytes));
    }
    let rest = path.strip_prefix("/dashboard").ok_or(Failure::NotFound)?;
    if rest == "/" {
        return Ok(redirect("/dashboard"));
    }
    let segments: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.trim_start_matches('/').split('/').collect()
    };
    // Pages for visitors.
    match segments.as_slice() {
        ["signup"] => return public::signup(web, req),
        ["login"] => return public::login(web, req),
        ["login", "sso"] => return sso::start(web, req),
        ["login", "sso", "callback"] => {
            return read_only(req).and_then(|()| sso::callback(web, req));
        }
        ["login", "second-factor"] => return public::second_factor(web, req),
        ["login", "second-factor", "passkey"] => {
            return post_only(req).and_then(|()| passkeys::second_step(web, req));
        }
        ["login", "second-factor", "passkey", "options"] => {
            return post_only(req).and_then(|()| passkeys::second_step_options(web, req));
        }
        ["login", "passkey"] => return post_only(req).and_then(|()| passkeys::log_in(web, req)),
        ["login", "passkey", "options"] => {
            return post_only(req).and_then(|()| passkeys::login_options(web, req));
        }
        ["verify"] => return public::verify(web, req),
        ["reset"] => return public::reset(web, req),
        ["reset", "password"] => {
            return post_only(req).and_then(|()| public::reset_password(web, req));
        }
        ["account", "email"] if req.is_read() => return public::confirm_email_page(web, req),
        ["account", "email", "confirm"] => {
            return post_only(req).and_then(|()| public::confirm_email(web, req));
        }
        ["invitation"] => return read_only(req).and_then(|()| invitation::show(web, req)),
        ["invitation", "signup"] => {
            return post_only(req).and_then(|()| invitation::sign_up(web, req));
        }
        ["invitation", "decline"] => {
            return post_only(req).and_then(|()| invitation::decline(web, req));
        }
        _ => {}
    }
    let Some(ctx) = web.session(req)? else {
        return Ok(redirect("/dashboard/login"));
    };
    let user = User { ctx, req };
    if user.ctx.must_enrol_two_factor() && !open_before_enrolment(&segments) {
        return Ok(redirect(security::SECURITY_PATH));
    }
    if let Some(op) = operation_of(&segments, req.is_read())
        && !user.ctx.may(op)
    {
        return Err(Failure::Forbidden);
    }
    match segments.as_slice() {
        [] => read_only(req).and_then(|()| overview::show(web, &user)),
        ["logout"] => post_only(req).and_then(|()| public::logout(web, &user)),
        ["verify", "resend"] => post_only(req).and_then(|()| public::resend(web, &user)),
        ["workspaces", "switch"] => post_only(req).and_then(|()| workspaces::switch(web, &user)),
        ["invitation", "accept"] => post_only(req).and_then(|()| invitation::accept(web, &user)),
        ["members"] => read_only(req).and_then(|()| members::index(web, &user)),
        ["members", "invite"] => post_only(req).and_then(|()| members::invite(web, &user)),
        ["members", "leave"] => post_only(req).and_then(|()| members::leave(web, &user)),
        ["members", "invitations", id, "resend"] => {
            post_only(req).and_then(|()| members::resend(web, &user, id))
        }
        ["members", "invitations", id, "revoke"] => {
            post_only(req).and_then(|()| members::revoke(web, &user, id))
        }
        ["members", id, "role"] => {
            post_only(req).and_then(|()| members::change_role(web, &user, id))
        }
        ["members", id, "remove"] => post_only(req).and_then(|()| members::remove(web, &user, id)),
        ["members", id, "transfer"] => {
            post_only(req).and_then(|()| members::transfer(web, &user, id))
        }
        ["keys"] => keys::index(web, &user),
        ["keys", id] => keys::settings(web, &user, id),
        ["keys", id, "regenerate"] => {
            post_only(req).and_then(|()| keys::regenerate(web, &user, id))
        }
        ["keys", id, "revoke"] => post_only(req).and_then(|()| keys::revoke(web, &user, id)),
        ["webhooks"] => webhooks::index(web, &user),
        ["audit"] => read_only(req).and_then(|()| audit::show(web, &user)),
        ["sso"] => sso::settings(web, &user),
        ["sso", "disable"] => post_only(req).and_then(|()| sso::disable(web, &user)),
        ["audit.csv"] => read_only(req).and_then(|()| audit::csv(web, &user)),
        ["webhooks", id, "delete"] => {
            post_only(req).and_then(|()| webhooks::delete(web, &user, id))
        }
        ["domains"] => domains::index(web, &user),
        ["domains", id] => domains::show(web, &user, id),
        ["domains", id, "check"] => post_only(req).and_then(|()| domains::check(web, &user, id)),
        ["domains", id, "delete"] => post_only(req).and_then(|()| domains::delete(web, &user, id)),
        ["links"] => links::index(web, &user),
        ["links", "import"] => link_import::import(web, &user),
        ["links", "print"] => print::show(web, &user),
        ["links", id] => read_only(req).and_then(|()| analytics::show(web, &user, id)),
        ["links", id, "scans.csv"] => read_only(req).and_then(|()| analytics::csv(web, &user, id)),
        ["links", id, "edit"] => links::edit(web, &user, id),
        ["links", id, "delete"] => links::delete(web, &user, id),
        [
            "links",
            id,
            file @ ("qr.png" | "qr.svg" | "qr.pdf" | "qr.eps"),
        ] => read_only(req).and_then(|()| links::code_image(web, &user, id, file)),
        ["design"] => design::show(web, &user),
        ["design", "save"] => post_only(req).and_then(|()| design::save(web, &user)),
        ["designs"] => designs::index(web, &user),
        ["designs", "no-default"] => {
            post_only(req).and_then(|()| designs::clear_default(web, &user))
        }
        ["designs", id, "preview.png"] => {
            read_only(req).and_then(|()| designs::preview(web, &user, id))
        }
        ["designs", id, "rename"] => post_only(req).and_then(|()| designs::rename(web, &user, id)),
        ["designs", id, "default"] => {
            post_only(req).and_then(|()| designs::make_default(web, &user, id))
        }
        ["designs", id, "delete"] => post_only(req).and_then(|()| designs::delete(web, &user, id)),
        ["design", "preview"] => post_only(req).and_then(|()| design::preview(web, &user)),
        ["design", "download"] => post_only(req).and_then(|()| design::download(web, &user)),
        ["design", "swatch", parameter, file] => {
            read_only(req).and_then(|()| design::swatch(web, &user, parameter, file))
        }
        ["account"] => read_only(req).and_then(|()| account::show(web, &user)),
        ["account", "email"] => account::change_email(web, &user),
        ["account", "password"] => {
            post_only(req).and_then(|()| account::change_password(web, &user))
        }
        ["account", "sessions"] => {
            post_only(req).and_then(|()| account::log_out_everywhere(web, &user))
        }
        ["account", "plan"] => post_only(req).and_then(|()| account::request_plan(web, &user)),
        ["account", "security"] => read_only(req).and_then(|()| security::show(web, &user)),
        ["account", "security", "totp"] => {
            post_only(req).and_then(|()| security::begin(web, &user))
        }
        ["account", "security", "totp.png"] => {
            read_only(req).and_then(|()| security::qr_code(web, &user))
        }
        ["account", "security", "totp", "confirm"] => {
            post_only(req).and_then(|()| security::confirm(web, &user))
        }
        ["account", "security", "recovery-codes"] => {
            post_only(req).and_then(|()| security::regenerate(web, &user))
        }
        ["account", "security", "disable"] => {
            post_only(req).and_then(|()| security::disable(web, &user))
        }
        ["account", "security", "require"] => {
            post_only(req).and_then(|()| security::require(web, &user))
        }
        ["account", "security", "passkeys"] => {
            post_only(req).and_then(|()| passkeys::add(web, &user))
        }
        ["account", "security", "passkeys", "options"] => {
            post_only(req).and_then(|()| passkeys::registration_options(web, &user))
        }
        ["account", "security", "passkeys", id, "remove"] => {
            post_only(req).and_then(|()| passkeys::remove(web, &user, id))
        }
        ["account", "export"] => post_only(req).and_then(|()| account::export(web, &user)),
        ["account", "delete"] => post_only(req).and_then(|()| account::delete(web, &user)),
        ["admin"] => read_only(req).and_then(|()| admin::show(web, &user)),
        ["admin", "accounts", id, action] => {
            post_only(req).and_then(|()| admin::account_action(web, &user, id, action))
        }
        ["admin", "requests", id, decision @ ("approve" | "decline")] => {
            post_only(req).and_then(|()| admin::decide(web, &user, id, decision))
        }
        _ => Err(Failure::NotFound),
    }
}

/// What the role must allow to open a page (`read`: GET or HEAD) or post its form: the
/// dashboard's column of the domain's permission table. `None`: the user's own settings, the
/// switcher, logging out, and the service's admin pages (which check the service role).
/// Keys, webhooks and domains are managed on their pages, so even reading them there needs
/// the right to change them (a member reads the domains through the link form).
fn operation_of(segments: &[&str], read: bool) -> Option<Operation> {
    use Operation as O;
    let write_or = |read_op: O, write_op: O| if read { read_op } else { write_op };
    Some(match segments {
        [] => O::ReadUsage,
        ["keys", ..] => O::WriteKeys,
        ["webhooks", ..] => O::WriteWebhooks,
        ["domains", ..] => O::WriteDomains,
        ["links", "import"] => O::WriteLinks,
        ["links", "print"] => O::Batch,
        ["links"] => write_or(O::ReadLinks, O::WriteLinks),
        ["links", _] | ["links", _, "scans.csv"] => O::ReadAnalytics,
        ["links", _, "edit" | "delete"] => O::WriteLinks,
        ["links", _, _] => O::ReadLinks,
        ["design", "save"] => O::WriteDesigns,
        ["design", ..] => O::Generate,
        ["designs"] | ["designs", _, "preview.png"] => O::ReadDesigns,
        ["designs", ..] => O::WriteDesigns,
        ["audit"] | ["audit.csv"] => O::ReadAudit,
        // Leaving is every member's own choice (the owner hands over first).
        ["members", "leave"] => return None,
        ["members"] => write_or(O::ReadMembers, O::WriteMembers),
        ["members", _, "transfer"] => O::TransferOwnership,
        ["members", ..] => O::WriteMembers,
        ["sso", ..] => O::WriteSettings,
        ["account", "plan"] => O::ChangePlan,
        ["account", "export"] => O::Export,
        ["account", "delete"] => O::DeleteWorkspace,
        ["account", "security", "require"] => O::WriteSettings,
        _ => return None,
    })
}

/// The pages a member may use before enrolling a second factor their workspace requires:
/// enrolment itself (the security page and its forms), logging out, and switching to another
/// workspace.
fn open_before_enrolment(segments: &[&str]) -> bool {
    matches!(
        segments,
        ["account", "security", ..] | ["logout"] | ["workspaces", "switch"]
    )
}

fn read_only(req: &WebRequest) -> Result<(), Failure> {
    if req.is_read() {
        Ok(())
    } else {
        Err(Failure::Method("GET, HEAD"))
    }
}

fn post_only(req: &WebRequest) -> Result<(), Failure> {
    if req.is_post() {
        Ok(())
    } else {
        Err(Failure::Method("POST"))
    }
}

/// Refuses methods other than GET, HEAD and POST.
pub(crate) fn read_or_post(req: &WebRequest) -> Result<(), Failure> {
    if req.is_read() || req.is_post() {
        Ok(())
    } else {
        Err(Failure::Method("GET, HEAD, POST"))
    }
}

/// A UTC time as the pages show it: `2024-05-01 12:00 UTC`.
pub(crate) fn when(at: qr_domain::chrono::DateTime<qr_domain::chrono::Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A count with thousands separators: `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
