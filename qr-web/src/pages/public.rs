//! Pages before login: the landing page with the plan table, sign-up, login (with its second step for users with a second factor) and logout, e-mail verification, password reset, and confirming a new e-mail address.

use std::sync::Arc;

use askama::Template;
use http::StatusCode;
use qr_domain::dashboard::second_factor::{PENDING_LOGIN_LIFETIME, SecondFactorError};
use qr_domain::service::{AccountError, LoginError, SignUp};
use qr_domain::{Clock, Plan, Store, TokenPurpose, accounts::plan::Retention};

use super::{Failure, Layout, User, ok, page, read_or_post};
use crate::Web;
use crate::mail::{MailJob, OutgoingMail};
use crate::request::WebRequest;
use crate::response::{WebResponse, redirect};

/// One row of the plan table.
pub(crate) struct PlanRow {
    pub(crate) name: &'static str,
    pub(crate) monthly: String,
    pub(crate) per_second: String,
    pub(crate) links: String,
    pub(crate) retention: String,
    pub(crate) batch: String,
    pub(crate) logo: bool,
}

/// The spec's plan table, from the domain's limits (Enterprise's rate is "custom").
pub(crate) fn plan_rows() -> Vec<PlanRow> {
    Plan::ALL
        .iter()
        .map(|plan| {
            plan_row(
                *plan,
                plan.limits(&Default::default()),
                *plan == Plan::Enterprise,
            )
        })
        .collect()
}

/// One plan's limits as the pages show them.
pub(crate) fn plan_row(plan: Plan, l: qr_domain::PlanLimits, custom_rate: bool) -> PlanRow {
    let count = |limit: qr_domain::Limit| match limit {
        qr_domain::Limit::Unlimited => "Unlimited".to_owned(),
        qr_domain::Limit::Max(n) => super::thousands(n),
    };
    PlanRow {
        name: plan_name(plan),
        monthly: count(l.monthly_requests),
        per_second: if custom_rate {
            "Custom".to_owned()
        } else {
            l.per_second.get().to_string()
        },
        links: count(l.links),
        retention: match l.retention {
            Retention::Unlimited => "Unlimited".to_owned(),
            Retention::Days(365) => "1 year".to_owned(),
            Retention::Days(d) => format!("{d} days"),
        },
        batch: l.batch.map_or_else(
            || "—".to_owned(),
            |b| {
                format!(
                    "{} items, {}/min",
                    super::thousands(u64::from(b.max_items)),
                    b.per_minute
                )
            },
        ),
        logo: l.logo,
    }
}

/// A plan's name as the pages show it.
pub(crate) fn plan_name(plan: Plan) -> &'static str {
    match plan {
        Plan::Free => "Free",
        Plan::Starter => "Starter",
        Plan::Pro => "Pro",
        Plan::Enterprise => "Enterprise",
    }
}

#[derive(Template)]
#[template(path = "landing.html")]
struct Landing {
    layout: Layout,
    plans: Vec<PlanRow>,
    signup_open: bool,
}

/// The landing page's description.
const LANDING: &str = "Generate PNG, SVG and print-ready QR codes through an API, print dynamic links you can change later, and see when, where and on which device they are scanned.";

/// The description of the pages around an account (sign-up, login, verification, reset).
const ACCOUNT_PAGES: &str = "Sign up for the QR Platform or log in: QR codes through an API, dynamic links and scan analytics.";

/// The password reset pages' description.
const RESET: &str = "Forgot your QR Platform password? Get a link by e-mail and set a new one.";

pub(super) fn landing<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let mut layout = Layout::public("QR codes, dynamic links and scan analytics", LANDING);
    if let Some(ctx) = web.session(req)? {
        layout = Layout {
            description: LANDING,
            ..Layout::user(&layout.title, "", &ctx, req)
        };
    }
    ok(&Landing {
        layout,
        plans: plan_rows(),
        signup_open: web.service.signup_policy().is_open(),
    })
}

/// A choice of plan on the sign-up form.
struct PlanChoice {
    value: &'static str,
    label: String,
    selected: bool,
}

