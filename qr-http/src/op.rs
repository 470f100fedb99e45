//! Typed API operations, built at the edge from the route, the method and the query once a request is admitted, so handlers never read raw parameters.

use qr_domain::audit::query::{AuditQuery, AuditQueryError};
use qr_domain::designs::service::parse_design_id;
use qr_domain::domains::service::parse_domain_id;
use qr_domain::links::link::{LinkError, parse_link_id};
use qr_domain::links::listing::LinkListQuery;
use qr_domain::webhooks::webhook::WebhookId;
use qr_domain::{AnalyticsQuery, DesignId, DomainId, Feature, LinkId};
use qr_export::{ScanFormat, UnknownFormat};
use qr_generate::params::PARAMETER_NAMES;
use qr_generate::{Code, GenerateParams};

use crate::error::ApiError;
use crate::request::Query;
use crate::routes::{Kind, Method};

/// What an admitted API request asks for, with its query parameters parsed.
#[derive(Debug)]
pub(crate) enum ApiOp {
    /// `GET /api/generate`: the code (data, image options, symbol, verify) and the logo URL to
    /// fetch.
    Generate {
        code: Box<Code>,
        logo_url: Option<String>,
    },
    /// `POST /api/batch` (the items are in the body).
    Batch,
    /// `POST /api/print` (the selection and the sheet are in the body).
    Print,
    /// `/api/links` in its five forms.
    Links(LinksOp),
    /// `POST /api/links/bulk` (the links are in the body).
    BulkLinks,
    /// `GET /api/analytics`.
    Analytics(AnalyticsParams),
    /// `GET /api/analytics/export`: the range (its `limit` unused) and the format.
    AnalyticsExport(AnalyticsParams, ScanFormat),
    /// `GET /api/dashboard?action=usage`.
    Usage,
    /// `GET /api/health`.
    Health,
    /// `/api/webhooks` in its three forms.
    Webhooks(WebhooksOp),
    /// `GET /api/account/export`.
    Export,
    /// `/api/domains` and its `check` and `visits`.
    Domains(DomainsOp),
    /// `/api/designs` in its five forms.
    Designs(DesignsOp),
    /// `GET /api/links/qr?id=`: the link and the request's own parameters (`format`, `size`,
    /// print settings and look overrides), checked when the link's design is known.
    LinkCode(LinkCodeParams),
    /// `GET /api/audit`: its filters, or why they are malformed. Kept as a result so the
    /// handler asks the permission first: a key hears 403 whatever it sends.
    Audit(Result<AuditQuery, AuditQueryError>),
}

/// The designs operations, with their ids parsed (a malformed id is a design not found).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DesignsOp {
    /// `GET /api/designs`.
    List,
    /// `GET /api/designs?id=`.
    Get(DesignId),
    /// `POST /api/designs` (the fields are in the body).
    Create,
    /// `PUT /api/designs?id=` (the fields are in the body).
    Update(DesignId),
    /// `DELETE /api/designs?id=`.
    Delete(DesignId),
}

/// The parameters of `GET /api/links/qr`: the link, and every generate setting the query
/// gives (except `data` and `type`: the link's address is the content).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinkCodeParams {
    pub(crate) link: LinkId,
    pub(crate) settings: Vec<(String, String)>,
}

/// The domains operations, with their ids parsed (a malformed id is a domain not found).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DomainsOp {
    /// `GET /api/domains`.
    List,
    /// `GET /api/domains?id=`.
    Get(DomainId),
    /// `POST /api/domains` (the name is in the body).
    Add,
    /// `PUT /api/domains?id=` (the settings are in the body).
    Update(DomainId),
    /// `DELETE /api/domains?id=`.
    Delete(DomainId),
    /// `POST /api/domains/check?id=`.
    Check(DomainId),
    /// `GET /api/domains/visits?id=`.
    Visits(DomainId),
}

/// The webhooks operations, with their ids parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WebhooksOp {
    /// `GET /api/webhooks`.
    List,
    /// `POST /api/webhooks` (the fields are in the body).
    Create,
    /// `DELETE /api/webhooks?id=`.
    Delete(WebhookId),
}

/// The links operations, with their ids and list parameters parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinksOp {
    /// `GET /api/links` with `search`, `tag`, `limit` and `cursor`.
    List(LinkListQuery),
    /// `GET /api/links?id=`.
    Get(LinkId),
    /// `POST /api/links` (the fields are in the body).
    Create,
    /// `PUT /api/links?id=` (the fields are in the body).
    Update(LinkRef),
    /// `DELETE /api/links?id=`.
    Delete(LinkId),
}

