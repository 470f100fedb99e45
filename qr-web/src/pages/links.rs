//! `/dashboard/links`: the account's links with search and paging, creating, editing (campaign settings included, through `link_form`) and deleting them (with a warning about printed codes), and each link's code as PNG or SVG.

use askama::Template;
use http::StatusCode;
use qr_domain::links::link::{LinkError, parse_link_id};
use qr_domain::service::LinkPage;
use qr_domain::{Clock, Link, LinkId, Store};

use super::link_form::{DEVICES, LinkForm, SYSTEMS};
use super::link_import::{DomainOption, SourceOption, domain_options, source_options};
use super::{Failure, Layout, User, ok, page, read_or_post, thousands, when};
use crate::Web;
use crate::response::{self, WebResponse, redirect};

/// Links per page: a page of thumbnails stays light.
const PER_PAGE: usize = 20;

/// A link as the pages show it.
pub(crate) struct LinkRow {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) short_url: String,
    pub(crate) target: String,
    pub(crate) scans: String,
    pub(crate) created: String,
    pub(crate) tags: Vec<String>,
    /// Paused (`disabled`).
    pub(crate) paused: bool,
    pub(crate) password: bool,
    /// Has a start or an end.
    pub(crate) scheduled: bool,
}

impl LinkRow {
    pub(crate) fn of<S: Store, C: Clock>(web: &Web<S, C>, l: &Link) -> Self {
        Self {
            id: l.id.to_string(),
            name: l.name.as_str().to_owned(),
            short_url: web.short_url(l),
            target: l.target_url.as_str().to_owned(),
            scans: thousands(l.scan_count),
            created: when(l.created_at),
            tags: l.tags.iter().map(|t| t.as_str().to_owned()).collect(),
            paused: l.options.get().is_some_and(|o| o.disabled),
            password: l.options.get().is_some_and(|o| o.password.is_some()),
            scheduled: l
                .options
                .get()
                .is_some_and(|o| o.valid_from.is_some() || o.valid_until.is_some()),
        }
    }
}

impl<S: Store, C: Clock> Web<S, C> {
    /// The address printed in a link's code: `https://<domain>/<code>` on the customer's
    /// domain (served at its root, over HTTPS from the reverse proxy), else
    /// `{base_url}/r/<code>` (the spec's form).
    pub(crate) fn short_url(&self, link: &Link) -> String {
        link.short_url(&self.base_url)
    }
}

#[derive(Template)]
#[template(path = "links.html")]
struct LinksPage {
    layout: Layout,
    csrf: String,
    links: Vec<LinkRow>,
    query: String,
    total: usize,
    page: usize,
    pages: usize,
    /// The create form.
    f: LinkForm,
    devices: [(&'static str, &'static str); 3],
    systems: [(&'static str, &'static str); 6],
    limit: String,
    /// The import form's services, none chosen, no dry run; its domains, each record's own
    /// chosen.
    sources: Vec<SourceOption>,
    chosen: String,
    dry_run: bool,
    import_domains: Vec<DomainOption>,
    import_domain: String,
}

fn parse_page(raw: Option<&str>) -> usize {
    raw.and_then(|p| p.parse().ok())
        .filter(|p| *p >= 1)
        .unwrap_or(1)
}

/// `GET` lists (with `?q=` and `?page=`); `POST` creates a link.
pub(super) fn index<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    let account = &user.ctx.account;
    let query = user.req.query();
    let mut view = LinksPage {
        layout: user.layout("Links", "links"),
        csrf: user.csrf(),
        links: Vec::new(),
        query: query.text("q").to_owned(),
        total: 0,
        page: parse_page(query.get("page")),
        pages: 1,
        f: LinkForm::new(&account.limits()),
        devices: DEVICES,
        systems: SYSTEMS,
        limit: match account.limits().links {
            qr_domain::Limit::Unlimited => "unlimited".to_owned(),
            qr_domain::Limit::Max(n) => thousands(n),
        },
        sources: source_options(),
        chosen: String::new(),
        dry_run: false,
        import_domains: Vec::new(),
        import_domain: String::new(),
    };
    let domains = web.service.domains(account.id)?;
    let designs = web.service.designs(account.id)?;
    view.f.offer_domains(&domains, web.service.now());
    view.f.offer_designs(&designs);
    view.import_domains = domain_options(&domains, web.service.now());
    let mut status = StatusCode::OK;
    if user.req.is_post() {
        let form = user.form()?;
        let (f, set) = LinkForm::submitted(&form, &account.limits(), None);
        view.f = f;
        view.f.offer_domains(&domains, web.service.now());
        view.f.offer_designs(&designs);
        let created = view.f.update(&set).and_then(|fields| {
            web.service
                .create_link_with(&user.ctx.caller(user.req.client_ip), fields)
        });
        match created {
            Ok(_) => return Ok(redirect("/dashboard/links?done=link-created")),
            Err(e) => view.f.show(e)?,
        }
        status = StatusCode::UNPROCESSABLE_ENTITY;
    }
    let (links, total) = web.service.search_links(
        account.id,
        &view.query,
        LinkPage {
            number: view.page,
            size: PER_PAGE,
        },
    )?;
    view.total = total;
    view.pages = total.div_ceil(PER_PAGE).max(1);
    view.links = links.iter().map(|l| LinkRow::of(web, l)).collect();
    page(status, &view)
}