#[derive(Template)]
#[template(path = "signup.html")]
struct SignupPage {
    layout: Layout,
    csrf: String,
    open: bool,
    email: String,
    plans: Vec<PlanChoice>,
    email_error: Option<String>,
    password_error: Option<String>,
    form_error: Option<String>,
}

#[derive(Template)]
#[template(path = "message.html")]
struct Message {
    layout: Layout,
    heading: &'static str,
    text: String,
    link: Option<(&'static str, &'static str)>,
}

fn message(
    title: &'static str,
    text: String,
    link: Option<(&'static str, &'static str)>,
) -> Message {
    Message {
        layout: Layout::public(title, ACCOUNT_PAGES),
        heading: title,
        text,
        link,
    }
}

pub(super) fn signup<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    read_or_post(req)?;
    let policy = web.service.signup_policy();
    let (csrf, fresh) = web.anonymous_csrf(req);
    let mut form = SignupPage {
        layout: Layout::public(
            "Sign up",
            "Create a free QR Platform account: an API key for QR codes, dynamic links and scan analytics.",
        ),
        csrf,
        open: policy.is_open(),
        email: String::new(),
        plans: Vec::new(),
        email_error: None,
        password_error: None,
        form_error: None,
    };
    let chosen = if req.is_post() {
        let fields = web.anonymous_form(req)?;
        form.email = fields.text("email").to_owned();
        let plan = fields.text("plan").parse::<Plan>().unwrap_or(Plan::Free);
        let outcome = web.service.admit_form(req.client_ip).and_then(|()| {
            web.service
                .sign_up(fields.text("email"), fields.text("password"), plan)
        });
        match outcome {
            Ok(SignUp::Created { user, .. }) => {
                web.outbox.enqueue(verification_mail(web, user.id));
                return ok(&check_inbox());
            }
            Ok(SignUp::Existing(user)) => {
                web.outbox
                    .enqueue(existing_account_mail(web, user.email.to_string()));
                return ok(&check_inbox());
            }
            Err(AccountError::Email(e)) => form.email_error = Some(e.to_string()),
            Err(AccountError::Password(e)) => form.password_error = Some(e.to_string()),
            Err(e @ (AccountError::SignupClosed | AccountError::Throttled { .. })) => {
                form.form_error = Some(e.to_string());
            }
            Err(AccountError::Store(e)) => return Err(e.into()),
            Err(other) => return Err(Failure::Internal(other.to_string())),
        }
        plan
    } else {
        req.query()
            .get("plan")
            .and_then(|p| p.parse().ok())
            .unwrap_or(Plan::Free)
    };
    form.plans = Plan::ALL
        .iter()
        .map(|p| PlanChoice {
            value: p.as_str(),
            label: if policy.is_self_service(*p) {
                plan_name(*p).to_owned()
            } else {
                format!("{} (needs approval; you start on Free)", plan_name(*p))
            },
            selected: *p == chosen,
        })
        .collect();
    let status =
        if form.email_error.is_some() || form.password_error.is_some() || form.form_error.is_some()
        {
            StatusCode::UNPROCESSABLE_ENTITY
        } else {
            StatusCode::OK
        };
    let mut response = page(status, &form)?;
    web.set_form_cookie(&mut response, fresh);
    Ok(response)
}

fn check_inbox() -> Message {
    message(
        "Check your inbox",
        "We sent a message to the address you gave. Follow its link within 24 hours to verify the address, then log in. If the address already has an account, the message says so instead.".to_owned(),
        Some(("/dashboard/login", "Go to the login page")),
    )
}

/// The job that issues a verification token and composes its mail.
pub(crate) fn verification_mail<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: qr_domain::ids::UserId,
) -> MailJob {
    let service = Arc::clone(&web.service);
    let link = web.link("/dashboard/verify?token=");
    Box::new(
        move || match service.issue_token(user, TokenPurpose::Verify) {
            Ok((user, token)) => Some(OutgoingMail {
                to: user.email.to_string(),
                subject: "Verify your e-mail address".to_owned(),
                body: format!(
                    "Welcome to QR Platform.\n\nOpen this link within 24 hours to verify your e-mail address:\n\n{link}{}\n\nIf you did not sign up, ignore this message.\n",
                    token.expose()
                ),
            }),
            Err(e) => {
                tracing::warn!(target: "qr_web::mail", error = %e, "verification mail not prepared");
                None
            }
        },
    )
}

