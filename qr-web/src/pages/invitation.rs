//! `/dashboard/invitation?token=…`: an invitation's link. It shows the workspace and role; the invited address, logged in, accepts or declines; anyone else holding the link may decline, sign up with the invited address, or log in and open the link again.
//!
//! Opening the link changes nothing (a mail scanner may open it); every change is a form
//! post with a CSRF token: the session's for accepting, the form cookie's for signing up and
//! declining (which work without a session). A link that does not work answers 404 with the
//! same message whatever the reason, so it tells nobody which accounts or invitations exist.

use askama::Template;
use http::StatusCode;
use qr_domain::accounts::invitations::{InvitationError, InvitationView};
use qr_domain::service::{AccountError, LoginError};
use qr_domain::{Clock, Store};

use super::public::capitalised;
use super::{Failure, Layout, User, failure_page, page, when};
use crate::Web;
use crate::request::WebRequest;
use crate::response::{WebResponse, redirect};

/// The invitation pages' description.
const INVITATION_PAGES: &str =
    "An invitation to a QR Platform workspace: accept it, decline it, or sign up to join.";

#[derive(Template)]
#[template(path = "invitation.html")]
struct InvitationPage {
    layout: Layout,
    workspace: String,
    role: &'static str,
    email: String,
    expires: String,
    token: String,
    /// The form cookie's token: signing up and declining.
    csrf: String,
    /// The session's token when the invited address is logged in: accepting.
    accept_csrf: Option<String>,
    /// The address logged in, when it is not the invited one.
    logged_in_as: Option<String>,
    error: Option<String>,
    /// The login page, returning here.
    login: String,
}

/// The page of a link that works, with `error` over the forms.
fn render<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
    view: &InvitationView,
    token: &str,
    status: StatusCode,
    error: Option<String>,
) -> Result<WebResponse, Failure> {
    let (csrf, fresh) = web.anonymous_csrf(req);
    let session = web.session(req)?;
    let invited = view.invitation.email.lookup_key();
    let (accept_csrf, logged_in_as) = match &session {
        Some(ctx) if ctx.user.email.lookup_key() == invited => (Some(ctx.csrf_token()), None),
        Some(ctx) => (None, Some(ctx.user.email.to_string())),
        None => (None, None),
    };
    let mut layout = Layout::public("Invitation", INVITATION_PAGES);
    if let Some(ctx) = &session {
        layout = Layout {
            description: INVITATION_PAGES,
            ..Layout::user("Invitation", "", ctx, req)
        };
    }
    let mut response = page(
        status,
        &InvitationPage {
            layout,
            workspace: view.workspace.email.to_string(),
            role: view.invitation.role.title(),
            email: view.invitation.email.to_string(),
            expires: when(view.invitation.expires_at),
            token: token.to_owned(),
            csrf,
            accept_csrf,
            logged_in_as,
            error,
            login: super::public::login_returning_to(&format!(
                "/dashboard/invitation?token={token}"
            )),
        },
    )?;
    web.set_form_cookie(&mut response, fresh);
    Ok(response)
}

/// The answer to a link that does not work: 404 with the domain's one message.
fn invalid() -> WebResponse {
    failure_page(
        StatusCode::NOT_FOUND,
        &capitalised(&InvitationError::InvalidToken.to_string()),
    )
}

/// The token a request names, bounded: a token is 64 hex digits, anything longer is not one.
fn token_of(raw: &str) -> String {
    raw.chars().take(64).collect()
}

/// `GET /dashboard/invitation?token=…`.
pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let token = token_of(req.query().text("token"));
    match web.service.invitation_for_token(&token) {
        Ok(view) => render(web, req, &view, &token, StatusCode::OK, None),
        Err(InvitationError::InvalidToken) => Ok(invalid()),
        Err(e) => Err(failure(e)),
    }
}

