//! Label sheets of an account's codes: the selection (links by id, by tag or all, or plain data items) resolved under the plan's batch rules, each link's code in its design, captions, and the sheet PDF.
//!
//! Print counts as batch generation: plans below Pro are refused as batch is, a request holds at
//! most the plan's batch items (Pro 100, Enterprise 1,000), and the HTTP layer admits it as one
//! batch request (one request against the monthly quota, one against the batch requests per
//! minute), so a sheet costs what the ZIP of the same codes costs.

use qr_generate::print::{
    self as sheet, CaptionKind, PrintLabel, PrintRequest, PrintSelection, drawable_caption,
};
use thiserror::Error;

use crate::accounts::access::{AccessError, Endpoint};
use crate::accounts::account::Account;
use crate::accounts::auth::AuthContext;
use crate::clock::Clock;
use crate::designs::link_code::LinkCodeError;
use crate::error::StoreError;
use crate::links::campaign::Tag;
use crate::links::link::{Link, LinkError, parse_link_id};
use crate::service::Service;
use crate::store::Store;

/// Why a sheet could not be made.
#[derive(Debug, Error)]
pub enum PrintError {
    /// The plan has no batch generation (below Pro), or the key may not read links.
    #[error(transparent)]
    Access(#[from] AccessError),
    /// The request is invalid, too large for the plan, or selects nothing (HTTP 400).
    #[error(transparent)]
    Request(#[from] sheet::PrintError),
    /// A listed link is not the account's ("Link not found").
    #[error(transparent)]
    Link(#[from] LinkError),
    /// A link's code could not be made in its design.
    #[error(transparent)]
    LinkCode(#[from] LinkCodeError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl<S: Store, C: Clock> Service<S, C> {
    /// The sheet PDF of `request` for an API key: as [`Service::print_sheet`], and a key whose
    /// settings disable the links endpoint may print data items but not the account's links
    /// (their names and addresses are what that setting keeps from it).
    pub fn print_for_key(
        &self,
        ctx: &AuthContext,
        request: &PrintRequest,
        base_url: &str,
    ) -> Result<Vec<u8>, PrintError> {
        let selects_links = !matches!(request.selection, PrintSelection::Items(_));
        if selects_links
            && ctx
                .key
                .settings
                .disabled_endpoints
                .contains(&Endpoint::Links)
        {
            return Err(AccessError::EndpointDisabled(Endpoint::Links).into());
        }
        self.print_sheet(&ctx.account, request, base_url)
    }

    /// The sheet PDF of `request` for `account`: its plan must allow batch generation and at
    /// most its batch items; links are the account's own (another account's id is "Link not
    /// found"), each drawn in its design; `base_url` makes short URLs.
    pub fn print_sheet(
        &self,
        account: &Account,
        request: &PrintRequest,
        base_url: &str,
    ) -> Result<Vec<u8>, PrintError> {
        let labels = self.print_labels(account, request, base_url)?;
        Ok(sheet::render_labels(&request.sheet, &labels)?)
    }

    /// The labels of `request`, resolved and bounded (see [`Service::print_sheet`]).
    pub fn print_labels(
        &self,
        account: &Account,
        request: &PrintRequest,
        base_url: &str,
    ) -> Result<Vec<PrintLabel>, PrintError> {
        let max_items = account
            .limits()
            .batch
            .ok_or(AccessError::BatchRequiresPro)?
            .max_items;
        let too_many = |count: usize| count > max_items as usize;
        // Listed selections are bounded before any link is read.
        if request.listed().is_some_and(too_many) {
            return Err(sheet::PrintError::TooManyItems(max_items).into());
        }
        let links = match &request.selection {
            PrintSelection::Items(items) => {
                return Ok(items
                    .iter()
                    .map(|item| PrintLabel {
                        caption: match (&item.caption, request.caption) {
                            (Some(text), _) => text.clone(),
                            (None, CaptionKind::Data) => drawable_caption(item.code.data()),
                            (None, CaptionKind::Name | CaptionKind::None) => String::new(),
                        },
                        code: item.code.clone(),
                    })
                    .collect());
            }
            PrintSelection::LinkIds(ids) => ids
                .iter()
                .map(|raw| self.link(account.id, parse_link_id(raw)?))
                .collect::<Result<Vec<Link>, LinkError>>()?,
            PrintSelection::Tag(raw) => {
                let tag = Tag::parse(raw).map_err(|rule| sheet::PrintError::Invalid {
                    field: "tag",
                    rule: rule.to_string(),
                })?;
                let mut links = self.links(account.id)?;
                links.retain(|link| link.tags.contains(&tag));
                links
            }
            PrintSelection::AllLinks => self.links(account.id)?,
        };
        if links.is_empty() {
            return Err(sheet::PrintError::NothingToPrint.into());
        }
        if too_many(links.len()) {
            return Err(sheet::PrintError::TooManyItems(max_items).into());
        }
        links
            .iter()
            .map(|link| {
                let code = self.code_of_link(account, link, base_url, [])?;
                let caption = match request.caption {
                    CaptionKind::Data => drawable_caption(code.data()),
                    CaptionKind::Name => drawable_caption(link.name.as_str()),
                    CaptionKind::None => String::new(),
                };
                Ok(PrintLabel { code, caption })
            })
            .collect()
    }
}
