//! The `Service` methods of designs: creating one within the account's bound and its plan (logos from Pro), reading, changing, setting the default, removing one no link names, and the design a link's code is drawn in.

use thiserror::Error;

use crate::accounts::caller::Caller;
use crate::accounts::permissions::{NotPermitted, Operation};
use crate::accounts::plan::{Feature, Plan};
use crate::audit::entry::{AuditAction, AuditObject, ObjectKind};
use crate::audit::service::record;
use crate::audit::summary;
use crate::clock::Clock;
use crate::designs::design::{
    Design, DesignLogo, DesignName, DesignNameError, LogoError, MAX_DESIGNS,
};
use crate::designs::look::{Look, LookError};
use crate::error::StoreError;
use crate::ids::{AccountId, DesignId};
use crate::links::link::Link;
use crate::service::Service;
use crate::store::{ReadTx, Store, WriteTx};

/// The fields of a design creation or change: `None` leaves a field (or takes its default on
/// creation), `Some(None)` removes the logo.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DesignUpdate {
    /// A new name (required on creation).
    pub name: Option<DesignName>,
    /// A new look, replacing the whole look.
    pub look: Option<Look>,
    /// A new logo, or `Some(None)` to remove it.
    pub logo: Option<Option<DesignLogo>>,
    /// `true` makes the design the account's default; `false` makes it not the default.
    pub is_default: Option<bool>,
}

impl DesignUpdate {
    /// Sets the name.
    pub fn set_name(&mut self, raw: &str) -> Result<(), DesignError> {
        self.name = Some(DesignName::parse(raw)?);
        Ok(())
    }

