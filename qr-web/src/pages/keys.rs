//! `/dashboard/keys`: the account's keys with their access; creating one (full access or scopes; its secret shown once, in `#new-api-key`), regenerating, revoking, and each key's settings, parsed and validated by the domain exactly as `qr keys set` does.

use askama::Template;
use http::StatusCode;
use qr_domain::accounts::access::{IpRule, OriginPattern};
use qr_domain::accounts::key::KeyCreator;
use qr_domain::accounts::permissions::{Scope, ScopeError, ScopeSet};
use qr_domain::accounts::plan::PerSecond;
use qr_domain::service::AdminError;
use qr_domain::{ApiKey, ApiKeySecret, Clock, Endpoint, KeyId, KeyMode, KeySettings, Store};

use super::public::capitalised;
use super::{Failure, Layout, User, ok, page, when};
use crate::Web;
use crate::request::Fields;
use crate::response::{WebResponse, redirect};

/// A key as the list shows it.
struct KeyRow {
    id: String,
    name: String,
    mode: &'static str,
    shown: String,
    created: String,
    last_used: String,
    /// "Full access", or the key's scopes by name.
    access: String,
    /// Who made the key: a user's current address, the operator, or a dash for keys made
    /// before this was kept.
    created_by: String,
}

/// A scope's checkbox: its name, the name as an element id may hold it (`links-read`), what it
/// reaches, and whether it is checked.
struct ScopeBox {
    name: &'static str,
    slug: String,
    description: &'static str,
    checked: bool,
}

/// The access choice of the create and settings forms (`key_access.html`): full access, or the
/// checked scopes, with the domain's refusal of the choice.
struct AccessChoice {
    scoped: bool,
    scopes: Vec<ScopeBox>,
    error: Option<String>,
}

/// The create form as submitted, shown again with its refusal.
struct CreateForm {
    name: String,
    test: bool,
    access: AccessChoice,
}

/// A key's secret, shown once after creation or regeneration.
struct NewKey {
    name: String,
    secret: String,
}

#[derive(Template)]
#[template(path = "keys.html")]
struct KeysPage {
    layout: Layout,
    csrf: String,
    keys: Vec<KeyRow>,
    new_key: Option<NewKey>,
    form: CreateForm,
    error: Option<String>,
    verified: bool,
}

impl AccessChoice {
    /// The choice showing `scopes` (`None`: full access).
    fn of(scopes: Option<&ScopeSet>) -> Self {
        Self {
            scoped: scopes.is_some(),
            scopes: Scope::ALL
                .into_iter()
                .map(|scope| ScopeBox {
                    name: scope.as_str(),
                    slug: scope.as_str().replace(':', "-"),
                    description: scope.describe(),
                    checked: scopes.is_some_and(|set| set.contains(scope)),
                })
                .collect(),
            error: None,
        }
    }

    /// What a form asks for, and the choice to show it again: `access=full` is full access,
    /// `access=scoped` the checked `scope` boxes (none, or an unknown name, is the domain's
    /// refusal); a form without the choice (a client posting only the other fields) keeps
    /// `current`, so scopes are never dropped by a form that did not speak of them.
    fn submitted(
        form: &Fields,
        current: Option<&ScopeSet>,
    ) -> (Self, Result<Option<ScopeSet>, ScopeError>) {
        let checked = form.all("scope");
        let chosen = match form.text("access") {
            "full" => Ok(None),
            "scoped" => ScopeSet::parse(checked.iter().copied()).map(Some),
            _ => Ok(current.cloned()),
        };
        let mut view = Self::of(chosen.as_ref().ok().and_then(Option::as_ref));
        if let Err(e) = &chosen {
            view.scoped = true;
            for b in &mut view.scopes {
                b.checked = checked.contains(&b.name);
            }
            view.error = Some(capitalised(&e.to_string()));
        }
        (view, chosen)
    }
}

impl CreateForm {
    fn blank() -> Self {
        Self {
            name: String::new(),
            test: false,
            access: AccessChoice::of(None),
        }
    }
}

/// How the keys list shows a key's access.
fn access_text(scopes: Option<&ScopeSet>) -> String {
    match scopes {
        None => "Full access".to_owned(),
        Some(set) => set.iter().map(Scope::as_str).collect::<Vec<_>>().join(", "),
    }
}