fn existing_account_mail<S: Store, C: Clock>(web: &Web<S, C>, to: String) -> MailJob {
    let login = web.link("/dashboard/login");
    let reset = web.link("/dashboard/reset");
    Box::new(move || {
        Some(OutgoingMail {
            to,
            subject: "You already have an account".to_owned(),
            body: format!(
                "Someone (probably you) tried to sign up with this address, which already has an account.\n\nLog in: {login}\nForgot the password? {reset}\n\nIf it was not you, ignore this message.\n"
            ),
        })
    })
}

/// The most bytes of a `next` path: an invitation's link (about 90) and room to spare.
const MAX_NEXT_BYTES: usize = 512;

/// Where a login returns to: a dashboard path given by the page that sent the browser to log in
/// (an invitation's link), or the overview. Only this site's dashboard paths are followed, so a
/// crafted login link cannot send a fresh session elsewhere (no scheme, no `//` host, no
/// backslash, no control character).
pub(super) fn return_path(raw: &str) -> Option<&str> {
    let rest = raw.strip_prefix("/dashboard")?;
    let well_formed = raw.len() <= MAX_NEXT_BYTES
        && (rest.is_empty() || rest.starts_with('/') || rest.starts_with('?'))
        && !raw.contains("//")
        && !raw.contains('\\')
        && !raw.chars().any(char::is_control);
    well_formed.then_some(raw)
}

/// The login page's address returning to `next` afterwards.
pub(super) fn login_returning_to(next: &str) -> String {
    let encoded: String = url::form_urlencoded::byte_serialize(next.as_bytes()).collect();
    format!("/dashboard/login?next={encoded}")
}

/// Where a finished login goes: `next` when it is a dashboard path, else the overview.
fn after_login(next: &str) -> String {
    return_path(next).unwrap_or("/dashboard").to_owned()
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    layout: Layout,
    csrf: String,
    email: String,
    error: Option<String>,
    /// Whether the passkey login is offered (the server is a WebAuthn relying party).
    passkeys: bool,
    /// Where to go after logging in (a checked dashboard path), empty for the overview.
    next: String,
}

impl LoginPage {
    fn new<S: Store, C: Clock>(web: &Web<S, C>, req: &WebRequest, csrf: String) -> Self {
        LoginPage {
            layout: Layout::public(
                "Log in",
                "Log in to the QR Platform dashboard: your API keys, dynamic links, analytics and designer.",
            ),
            csrf,
            email: String::new(),
            error: None,
            passkeys: web.passkeys.is_some(),
            next: next_of(req),
        }
    }
}

/// The checked `next` of a login request: the form's on a post, the address's on a page view.
fn next_of(req: &WebRequest) -> String {
    let raw = if req.is_post() {
        req.form().text("next").to_owned()
    } else {
        req.query().text("next").to_owned()
    };
    return_path(&raw).unwrap_or_default().to_owned()
}

/// The login page again with a refusal of another way in (a passkey).
pub(super) fn login_refused<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
    status: StatusCode,
    message: &str,
) -> Result<WebResponse, Failure> {
    let (csrf, fresh) = web.anonymous_csrf(req);
    let mut form = LoginPage::new(web, req, csrf);
    form.error = Some(message.to_owned());
    let mut response = page(status, &form)?;
    web.set_form_cookie(&mut response, fresh);
    Ok(response)
}

