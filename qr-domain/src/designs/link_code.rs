//! A link's own code: its `shortUrl` in the link's design (else the account's default, else plain), a request's look settings overriding the design's, and the design's logo while the plan includes logos; decoded logos are cached by content.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::Instant;

use qr_generate::{Code, GenerateError, GenerateParams};
use thiserror::Error;

use crate::accounts::account::Account;
use crate::accounts::plan::Feature;
use crate::clock::Clock;
use crate::designs::design::{Design, LogoError};
use crate::designs::service::design_of_link;
use crate::error::StoreError;
use crate::ids::{AccountId, DesignId, LinkId};
use crate::links::link::{Link, LinkError};
use crate::links::service::LINK_CACHE_TTL;
use crate::service::Service;
use crate::store::Store;

/// Most decoded logos kept: a logo may be 4,096 x 4,096 pixels (64 MiB as RGBA), so the cache
/// is small; an account prints in a handful of designs at a time.
pub(crate) const LOGO_CACHE_MAX: usize = 16;

/// Most links kept with their design for link codes; beyond it the cache starts over.
pub(crate) const LINK_CODE_CACHE_MAX: usize = 4_096;

/// Largest logo, in bytes, of a design kept in the link-code cache: 4,096 entries of at most
/// 64 KiB are 256 MiB at worst (logos are typically 5 to 50 KB); a link whose design has a
/// larger logo is read from the store each time (its render, compositing the logo, dwarfs the
/// read).
const CACHED_LOGO_MAX_BYTES: usize = 64 * 1024;

/// A link, the design its code is drawn in, and when they were read.
pub(crate) type LinkCodeEntry = (Link, Option<Arc<Design>>, Instant);

/// The key of a decoded logo: its design and a hash of its bytes, so a changed logo is decoded
/// again and an unchanged one is not (hashing a 20 KB logo takes microseconds, decoding it
/// milliseconds).
pub(crate) type LogoKey = (DesignId, u64);

/// Why a link's code could not be made.
#[derive(Debug, Error)]
pub enum LinkCodeError {
    /// The link is not the account's (or does not exist).
    #[error(transparent)]
    Link(#[from] LinkError),
    /// A request setting (or the design's look with it) generate refuses, with its message.
    #[error(transparent)]
    Generate(#[from] GenerateError),
    /// The design's stored logo no longer decodes (it was checked when stored).
    #[error(transparent)]
    Logo(#[from] LogoError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl<S: Store, C: Clock> Service<S, C> {
    /// The code of `account`'s link `id`, ready to render. `settings` are the request's generate
    /// settings other than the content (`format`, `size`, print settings, look overrides); the
    /// first occurrence of a name wins: the link's address, then `settings`, then the design.
    ///
    /// A design's logo is drawn while the account's plan includes logos; after a downgrade the
    /// code is drawn without it rather than refused, so printed material keeps a working image.
    pub fn link_code<'a>(
        &self,
        account: &Account,
        id: LinkId,
        base_url: &str,
        settings: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Code, LinkCodeError> {
        let (link, design) = self.link_with_design(account.id, id)?;
        self.code_in_design(
            account,
            design.as_deref(),
            &link.short_url(base_url),
            settings,
        )
    }

    /// The link and the design its code is drawn in: from memory when read less than
    /// [`LINK_CACHE_TTL`] ago and unchanged here since, else in one store read (two reads, or
    /// one per request, cost the image path 5 to 16 % against generate on SQLite). A change on
    /// another server shows within [`LINK_CACHE_TTL`], as for redirects.
    fn link_with_design(
        &self,
        account: AccountId,
        id: LinkId,
    ) -> Result<(Link, Option<Arc<Design>>), LinkCodeError> {
        let key = (account, id);
        let cached = self.link_codes.read(&key, |(link, design, read_at)| {
            (read_at.elapsed() < LINK_CACHE_TTL).then(|| (link.clone(), design.clone()))
        });
        if let Some(hit) = cached {
            return Ok(hit);
        }
        let seen = self.link_codes.generation();
        let (link, design) = self
            .store
            .read(|tx| -> Result<_, StoreError> {
                let Some(link) = tx.link(account, id)? else {
                    return Ok(None);
                };
                let design = design_of_link(tx, &link)?;
                Ok(Some((link, design)))
            })?
            .ok_or(LinkError::NotFound)?;
        let design = design.map(Arc::new);
        let small = design
            .as_ref()
            .and_then(|d| d.logo.as_ref())
            .is_none_or(|logo| logo.bytes().len() <= CACHED_LOGO_MAX_BYTES);
        if small {
            let entry = (link.clone(), design.clone(), Instant::now());
            self.link_codes.insert_since(seen, key, entry);
        }
        Ok((link, design))
    }

    /// Drops the cached links of `account` after a change of its designs (which one is the
    /// default, or a design's look).
    pub(crate) fn forget_link_codes_of(&self, account: AccountId) {
        self.link_codes.forget(|(owner, _), _| *owner == account);
    }

    /// [`Service::link_code`] for a link already read (the dashboard's list, a bulk ZIP).
    pub fn code_of_link<'a>(
        &self,
        account: &Account,
        link: &Link,
        base_url: &str,
        settings: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Code, LinkCodeError> {
        let design = self.design_for_link(link)?;
        self.code_in_design(
            account,
            design.as_ref(),
            &link.short_url(base_url),
            settings,
        )
    }

    /// `data` drawn in `design` (none: the plain code), with the same rules as a link's code:
    /// `settings` over the design's look, the logo only while the plan includes logos. The
    /// dashboard draws its designs' previews with it.
    pub fn code_in_design<'a>(
        &self,
        account: &Account,
        design: Option<&Design>,
        data: &str,
        settings: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Code, LinkCodeError> {
        let code = {
            let mut pairs: Vec<(&str, &str)> = vec![("data", data)];
            for (name, value) in settings {
                pairs.push((name, value));
            }
            if let Some(design) = design {
                pairs.extend(design.look.pairs());
            }
            GenerateParams::from_pairs(pairs).parse()?
        };
        let logo = match design {
            Some(design) if account.limits().includes(Feature::Logo) => self.design_logo(design)?,
            _ => None,
        };
        Ok(match logo {
            Some(logo) => code.with_logo(logo)?,
            None => code,
        })
    }

    /// The design's logo decoded, from the cache when its bytes were decoded before.
    fn design_logo(&self, design: &Design) -> Result<Option<qr_core::Logo>, LogoError> {
        let Some(stored) = &design.logo else {
            return Ok(None);
        };
        let mut hasher = DefaultHasher::new();
        stored.bytes().hash(&mut hasher);
        let key = (design.id, hasher.finish());
        if let Some(logo) = self.logos.read(&key, |logo| Some(logo.clone())) {
            return Ok(Some(logo));
        }
        let logo = stored.decode()?;
        self.logos.insert(key, logo.clone());
        Ok(Some(logo))
    }
}
