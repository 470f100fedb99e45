//! The route table: every path and method the server answers, shared by the router and the OpenAPI test.

use qr_domain::Endpoint;
use qr_domain::accounts::permissions::Operation;

/// An HTTP method the API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// GET.
    Get,
    /// HEAD.
    Head,
    /// POST.
    Post,
    /// PUT.
    Put,
    /// DELETE.
    Delete,
}

/// What a path leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `GET /api/generate`.
    Generate,
    /// `POST /api/batch`.
    Batch,
    /// `POST /api/print`: many codes on label sheets as one PDF.
    Print,
    /// `/api/links` in all its methods.
    Links,
    /// `POST /api/links/bulk`: many links at once.
    BulkLinks,
    /// `GET /api/analytics`.
    Analytics,
    /// `GET /api/analytics/export`: every scan of a link as CSV or NDJSON, streamed.
    AnalyticsExport,
    /// `GET /api/dashboard`.
    Dashboard,
    /// `GET /api/health`.
    Health,
    /// `/api/webhooks`: list, create, delete.
    Webhooks,
    /// `GET /api/account/export`: the caller's account as a ZIP.
    Export,
    /// `/api/domains`: list, add, show, change, remove.
    Domains,
    /// `POST /api/domains/check?id=`: check a domain's DNS now.
    DomainCheck,
    /// `GET /api/domains/visits?id=`: a domain's orphan visits.
    DomainVisits,
    /// `/api/designs`: list, show, create, change, remove saved designs.
    Designs,
    /// `GET /api/links/qr?id=`: a link's code in its design.
    LinkCode,
    /// `GET /api/audit`: the workspace's audit log, which no key may read (403).
    Audit,
    /// `GET /api/openapi.json` (public).
    OpenApi,
    /// `GET|HEAD|POST /r/{shortCode}` (public; POST is the password form's).
    Redirect,
}

/// One row of the route table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteSpec {
    /// The path as OpenAPI writes it (`{shortCode}` for the one parameter).
    pub path: &'static str,
    /// The methods answered (OPTIONS preflights are answered on every `/api` path as well;
    /// HEAD wherever GET is, as RFC 9110 requires).
    pub methods: &'static [Method],
    /// What the path leads to.
    pub kind: Kind,
}

/// Every route of the server.
pub const ROUTES: &[RouteSpec] = &[
    RouteSpec {
        path: "/api/generate",
        methods: &[Method::Get, Method::Head],
        kind: Kind::Generate,
    },
    RouteSpec {
        path: "/api/batch",
        methods: &[Method::Post],
        kind: Kind::Batch,
    },
    RouteSpec {
        path: "/api/print",
        methods: &[Method::Post],
        kind: Kind::Print,
    },
    RouteSpec {
        path: "/api/links",
        methods: &[
            Method::Get,
            Method::Head,
            Method::Post,
            Method::Put,
            Method::Delete,
        ],
        kind: Kind::Links,
    },
    RouteSpec {
        path: "/api/links/qr",
        methods: &[Method::Get, Method::Head],
        kind: Kind::LinkCode,
    },
    RouteSpec {
        path: "/api/designs",
        methods: &[
            Method::Get,
            Method::Head,
            Method::Post,
            Method::Put,
            Method::Delete,
        ],
        kind: Kind::Designs,
    },
    RouteSpec {
        path: "/api/links/bulk",
        methods: &[Method::Post],
        kind: Kind::BulkLinks,
    },
    RouteSpec {
        path: "/api/analytics",
        methods: &[Method::Get, Method::Head],
        kind: Kind::Analytics,
    },
    RouteSpec {
        path: "/api/analytics/export",
        methods: &[Method::Get, Method::Head],
        kind: Kind::AnalyticsExport,
    },
    RouteSpec {
        path: "/api/dashboard",
        methods: &[Method::Get, Method::Head],
        kind: Kind::Dashboard,
    },
    RouteSpec {
        path: "/api/health",
        methods: &[Method::Get, Method::Head],
        kind: Kind::Health,
    },
    RouteSpec {
        path: "/api/webhooks",
        methods: &[Method::Get, Method::Head, Method::Post, Method::Delete],
        kind: Kind::Webhooks,
    },
    RouteSpec {
        path: "/api/domains",
        methods: &[
            Method::Get,
            Method::Head,
            Method::Post,
            Method::Put,
            Method::Delete,
        ],
        kind: Kind::Domains,
    },
    RouteSpec {
        path: "/api/domains/check",
        methods: &[Method::Post],
        kind: Kind::DomainCheck,
    },
    RouteSpec {
        path: "/api/domains/visits",
        methods: &[Method::Get, Method::Head],
        kind: Kind::DomainVisits,
    },
    RouteSpec {
        path: "/api/account/export",
        methods: &[Method::Get, Method::Head],
        kind: Kind::Export,
    },
    RouteSpec {
        path: "/api/audit",
        methods: &[Method::Get, Method::Head],
        kind: Kind::Audit,
    },
    RouteSpec {
        path: "/api/openapi.json",
        methods: &[Method::Get, Method::Head],
        kind: Kind::OpenApi,
    },
    RouteSpec {
        path: "/r/{shortCode}",
        methods: &[Method::Get, Method::Head, Method::Post],
        kind: Kind::Redirect,
    },
];

