//! `/dashboard/account/security`: two-factor login for the user (set up an authenticator app from a QR code drawn by qr-core, confirm it with a code, the ten recovery codes shown once, new codes, turning it off), their passkeys (listed here; added and removed by `passkeys.rs`) and, for owners and admins, the workspace's requirement of a second factor.

use askama::Template;
use http::StatusCode;
use qr_core::{Format, RenderOptions, Size};
use qr_domain::accounts::permissions::Operation;
use qr_domain::dashboard::recovery::RecoveryCode;
use qr_domain::dashboard::two_factor::{TOTP_ISSUER, TwoFactorError, TwoFactorStatus};
use qr_domain::{Clock, Store};

use super::public::capitalised;
use super::{Failure, Layout, User, page, when};
use crate::Web;
use crate::response::{self, WebResponse, redirect};

/// The QR code's width in pixels: 41 modules (version 6, what a key URI of about 130
/// characters needs at level M) with the quiet zone at 5 pixels each, readable by a phone held
/// at a screen.
const QR_PIXELS: u32 = 250;

/// The page's path.
pub(crate) const SECURITY_PATH: &str = "/dashboard/account/security";

#[derive(Template)]
#[template(path = "security.html")]
struct SecurityPage {
    layout: Layout,
    csrf: String,
    /// The workspace requires a second factor the user does not have yet.
    required_here: bool,
    /// Off, pending (with the secret in base32 and the key URI), or on.
    state: &'static str,
    secret: String,
    uri: String,
    codes_left: usize,
    /// Whether the user may change the workspace's requirement, and its state.
    manage_workspace: bool,
    workspace_requires: bool,
    error: Option<String>,
    workspace_error: Option<String>,
    /// Whether passkeys can be added here (the server is a WebAuthn relying party).
    passkeys_available: bool,
    unavailable: &'static str,
    passkeys: Vec<PasskeyRow>,
    passkey_error: Option<String>,
}

/// A passkey as its table row shows it.
struct PasskeyRow {
    /// The credential id in hex: the element ids and the removal form's path.
    id: String,
    name: String,
    added: String,
    last_used: String,
}

#[derive(Template)]
#[template(path = "recovery_codes.html")]
struct RecoveryCodesPage {
    layout: Layout,
    codes: Vec<String>,
}

fn view<S: Store, C: Clock>(web: &Web<S, C>, user: &User<'_>) -> Result<SecurityPage, Failure> {
    let ctx = &user.ctx;
    let mut v = SecurityPage {
        layout: user.layout("Security", "account"),
        csrf: user.csrf(),
        required_here: ctx.must_enrol_two_factor(),
        state: "off",
        secret: String::new(),
        uri: String::new(),
        codes_left: 0,
        manage_workspace: ctx.may(Operation::WriteSettings),
        workspace_requires: ctx.two_factor_required,
        error: None,
        workspace_error: None,
        passkeys_available: web.passkeys.is_some(),
        unavailable: super::passkeys::UNAVAILABLE,
        passkeys: web
            .service
            .passkeys(ctx.user.id)?
            .into_iter()
            .map(|p| PasskeyRow {
                id: p.credential_id.to_hex(),
                name: p.name.as_str().to_owned(),
                added: when(p.created_at),
                last_used: p.last_used_at.map_or_else(|| "never".to_owned(), when),
            })
            .collect(),
        passkey_error: None,
    };
    match web.service.two_factor_status(ctx.user.id)? {
        TwoFactorStatus::Off => {}
        TwoFactorStatus::Pending(secret) => {
            v.state = "pending";
            v.secret = secret.to_base32();
            v.uri = secret.otpauth_uri(TOTP_ISSUER, ctx.user.email.as_str());
        }
        TwoFactorStatus::On {
            recovery_codes_left,
        } => {
            v.state = "on";
            v.codes_left = recovery_codes_left;
        }
    }
    Ok(v)
}

pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    page(StatusCode::OK, &view(web, user)?)
}

