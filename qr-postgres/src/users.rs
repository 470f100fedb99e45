//! Users and memberships in SQL: the people who log in, found by id or login address, and which workspaces they belong to with which role.

use postgres::Row;
use qr_domain::accounts::user::{Membership, User};
use qr_domain::ids::UserId;
use qr_domain::store::{UserReads, UserWrites};
use qr_domain::{AccountId, Email, PasswordHash, StoreError};

use crate::tx::{PgTx, corrupt, get};

/// Version 13: users and memberships. Every account becomes a user with the account's id,
/// address, password, verification time and service role, owning the account; the accounts
/// keep their address (no longer unique: a user may own several workspaces) and lose the
/// person's columns. Tokens belong to users; a session belongs to a user and shows a workspace
/// (none once that workspace is deleted). Users and memberships get no configuration trigger:
/// no cached key depends on them.
pub(crate) const V13_USERS: &str = r#"
CREATE TABLE users (
    id uuid PRIMARY KEY,
    email text NOT NULL,
    password_hash text,
    email_verified_at timestamptz,
    role text NOT NULL DEFAULT 'customer',
    created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_by_email ON users (lower(email COLLATE "C"));
CREATE TABLE memberships (
    account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, user_id)
);
CREATE INDEX memberships_by_user ON memberships (user_id, created_at);
INSERT INTO users (id, email, password_hash, email_verified_at, role, created_at)
    SELECT id, email, password_hash, email_verified_at, role, created_at FROM accounts;
INSERT INTO memberships (account_id, user_id, role, created_at)
    SELECT id, id, 'owner', created_at FROM accounts;
ALTER TABLE tokens DROP CONSTRAINT tokens_account_id_fkey;
ALTER TABLE tokens RENAME COLUMN account_id TO user_id;
ALTER TABLE tokens ADD FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
ALTER INDEX tokens_by_account RENAME TO tokens_by_user;
ALTER TABLE sessions DROP CONSTRAINT sessions_account_id_fkey;
ALTER TABLE sessions ADD COLUMN user_id uuid;
UPDATE sessions SET user_id = account_id;
ALTER TABLE sessions ALTER COLUMN user_id SET NOT NULL;
ALTER TABLE sessions ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE sessions ADD FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
ALTER TABLE sessions ADD FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE SET NULL;
DROP INDEX sessions_by_account;
CREATE INDEX sessions_by_user ON sessions (user_id, created_at);
CREATE INDEX sessions_by_account ON sessions (account_id);
DROP INDEX accounts_by_email;
CREATE INDEX accounts_by_email ON accounts (lower(email COLLATE "C"));
ALTER TABLE accounts DROP COLUMN password_hash, DROP COLUMN email_verified_at, DROP COLUMN role;
"#;

const USER_COLS: &str = "id, email, password_hash, email_verified_at, role, created_at";

fn user_from(r: &Row) -> Result<User, StoreError> {
    Ok(User {
        id: UserId::from_uuid(get(r, 0, "id")?),
        email: get::<String>(r, 1, "email")?
            .try_into()
            .map_err(|_| corrupt("email"))?,
        password_hash: get::<Option<&str>>(r, 2, "password_hash")?
            .map(|h| PasswordHash::parse(h).map_err(|_| corrupt("password_hash")))
            .transpose()?,
        email_verified_at: get(r, 3, "email_verified_at")?,
        role: get::<&str>(r, 4, "role")?
            .parse()
            .map_err(|_| corrupt("role"))?,
        created_at: get(r, 5, "created_at")?,
    })
}

const MEMBERSHIP_COLS: &str = "account_id, user_id, role, created_at";

fn membership_from(r: &Row) -> Result<Membership, StoreError> {
    Ok(Membership {
        account_id: AccountId::from_uuid(get(r, 0, "account_id")?),
        user_id: UserId::from_uuid(get(r, 1, "user_id")?),
        role: get::<&str>(r, 2, "role")?
            .parse()
            .map_err(|_| corrupt("role"))?,
        created_at: get(r, 3, "created_at")?,
    })
}