/// The longest short code accepted in a redirect path before it is treated as unknown.
const MAX_CODE_CHARS: usize = 64;

/// A matched path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    /// The route.
    pub spec: &'static RouteSpec,
    /// The short code of a redirect path.
    pub code: Option<String>,
}

impl Method {
    /// Maps hyper's method; `None` for methods the API never answers (OPTIONS is handled apart).
    pub fn from_http(method: &hyper::Method) -> Option<Self> {
        Some(match *method {
            hyper::Method::GET => Method::Get,
            hyper::Method::HEAD => Method::Head,
            hyper::Method::POST => Method::Post,
            hyper::Method::PUT => Method::Put,
            hyper::Method::DELETE => Method::Delete,
            _ => return None,
        })
    }

    /// The method whose answer this one gives: HEAD answers like GET, without the body.
    pub fn answered_as(self) -> Self {
        match self {
            Method::Head => Method::Get,
            other => other,
        }
    }

    /// The method's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

impl Kind {
    /// The route of this kind.
    pub fn spec(self) -> &'static RouteSpec {
        // Every kind has exactly one row; the test `every_kind_has_a_route` checks it.
        ROUTES.iter().find(|r| r.kind == self).unwrap_or(&ROUTES[0])
    }

    /// The endpoint group a key's settings can disable; `None` for public routes.
    pub fn endpoint(self) -> Option<Endpoint> {
        Some(match self {
            Kind::Generate => Endpoint::Generate,
            // Print is batch generation on sheets: the same plans, key setting and limits.
            Kind::Batch | Kind::Print => Endpoint::Batch,
            // A key barred from links is barred from creating them in bulk too.
            // A link's code reads the link: a key barred from links is barred from it too.
            Kind::Links | Kind::BulkLinks | Kind::LinkCode => Endpoint::Links,
            Kind::Designs => Endpoint::Designs,
            // The export reads what analytics shows, so one switch covers both.
            Kind::Analytics | Kind::AnalyticsExport => Endpoint::Analytics,
            Kind::Dashboard => Endpoint::Usage,
            Kind::Health => Endpoint::Health,
            Kind::Webhooks => Endpoint::Webhooks,
            Kind::Export => Endpoint::Export,
            Kind::Domains | Kind::DomainCheck | Kind::DomainVisits => Endpoint::Domains,
            // Keyed, so a wrong key is 401 as everywhere; the permission table then refuses
            // every key the audit log (`Grant::allows`), in the handler.
            Kind::Audit => Endpoint::Usage,
            Kind::OpenApi | Kind::Redirect => return None,
        })
    }

