//! The keyed API's handlers, one module per resource; each runs after the pipeline has admitted the request.

pub(crate) mod analytics;
pub(crate) mod analytics_export;
pub(crate) mod audit;
pub(crate) mod batch;
pub(crate) mod bulk;
pub(crate) mod designs;
pub(crate) mod domains;
pub(crate) mod export;
pub(crate) mod generate;
pub(crate) mod link_body;
pub(crate) mod link_code;
pub(crate) mod links;
pub(crate) mod print;
pub(crate) mod usage;
pub(crate) mod webhooks;
