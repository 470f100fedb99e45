//! Passkeys in the dashboard: adding one and removing one on the security page, a login with a passkey instead of the password, and a login's second step finished with one. Each ceremony is two posts: the page's script asks for the challenge (a JSON answer), the browser's authenticator answers it, and the form posts the answer.

use http::StatusCode;
use qr_domain::passkeys::{CeremonyToken, ChallengeOptions, PasskeyError};
use qr_domain::{Clock, Store};

use super::public::{self, capitalised};
use super::security::{self, SECURITY_PATH};
use super::{Failure, User};
use crate::Web;
use crate::request::WebRequest;
use crate::response::{WebResponse, json, redirect};

/// Why passkeys are not offered on this server.
pub(crate) const UNAVAILABLE: &str = "Passkeys need the service on a domain name (its base URL is an IP address, which browsers do not offer passkeys to).";

/// The status of a refusal, or the failure it is.
fn status_of(e: &PasskeyError) -> Result<StatusCode, Failure> {
    Ok(match e {
        PasskeyError::Store(e) => return Err(Failure::Store(e.clone())),
        PasskeyError::Random(e) => return Err(Failure::Internal(e.to_string())),
        PasskeyError::Verifier(e) => return Err(Failure::Internal(e.to_string())),
        PasskeyError::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
        PasskeyError::Disabled | PasskeyError::WrongPassword => StatusCode::FORBIDDEN,
        PasskeyError::NotAccepted | PasskeyError::Expired | PasskeyError::LoginExpired => {
            StatusCode::UNAUTHORIZED
        }
        PasskeyError::NotFound => StatusCode::NOT_FOUND,
        PasskeyError::TooMany | PasskeyError::AlreadyAdded | PasskeyError::NoPasskey => {
            StatusCode::CONFLICT
        }
        PasskeyError::Name(_) | PasskeyError::Response(_) => StatusCode::UNPROCESSABLE_ENTITY,
    })
}

/// The challenge as the page's script reads it: `{"ceremony": token, "publicKey": options}`, or
/// `{"error": message}` with the refusal's status.
fn challenge_answer(
    outcome: Result<(CeremonyToken, ChallengeOptions), PasskeyError>,
) -> Result<WebResponse, Failure> {
    match outcome {
        // The token is 64 hex digits and the options are the verifier's JSON: nothing to escape.
        Ok((token, options)) => Ok(json(
            StatusCode::OK,
            format!(
                r#"{{"ceremony":"{}","publicKey":{}}}"#,
                token.expose(),
                options.as_str()
            ),
        )),
        Err(e) => {
            let status = status_of(&e)?;
            let body = serde_json::json!({ "error": capitalised(&e.to_string()) }).to_string();
            Ok(json(status, body))
        }
    }
}

/// The script's answer when passkeys are off on this server.
fn unavailable_answer() -> WebResponse {
    let body = serde_json::json!({ "error": UNAVAILABLE }).to_string();
    json(StatusCode::NOT_FOUND, body)
}

/// `POST /dashboard/account/security/passkeys/options`: a registration challenge for the user.
pub(super) fn registration_options<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let Some(verifier) = web.passkeys.as_deref() else {
        return Ok(unavailable_answer());
    };
    challenge_answer(web.service.begin_passkey_registration(&user.ctx, verifier))
}

/// `POST /dashboard/account/security/passkeys`: the authenticator's answer and the name make a
/// passkey.
pub(super) fn add<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    let Some(verifier) = web.passkeys.as_deref() else {
        return security::passkey_refused(web, user, StatusCode::NOT_FOUND, UNAVAILABLE);
    };
    match web.service.finish_passkey_registration(
        &user.ctx,
        verifier,
        form.text("ceremony"),
        form.text("name"),
        form.text("response"),
        user.req.client_ip,
    ) {
        Ok(_) => Ok(redirect(&format!("{SECURITY_PATH}?done=passkey-added"))),
        Err(e) => {
            let status = status_of(&e)?;
            security::passkey_refused(web, user, status, &capitalised(&e.to_string()))
        }
    }
}

/// `POST /dashboard/account/security/passkeys/{id}/remove`: one passkey gone, after the password.
pub(super) fn remove<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    match web
        .service
        .remove_passkey(&user.ctx, id, form.text("password"), user.req.client_ip)
    {
        Ok(()) => Ok(redirect(&format!("{SECURITY_PATH}?done=passkey-removed"))),
        Err(PasskeyError::NotFound) => Err(Failure::NotFound),
        Err(e) => {
            let status = status_of(&e)?;
            security::passkey_refused(web, user, status, &capitalised(&e.to_string()))
        }
    }
}

/// `POST /dashboard/login/passkey/options`: a challenge any passkey of the service may answer.
pub(super) fn login_options<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    web.anonymous_form(req)?;
    let Some(verifier) = web.passkeys.as_deref() else {
        return Ok(unavailable_answer());
    };
    challenge_answer(web.service.begin_passkey_login(verifier, req.client_ip))
}

/// `POST /dashboard/login/passkey`: the answer signs its passkey's user in.
pub(super) fn log_in<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let form = web.anonymous_form(req)?;
    let Some(verifier) = web.passkeys.as_deref() else {
        return public::login_refused(web, req, StatusCode::NOT_FOUND, UNAVAILABLE);
    };
    let ua = req.user_agent();
    match web.service.finish_passkey_login(
        verifier,
        form.text("ceremony"),
        form.text("response"),
        req.client_ip,
        ua.as_deref(),
    ) {
        Ok((_, secret)) => {
            let next = public::return_path(form.text("next")).unwrap_or("/dashboard");
            let mut response = redirect(next);
            web.set_session(&mut response, secret.expose());
            Ok(response)
        }
        Err(e) => {
            let status = status_of(&e)?;
            public::login_refused(web, req, status, &capitalised(&e.to_string()))
        }
    }
}

/// `POST /dashboard/login/second-factor/passkey/options`: a challenge the pending login's user's
/// passkeys may answer.
pub(super) fn second_step_options<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    web.anonymous_form(req)?;
    let Some(verifier) = web.passkeys.as_deref() else {
        return Ok(unavailable_answer());
    };
    let pending = public::pending_login(web, req).unwrap_or_default();
    challenge_answer(web.service.begin_passkey_second_step(verifier, &pending))
}

/// `POST /dashboard/login/second-factor/passkey`: the answer finishes the pending login.
pub(super) fn second_step<S: Store, C: Clock>(
    web: &Web<S, C>,
    req: &WebRequest,
) -> Result<WebResponse, Failure> {
    let form = web.anonymous_form(req)?;
    let Some(pending) = public::pending_login(web, req) else {
        return Ok(redirect("/dashboard/login"));
    };
    let Some(verifier) = web.passkeys.as_deref() else {
        return public::second_factor_refused(web, req, StatusCode::NOT_FOUND, UNAVAILABLE, false);
    };
    let ua = req.user_agent();
    match web.service.finish_passkey_second_step(
        verifier,
        &pending,
        form.text("ceremony"),
        form.text("response"),
        req.client_ip,
        ua.as_deref(),
    ) {
        Ok((_, secret)) => Ok(public::logged_in_after_second_step(
            web,
            req,
            secret.expose(),
        )),
        Err(e) => {
            let status = status_of(&e)?;
            // Only a gone pending login asks for the password again; an expired ceremony
            // leaves the pending login for another try.
            let expired = e == PasskeyError::LoginExpired;
            public::second_factor_refused(web, req, status, &capitalised(&e.to_string()), expired)
        }
    }
}