    /// Sets the look from `(name, value)` pairs ([`Look::parse`]).
    pub fn set_look<K: AsRef<str>, V: Into<String>>(
        &mut self,
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Result<(), DesignError> {
        self.look = Some(Look::parse(pairs)?);
        Ok(())
    }

    /// Sets the logo from uploaded bytes and their declared media type ([`DesignLogo::upload`]).
    pub fn set_logo(
        &mut self,
        media_type: Option<&str>,
        bytes: Vec<u8>,
    ) -> Result<(), DesignError> {
        self.logo = Some(Some(DesignLogo::upload(media_type, bytes)?));
        Ok(())
    }

    /// Removes the logo.
    pub fn clear_logo(&mut self) {
        self.logo = Some(None);
    }

    /// Makes the design the default, or not.
    pub fn set_default(&mut self, is_default: bool) {
        self.is_default = Some(is_default);
    }

    fn apply(&self, design: &mut Design) {
        if let Some(name) = &self.name {
            design.name = name.clone();
        }
        if let Some(look) = &self.look {
            design.look = look.clone();
        }
        if let Some(logo) = &self.logo {
            design.logo = logo.clone();
        }
        if let Some(is_default) = self.is_default {
            design.is_default = is_default;
        }
    }
}

/// Why a design operation failed; each `Display` is the API's message.
#[derive(Debug, Error)]
pub enum DesignError {
    /// The name is invalid.
    #[error(transparent)]
    Name(#[from] DesignNameError),
    /// A creation without a name.
    #[error("name is required")]
    NameRequired,
    /// The look is invalid.
    #[error(transparent)]
    Look(#[from] LookError),
    /// The logo is invalid.
    #[error(transparent)]
    Logo(#[from] LogoError),
    /// A logo on a plan without logos.
    #[error("Logos require {} plan", .0.title())]
    LogoRequiresPlan(Plan),
    /// The account holds [`MAX_DESIGNS`] designs.
    #[error(
        "Design limit reached: an account holds at most {MAX_DESIGNS} designs; delete one first"
    )]
    LimitReached,
    /// No design with this id belongs to the account.
    #[error("Design not found")]
    NotFound,
    /// Links still name the design.
    #[error("Design {name} is used by {links} link{}; change or delete them first", if *.links == 1 { "" } else { "s" })]
    InUse {
        /// The design's name.
        name: String,
        /// How many links.
        links: u64,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The caller may not change designs (a viewer, a key without `designs`).
    #[error(transparent)]
    NotPermitted(#[from] NotPermitted),
}

/// The id of a design as a client presents it: a malformed id names no design, so it is
/// [`DesignError::NotFound`] like an unknown one or another account's.
pub fn parse_design_id(raw: &str) -> Result<DesignId, DesignError> {
    raw.parse().map_err(|_| DesignError::NotFound)
}

/// Refuses a logo the account's plan does not include (read in the transaction, so a plan
/// changed meanwhile is seen).
fn check_logo_plan(
    tx: &dyn WriteTx,
    account: AccountId,
    update: &DesignUpdate,
) -> Result<(), DesignError> {
    if !matches!(update.logo, Some(Some(_))) {
        return Ok(());
    }
    let current = tx.account(account)?.ok_or(DesignError::NotFound)?;
    if current.limits().includes(Feature::Logo) {
        Ok(())
    } else {
        Err(DesignError::LogoRequiresPlan(Feature::Logo.plan()))
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Adds a design to the account: a name is required, at most [`MAX_DESIGNS`] per account,
    /// a logo only on a plan with logos; `is_default` makes it the default in the same write.
    /// The caller needs [`Operation::WriteDesigns`]; the design is audited as created.
    pub fn create_design(
        &self,
        caller: &Caller,
        fields: &DesignUpdate,
    ) -> Result<Design, DesignError> {
        caller.require(Operation::WriteDesigns)?;
        let account = caller.account;
        let name = fields.name.clone().ok_or(DesignError::NameRequired)?;
        let now = self.clock.now();
        let mut design = Design {
            id: DesignId::random(),
            account_id: account,
            name,
            look: Look::default(),
            logo: None,
            is_default: false,
            created_at: now,
            updated_at: now,
        };
        fields.apply(&mut design);
        self.store
            .write(|tx| {
                check_logo_plan(tx, account, fields)?;
                if tx.count_designs(account)? >= MAX_DESIGNS {
                    return Err(DesignError::LimitReached);
                }
                if design.is_default {
                    tx.clear_default_design(account)?;
                }
                tx.insert_design(&design)?;
                record(
                    tx,
                    caller,
                    now,
                    AuditAction::DesignCreated,
                    AuditObject::new(ObjectKind::Design, design.id),
                    summary::design_created(&design),
                )?;
                Ok(design)
            })
            .inspect(|_| self.forget_link_codes_of(account))
    }

    /// The account's designs, by name.
    pub fn designs(&self, account: AccountId) -> Result<Vec<Design>, StoreError> {
        self.store.read(|tx| tx.designs_of(account))
    }

    /// One of the account's designs; another account's is "not found".
    pub fn design(&self, account: AccountId, id: DesignId) -> Result<Design, DesignError> {
        self.store
            .read(|tx| tx.design(account, id))?
            .ok_or(DesignError::NotFound)
    }

    /// The account's default design, if any.
    pub fn default_design(&self, account: AccountId) -> Result<Option<Design>, StoreError> {
        self.store.read(|tx| tx.default_design(account))
    }

    /// Changes a design; `updatedAt` moves whenever a field is given. The caller needs
    /// [`Operation::WriteDesigns`]; a change is audited with the fields it changed.
    pub fn update_design(
        &self,
        caller: &Caller,
        id: DesignId,
        update: &DesignUpdate,
    ) -> Result<Design, DesignError> {
        caller.require(Operation::WriteDesigns)?;
        let account = caller.account;
        let now = self.clock.now();
        self.store
            .write(|tx| {
                let mut design = tx.design(account, id)?.ok_or(DesignError::NotFound)?;
                if *update == DesignUpdate::default() {
                    return Ok(design);
                }
                check_logo_plan(tx, account, update)?;
                if update.is_default == Some(true) && !design.is_default {
                    tx.clear_default_design(account)?;
                }
                let before = design.clone();
                update.apply(&mut design);
                design.updated_at = now.max(design.created_at);
                if !tx.update_design(&design)? {
                    return Err(DesignError::NotFound);
                }
                let changes = summary::design_updated(&before, &design);
                if !changes.is_empty() {
                    record(
                        tx,
                        caller,
                        now,
                        AuditAction::DesignUpdated,
                        AuditObject::new(ObjectKind::Design, design.id),
                        changes,
                    )?;
                }
                Ok(design)
            })
            .inspect(|_| self.forget_link_codes_of(account))
    }

    /// Makes the design the account's default (`None`: the account has no default).
    /// The caller needs [`Operation::WriteDesigns`]; the designs whose flag changed are
    /// audited as updated.
    pub fn set_default_design(
        &self,
        caller: &Caller,
        id: Option<DesignId>,
    ) -> Result<Option<Design>, DesignError> {
        caller.require(Operation::WriteDesigns)?;
        let account = caller.account;
        match id {
            Some(id) => {
                let mut update = DesignUpdate::default();
                update.set_default(true);
                self.update_design(caller, id, &update).map(Some)
            }
            None => {
                let now = self.clock.now();
                self.store.write(|tx| {
                    let previous = tx.default_design(account)?;
                    tx.clear_default_design(account)?;
                    if let Some(before) = previous {
                        let after = Design {
                            is_default: false,
                            ..before.clone()
                        };
                        record(
                            tx,
                            caller,
                            now,
                            AuditAction::DesignUpdated,
                            AuditObject::new(ObjectKind::Design, before.id),
                            summary::design_updated(&before, &after),
                        )?;
                    }
                    Ok::<_, StoreError>(())
                })?;
                self.forget_link_codes_of(account);
                Ok(None)
            }
        }
    }

    /// Removes a design no link names. The caller needs [`Operation::WriteDesigns`]; the
    /// audit entry keeps the design's last fields.
    pub fn delete_design(&self, caller: &Caller, id: DesignId) -> Result<(), DesignError> {
        caller.require(Operation::WriteDesigns)?;
        let account = caller.account;
        let now = self.clock.now();
        self.store
            .write(|tx| {
                let design = tx.design(account, id)?.ok_or(DesignError::NotFound)?;
                let links = tx.count_design_links(account, id)?;
                if links > 0 {
                    return Err(DesignError::InUse {
                        name: design.name.to_string(),
                        links,
                    });
                }
                tx.delete_design(account, id)?;
                record(
                    tx,
                    caller,
                    now,
                    AuditAction::DesignDeleted,
                    AuditObject::new(ObjectKind::Design, id),
                    summary::design_deleted(&design),
                )?;
                Ok(())
            })
            .inspect(|()| self.forget_link_codes_of(account))
    }

    /// The design a link's code is drawn in: the one it names, else the account's default,
    /// else none (the plain code).
    pub fn design_for_link(&self, link: &Link) -> Result<Option<Design>, StoreError> {
        self.store.read(|tx| design_of_link(tx, link))
    }
}

/// The design `link`'s code is drawn in, read in `tx`: the one it names, else the account's
/// default, else none.
pub(crate) fn design_of_link(tx: &dyn ReadTx, link: &Link) -> Result<Option<Design>, StoreError> {
    match link.design {
        Some(id) => match tx.design(link.account_id, id)? {
            Some(design) => Ok(Some(design)),
            None => tx.default_design(link.account_id),
        },
        None => tx.default_design(link.account_id),
    }
}