    /// What a keyed request to this route with `method` does, as the permission table names
    /// it: the key's scopes are checked against it before anything else. `None` for what
    /// needs no permission (the health check, the public routes). Every operation is known
    /// from the path and the method alone, so a key out of scope is refused before its body
    /// or query is read (only label sheets of links also need `ReadLinks`, known once their
    /// body is parsed: the domain checks that).
    pub fn operation(self, method: Method) -> Option<Operation> {
        use Operation as O;
        let reads = method.answered_as() == Method::Get;
        let read_or_write = |read, write| Some(if reads { read } else { write });
        match self {
            Kind::Generate => Some(O::Generate),
            // A label sheet is batch generation on paper.
            Kind::Batch | Kind::Print => Some(O::Batch),
            Kind::Links => read_or_write(O::ReadLinks, O::WriteLinks),
            Kind::BulkLinks => Some(O::WriteLinks),
            // A link's code shows its short URL: reading the link.
            Kind::LinkCode => Some(O::ReadLinks),
            // The export streams the scans analytics counts.
            Kind::Analytics | Kind::AnalyticsExport => Some(O::ReadAnalytics),
            // `?action=usage` is the endpoint's only action.
            Kind::Dashboard => Some(O::ReadUsage),
            Kind::Webhooks => read_or_write(O::ReadWebhooks, O::WriteWebhooks),
            Kind::Export => Some(O::Export),
            // A domain's orphan visits are read with the domain; checking its DNS now is
            // managing it (it may change the domain's status).
            Kind::Domains | Kind::DomainVisits => read_or_write(O::ReadDomains, O::WriteDomains),
            Kind::DomainCheck => Some(O::WriteDomains),
            Kind::Designs => read_or_write(O::ReadDesigns, O::WriteDesigns),
            // No key reaches it (`Grant::allows`): the audit log is read by people.
            Kind::Audit => Some(O::ReadAudit),
            Kind::Health | Kind::OpenApi | Kind::Redirect => None,
        }
    }
}

/// Finds the route of a path (the path only; the query is not part of it).
pub fn match_path(path: &str) -> Option<Matched> {
    if let Some(code) = path.strip_prefix("/r/") {
        if code.is_empty() || code.contains('/') {
            return None;
        }
        let spec = ROUTES.iter().find(|r| r.kind == Kind::Redirect)?;
        return Some(Matched {
            spec,
            code: Some(code.chars().take(MAX_CODE_CHARS + 1).collect()),
        });
    }
    ROUTES
        .iter()
        .find(|r| r.kind != Kind::Redirect && r.path == path)
        .map(|spec| Matched { spec, code: None })
}

