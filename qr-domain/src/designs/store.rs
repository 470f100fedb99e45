//! The storage traits of designs: an account's designs by id, its default, how many it holds and how many links name one.

use crate::designs::design::Design;
use crate::error::StoreError;
use crate::ids::{AccountId, DesignId};

/// Design reads, available in every transaction.
pub trait DesignReads {
    /// The design `id` if it belongs to `account`.
    fn design(&self, account: AccountId, id: DesignId) -> Result<Option<Design>, StoreError>;
    /// The account's designs, by name then id.
    fn designs_of(&self, account: AccountId) -> Result<Vec<Design>, StoreError>;
    /// The account's default design, if it has one.
    fn default_design(&self, account: AccountId) -> Result<Option<Design>, StoreError>;
    /// How many designs the account holds.
    fn count_designs(&self, account: AccountId) -> Result<u64, StoreError>;
    /// How many links of `account` name the design.
    fn count_design_links(&self, account: AccountId, id: DesignId) -> Result<u64, StoreError>;
}

/// Design writes, available in write transactions.
pub trait DesignWrites {
    /// Adds a design. Callers clear the account's default first when it is the default.
    fn insert_design(&mut self, design: &Design) -> Result<(), StoreError>;
    /// Replaces the name, look, logo, default flag and update time of a design of
    /// `design.account_id`; `false` if absent. Its id, account and creation time never change.
    fn update_design(&mut self, design: &Design) -> Result<bool, StoreError>;
    /// Deletes a design of `account`; `false` if absent. Callers check first that no link
    /// names it.
    fn delete_design(&mut self, account: AccountId, id: DesignId) -> Result<bool, StoreError>;
    /// Makes none of the account's designs its default.
    fn clear_default_design(&mut self, account: AccountId) -> Result<(), StoreError>;
}
