//! `/dashboard/domains`: the account's own domains (name in both forms, status with its reason, where the domain points), adding one (then its page shows the TXT record to create), checking its DNS, its settings (root and not-found addresses, app association files), removing it, and its orphan visits.

use askama::Template;
use http::StatusCode;
use qr_domain::domains::domain::{Domain, DomainStatus, Routing};
use qr_domain::domains::orphan::OrphanReport;
use qr_domain::domains::service::{DomainError, DomainSetting, DomainUpdate};
use qr_domain::{Clock, DomainId, Limit, Store};

use super::{Failure, Layout, User, page, read_or_post, thousands, when};
use crate::Web;
use crate::request::Fields;
use crate::response::{WebResponse, redirect};

/// A domain as the pages show it.
pub(crate) struct DomainRow {
    pub(crate) id: String,
    /// The ASCII (Punycode) form, as DNS and the TXT record name it.
    pub(crate) name: String,
    /// The Unicode form when it differs from the ASCII one.
    pub(crate) unicode: Option<String>,
    /// `pending`, `verified` or `failing`.
    pub(crate) status: &'static str,
    /// Why it is pending or failing, as the domain words it.
    pub(crate) reason: Option<String>,
    /// Where its address records lead, as of the latest check.
    pub(crate) routing: String,
    pub(crate) last_check: String,
    pub(crate) created: String,
    /// `_qr-verify.<domain>`.
    pub(crate) record_name: String,
    /// `qr-verify=<token>`.
    pub(crate) record_value: String,
}

impl DomainRow {
    pub(crate) fn of(d: &Domain) -> Self {
        let unicode = d.name.unicode();
        Self {
            id: d.id.to_string(),
            name: d.name.as_str().to_owned(),
            unicode: (unicode != d.name.as_str()).then_some(unicode),
            status: match d.status() {
                DomainStatus::Pending => "pending",
                DomainStatus::Verified => "verified",
                DomainStatus::Failing => "failing",
            },
            reason: d.reason(),
            routing: routing_text(d.verification.routing.as_ref()),
            last_check: d
                .verification
                .last_check
                .as_ref()
                .map_or_else(|| "never".to_owned(), |c| when(c.at)),
            created: when(d.created_at),
            record_name: d.name.verification_name(),
            record_value: d.token.txt_value(),
        }
    }
}

/// Where a domain's records lead, as a phrase.
fn routing_text(routing: Option<&Routing>) -> String {
    match routing {
        None => "not checked yet".to_owned(),
        Some(Routing::PointsAtService) => "points at this service".to_owned(),
        Some(Routing::PointsElsewhere { found }) => {
            format!("points elsewhere: {}", found.join(", "))
        }
        Some(Routing::NoAddress) => "no A, AAAA or CNAME record".to_owned(),
        Some(Routing::Unknown { reason }) => format!("unknown: {reason}"),
    }
}

#[derive(Template)]
#[template(path = "domains.html")]
struct DomainsPage {
    layout: Layout,
    csrf: String,
    domains: Vec<DomainRow>,
    /// The refusal naming the plan needed, when the account's plan has no domains.
    plan_needed: Option<String>,
    /// What was typed in the add form.
    name: String,
    error: Option<String>,
}

/// `GET` lists the domains; `POST` adds one and goes to its page (the TXT record to create).
pub(super) fn index<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    if user.req.is_read() {
        return list(web, user, StatusCode::OK, String::new(), None);
    }
    let form = user.form()?;
    let name = form.text("domain").to_owned();
    match web
        .service
        .add_domain(&user.ctx.caller(user.req.client_ip), &name)
    {
        Ok(domain) => Ok(redirect(&format!(
            "/dashboard/domains/{}?done=domain-added",
            domain.id
        ))),
        Err(e @ (DomainError::Name(_) | DomainError::Taken(_))) => list(
            web,
            user,
            StatusCode::UNPROCESSABLE_ENTITY,
            name,
            Some(e.to_string()),
        ),
        Err(e @ DomainError::LimitReached { .. }) => {
            list(web, user, StatusCode::FORBIDDEN, name, Some(e.to_string()))
        }
        Err(e) => Err(failure(e)),
    }
}

fn list<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    status: StatusCode,
    name: String,
    error: Option<String>,
) -> Result<WebResponse, Failure> {
    let account = &user.ctx.account;
    let domains = web.service.domains(account.id)?;
    // The domain's own refusal, said before the customer tries.
    let plan_needed = (account.limits().domains == Limit::Max(0)).then(|| {
        DomainError::LimitReached {
            plan: account.plan,
            limit: 0,
        }
        .to_string()
    });
    page(
        status,
        &DomainsPage {
            layout: user.layout("Domains", "domains"),
            csrf: user.csrf(),
            domains: domains.iter().map(DomainRow::of).collect(),
            plan_needed,
            name,
            error,
        },
    )
}

