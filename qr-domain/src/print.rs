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
use crate::accounts::permissions::Operation;
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
    /// scopes do not reach reading links (a `batch` key without `links:read`), or whose
    /// settings disable the links endpoint, may print data items but not the account's links
    /// (their names and addresses are what those keep from it).
    pub fn print_for_key(
        &self,
        ctx: &AuthContext,
        request: &PrintRequest,
        base_url: &str,
    ) -> Result<Vec<u8>, PrintError> {
        let selects_links = !matches!(request.selection, PrintSelection::Items(_));
        if selects_links {
            ctx.key
                .grant()
                .require(Operation::ReadLinks)
                .map_err(AccessError::from)?;
        }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use qr_generate::print::{LabelStock, Layout, PrintSheet};

    use super::*;
    use crate::accounts::caller::Caller;
    use crate::accounts::key::KeyMode;
    use crate::accounts::permissions::{NotPermitted, Scope, ScopeSet};
    use crate::accounts::plan::Plan;
    use crate::clock::TestClock;
    use crate::memory::MemoryStore;
    use crate::scans::geo::NoGeoLocator;

    const BASE: &str = "http://qr.example";

    fn service() -> Service<MemoryStore, TestClock> {
        let clock = TestClock::new(
            chrono::DateTime::parse_from_rfc3339("2026-11-28T12:00:00Z")
                .expect("a date")
                .into(),
        );
        Service::new(Arc::new(MemoryStore::new()), clock, Arc::new(NoGeoLocator))
            .expect("service starts")
    }

    fn request(selection: PrintSelection, caption: CaptionKind) -> PrintRequest {
        PrintRequest {
            sheet: PrintSheet::new(
                Layout::Stock(LabelStock::L7160),
                None,
                qr_core::CropMarks::None,
            )
            .expect("a sheet"),
            caption,
            selection,
        }
    }

    #[test]
    fn links_resolve_to_their_captions_within_the_plan() {
        let svc = service();
        let pro = svc
            .create_account("pro@example.com", Plan::Pro)
            .expect("account");
        let other = svc
            .create_account("other@example.com", Plan::Pro)
            .expect("account");
        let free = svc
            .create_account("free@example.com", Plan::Free)
            .expect("account");
        let menu = svc
            .create_link(
                &Caller::operator(pro.id),
                "Café menu ☕",
                "https://example.com/menu",
            )
            .expect("link");
        let theirs = svc
            .create_link(
                &Caller::operator(other.id),
                "Theirs",
                "https://example.com/t",
            )
            .expect("link");
        let ids = |links: &[&Link]| {
            PrintSelection::LinkIds(links.iter().map(|l| l.id.to_string()).collect())
        };
        let labels = svc
            .print_labels(&pro, &request(ids(&[&menu]), CaptionKind::Name), BASE)
            .expect("labels");
        assert_eq!(labels[0].caption, "Café menu ");
        assert_eq!(labels[0].code.data(), menu.short_url(BASE));
        let labels = svc
            .print_labels(&pro, &request(ids(&[&menu]), CaptionKind::Data), BASE)
            .expect("labels");
        assert_eq!(labels[0].caption, menu.short_url(BASE));
        assert!(matches!(
            svc.print_labels(&pro, &request(ids(&[&theirs]), CaptionKind::Data), BASE),
            Err(PrintError::Link(LinkError::NotFound))
        ));
        assert!(matches!(
            svc.print_labels(
                &free,
                &request(PrintSelection::AllLinks, CaptionKind::Data),
                BASE
            ),
            Err(PrintError::Access(AccessError::BatchRequiresPro))
        ));
        let many = PrintSelection::LinkIds(vec![menu.id.to_string(); 101]);
        assert!(matches!(
            svc.print_labels(&pro, &request(many, CaptionKind::Data), BASE),
            Err(PrintError::Request(sheet::PrintError::TooManyItems(100)))
        ));
        assert!(matches!(
            svc.print_labels(
                &pro,
                &request(PrintSelection::Tag("none".to_owned()), CaptionKind::Data),
                BASE
            ),
            Err(PrintError::Request(sheet::PrintError::NothingToPrint))
        ));
    }

    #[test]
    fn a_key_kept_from_links_prints_only_data_items() {
        let svc = service();
        let pro = svc
            .create_account("pro@example.com", Plan::Pro)
            .expect("account");
        svc.create_link(
            &Caller::operator(pro.id),
            "Menu",
            "https://example.com/menu",
        )
        .expect("link");
        let (key, _) = svc.create_key(pro.id, KeyMode::Live).expect("key");
        let mut settings = key.settings.clone();
        settings.disabled_endpoints.insert(Endpoint::Links);
        let key = svc.update_key_settings(key.id, settings).expect("settings");
        let ctx = AuthContext { key, account: pro };
        assert!(matches!(
            svc.print_for_key(
                &ctx,
                &request(PrintSelection::AllLinks, CaptionKind::Data),
                BASE
            ),
            Err(PrintError::Access(AccessError::EndpointDisabled(
                Endpoint::Links
            )))
        ));
        let items = PrintRequest::from_json(br#"{"items":[{"data":"a"}]}"#).expect("valid");
        let pdf = svc
            .print_for_key(&ctx, &items, BASE)
            .expect("data items print");
        assert!(pdf.starts_with(b"%PDF"));
    }

    #[test]
    fn a_batch_key_without_links_read_prints_only_data_items() {
        let svc = service();
        let pro = svc
            .create_account("pro@example.com", Plan::Pro)
            .expect("account");
        svc.create_link(
            &crate::accounts::caller::Caller::operator(pro.id),
            "Menu",
            "https://example.com/menu",
        )
        .expect("link");
        let print = |scopes: &[Scope]| {
            let scopes = ScopeSet::new(scopes.iter().copied()).expect("scopes");
            let (key, _) = svc
                .create_key_with_scopes(pro.id, KeyMode::Live, Some(scopes))
                .expect("key");
            let ctx = AuthContext {
                key,
                account: pro.clone(),
            };
            let links = request(PrintSelection::AllLinks, CaptionKind::Data);
            let items = PrintRequest::from_json(br#"{"items":[{"data":"a"}]}"#).expect("valid");
            (
                svc.print_for_key(&ctx, &links, BASE),
                svc.print_for_key(&ctx, &items, BASE),
            )
        };
        let (links, items) = print(&[Scope::Batch]);
        assert!(matches!(
            links,
            Err(PrintError::Access(AccessError::OutOfScope(NotPermitted {
                operation: Operation::ReadLinks
            })))
        ));
        assert!(items.expect("data items print").starts_with(b"%PDF"));
        let (links, _) = print(&[Scope::Batch, Scope::LinksRead]);
        assert!(links.expect("links print").starts_with(b"%PDF"));
    }
}
