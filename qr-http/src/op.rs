//! Typed API operations, built at the edge from the route, the method and the query once a request is admitted, so handlers never read raw parameters.

use qr_core::RenderOptions;
use qr_domain::LinkId;
use qr_domain::link::LinkError;
use qr_generate::GenerateParams;

use crate::error::ApiError;
use crate::request::Query;
use crate::routes::{Kind, Method};

/// What an admitted API request asks for, with its query parameters parsed.
#[derive(Debug)]
pub(crate) enum ApiOp {
    /// `GET /api/generate`: the data, the image options and the logo URL to fetch.
    Generate {
        data: String,
        options: Box<RenderOptions>,
        logo_url: Option<String>,
    },
    /// `POST /api/batch` (the items are in the body).
    Batch,
    /// `/api/links` in its five forms.
    Links(LinksOp),
    /// `GET /api/analytics`.
    Analytics(AnalyticsParams),
    /// `GET /api/dashboard?action=usage`.
    Usage,
    /// `GET /api/health`.
    Health,
}

/// The links operations; the ids are parsed here, and a malformed id is "not found" like an
/// unknown one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinksOp {
    /// `GET /api/links`.
    List,
    /// `GET /api/links?id=`.
    Get(LinkId),
    /// `POST /api/links` (the fields are in the body).
    Create,
    /// `PUT /api/links?id=` (the fields are in the body).
    Update(LinkId),
    /// `DELETE /api/links?id=`.
    Delete(LinkId),
}

/// The analytics parameters as given; the domain parses the dates and the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AnalyticsParams {
    pub(crate) link: LinkId,
    pub(crate) start: Option<String>,
    pub(crate) end: Option<String>,
    pub(crate) limit: Option<String>,
}

/// Whether a request uses a Pro feature that the plan check must see before admission: a
/// generate request with a logo.
pub(crate) fn wants_logo(kind: Kind, query: &Query) -> bool {
    kind == Kind::Generate && query.get("logo").is_some_and(|v| !v.is_empty())
}

impl ApiOp {
    /// The operation of an admitted request to `kind` with `method`; parameter errors are 400s
    /// (404 for a link id that cannot exist).
    pub(crate) fn parse(kind: Kind, method: Method, query: &Query) -> Result<Self, ApiError> {
        query.require_utf8()?;
        let method = method.answered_as();
        Ok(match kind {
            Kind::Generate => {
                let (data, options) = GenerateParams::from_pairs(query.pairs()).parse()?;
                ApiOp::Generate {
                    data,
                    options: Box::new(options),
                    logo_url: query.owned("logo").filter(|url| !url.is_empty()),
                }
            }
            Kind::Batch => ApiOp::Batch,
            Kind::Links => ApiOp::Links(LinksOp::parse(method, query)?),
            Kind::Analytics => ApiOp::Analytics(AnalyticsParams::parse(query)?),
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
            Kind::OpenApi | Kind::Redirect => return Err(ApiError::NotFound),
        })
    }
}

impl LinksOp {
    fn parse(method: Method, query: &Query) -> Result<Self, ApiError> {
        let id = query.get("id");
        Ok(match (method, id) {
            (Method::Get, None) => LinksOp::List,
            (Method::Get, Some(id)) => LinksOp::Get(link_id(id)?),
            (Method::Post, _) => LinksOp::Create,
            (Method::Put | Method::Delete, None) => {
                return Err(ApiError::BadRequest("id parameter required".into()));
            }
            (Method::Put, Some(id)) => LinksOp::Update(link_id(id)?),
            (Method::Delete, Some(id)) => LinksOp::Delete(link_id(id)?),
            (Method::Head, _) => return Err(ApiError::MethodNotAllowed(Kind::Links.spec())),
        })
    }
}

impl AnalyticsParams {
    fn parse(query: &Query) -> Result<Self, ApiError> {
        let link = query
            .get("linkId")
            .filter(|s| !s.is_empty())
            .ok_or_else(|| ApiError::BadRequest("linkId parameter required".into()))?;
        Ok(AnalyticsParams {
            link: link_id(link)?,
            start: query.owned("startDate"),
            end: query.owned("endDate"),
            limit: query.owned("limit"),
        })
    }
}

/// A link id from the query: a malformed id names no link, so it is "not found".
fn link_id(text: &str) -> Result<LinkId, ApiError> {
    text.parse()
        .map_err(|_| ApiError::Link(LinkError::NotFound))
}
