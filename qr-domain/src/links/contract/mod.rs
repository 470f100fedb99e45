//! Contract checks of links: the records themselves, campaign fields and bulk creation.

pub mod bulk;
pub mod campaigns;
pub mod links;
