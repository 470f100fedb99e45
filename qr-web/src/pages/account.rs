//! `/dashboard/account`: the plan (or a request for another), the e-mail address (changed after confirming the new one), the password, whether two-factor login is on (with the link to its page), the sessions with "log out everywhere", downloading its data, and deleting the account.

use std::sync::Arc;

use askama::Template;
use http::StatusCode;
use qr_domain::export::ExportError;
use qr_domain::service::{AccountError, PlanChange};
use qr_domain::{Clock, Plan, Store};
use qr_export::DownloadError;

use super::public::{capitalised, plan_name};
use super::{Failure, Layout, User, page, read_or_post, when};
use crate::Web;
use crate::mail::OutgoingMail;
use crate::response::{self, WebResponse, redirect};

struct SessionRow {
    browser: String,
    created: String,
    last_seen: String,
    current: bool,
}

struct PlanOption {
    value: &'static str,
    label: String,
    selected: bool,
}

#[derive(Template)]
#[template(path = "account.html")]
struct AccountPage {
    layout: Layout,
    csrf: String,
    email: String,
    plan: &'static str,
    pending: Option<&'static str>,
    plans: Vec<PlanOption>,
    sessions: Vec<SessionRow>,
    owner: bool,
    two_factor_on: bool,
    email_error: Option<String>,
    password_error: Option<String>,
    delete_error: Option<String>,
    export_error: Option<String>,
}

fn view<S: Store, C: Clock>(web: &Web<S, C>, user: &User<'_>) -> Result<AccountPage, Failure> {
    let account = &user.ctx.account;
    let policy = web.service.signup_policy();
    Ok(AccountPage {
        layout: user.layout("Account", "account"),
        csrf: user.csrf(),
        email: account.email.to_string(),
        plan: plan_name(account.plan),
        pending: web
            .service
            .pending_plan_request(account.id)?
            .map(|r| plan_name(r.plan)),
        plans: Plan::ALL
            .iter()
            .map(|p| PlanOption {
                value: p.as_str(),
                label: if policy.is_self_service(*p) || *p == account.plan {
                    plan_name(*p).to_owned()
                } else {
                    format!("{} (needs approval)", plan_name(*p))
                },
                selected: *p == account.plan,
            })
            .collect(),
        sessions: web
            .service
            .sessions(user.ctx.user.id)?
            .into_iter()
            .map(|s| SessionRow {
                current: s.hash == user.ctx.session.hash,
                browser: s.user_agent,
                created: when(s.created_at),
                last_seen: when(s.last_seen_at),
            })
            .collect(),
        owner: user.ctx.user.role == qr_domain::Role::Owner,
        two_factor_on: user.ctx.two_factor_on,
        email_error: None,
        password_error: None,
        delete_error: None,
        export_error: None,
    })
}

pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    page(StatusCode::OK, &view(web, user)?)
}

/// The page again with one error next to its form.
fn refused<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    status: StatusCode,
    set: impl FnOnce(&mut AccountPage, String),
    e: &AccountError,
) -> Result<WebResponse, Failure> {
    if let AccountError::Store(e) = e {
        return Err(Failure::Store(e.clone()));
    }
    let mut v = view(web, user)?;
    set(&mut v, capitalised(&e.to_string()));
    page(status, &v)
}

fn status_of(e: &AccountError) -> StatusCode {
    match e {
        AccountError::WrongPassword => StatusCode::FORBIDDEN,
        AccountError::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
        AccountError::EmailTaken(_) => StatusCode::CONFLICT,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

/// `POST` asks to move to a new address: the password is checked and the link goes to the new
/// address. (`GET` with a token is the confirmation page, served before login.)
pub(super) fn change_email<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    if user.req.is_read() {
        return Ok(redirect("/dashboard/account"));
    }
    let form = user.form()?;
    match web.service.request_email_change(
        user.ctx.user.id,
        form.text("password"),
        form.text("email"),
    ) {
        Ok((_, token)) => {
            let to = form.text("email").trim().to_owned();
            let link = web.link(&format!(
                "/dashboard/account/email?token={}",
                token.expose()
            ));
            web.outbox.enqueue(Box::new(move || {
                Some(OutgoingMail {
                    to,
                    subject: "Confirm your new e-mail address".to_owned(),
                    body: format!("Open this link within 24 hours to move your QR Platform account to this address:\n\n{link}\n\nIf you did not ask for this, ignore this message.\n"),
                })
            }));
            Ok(redirect("/dashboard/account?done=email-sent"))
        }
        Err(e) => refused(web, user, status_of(&e), |v, m| v.email_error = Some(m), &e),
    }
}

pub(super) fn change_password<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    match web.service.change_password(
        user.ctx.user.id,
        form.text("current"),
        form.text("password"),
        &user.ctx.session.hash,
    ) {
        Ok(_) => Ok(redirect("/dashboard/account?done=password")),
        Err(e) => refused(
            web,
            user,
            status_of(&e),
            |v, m| v.password_error = Some(m),
            &e,
        ),
    }
}

pub(super) fn log_out_everywhere<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    user.form()?;
    web.service.log_out_everywhere(user.ctx.user.id)?;
    let mut response = redirect("/dashboard/login");
    web.clear_session(&mut response);
    Ok(response)
}

/// `POST /dashboard/account/export`: everything stored about the account as a ZIP download (the
/// API's archive, with its cap); a larger account gets the page with the reason by the button.
pub(super) fn export<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let account = user.ctx.account.id;
    match qr_export::zip_bytes(&web.service, account, qr_export::MAX_DOWNLOAD_BYTES) {
        Ok(zip) => Ok(response::zip(zip, &format!("account-{account}.zip"))),
        Err(DownloadError::TooLarge(cap)) => {
            let mut v = view(web, user)?;
            v.export_error = Some(DownloadError::too_large_message(cap));
            page(StatusCode::UNPROCESSABLE_ENTITY, &v)
        }
        Err(DownloadError::Export(ExportError::Store(e))) => Err(e.into()),
        Err(DownloadError::Export(e)) => Err(Failure::Internal(e.to_string())),
    }
}

pub(super) fn request_plan<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    let plan = form
        .text("plan")
        .parse::<Plan>()
        .map_err(|_| Failure::NotFound)?;
    match web.service.request_plan(&user.caller(), plan) {
        Ok(PlanChange::Changed(_)) => Ok(redirect("/dashboard/account?done=plan")),
        Ok(PlanChange::Requested(_)) => Ok(redirect("/dashboard/account?done=plan-requested")),
        Err(AccountError::Store(e)) => Err(e.into()),
        Err(AccountError::NotPermitted(_)) => Err(Failure::Forbidden),
        Err(e) => Err(Failure::Internal(e.to_string())),
    }
}

/// Deletes the workspace and everything in it, after its owner's password.
pub(super) fn delete<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    let service = Arc::clone(&web.service);
    match service.delete_workspace(&user.ctx, form.text("password")) {
        Ok(()) => {
            let mut response = redirect("/?deleted=1");
            web.clear_session(&mut response);
            Ok(response)
        }
        Err(e) => refused(
            web,
            user,
            status_of(&e),
            |v, m| v.delete_error = Some(m),
            &e,
        ),
    }
}