pub(super) fn login<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    read_or_post(req)?;
    let (csrf, fresh) = web.anonymous_csrf(req);
    let mut form = LoginPage::new(web, req, csrf);
    let mut status = StatusCode::OK;
    if req.is_post() {
        let fields = web.anonymous_form(req)?;
        form.email = fields.text("email").to_owned();
        let ua = req.user_agent();
        match web.service.log_in(
            fields.text("email"),
            fields.text("password"),
            req.client_ip,
            ua.as_deref(),
        ) {
            Ok((_, secret)) => {
                let mut response = redirect(&after_login(&form.next));
                web.set_session(&mut response, secret.expose());
                return Ok(response);
            }
            Err(LoginError::SecondFactorNeeded(pending)) => {
                let mut response = if form.next.is_empty() {
                    redirect(SECOND_FACTOR_PATH)
                } else {
                    let encoded: String =
                        url::form_urlencoded::byte_serialize(form.next.as_bytes()).collect();
                    redirect(&format!("{SECOND_FACTOR_PATH}?next={encoded}"))
                };
                web.cookies.set(
                    &mut response,
                    PENDING_LOGIN,
                    pending.expose(),
                    PENDING_LOGIN_LIFETIME.num_seconds(),
                );
                return Ok(response);
            }
            Err(LoginError::Store(e)) => return Err(e.into()),
            Err(LoginError::Random(e)) => return Err(Failure::Internal(e.to_string())),
            Err(e) => {
                status = match e {
                    LoginError::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
                    LoginError::Disabled => StatusCode::FORBIDDEN,
                    _ => StatusCode::UNAUTHORIZED,
                };
                form.error = Some(capitalised(&e.to_string()));
            }
        }
    } else if web.session(req)?.is_some() {
        return Ok(redirect(&after_login(&form.next)));
    }
    let mut response = page(status, &form)?;
    web.set_form_cookie(&mut response, fresh);
    Ok(response)
}

/// The second step's page.
const SECOND_FACTOR_PATH: &str = "/dashboard/login/second-factor";

/// The cookie holding a pending login between the password and the second factor.
const PENDING_LOGIN: &str = "qr_pending_login";

#[derive(Template)]
#[template(path = "second_factor.html")]
struct SecondFactorPage {
    layout: Layout,
    csrf: String,
    error: Option<String>,
    /// The pending login is gone: only "log in again" is offered.
    expired: bool,
    /// Whether a passkey is offered (the server is a WebAuthn relying party).
    passkeys: bool,
    /// Where to go after logging in, carried from the login page.
    next: String,
}

impl SecondFactorPage {
    fn new<S: Store, C: Clock>(web: &Web<S, C>, req: &WebRequest, csrf: String) -> Self {
        SecondFactorPage {
            layout: Layout::public(
                "Two-factor login",
                "The second step of logging in to the QR Platform: a code from your authenticator app or a passkey.",
            ),
            csrf,
            error: None,
            expired: false,
            passkeys: web.passkeys.is_some(),
            next: next_of(req),
        }
    }
}

/// The pending login of this browser's cookie.
pub(super) fn pending_login<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Option<String> {
    req.cookie(&web.cookies.name(PENDING_LOGIN))
}

/// The session a finished second step opened: its cookie set, the pending login's cleared, on
/// the way to the request's `next` or the overview.
pub(super) fn logged_in_after_second_step<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
    secret: &str,
) -> WebResponse {
    let mut response = redirect(&after_login(&next_of(req)));
    web.cookies.clear(&mut response, PENDING_LOGIN);
    web.set_session(&mut response, secret);
    response
}

/// The second step's page again with a refusal (`expired`: the pending login is gone, and
/// only "log in again" is offered).
pub(super) fn second_factor_refused<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
    status: StatusCode,
    message: &str,
    expired: bool,
) -> Result<WebResponse, Failure> {
    let (csrf, fresh) = web.anonymous_csrf(req);
    let mut form = SecondFactorPage::new(web, req, csrf);
    form.error = Some(message.to_owned());
    form.expired = expired;
    let mut response = page(status, &form)?;
    if expired {
        web.cookies.clear(&mut response, PENDING_LOGIN);
    }
    web.set_form_cookie(&mut response, fresh);
    Ok(response)
}

