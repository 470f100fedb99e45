//! Invitations to workspaces in SQL: one row per pending invitation, unique per workspace and address and by token hash, going with their workspace.

use postgres::Row;
use qr_domain::accounts::invitations::Invitation;
use qr_domain::dashboard::token::TokenHash;
use qr_domain::ids::InvitationId;
use qr_domain::store::{InvitationReads, InvitationWrites};
use qr_domain::{AccountId, Email, StoreError};

use crate::tx::{PgTx, corrupt, get};

/// Version 16: invitations. The token is kept as its SHA-256 only; `lower` under the C
/// collation is `Email::lookup_key`'s comparison, so a workspace invites an address once in
/// any case. No configuration trigger: no cached key depends on them.
pub(crate) const V16_INVITATIONS: &str = r#"
CREATE TABLE invitations (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    email text NOT NULL,
    role text NOT NULL,
    token_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX invitations_by_email ON invitations (account_id, lower(email COLLATE "C"));
"#;

const COLS: &str = "id, account_id, email, role, token_hash, created_at, expires_at";

fn invitation_from(r: &Row) -> Result<Invitation, StoreError> {
    let hash: &[u8] = get(r, 4, "token_hash")?;
    Ok(Invitation {
        id: InvitationId::from_uuid(get(r, 0, "id")?),
        account_id: AccountId::from_uuid(get(r, 1, "account_id")?),
        email: get::<String>(r, 2, "email")?
            .try_into()
            .map_err(|_| corrupt("email"))?,
        role: get::<&str>(r, 3, "role")?
            .parse()
            .map_err(|_| corrupt("role"))?,
        token_hash: TokenHash(hash.try_into().map_err(|_| corrupt("token hash"))?),
        created_at: get(r, 5, "created_at")?,
        expires_at: get(r, 6, "expires_at")?,
    })
}

impl InvitationReads for PgTx<'_> {
    fn invitation(
        &self,
        account: AccountId,
        id: InvitationId,
    ) -> Result<Option<Invitation>, StoreError> {
        let sql = format!("SELECT {COLS} FROM invitations WHERE id = $1 AND account_id = $2");
        self.one(&sql, &[&id.as_uuid(), &account.as_uuid()], invitation_from)
    }

    fn invitation_by_token(&self, hash: &TokenHash) -> Result<Option<Invitation>, StoreError> {
        let sql = format!("SELECT {COLS} FROM invitations WHERE token_hash = $1");
        self.one(&sql, &[&&hash.0[..]], invitation_from)
    }

    fn invitation_to(
        &self,
        account: AccountId,
        email: &Email,
    ) -> Result<Option<Invitation>, StoreError> {
        let sql = format!(
            "SELECT {COLS} FROM invitations WHERE account_id = $1
             AND lower(email COLLATE \"C\") = lower($2 COLLATE \"C\")"
        );
        self.one(
            &sql,
            &[&account.as_uuid(), &email.as_str()],
            invitation_from,
        )
    }

    fn invitations_of(&self, account: AccountId) -> Result<Vec<Invitation>, StoreError> {
        let sql =
            format!("SELECT {COLS} FROM invitations WHERE account_id = $1 ORDER BY created_at, id");
        self.all(&sql, &[&account.as_uuid()], invitation_from)
    }
}

impl InvitationWrites for PgTx<'_> {
    fn put_invitation(&mut self, i: &Invitation) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO invitations (id, account_id, email, role, token_hash, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (id) DO UPDATE SET role = excluded.role,
                 token_hash = excluded.token_hash, expires_at = excluded.expires_at",
            &[
                &i.id.as_uuid(),
                &i.account_id.as_uuid(),
                &i.email.as_str(),
                &i.role.as_str(),
                &&i.token_hash.0[..],
                &i.created_at,
                &i.expires_at,
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
            "DELETE FROM invitations WHERE id = $1 AND account_id = $2",
            &[&id.as_uuid(), &account.as_uuid()],
        )? > 0)
    }
}
