//! The in-memory store's designs, by id, with the account's default among them.

use super::Data;
use crate::designs::design::Design;
use crate::designs::store::{DesignReads, DesignWrites};
use crate::error::StoreError;
use crate::ids::{AccountId, DesignId};

impl DesignReads for Data {
    fn design(&self, account: AccountId, id: DesignId) -> Result<Option<Design>, StoreError> {
        Ok(self
            .designs
            .get(&id)
            .filter(|d| d.account_id == account)
            .cloned())
    }

    fn designs_of(&self, account: AccountId) -> Result<Vec<Design>, StoreError> {
        let mut designs: Vec<Design> = self
            .designs
            .values()
            .filter(|d| d.account_id == account)
            .cloned()
            .collect();
        designs.sort_by(|a, b| (a.name.as_str(), a.id).cmp(&(b.name.as_str(), b.id)));
        Ok(designs)
    }

    fn default_design(&self, account: AccountId) -> Result<Option<Design>, StoreError> {
        Ok(self
            .designs
            .values()
            .find(|d| d.account_id == account && d.is_default)
            .cloned())
    }

    fn count_designs(&self, account: AccountId) -> Result<u64, StoreError> {
        Ok(self
            .designs
            .values()
            .filter(|d| d.account_id == account)
            .count() as u64)
    }

    fn count_design_links(&self, account: AccountId, id: DesignId) -> Result<u64, StoreError> {
        Ok(self
            .links
            .values()
            .filter(|l| l.account_id == account && l.design == Some(id))
            .count() as u64)
    }
}

impl DesignWrites for Data {
    fn insert_design(&mut self, design: &Design) -> Result<(), StoreError> {
        if self.designs.contains_key(&design.id) {
            return Err(StoreError::Conflict(format!("design {} exists", design.id)));
        }
        self.designs.insert(design.id, design.clone());
        Ok(())
    }

    fn update_design(&mut self, design: &Design) -> Result<bool, StoreError> {
        match self.designs.get_mut(&design.id) {
            Some(stored) if stored.account_id == design.account_id => {
                stored.name = design.name.clone();
                stored.look = design.look.clone();
                stored.logo = design.logo.clone();
                stored.is_default = design.is_default;
                stored.updated_at = design.updated_at;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn delete_design(&mut self, account: AccountId, id: DesignId) -> Result<bool, StoreError> {
        if self
            .designs
            .get(&id)
            .is_some_and(|d| d.account_id == account)
        {
            self.designs.remove(&id);
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn clear_default_design(&mut self, account: AccountId) -> Result<(), StoreError> {
        for design in self.designs.values_mut() {
            if design.account_id == account {
                design.is_default = false;
            }
        }
        Ok(())
    }
}

/// Removes the designs of a deleted account.
pub(super) fn forget_account(data: &mut Data, account: AccountId) {
    data.designs.retain(|_, d| d.account_id != account);
}