/// A link id given with a body. A malformed id names no link; it answers 404 where an unknown
/// one would, after the body's own validation, so both behave alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkRef {
    /// A well-formed id (which may still be unknown).
    Id(LinkId),
    /// Text that cannot be a link id.
    Malformed,
}

/// The analytics parameters, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AnalyticsParams {
    pub(crate) link: LinkId,
    pub(crate) query: AnalyticsQuery,
}

/// The plan features a request uses that the plan check must see before admission: a logo of
/// a generate request, and bulk link creation.
pub(crate) fn features(kind: Kind, query: &Query) -> &'static [Feature] {
    match kind {
        Kind::Generate if query.get("logo").is_some_and(|v| !v.is_empty()) => &[Feature::Logo],
        Kind::BulkLinks => &[Feature::BulkLinks],
        _ => &[],
    }
}

/// Whether a request counts against the account's batch requests per minute: a batch, and a
/// bulk link request (the spec's batch rule, one per request), and a label sheet (batch
/// generation on paper).
pub(crate) fn is_batch(kind: Kind) -> bool {
    matches!(kind, Kind::Batch | Kind::BulkLinks | Kind::Print)
}

impl ApiOp {
    /// The operation of an admitted request to `kind` with `method`; parameter errors are 400s
    /// (404 for a link id that cannot exist).
    pub(crate) fn parse(kind: Kind, method: Method, query: &Query) -> Result<Self, ApiError> {
        query.require_utf8()?;
        let method = method.answered_as();
        Ok(match kind {
            Kind::Generate => {
                let params = GenerateParams::from_pairs(query.pairs());
                ApiOp::Generate {
                    code: Box::new(params.parse()?),
                    logo_url: query.owned("logo").filter(|url| !url.is_empty()),
                }
            }
            Kind::Batch => ApiOp::Batch,
            Kind::Print => ApiOp::Print,
            Kind::Links => ApiOp::Links(LinksOp::parse(method, query)?),
            Kind::BulkLinks => ApiOp::BulkLinks,
            Kind::Analytics => ApiOp::Analytics(AnalyticsParams::parse(query)?),
            Kind::AnalyticsExport => {
                let (params, format) = AnalyticsParams::parse_export(query)?;
                ApiOp::AnalyticsExport(params, format)
            }
            Kind::Dashboard => match query.get("action") {
                None | Some("") => {
                    return Err(ApiError::BadRequest("action parameter required".into()));
                }
                Some("usage") => ApiOp::Usage,
                Some(_) => {
                    return Err(ApiError::BadRequest(
                        "Invalid action: the only action is usage".into(),
                    ));
                }
            },
            Kind::Health => ApiOp::Health,
            Kind::Webhooks => ApiOp::Webhooks(match (method, query.get("id")) {
                (Method::Get | Method::Head, _) => WebhooksOp::List,
                (Method::Post, _) => WebhooksOp::Create,
                (_, None | Some("")) => {
                    return Err(ApiError::BadRequest("id parameter required".into()));
                }
                (_, Some(id)) => WebhooksOp::Delete(id.parse()?),
            }),
            Kind::Export => ApiOp::Export,
            Kind::Domains | Kind::DomainCheck | Kind::DomainVisits => {
                ApiOp::Domains(DomainsOp::parse(kind, method, query)?)
            }
            Kind::Designs => ApiOp::Designs(DesignsOp::parse(method, query)?),
            Kind::LinkCode => ApiOp::LinkCode(LinkCodeParams::parse(query)?),
            Kind::Audit => ApiOp::Audit(AuditQuery::parse(
                query.get("actor"),
                query.get("object"),
                query.get("since"),
                query.get("until"),
                query.get("cursor"),
                query.get("limit"),
            )),
            Kind::OpenApi | Kind::Redirect => return Err(ApiError::NotFound),
        })
    }
}

impl DomainsOp {
    fn parse(kind: Kind, method: Method, query: &Query) -> Result<Self, ApiError> {
        let id = || match query.get("id") {
            None | Some("") => Err(ApiError::BadRequest("id parameter required".into())),
            Some(id) => Ok(parse_domain_id(id)?),
        };
        Ok(match (kind, method) {
            (Kind::DomainCheck, _) => DomainsOp::Check(id()?),
            (Kind::DomainVisits, _) => DomainsOp::Visits(id()?),
            (_, Method::Get) if query.get("id").is_none() => DomainsOp::List,
            (_, Method::Get) => DomainsOp::Get(id()?),
            (_, Method::Post) => DomainsOp::Add,
            (_, Method::Put) => DomainsOp::Update(id()?),
            (_, Method::Delete) => DomainsOp::Delete(id()?),
            (_, Method::Head) => return Err(ApiError::MethodNotAllowed(kind.spec())),
        })
    }
}

