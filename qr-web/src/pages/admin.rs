//! `/dashboard/admin`, for the owner and admins only (404 for everyone else): every account with its plan and usage, pending plan requests to approve or decline, changing plans, disabling and enabling accounts, verifying addresses and, for the owner, making admins.

use askama::Template;
use qr_domain::ids::UserId;
use qr_domain::service::{Actor, AdminError};
use qr_domain::{AccountId, AccountStatus, Clock, Plan, Role, Store};

use super::public::plan_name;
use super::{Failure, Layout, User, ok, thousands, when};
use crate::Web;
use crate::response::{WebResponse, redirect};

struct AccountRow {
    id: String,
    email: String,
    plans: Vec<(&'static str, &'static str, bool)>,
    requests: String,
    limit: String,
    status: &'static str,
    active: bool,
    role: &'static str,
    verified: bool,
    created: String,
    is_me: bool,
    is_owner: bool,
}

struct RequestRow {
    id: String,
    email: String,
    from: &'static str,
    to: &'static str,
    asked: String,
}

#[derive(Template)]
#[template(path = "admin.html")]
struct AdminPage {
    layout: Layout,
    csrf: String,
    accounts: Vec<AccountRow>,
    requests: Vec<RequestRow>,
    owner: bool,
}

fn admin_failure(e: AdminError) -> Failure {
    match e {
        AdminError::NotAllowed | AdminError::AccountNotFound(_) | AdminError::NoPlanRequest(_) => {
            Failure::NotFound
        }
        AdminError::Store(e) => Failure::Store(e),
        other => Failure::Internal(other.to_string()),
    }
}

pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let me = &user.ctx.user;
    let actor = Actor::User(me.id);
    let summaries = web.service.admin_accounts(actor).map_err(admin_failure)?;
    let requests = web
        .service
        .admin_plan_requests(actor)
        .map_err(admin_failure)?;
    ok(&AdminPage {
        layout: user.layout("Admin", "admin"),
        csrf: user.csrf(),
        owner: me.role == Role::Owner,
        accounts: summaries
            .into_iter()
            .map(|s| {
                let a = &s.account;
                let owner = s.owner.as_ref();
                AccountRow {
                    id: a.id.to_string(),
                    email: a.email.to_string(),
                    plans: Plan::ALL
                        .iter()
                        .map(|p| (p.as_str(), plan_name(*p), *p == a.plan))
                        .collect(),
                    requests: thousands(s.requests_this_month),
                    limit: match a.limits().monthly_requests {
                        qr_domain::Limit::Unlimited => "unlimited".to_owned(),
                        qr_domain::Limit::Max(n) => thousands(n),
                    },
                    status: a.status.as_str(),
                    active: a.status == AccountStatus::Active,
                    role: owner.map_or(Role::Customer, |o| o.role).as_str(),
                    verified: owner.is_some_and(qr_domain::accounts::user::User::is_verified),
                    created: when(a.created_at),
                    is_me: owner.is_some_and(|o| o.id == me.id),
                    is_owner: owner.is_some_and(|o| o.role == Role::Owner),
                }
            })
            .collect(),
        requests: requests
            .into_iter()
            .map(|(r, a)| RequestRow {
                id: a.id.to_string(),
                email: a.email.to_string(),
                from: plan_name(a.plan),
                to: plan_name(r.plan),
                asked: when(r.created_at),
            })
            .collect(),
    })
}

fn account_id(raw: &str) -> Result<AccountId, Failure> {
    raw.parse().map_err(|_| Failure::NotFound)
}

/// The user owning a workspace of the list: the role and verification buttons of its row act
/// on them.
fn owner_of<S: Store, C: Clock>(web: &Web<S, C>, account: AccountId) -> Result<UserId, Failure> {
    web.service
        .owner_of(account)?
        .map(|o| o.id)
        .ok_or(Failure::NotFound)
}

/// Admin changes: `plan`, `status`, `role`, `verify`.
pub(super) fn account_action<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
    action: &str,
) -> Result<WebResponse, Failure> {
    let actor = Actor::User(user.ctx.user.id);
    // Non-admins learn nothing, not even whether their token was right.
    if !web.service.may_administer(actor).map_err(admin_failure)? {
        return Err(Failure::NotFound);
    }
    let form = user.form()?;
    let target = account_id(id)?;
    let svc = &web.service;
    let done = match action {
        "plan" => {
            let plan = form
                .text("plan")
                .parse::<Plan>()
                .map_err(|_| Failure::NotFound)?;
            svc.admin_set_plan(actor, target, plan).map(drop)
        }
        "status" => {
            let status = match form.text("status") {
                "active" => AccountStatus::Active,
                "disabled" => AccountStatus::Disabled,
                _ => return Err(Failure::NotFound),
            };
            svc.set_status(actor, target, status).map(drop)
        }
        "role" => {
            let role = match form.text("role") {
                "admin" => Role::Admin,
                "customer" => Role::Customer,
                _ => return Err(Failure::NotFound),
            };
            let owner = owner_of(web, target)?;
            svc.set_role(actor, owner, role).map(drop)
        }
        "verify" => {
            let owner = owner_of(web, target)?;
            svc.mark_verified(actor, owner).map(drop)
        }
        _ => return Err(Failure::NotFound),
    };
    match done {
        Ok(_) => Ok(redirect("/dashboard/admin?done=admin-saved")),
        Err(e @ (AdminError::OwnerProtected | AdminError::OwnAccount)) => Ok(super::failure_page(
            http::StatusCode::CONFLICT,
            &super::public::capitalised(&e.to_string()),
        )),
        Err(e) => Err(admin_failure(e)),
    }
}

pub(super) fn decide<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
    decision: &str,
) -> Result<WebResponse, Failure> {
    let actor = Actor::User(user.ctx.user.id);
    if !web.service.may_administer(actor).map_err(admin_failure)? {
        return Err(Failure::NotFound);
    }
    user.form()?;
    web.service
        .decide_plan_request(actor, account_id(id)?, decision == "approve")
        .map_err(admin_failure)?;
    Ok(redirect("/dashboard/admin?done=admin-saved"))
}