/// A day of orphan visits as the page shows it.
struct OrphanDayRow {
    date: String,
    visits: String,
}

/// An orphan visit as the page shows it.
struct OrphanRow {
    path: String,
    at: String,
    country: String,
    device: &'static str,
}

/// The settings form's values, as stored or as typed.
#[derive(Default)]
struct SettingsForm {
    root_url: String,
    not_found_url: String,
    apple: String,
    assetlinks: String,
    /// The app schemes, separated by commas or spaces.
    app_schemes: String,
}

impl SettingsForm {
    fn of(d: &Domain) -> Self {
        let s = &d.settings;
        Self {
            root_url: s
                .root_url
                .as_ref()
                .map(|u| u.as_str().to_owned())
                .unwrap_or_default(),
            not_found_url: s
                .not_found_url
                .as_ref()
                .map(|u| u.as_str().to_owned())
                .unwrap_or_default(),
            apple: s
                .apple_app_site_association
                .as_ref()
                .map(|f| f.as_str().to_owned())
                .unwrap_or_default(),
            assetlinks: s
                .assetlinks
                .as_ref()
                .map(|f| f.as_str().to_owned())
                .unwrap_or_default(),
            app_schemes: s
                .app_schemes
                .iter()
                .map(|a| a.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    fn submitted(form: &Fields) -> Self {
        Self {
            root_url: form.text("rootUrl").trim().to_owned(),
            not_found_url: form.text("notFoundUrl").trim().to_owned(),
            apple: form.text("appleAppSiteAssociation").trim().to_owned(),
            assetlinks: form.text("assetlinks").trim().to_owned(),
            app_schemes: form.text("appSchemes").trim().to_owned(),
        }
    }

    /// The update: each blank field clears its setting, each filled one is set through the
    /// domain's setter (which checks it).
    fn update(&self) -> Result<DomainUpdate, DomainError> {
        let mut u = DomainUpdate::default();
        let blank = |s: &str| s.is_empty();
        if blank(&self.root_url) {
            u.clear(DomainSetting::RootUrl);
        } else {
            u.set_root_url(&self.root_url)?;
        }
        if blank(&self.not_found_url) {
            u.clear(DomainSetting::NotFoundUrl);
        } else {
            u.set_not_found_url(&self.not_found_url)?;
        }
        if blank(&self.apple) {
            u.clear(DomainSetting::AppleAppSiteAssociation);
        } else {
            u.set_apple_app_site_association(&self.apple)?;
        }
        if blank(&self.assetlinks) {
            u.clear(DomainSetting::Assetlinks);
        } else {
            u.set_assetlinks(&self.assetlinks)?;
        }
        // Commas or spaces separate the schemes; none clears them.
        let schemes: Vec<&str> = self
            .app_schemes
            .split([',', ' ', '\t', '\n', '\r'])
            .filter(|s| !s.is_empty())
            .collect();
        u.set_app_schemes(&schemes)?;
        Ok(u)
    }
}

#[derive(Template)]
#[template(path = "domain.html")]
struct DomainPage {
    layout: Layout,
    csrf: String,
    d: DomainRow,
    /// Whether new links may be put on it now.
    accepts_links: bool,
    s: SettingsForm,
    daily: Vec<OrphanDayRow>,
    orphans: Vec<OrphanRow>,
    orphan_total: String,
    error: Option<String>,
}

fn detail<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    domain: &Domain,
    status: StatusCode,
    settings: SettingsForm,
    error: Option<String>,
) -> Result<WebResponse, Failure> {
    let OrphanReport { daily, recent } = web
        .service
        .orphan_visits(user.ctx.account.id, domain.id)
        .map_err(failure)?;
    let total: u64 = daily.iter().map(|d| d.visits).sum();
    let title = format!("Domain {}", domain.name.unicode());
    page(
        status,
        &DomainPage {
            layout: user.layout(&title, "domains"),
            csrf: user.csrf(),
            d: DomainRow::of(domain),
            accepts_links: domain.accepts_links(web.service.now()),
            s: settings,
            daily: daily
                .iter()
                .rev()
                .map(|d| OrphanDayRow {
                    date: d.date.to_string(),
                    visits: thousands(d.visits),
                })
                .collect(),
            orphans: recent
                .iter()
                .map(|v| OrphanRow {
                    path: v.path.clone(),
                    at: when(v.at),
                    country: v.country.clone().unwrap_or_else(|| "–".to_owned()),
                    device: v.device.as_str(),
                })
                .collect(),
            orphan_total: thousands(total),
            error,
        },
    )
}

fn own_domain<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<Domain, Failure> {
    let id: DomainId = id.parse().map_err(|_| Failure::NotFound)?;
    web.service.domain(user.ctx.account.id, id).map_err(failure)
}

/// `GET /dashboard/domains/{id}` shows the domain (its TXT record, status, settings and orphan
/// visits); `POST` saves its settings.
pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    let domain = own_domain(web, user, id)?;
    if user.req.is_read() {
        let settings = SettingsForm::of(&domain);
        return detail(web, user, &domain, StatusCode::OK, settings, None);
    }
    let form = user.form()?;
    let typed = SettingsForm::submitted(&form);
    let saved = typed.update().and_then(|u| {
        web.service
            .update_domain(&user.ctx.caller(user.req.client_ip), domain.id, &u)
    });
    match saved {
        Ok(_) => Ok(redirect(&format!(
            "/dashboard/domains/{}?done=domain-saved",
            domain.id
        ))),
        Err(
            e
            @ (DomainError::Url { .. } | DomainError::AppFile { .. } | DomainError::AppSchemes(_)),
        ) => detail(
            web,
            user,
            &domain,
            StatusCode::UNPROCESSABLE_ENTITY,
            typed,
            Some(e.to_string()),
        ),
        Err(e) => Err(failure(e)),
    }
}

/// `POST /dashboard/domains/{id}/check`: looks up its TXT record now.
pub(super) fn check<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let domain = own_domain(web, user, id)?;
    match web
        .service
        .check_domain(&user.ctx.caller(user.req.client_ip), domain.id)
    {
        Ok(_) => Ok(redirect(&format!(
            "/dashboard/domains/{}?done=domain-checked",
            domain.id
        ))),
        Err(e @ DomainError::DnsUnavailable) => detail(
            web,
            user,
            &domain,
            StatusCode::SERVICE_UNAVAILABLE,
            SettingsForm::of(&domain),
            Some(e.to_string()),
        ),
        Err(e) => Err(failure(e)),
    }
}