/// `/dashboard/login/second-factor`: the code from the app or a recovery code finishes the
/// pending login of this browser's cookie; without one, the login page.
pub(super) fn second_factor<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    read_or_post(req)?;
    let Some(pending) = pending_login(web, req) else {
        return Ok(redirect("/dashboard/login"));
    };
    let (csrf, fresh) = web.anonymous_csrf(req);
    let mut form = SecondFactorPage::new(web, req, csrf);
    let mut status = StatusCode::OK;
    if req.is_post() {
        let fields = web.anonymous_form(req)?;
        let ua = req.user_agent();
        match web
            .service
            .finish_login(&pending, fields.text("code"), req.client_ip, ua.as_deref())
        {
            Ok((_, secret)) => return Ok(logged_in_after_second_step(web, req, secret.expose())),
            Err(SecondFactorError::Store(e)) => return Err(e.into()),
            Err(SecondFactorError::Random(e)) => return Err(Failure::Internal(e.to_string())),
            Err(e) => {
                status = match e {
                    SecondFactorError::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
                    SecondFactorError::Disabled => StatusCode::FORBIDDEN,
                    _ => StatusCode::UNAUTHORIZED,
                };
                form.expired = e == SecondFactorError::Expired;
                form.error = Some(capitalised(&e.to_string()));
            }
        }
    }
    let mut response = page(status, &form)?;
    if form.expired {
        web.cookies.clear(&mut response, PENDING_LOGIN);
    }
    web.set_form_cookie(&mut response, fresh);
    Ok(response)
}

/// The domain's messages start in lower case; a page's sentences do not.
pub(crate) fn capitalised(message: &str) -> String {
    let mut chars = message.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

pub(super) fn logout<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    user.form()?;
    web.service.log_out(&user.ctx)?;
    let mut response = redirect("/");
    web.clear_session(&mut response);
    Ok(response)
}

pub(super) fn resend<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    user.form()?;
    if !user.ctx.user.is_verified() {
        match web.service.admit_form(user.req.client_ip) {
            Ok(()) => web.outbox.enqueue(verification_mail(web, user.ctx.user.id)),
            Err(AccountError::Throttled { .. }) => {}
            Err(e) => return Err(Failure::Internal(e.to_string())),
        }
    }
    Ok(redirect("/dashboard?done=sent"))
}

#[derive(Template)]
#[template(path = "token_form.html")]
struct TokenForm {
    layout: Layout,
    heading: &'static str,
    text: &'static str,
    action: &'static str,
    button: &'static str,
    csrf: String,
    token: String,
}

fn token_form<S: Store, C: Clock>(
    web: &Web<S, C>,
    form: TokenForm,
    fresh: Option<String>,
) -> Result<WebResponse, Failure> {
    let mut response = ok(&form)?;
    web.set_form_cookie(&mut response, fresh);
    Ok(response)
}

/// `GET /dashboard/verify?token=…` shows a button (so a mail scanner opening the link changes
/// nothing); `POST` verifies.
pub(super) fn verify<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    read_or_post(req)?;
    if req.is_read() {
        let (csrf, fresh) = web.anonymous_csrf(req);
        let form = TokenForm {
            layout: Layout::public("Verify your e-mail address", ACCOUNT_PAGES),
            heading: "Verify your e-mail address",
            text: "Confirm that this address is yours.",
            action: "/dashboard/verify",
            button: "Verify my address",
            csrf,
            token: req.query().text("token").to_owned(),
        };
        return token_form(web, form, fresh);
    }
    let fields = web.anonymous_form(req)?;
    match web.service.verify_email(fields.text("token")) {
        Ok(_) => Ok(match web.session(req)? {
            Some(_) => redirect("/dashboard?done=verified"),
            None => ok(&message(
                "Address verified",
                "Your e-mail address is verified. Log in to create your first API key.".to_owned(),
                Some(("/dashboard/login", "Log in")),
            ))?,
        }),
        Err(AccountError::InvalidToken) => invalid_link(),
        Err(AccountError::Store(e)) => Err(e.into()),
        Err(e) => Err(Failure::Internal(e.to_string())),
    }
}

fn invalid_link() -> Result<WebResponse, Failure> {
    page(
        StatusCode::BAD_REQUEST,
        &message(
            "This link does not work",
            capitalised(&AccountError::InvalidToken.to_string())
                + ". Ask for a new one: links work once, for 24 hours.",
            Some(("/dashboard/login", "Go to the login page")),
        ),
    )
}

#[derive(Template)]
#[template(path = "reset.html")]
struct ResetPage {
    layout: Layout,
    csrf: String,
    /// With a token: the new-password form; without: the request form.
    token: Option<String>,
    error: Option<String>,
}