impl UserReads for PgTx<'_> {
    fn user(&self, id: UserId) -> Result<Option<User>, StoreError> {
        let sql = format!("SELECT {USER_COLS} FROM users WHERE id = $1");
        self.one(&sql, &[&id.as_uuid()], user_from)
    }

    fn user_by_email(&self, email: &Email) -> Result<Option<User>, StoreError> {
        // `lower` under the C collation folds ASCII letters only, exactly as
        // `Email::lookup_key` does, and is the expression of the unique index.
        let sql = format!(
            "SELECT {USER_COLS} FROM users WHERE lower(email COLLATE \"C\") = lower($1 COLLATE \"C\")"
        );
        self.one(&sql, &[&email.as_str()], user_from)
    }

    fn users(&self) -> Result<Vec<User>, StoreError> {
        let sql = format!("SELECT {USER_COLS} FROM users ORDER BY created_at, id");
        self.all(&sql, &[], user_from)
    }

    fn membership(
        &self,
        account: AccountId,
        user: UserId,
    ) -> Result<Option<Membership>, StoreError> {
        let sql = format!(
            "SELECT {MEMBERSHIP_COLS} FROM memberships WHERE account_id = $1 AND user_id = $2"
        );
        self.one(
            &sql,
            &[&account.as_uuid(), &user.as_uuid()],
            membership_from,
        )
    }

    fn memberships_of_user(&self, user: UserId) -> Result<Vec<Membership>, StoreError> {
        let sql = format!(
            "SELECT {MEMBERSHIP_COLS} FROM memberships WHERE user_id = $1 ORDER BY created_at, account_id"
        );
        self.all(&sql, &[&user.as_uuid()], membership_from)
    }

    fn members_of(&self, account: AccountId) -> Result<Vec<Membership>, StoreError> {
        let sql = format!(
            "SELECT {MEMBERSHIP_COLS} FROM memberships WHERE account_id = $1 ORDER BY created_at, user_id"
        );
        self.all(&sql, &[&account.as_uuid()], membership_from)
    }
}

impl UserWrites for PgTx<'_> {
    fn insert_user(&mut self, u: &User) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO users (id, email, password_hash, email_verified_at, role, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &u.id.as_uuid(),
                &u.email.as_str(),
                &u.password_hash.as_ref().map(PasswordHash::as_str),
                &u.email_verified_at,
                &u.role.as_str(),
                &u.created_at,
            ],
        )?;
        Ok(())
    }

    fn update_user(&mut self, u: &User) -> Result<bool, StoreError> {
        let n = self.exec(
            "UPDATE users SET email = $2, password_hash = $3, email_verified_at = $4, role = $5
             WHERE id = $1",
            &[
                &u.id.as_uuid(),
                &u.email.as_str(),
                &u.password_hash.as_ref().map(PasswordHash::as_str),
                &u.email_verified_at,
                &u.role.as_str(),
            ],
        )?;
        Ok(n > 0)
    }

    fn delete_user(&mut self, user: UserId) -> Result<bool, StoreError> {
        // Memberships, sessions and tokens go with the user (ON DELETE CASCADE).
        Ok(self.exec("DELETE FROM users WHERE id = $1", &[&user.as_uuid()])? > 0)
    }

    fn put_membership(&mut self, m: &Membership) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO memberships (account_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (account_id, user_id) DO UPDATE SET role = excluded.role",
            &[
                &m.account_id.as_uuid(),
                &m.user_id.as_uuid(),
                &m.role.as_str(),
                &m.created_at,
            ],
        )?;
        Ok(())
    }

    fn delete_membership(&mut self, account: AccountId, user: UserId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM memberships WHERE account_id = $1 AND user_id = $2",
            &[&account.as_uuid(), &user.as_uuid()],
        )? > 0)
    }
}