/// `POST /dashboard/domains/{id}/delete`: removes it, unless links use it (409 with how many).
pub(super) fn delete<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let domain = own_domain(web, user, id)?;
    match web
        .service
        .delete_domain(&user.ctx.caller(user.req.client_ip), domain.id)
    {
        Ok(()) => Ok(redirect("/dashboard/domains?done=domain-deleted")),
        Err(e @ DomainError::InUse { .. }) => detail(
            web,
            user,
            &domain,
            StatusCode::CONFLICT,
            SettingsForm::of(&domain),
            Some(e.to_string()),
        ),
        Err(e) => Err(failure(e)),
    }
}

/// The failure page of an error no form shows.
fn failure(e: DomainError) -> Failure {
    match e {
        DomainError::NotFound => Failure::NotFound,
        DomainError::NotPermitted(_) => Failure::Forbidden,
        DomainError::Store(e) => Failure::Store(e),
        e => Failure::Internal(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_settings_clear_and_filled_ones_are_checked() {
        let u = SettingsForm::default().update().unwrap();
        assert_eq!(u.root_url, Some(None));
        assert_eq!(u.assetlinks, Some(None));
        let typed = SettingsForm {
            root_url: "https://brand.example/".to_owned(),
            apple: "[]".to_owned(),
            ..SettingsForm::default()
        };
        assert_eq!(
            typed.update().unwrap_err().to_string(),
            "Invalid appleAppSiteAssociation: this app association file must be a JSON object"
        );
        let schemes = SettingsForm {
            app_schemes: " BrandApp,otherapp  third\n".to_owned(),
            ..SettingsForm::default()
        };
        assert_eq!(
            schemes
                .update()
                .unwrap()
                .app_schemes
                .unwrap()
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>(),
            ["brandapp", "otherapp", "third"]
        );
        assert_eq!(u.app_schemes, Some(Vec::new()), "blank clears them");
        assert_eq!(routing_text(None), "not checked yet");
        assert_eq!(
            routing_text(Some(&Routing::PointsElsewhere {
                found: vec!["a.example".to_owned(), "192.0.2.1".to_owned()]
            })),
            "points elsewhere: a.example, 192.0.2.1"
        );
    }
}