/// A domain refusal as the page with its message, or the failure it is.
fn refused<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    e: TwoFactorError,
    by_workspace_form: bool,
) -> Result<WebResponse, Failure> {
    let status = match &e {
        TwoFactorError::Store(e) => return Err(Failure::Store(e.clone())),
        TwoFactorError::Random(e) => return Err(Failure::Internal(e.to_string())),
        TwoFactorError::NotPermitted(_) => return Err(Failure::Forbidden),
        TwoFactorError::WrongPassword => StatusCode::FORBIDDEN,
        TwoFactorError::AlreadyOn | TwoFactorError::NotOn | TwoFactorError::EnrolFirst => {
            StatusCode::CONFLICT
        }
        TwoFactorError::WrongCode => StatusCode::UNPROCESSABLE_ENTITY,
    };
    let mut v = view(web, user)?;
    let message = Some(capitalised(&e.to_string()));
    if by_workspace_form {
        v.workspace_error = message;
    } else {
        v.error = message;
    }
    page(status, &v)
}

/// The page again with a passkey form's refusal beside the passkeys.
pub(super) fn passkey_refused<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    status: StatusCode,
    message: &str,
) -> Result<WebResponse, Failure> {
    let mut v = view(web, user)?;
    v.passkey_error = Some(message.to_owned());
    page(status, &v)
}

/// The recovery codes, shown this once.
fn codes_page(user: &User<'_>, codes: &[RecoveryCode]) -> Result<WebResponse, Failure> {
    let mut r = page(
        StatusCode::OK,
        &RecoveryCodesPage {
            layout: user.layout("Recovery codes", "account"),
            codes: codes.iter().map(|c| c.expose_secret().to_owned()).collect(),
        },
    )?;
    r.headers_mut().insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-store"),
    );
    Ok(r)
}

/// `POST …/security/totp`: a new pending secret, shown on the page.
pub(super) fn begin<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    user.form()?;
    match web.service.begin_totp_enrolment(&user.ctx) {
        Ok(_) => Ok(redirect(SECURITY_PATH)),
        Err(e) => refused(web, user, e, false),
    }
}

/// `GET …/security/totp.png`: the pending secret's key URI as a QR code (404 without one).
pub(super) fn qr_code<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let TwoFactorStatus::Pending(secret) = web.service.two_factor_status(user.ctx.user.id)? else {
        return Err(Failure::NotFound);
    };
    let uri = secret.otpauth_uri(TOTP_ISSUER, user.ctx.user.email.as_str());
    let size = Size::new(QR_PIXELS).map_err(|e| Failure::Internal(e.to_string()))?;
    let png = qr_core::render(&uri, &RenderOptions::default().with_size(size))
        .map_err(|e| Failure::Internal(e.to_string()))?;
    Ok(response::image(Format::Png, png, None))
}

/// `POST …/security/totp/confirm`: the app's code turns two-factor login on; the recovery
/// codes are the answer.
pub(super) fn confirm<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    match web
        .service
        .confirm_totp_enrolment(&user.ctx, form.text("code"), user.req.client_ip)
    {
        Ok(codes) => codes_page(user, &codes),
        Err(e) => refused(web, user, e, false),
    }
}

/// `POST …/security/recovery-codes`: a new set after the password.
pub(super) fn regenerate<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    match web
        .service
        .regenerate_recovery_codes(&user.ctx, form.text("password"))
    {
        Ok(codes) => codes_page(user, &codes),
        Err(e) => refused(web, user, e, false),
    }
}

/// `POST …/security/disable`: two-factor login off, after the password.
pub(super) fn disable<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    match web
        .service
        .disable_two_factor(&user.ctx, form.text("password"), user.req.client_ip)
    {
        Ok(()) => Ok(redirect(&format!("{SECURITY_PATH}?done=two-factor-off"))),
        Err(e) => refused(web, user, e, false),
    }
}

/// `POST …/security/require`: the workspace's requirement on (the checkbox `required` sent) or
/// off.
pub(super) fn require<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    let caller = user.caller();
    let (outcome, done) = if form.text("required") == "on" {
        (
            web.service.require_two_factor(&caller, &user.ctx),
            "two-factor-required",
        )
    } else {
        (
            web.service.stop_requiring_two_factor(&caller),
            "two-factor-optional",
        )
    };
    match outcome {
        Ok(()) => Ok(redirect(&format!("{SECURITY_PATH}?done={done}"))),
        Err(e) => refused(web, user, e, true),
    }
}