/// `POST /dashboard/invitation/signup` with `token` and `password`: a new user with the
/// invited address joins the workspace and is logged in. Throttled as the sign-up form.
pub(super) fn sign_up<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let form = web.anonymous_form(req)?;
    let token = token_of(form.text("token"));
    let view = match web.service.invitation_for_token(&token) {
        Ok(view) => view,
        Err(InvitationError::InvalidToken) => return Ok(invalid()),
        Err(e) => return Err(failure(e)),
    };
    if let Err(e) = web.service.admit_form(req.client_ip) {
        return match e {
            AccountError::Throttled { .. } => render(
                web,
                req,
                &view,
                &token,
                StatusCode::TOO_MANY_REQUESTS,
                Some(capitalised(&e.to_string())),
            ),
            other => Err(Failure::Internal(other.to_string())),
        };
    }
    let password = form.text("password");
    match web
        .service
        .sign_up_by_invitation(&token, password, req.client_ip)
    {
        Ok((user, _)) => {
            let ua = req.user_agent();
            match web
                .service
                .log_in(user.email.as_str(), password, req.client_ip, ua.as_deref())
            {
                Ok((_, secret)) => {
                    let mut response = redirect("/dashboard?done=joined");
                    web.set_session(&mut response, secret.expose());
                    Ok(response)
                }
                Err(LoginError::Store(e)) => Err(e.into()),
                // The account exists and is a member; the login page takes it from here.
                Err(_) => Ok(redirect("/dashboard/login")),
            }
        }
        Err(e @ (InvitationError::Password(_) | InvitationError::AccountExists)) => {
            let status = if matches!(e, InvitationError::AccountExists) {
                StatusCode::CONFLICT
            } else {
                StatusCode::UNPROCESSABLE_ENTITY
            };
            render(
                web,
                req,
                &view,
                &token,
                status,
                Some(capitalised(&e.to_string())),
            )
        }
        Err(InvitationError::InvalidToken) => Ok(invalid()),
        Err(e @ InvitationError::SeatsTaken { .. }) => render(
            web,
            req,
            &view,
            &token,
            StatusCode::CONFLICT,
            Some(capitalised(&e.to_string())),
        ),
        Err(e) => Err(failure(e)),
    }
}

/// `POST /dashboard/invitation/accept` with `token`: the logged-in user joins, if theirs is
/// the invited address, and the session shows the workspace.
pub(super) fn accept<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    let token = token_of(form.text("token"));
    match web
        .service
        .accept_invitation(&user.ctx.user, &token, user.req.client_ip)
    {
        Ok(membership) => {
            web.service
                .switch_workspace(&user.ctx, membership.account_id)?;
            Ok(redirect("/dashboard?done=joined"))
        }
        Err(InvitationError::InvalidToken) => Ok(invalid()),
        Err(e @ (InvitationError::WrongAddress | InvitationError::SeatsTaken { .. })) => Ok(
            failure_page(StatusCode::FORBIDDEN, &capitalised(&e.to_string())),
        ),
        Err(e) => Err(failure(e)),
    }
}

#[derive(Template)]
#[template(path = "message.html")]
struct Declined {
    layout: Layout,
    heading: &'static str,
    text: String,
    link: Option<(&'static str, &'static str)>,
}

/// `POST /dashboard/invitation/decline` with `token`: whoever holds the link ends the
/// invitation. Throttled as the sign-up form.
pub(super) fn decline<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let form = web.anonymous_form(req)?;
    let token = token_of(form.text("token"));
    match web.service.admit_form(req.client_ip) {
        Ok(()) => {}
        Err(e @ AccountError::Throttled { .. }) => {
            return Ok(failure_page(
                StatusCode::TOO_MANY_REQUESTS,
                &capitalised(&e.to_string()),
            ));
        }
        Err(e) => return Err(Failure::Internal(e.to_string())),
    }
    match web.service.decline_invitation(&token, req.client_ip) {
        Ok(_) => page(
            StatusCode::OK,
            &Declined {
                layout: Layout::public("Invitation declined", INVITATION_PAGES),
                heading: "Invitation declined",
                text: "You declined the invitation; its link no longer works. The workspace's owners see that it was declined.".to_owned(),
                link: Some(("/", "Go to the home page")),
            },
        ),
        Err(InvitationError::InvalidToken) => Ok(invalid()),
        Err(e) => Err(failure(e)),
    }
}

/// The failure of an unexpected invitation error.
fn failure(e: InvitationError) -> Failure {
    match e {
        InvitationError::Store(e) => Failure::Store(e),
        other => Failure::Internal(other.to_string()),
    }
}