/// The `Allow` header value of a route: its methods plus OPTIONS for `/api` routes.
pub fn allow_header(spec: &RouteSpec) -> String {
    let mut names: Vec<&str> = spec.methods.iter().map(|m| m.as_str()).collect();
    if spec.kind != Kind::Redirect {
        names.push("OPTIONS");
    }
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_route() {
        for kind in [
            Kind::Generate,
            Kind::Batch,
            Kind::Print,
            Kind::Links,
            Kind::Analytics,
            Kind::Dashboard,
            Kind::Health,
            Kind::Webhooks,
            Kind::Export,
            Kind::Domains,
            Kind::DomainCheck,
            Kind::DomainVisits,
            Kind::Audit,
            Kind::OpenApi,
            Kind::Redirect,
        ] {
            assert_eq!(ROUTES.iter().filter(|r| r.kind == kind).count(), 1);
            assert_eq!(kind.spec().kind, kind);
        }
    }

    /// Every route and method of the table with the operation it needs, written out: the
    /// permission each keyed request is checked against (docs/api.md lists the same).
    #[test]
    fn every_route_and_method_needs_its_operation() {
        use Method::{Delete, Get, Head, Post, Put};
        use Operation as O;
        // A path and each of its methods with the operation it needs.
        type Row = (&'static str, &'static [(Method, Option<Operation>)]);
        let table: &[Row] = &[
            (
                "/api/generate",
                &[(Get, Some(O::Generate)), (Head, Some(O::Generate))],
            ),
            ("/api/batch", &[(Post, Some(O::Batch))]),
            ("/api/print", &[(Post, Some(O::Batch))]),
            (
                "/api/links",
                &[
                    (Get, Some(O::ReadLinks)),
                    (Head, Some(O::ReadLinks)),
                    (Post, Some(O::WriteLinks)),
                    (Put, Some(O::WriteLinks)),
                    (Delete, Some(O::WriteLinks)),
                ],
            ),
            (
                "/api/links/qr",
                &[(Get, Some(O::ReadLinks)), (Head, Some(O::ReadLinks))],
            ),
            (
                "/api/designs",
                &[
                    (Get, Some(O::ReadDesigns)),
                    (Head, Some(O::ReadDesigns)),
                    (Post, Some(O::WriteDesigns)),
                    (Put, Some(O::WriteDesigns)),
                    (Delete, Some(O::WriteDesigns)),
                ],
            ),
            ("/api/links/bulk", &[(Post, Some(O::WriteLinks))]),
            (
                "/api/analytics",
                &[
                    (Get, Some(O::ReadAnalytics)),
                    (Head, Some(O::ReadAnalytics)),
                ],
            ),
            (
                "/api/analytics/export",
                &[
                    (Get, Some(O::ReadAnalytics)),
                    (Head, Some(O::ReadAnalytics)),
                ],
            ),
            (
                "/api/dashboard",
                &[(Get, Some(O::ReadUsage)), (Head, Some(O::ReadUsage))],
            ),
            ("/api/health", &[(Get, None), (Head, None)]),
            (
                "/api/webhooks",
                &[
                    (Get, Some(O::ReadWebhooks)),
                    (Head, Some(O::ReadWebhooks)),
                    (Post, Some(O::WriteWebhooks)),
                    (Delete, Some(O::WriteWebhooks)),
                ],
            ),
            (
                "/api/domains",
                &[
                    (Get, Some(O::ReadDomains)),
                    (Head, Some(O::ReadDomains)),
                    (Post, Some(O::WriteDomains)),
                    (Put, Some(O::WriteDomains)),
                    (Delete, Some(O::WriteDomains)),
                ],
            ),
            ("/api/domains/check", &[(Post, Some(O::WriteDomains))]),
            (
                "/api/domains/visits",
                &[(Get, Some(O::ReadDomains)), (Head, Some(O::ReadDomains))],
            ),
            (
                "/api/account/export",
                &[(Get, Some(O::Export)), (Head, Some(O::Export))],
            ),
            (
                "/api/audit",
                &[(Get, Some(O::ReadAudit)), (Head, Some(O::ReadAudit))],
            ),
            ("/api/openapi.json", &[(Get, None), (Head, None)]),
            ("/r/{shortCode}", &[(Get, None), (Head, None), (Post, None)]),
        ];
        assert_eq!(
            table.iter().map(|(path, _)| *path).collect::<Vec<_>>(),
            ROUTES.iter().map(|r| r.path).collect::<Vec<_>>(),
            "the table lists every route once, in order"
        );
        for ((path, methods), route) in table.iter().zip(ROUTES) {
            assert_eq!(
                methods.iter().map(|(m, _)| *m).collect::<Vec<_>>(),
                route.methods,
                "{path}"
            );
            for (method, operation) in *methods {
                assert_eq!(
                    route.kind.operation(*method),
                    *operation,
                    "{method:?} {path}"
                );
            }
        }
    }

    #[test]
    fn paths_match_exactly() {
        assert_eq!(
            match_path("/api/generate").unwrap().spec.kind,
            Kind::Generate
        );
        assert_eq!(match_path("/api/generate/"), None);
        assert_eq!(match_path("/api/GENERATE"), None);
        assert_eq!(match_path("/api"), None);
        assert_eq!(match_path("/"), None);
        let r = match_path("/r/ABCD2345").unwrap();
        assert_eq!(r.spec.kind, Kind::Redirect);
        assert_eq!(r.code.as_deref(), Some("ABCD2345"));
        assert_eq!(match_path("/r/"), None);
        assert_eq!(match_path("/r/a/b"), None);
        let health = match_path("/api/health").unwrap().spec;
        assert_eq!(allow_header(health), "GET, HEAD, OPTIONS");
        assert_eq!(allow_header(r.spec), "GET, HEAD, POST");
    }
}
