//! Invitations to workspaces in SQL: one row per pending invitation, unique per workspace and address and by token hash, going with their workspace.

use qr_domain::accounts::invitations::Invitation;
use qr_domain::dashboard::token::TokenHash;
use qr_domain::ids::InvitationId;
use qr_domain::store::{InvitationReads, InvitationWrites};
use qr_domain::{AccountId, Email, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, get, id_bytes, micros, time, uuid};

/// Version 14: invitations. The token is kept as its SHA-256 only; NOCASE on the address is
/// `Email::lookup_key`'s comparison, so a workspace invites an address once in any case.
pub(crate) const V14_INVITATIONS: &str = r"
CREATE TABLE invitations (
    id BLOB PRIMARY KEY,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    token_hash BLOB NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX invitations_by_email ON invitations(account_id, email COLLATE NOCASE);
";

const COLS: &str = "id, account_id, email, role, token_hash, created_at, expires_at";

fn invitation_bytes(id: InvitationId) -> [u8; 16] {
    id.as_uuid().into_bytes()
}

fn invitation_from(r: &Row<'_>) -> Result<Invitation, StoreError> {
    let hash: Vec<u8> = get(r, 4)?;
    Ok(Invitation {
        id: InvitationId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        email: get::<String>(r, 2)?
            .try_into()
            .map_err(|_| corrupt("email"))?,
        role: get::<String>(r, 3)?.parse().map_err(|_| corrupt("role"))?,
        token_hash: TokenHash(hash.try_into().map_err(|_| corrupt("token hash"))?),
        created_at: time(get(r, 5)?)?,
        expires_at: time(get(r, 6)?)?,
    })
}

impl InvitationReads for SqlTx<'_> {
    fn invitation(
        &self,
        account: AccountId,
        id: InvitationId,
    ) -> Result<Option<Invitation>, StoreError> {
        let sql = format!("SELECT {COLS} FROM invitations WHERE id = ?1 AND account_id = ?2");
        self.one(
            &sql,
            params![&invitation_bytes(id)[..], &id_bytes(account)[..]],
            invitation_from,
        )
    }

    fn invitation_by_token(&self, hash: &TokenHash) -> Result<Option<Invitation>, StoreError> {
        let sql = format!("SELECT {COLS} FROM invitations WHERE token_hash = ?1");
        self.one(&sql, [&hash.0[..]], invitation_from)
    }

    fn invitation_to(
        &self,
        account: AccountId,
        email: &Email,
    ) -> Result<Option<Invitation>, StoreError> {
        let sql = format!(
            "SELECT {COLS} FROM invitations WHERE account_id = ?1 AND email = ?2 COLLATE NOCASE"
        );
        self.one(
            &sql,
            params![&id_bytes(account)[..], email.as_str()],
            invitation_from,
        )
    }

    fn invitations_of(&self, account: AccountId) -> Result<Vec<Invitation>, StoreError> {
        let sql =
            format!("SELECT {COLS} FROM invitations WHERE account_id = ?1 ORDER BY created_at, id");
        self.all(&sql, [&id_bytes(account)[..]], invitation_from)
    }
}

impl InvitationWrites for SqlTx<'_> {
    fn put_invitation(&mut self, i: &Invitation) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO invitations (id, account_id, email, role, token_hash, created_at, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (id) DO UPDATE SET role = excluded.role,
                 token_hash = excluded.token_hash, expires_at = excluded.expires_at",
            params![
                &invitation_bytes(i.id)[..],
                &id_bytes(i.account_id)[..],
                i.email.as_str(),
                i.role.as_str(),
                &i.token_hash.0[..],
                micros(i.created_at),
                micros(i.expires_at)
            ],
        )?;
        Ok(())
    }

    fn delete_invitation(
        &mut self,
        account: AccountId,
        id: InvitationId,
    ) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM invitations WHERE id = ?1 AND account_id = ?2",
            params![&invitation_bytes(id)[..], &id_bytes(account)[..]],
        )? > 0)
    }
}