/// `GET` shows the request form (or, with `?token=`, the new-password form); `POST` asks for a
/// link. The answer is the same whether or not the address has an account: the mail thread
/// looks it up.
pub(super) fn reset<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    read_or_post(req)?;
    let (csrf, fresh) = web.anonymous_csrf(req);
    if req.is_read() {
        let token = req.query().get("token").map(str::to_owned);
        let mut response = ok(&ResetPage {
            layout: Layout::public("Reset your password", RESET),
            csrf,
            token,
            error: None,
        })?;
        web.set_form_cookie(&mut response, fresh);
        return Ok(response);
    }
    let fields = web.anonymous_form(req)?;
    if let Err(e) = web.service.admit_form(req.client_ip) {
        return page(
            StatusCode::TOO_MANY_REQUESTS,
            &ResetPage {
                layout: Layout::public("Reset your password", RESET),
                csrf,
                token: None,
                error: Some(capitalised(&e.to_string())),
            },
        );
    }
    let service = Arc::clone(&web.service);
    let email = fields.text("email").to_owned();
    let link = web.link("/dashboard/reset?token=");
    web.outbox.enqueue(Box::new(move || match service.password_reset_token(&email) {
        Ok(Some((account, token))) => Some(OutgoingMail {
            to: account.email.to_string(),
            subject: "Reset your password".to_owned(),
            body: format!(
                "Open this link within 24 hours to choose a new password:\n\n{link}{}\n\nIf you did not ask for this, ignore this message; your password stays as it is.\n",
                token.expose()
            ),
        }),
        Ok(None) => None,
        Err(e) => {
            tracing::warn!(target: "qr_web::mail", error = %e, "reset mail not prepared");
            None
        }
    }));
    ok(&message(
        "Check your inbox",
        "If an account has this address, we sent it a link to choose a new password. The link works once, for 24 hours.".to_owned(),
        Some(("/dashboard/login", "Go to the login page")),
    ))
}

pub(super) fn reset_password<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let fields = web.anonymous_form(req)?;
    let token = fields.text("token").to_owned();
    match web.service.reset_password(&token, fields.text("password")) {
        Ok(_) => ok(&message(
            "Password changed",
            "Your new password is set and every session of your account has ended. Log in with the new password.".to_owned(),
            Some(("/dashboard/login", "Log in")),
        )),
        Err(AccountError::Password(e)) => page(
            StatusCode::UNPROCESSABLE_ENTITY,
            &ResetPage {
                layout: Layout::public("Reset your password", RESET),
                csrf: fields.text("csrf").to_owned(),
                token: Some(token),
                error: Some(capitalised(&e.to_string())),
            },
        ),
        Err(AccountError::InvalidToken) => invalid_link(),
        Err(AccountError::Store(e)) => Err(e.into()),
        Err(e) => Err(Failure::Internal(e.to_string())),
    }
}

/// `GET /dashboard/account/email?token=…`: the button that confirms a new address.
pub(super) fn confirm_email_page<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let (csrf, fresh) = web.anonymous_csrf(req);
    let form = TokenForm {
        layout: Layout::public("Confirm your new address", ACCOUNT_PAGES),
        heading: "Confirm your new e-mail address",
        text: "Your account moves to this address once you confirm.",
        action: "/dashboard/account/email/confirm",
        button: "Confirm the new address",
        csrf,
        token: req.query().text("token").to_owned(),
    };
    token_form(web, form, fresh)
}

pub(super) fn confirm_email<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let fields = web.anonymous_form(req)?;
    match web.service.confirm_email_change(fields.text("token")) {
        Ok(_) => Ok(match web.session(req)? {
            Some(_) => redirect("/dashboard/account?done=email"),
            None => ok(&message(
                "Address changed",
                "Your account now uses the new address. Log in with it.".to_owned(),
                Some(("/dashboard/login", "Log in")),
            ))?,
        }),
        Err(AccountError::InvalidToken) => invalid_link(),
        Err(e @ AccountError::EmailTaken(_)) => page(
            StatusCode::CONFLICT,
            &message("Address taken", capitalised(&e.to_string()), None),
        ),
        Err(AccountError::Store(e)) => Err(e.into()),
        Err(e) => Err(Failure::Internal(e.to_string())),
    }
}