/// Who made a key, as the list shows it; a user who is gone no longer has an address to show.
fn creator_text<S: Store, C: Clock>(web: &Web<S, C>, k: &ApiKey) -> Result<String, Failure> {
    Ok(match k.created_by {
        None => "—".to_owned(),
        Some(KeyCreator::Operator) => "the operator".to_owned(),
        Some(KeyCreator::User(id)) => match web.service.user(id) {
            Ok(user) => user.email.to_string(),
            Err(AdminError::UserNotFound(_)) => "a former user".to_owned(),
            Err(AdminError::Store(e)) => return Err(e.into()),
            Err(e) => return Err(Failure::Internal(e.to_string())),
        },
    })
}

fn row<S: Store, C: Clock>(web: &Web<S, C>, k: &ApiKey) -> Result<KeyRow, Failure> {
    let last = if k.last_four.is_empty() {
        "????"
    } else {
        &k.last_four
    };
    Ok(KeyRow {
        id: k.id.to_string(),
        name: k.name.clone(),
        mode: k.mode.as_str(),
        shown: format!("{}…{last}", k.display_prefix),
        created: when(k.created_at),
        last_used: k.last_used_at.map_or_else(|| "never".to_owned(), when),
        access: access_text(k.settings.scopes.as_ref()),
        created_by: creator_text(web, k)?,
    })
}

fn list<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    status: StatusCode,
    new_key: Option<(ApiKey, ApiKeySecret)>,
    form: CreateForm,
    error: Option<String>,
) -> Result<WebResponse, Failure> {
    let keys = web.service.keys(user.ctx.account.id)?;
    let keys = keys
        .iter()
        .map(|k| row(web, k))
        .collect::<Result<Vec<_>, _>>()?;
    page(
        status,
        &KeysPage {
            layout: user.layout("API keys", "keys"),
            csrf: user.csrf(),
            keys,
            new_key: new_key.map(|(k, s)| NewKey {
                name: k.name,
                secret: s.expose_secret().to_owned(),
            }),
            form,
            error,
            verified: user.ctx.user.is_verified(),
        },
    )
}

/// `GET` lists the keys; `POST` creates one.
pub(super) fn index<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    super::read_or_post(user.req)?;
    if user.req.is_read() {
        return list(web, user, StatusCode::OK, None, CreateForm::blank(), None);
    }
    let form = user.form()?;
    let test = form.text("mode") == "test";
    let mode = if test { KeyMode::Test } else { KeyMode::Live };
    // A form without the access choice creates a full-access key, as before scopes.
    let (access, scopes) = AccessChoice::submitted(&form, None);
    let submitted = CreateForm {
        name: form.text("name").to_owned(),
        test,
        access,
    };
    let Ok(scopes) = scopes else {
        return list(
            web,
            user,
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            submitted,
            None,
        );
    };
    match web
        .service
        .create_own_key(&user.caller(), form.text("name"), mode, scopes)
    {
        Ok(created) => list(
            web,
            user,
            StatusCode::CREATED,
            Some(created),
            CreateForm::blank(),
            None,
        ),
        Err(e @ (AdminError::NotVerified | AdminError::KeyName(_))) => list(
            web,
            user,
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            submitted,
            Some(capitalised(&e.to_string())),
        ),
        Err(e) => Err(not_found_or(e)),
    }
}

fn key_id(raw: &str) -> Result<KeyId, Failure> {
    raw.parse().map_err(|_| Failure::NotFound)
}

fn not_found_or(e: AdminError) -> Failure {
    match e {
        AdminError::KeyNotFound(_) | AdminError::AccountNotFound(_) | AdminError::NotAllowed => {
            Failure::NotFound
        }
        AdminError::NotPermitted(_) => Failure::Forbidden,
        AdminError::Store(e) => Failure::Store(e),
        other => Failure::Internal(other.to_string()),
    }
}

pub(super) fn regenerate<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let regenerated = web
        .service
        .regenerate_own_key(&user.caller(), key_id(id)?)
        .map_err(not_found_or)?;
    list(
        web,
        user,
        StatusCode::OK,
        Some(regenerated),
        CreateForm::blank(),
        None,
    )
}

