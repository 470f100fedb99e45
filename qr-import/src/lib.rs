//! Moving to this service without reprinting: readers of other link services' own exports (Bitly, Rebrandly, Shlink, YOURLS, Kutt) into foreign links, and their import as links that keep each printed code exactly, or list it as refused with the reason.
//!
//! The layering: the readers parse files (which `qr-domain` never does) into [`ForeignLink`]s,
//! plain text and times; [`mapping`] turns each into the domain's typed input
//! ([`qr_domain::LinkUpdate`] through its setters, so every rule is the domain's);
//! [`placement`] decides which of the account's domains (or the service's own address) each
//! record lands on; [`import`] checks the codes there against the store and creates the links
//! through the domain's bulk creation (one write transaction per file). The CLI (`qr links import --from`) and the
//! dashboard's Links page are the adapters that call it.

mod bitly;
mod fields;
pub mod foreign;
pub mod import;
mod kutt;
pub mod mapping;
pub mod placement;
mod rebrandly;
mod shlink;
mod yourls;

pub use foreign::{ForeignLink, ForeignRecord, MAX_IMPORT_LINKS, ReadError, Source};
pub use import::{ImportError, ImportItem, ImportReport, ItemOutcome};
pub use placement::{ChosenDomainError, DomainChoice};