impl DesignsOp {
    fn parse(method: Method, query: &Query) -> Result<Self, ApiError> {
        let id = || match query.get("id") {
            None | Some("") => Err(ApiError::BadRequest("id parameter required".into())),
            Some(id) => Ok(parse_design_id(id)?),
        };
        Ok(match method {
            Method::Get if query.get("id").is_none() => DesignsOp::List,
            Method::Get => DesignsOp::Get(id()?),
            Method::Post => DesignsOp::Create,
            Method::Put => DesignsOp::Update(id()?),
            Method::Delete => DesignsOp::Delete(id()?),
            Method::Head => return Err(ApiError::MethodNotAllowed(Kind::Designs.spec())),
        })
    }
}

impl LinkCodeParams {
    /// `id` required (a malformed one is a link not found); `data` and `type` refused, since
    /// the link's address is what the code encodes.
    fn parse(query: &Query) -> Result<Self, ApiError> {
        let id = query
            .get("id")
            .filter(|s| !s.is_empty())
            .ok_or_else(|| ApiError::BadRequest("id parameter required".into()))?;
        if let Some(name) = ["data", "type", "logo"]
            .into_iter()
            .find(|name| query.get(name).is_some())
        {
            return Err(ApiError::BadRequest(format!(
                "{name} is not a parameter of a link's code: it encodes the link's shortUrl in its design"
            )));
        }
        let settings = query
            .pairs()
            .filter(|(name, _)| PARAMETER_NAMES.contains(name) && *name != "data")
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        Ok(Self {
            link: parse_link_id(id)?,
            settings,
        })
    }
}

impl LinksOp {
    fn parse(method: Method, query: &Query) -> Result<Self, ApiError> {
        let id = query.get("id");
        Ok(match (method, id) {
            (Method::Get, None) => LinksOp::List(LinkListQuery::parse(
                query.get("search"),
                query.get("tag"),
                query.get("limit"),
                query.get("cursor"),
            )?),
            (Method::Get, Some(id)) => LinksOp::Get(parse_link_id(id)?),
            (Method::Post, _) => LinksOp::Create,
            (Method::Put | Method::Delete, None) => {
                return Err(ApiError::BadRequest("id parameter required".into()));
            }
            (Method::Put, Some(id)) => {
                LinksOp::Update(parse_link_id(id).map_or(LinkRef::Malformed, LinkRef::Id))
            }
            (Method::Delete, Some(id)) => LinksOp::Delete(parse_link_id(id)?),
            (Method::Head, _) => return Err(ApiError::MethodNotAllowed(Kind::Links.spec())),
        })
    }
}

impl AnalyticsParams {
    fn parse(query: &Query) -> Result<Self, ApiError> {
        Self::parse_with(query, query.get("limit"), || Ok(()))
    }

    /// The export's parameters: the range (no `limit`: every scan is exported) and `format`
    /// (`csv` when absent or empty).
    fn parse_export(query: &Query) -> Result<(Self, ScanFormat), ApiError> {
        let mut format = ScanFormat::default();
        let params = Self::parse_with(query, None, || {
            if let Some(raw) = query.get("format").filter(|s| !s.is_empty()) {
                format = raw
                    .parse()
                    .map_err(|e: UnknownFormat| ApiError::BadRequest(e.to_string()))?;
            }
            Ok(())
        })?;
        Ok((params, format))
    }

    /// `linkId` present, then the dates and `limit`, then `more`, then the id itself: the
    /// parameters' own errors come before the 404 of an id that cannot exist.
    fn parse_with(
        query: &Query,
        limit: Option<&str>,
        more: impl FnOnce() -> Result<(), ApiError>,
    ) -> Result<Self, ApiError> {
        let link = query
            .get("linkId")
            .filter(|s| !s.is_empty())
            .ok_or_else(|| ApiError::BadRequest("linkId parameter required".into()))?;
        let parsed = AnalyticsQuery::parse(query.get("startDate"), query.get("endDate"), limit)?;
        more()?;
        Ok(AnalyticsParams {
            link: parse_link_id(link)?,
            query: parsed,
        })
    }
}

impl LinkRef {
    /// The id, or "not found" for a malformed one.
    pub(crate) fn id(self) -> Result<LinkId, ApiError> {
        match self {
            LinkRef::Id(id) => Ok(id),
            LinkRef::Malformed => Err(ApiError::Link(LinkError::NotFound)),
        }
    }
}