pub(super) fn own_link<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<(LinkId, Link), Failure> {
    let id = parse_link_id(id).map_err(|_| Failure::NotFound)?;
    match web.service.link(user.ctx.account.id, id) {
        Ok(link) => Ok((id, link)),
        Err(LinkError::Store(e)) => Err(e.into()),
        Err(_) => Err(Failure::NotFound),
    }
}

#[derive(Template)]
#[template(path = "link_edit.html")]
struct EditPage {
    layout: Layout,
    csrf: String,
    link: LinkRow,
    f: LinkForm,
    devices: [(&'static str, &'static str); 3],
    systems: [(&'static str, &'static str); 6],
}

/// `GET` shows the form; `POST` saves the name, target and campaign settings.
pub(super) fn edit<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    let (id, link) = own_link(web, user, id)?;
    let limits = user.ctx.account.limits();
    let mut view = EditPage {
        layout: user.layout("Edit link", "links"),
        csrf: user.csrf(),
        f: LinkForm::of(&link, &limits),
        link: LinkRow::of(web, &link),
        devices: DEVICES,
        systems: SYSTEMS,
    };
    let domains = web.service.domains(user.ctx.account.id)?;
    let designs = web.service.designs(user.ctx.account.id)?;
    view.f.offer_domains(&domains, web.service.now());
    view.f.offer_designs(&designs);
    if user.req.is_read() {
        return ok(&view);
    }
    let form = user.form()?;
    let (f, set) = LinkForm::submitted(&form, &limits, Some(&link));
    view.f = f;
    view.f.offer_domains(&domains, web.service.now());
    view.f.offer_designs(&designs);
    let update = view.f.update(&set).and_then(|u| {
        web.service
            .update_link(&user.ctx.caller(user.req.client_ip), id, &u)
    });
    match update {
        Ok(_) => Ok(redirect("/dashboard/links?done=link-saved")),
        Err(e) => {
            view.f.show(e)?;
            page(StatusCode::UNPROCESSABLE_ENTITY, &view)
        }
    }
}

#[derive(Template)]
#[template(path = "link_delete.html")]
struct DeletePage {
    layout: Layout,
    csrf: String,
    link: LinkRow,
}

/// `GET` asks for confirmation (printed codes stop working); `POST` deletes.
pub(super) fn delete<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    let (id, link) = own_link(web, user, id)?;
    if user.req.is_read() {
        return ok(&DeletePage {
            layout: user.layout("Delete link", "links"),
            csrf: user.csrf(),
            link: LinkRow::of(web, &link),
        });
    }
    user.form()?;
    match web
        .service
        .delete_link(&user.ctx.caller(user.req.client_ip), id)
    {
        Ok(()) => Ok(redirect("/dashboard/links?done=link-deleted")),
        Err(LinkError::Store(e)) => Err(e.into()),
        Err(LinkError::NotPermitted(_)) => Err(Failure::Forbidden),
        Err(_) => Err(Failure::NotFound),
    }
}

/// The link's code in its design (the domain's `Service::code_of_link`): an SVG or PNG of its
/// short URL for the list's thumbnail, or with `?download=1` a file (PNG at 1,000 px; PDF and
/// EPS 50 mm for print). Not counted against the API quota, and not rate-limited: it only ever
/// encodes the account's own short URLs.
pub(super) fn code_image<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
    file: &str,
) -> Result<WebResponse, Failure> {
    let (_, link) = own_link(web, user, id)?;
    let download = user.req.query().get("download").is_some();
    let format = file.strip_prefix("qr.").unwrap_or("svg");
    let size = if download && format == "png" {
        "1000"
    } else {
        "300"
    };
    let code = web
        .service
        .code_of_link(
            &user.ctx.account,
            &link,
            &web.base_url,
            [("format", format), ("size", size)],
        )
        .map_err(|e| Failure::Internal(e.to_string()))?;
    let bytes = qr_generate::render(&code).map_err(|e| Failure::Internal(e.to_string()))?;
    let name = format!("qr-{}.{format}", link.short_code);
    Ok(response::image(
        code.format(),
        bytes,
        download.then_some(name.as_str()),
    ))
}