pub(super) fn revoke<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    web.service
        .revoke_own_key(&user.caller(), key_id(id)?)
        .map_err(not_found_or)?;
    Ok(redirect("/dashboard/keys?done=key-revoked"))
}

/// An endpoint's checkbox.
struct EndpointBox {
    name: &'static str,
    enabled: bool,
}

#[derive(Template)]
#[template(path = "key_settings.html")]
struct SettingsPage {
    layout: Layout,
    csrf: String,
    key: KeyRow,
    origins: String,
    ips: String,
    rate: String,
    plan_rate: u32,
    endpoints: Vec<EndpointBox>,
    access: AccessChoice,
    origins_error: Option<String>,
    ips_error: Option<String>,
    rate_error: Option<String>,
}

fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty())
}

/// `GET` shows a key's settings; `POST` replaces them.
pub(super) fn settings<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    super::read_or_post(user.req)?;
    let id = key_id(id)?;
    let key = web
        .service
        .own_key(user.ctx.account.id, id)
        .map_err(not_found_or)?;
    let plan_rate = user.ctx.account.limits().per_second.get();
    let mut view = SettingsPage {
        layout: user.layout("Key settings", "keys"),
        csrf: user.csrf(),
        key: row(web, &key)?,
        origins: key
            .settings
            .allowed_origins
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
        ips: key
            .settings
            .ip_allowlist
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
        rate: key
            .settings
            .rate_per_second
            .map(|r| r.get().to_string())
            .unwrap_or_default(),
        plan_rate,
        endpoints: Endpoint::ALL
            .iter()
            .map(|e| EndpointBox {
                name: e.as_str(),
                enabled: !key.settings.disabled_endpoints.contains(e),
            })
            .collect(),
        access: AccessChoice::of(key.settings.scopes.as_ref()),
        origins_error: None,
        ips_error: None,
        rate_error: None,
    };
    if user.req.is_read() {
        return ok(&view);
    }
    let form = user.form()?;
    view.origins = form.text("origins").to_owned();
    view.ips = form.text("ips").to_owned();
    view.rate = form.text("rate").trim().to_owned();
    let enabled = form.all("endpoint");
    for e in &mut view.endpoints {
        e.enabled = enabled.contains(&e.name);
    }
    let (access, scopes) = AccessChoice::submitted(&form, key.settings.scopes.as_ref());
    view.access = access;
    let origins: Result<Vec<OriginPattern>, _> =
        lines(&view.origins).map(OriginPattern::parse).collect();
    let ips: Result<Vec<IpRule>, _> = lines(&view.ips).map(IpRule::parse).collect();
    let rate = match view.rate.as_str() {
        "" => Ok(None),
        text => text
            .parse::<u64>()
            .map_err(|_| format!("expected a whole number of requests per second, got {text:?}"))
            .and_then(|n| PerSecond::new(n).map(Some).map_err(|e| e.to_string())),
    };
    let settings = match (origins, ips, rate, scopes) {
        (Ok(allowed_origins), Ok(ip_allowlist), Ok(rate_per_second), Ok(scopes)) => {
            Some(KeySettings {
                allowed_origins,
                ip_allowlist,
                rate_per_second,
                disabled_endpoints: Endpoint::ALL
                    .into_iter()
                    .filter(|e| !enabled.contains(&e.as_str()))
                    .collect(),
                scopes,
            })
        }
        (origins, ips, rate, _) => {
            view.origins_error = origins.err().map(|e| capitalised(&e.to_string()));
            view.ips_error = ips.err().map(|e| capitalised(&e.to_string()));
            view.rate_error = rate.err().map(|e| capitalised(&e));
            None
        }
    };
    if let Some(settings) = settings {
        match web
            .service
            .update_own_key_settings(&user.caller(), id, settings)
        {
            Ok(_) => return Ok(redirect("/dashboard/keys?done=key-saved")),
            Err(AdminError::Settings(e)) => view.rate_error = Some(capitalised(&e.to_string())),
            Err(e) => return Err(not_found_or(e)),
        }
    }
    page(StatusCode::UNPROCESSABLE_ENTITY, &view)
}
