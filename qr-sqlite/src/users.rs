//! Users and memberships in SQL: the people who log in, found by id or login address, and which workspaces they belong to with which role.

use qr_domain::accounts::user::{Membership, User};
use qr_domain::ids::UserId;
use qr_domain::store::{UserReads, UserWrites};
use qr_domain::{AccountId, Email, PasswordHash, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, get, id_bytes, micros, time, user_bytes, uuid};

/// Version 11: users and memberships. Every account becomes a user with the account's id,
/// address, password, verification time and service role, owning the account; the accounts
/// keep their address (no longer unique: a user may own several workspaces) and lose the
/// person's columns. Tokens belong to users; a session belongs to a user and shows a workspace
/// (none once that workspace is deleted). The tables are rebuilt because SQLite cannot change
/// a column's foreign key; their rows keep their values, the account's id being its user's.
pub(crate) const V11_USERS: &str = r"
CREATE TABLE users (
    id BLOB PRIMARY KEY,
    email TEXT NOT NULL,
    password_hash TEXT,
    email_verified_at INTEGER,
    role TEXT NOT NULL DEFAULT 'customer',
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX users_by_email ON users(email COLLATE NOCASE);
CREATE TABLE memberships (
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, user_id)
) WITHOUT ROWID;
CREATE INDEX memberships_by_user ON memberships(user_id, created_at);
INSERT INTO users (id, email, password_hash, email_verified_at, role, created_at)
    SELECT id, email, password_hash, email_verified_at, role, created_at FROM accounts;
INSERT INTO memberships (account_id, user_id, role, created_at)
    SELECT id, id, 'owner', created_at FROM accounts;
CREATE TABLE user_tokens (
    hash BLOB PRIMARY KEY,
    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    new_email TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO user_tokens (hash, user_id, purpose, new_email, created_at, expires_at)
    SELECT hash, account_id, purpose, new_email, created_at, expires_at FROM tokens;
DROP TABLE tokens;
ALTER TABLE user_tokens RENAME TO tokens;
CREATE UNIQUE INDEX tokens_by_user ON tokens(user_id, purpose);
CREATE TABLE user_sessions (
    hash BLOB PRIMARY KEY,
    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    account_id BLOB REFERENCES accounts(id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    user_agent TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO user_sessions (hash, user_id, account_id, created_at, last_seen_at, user_agent)
    SELECT hash, account_id, account_id, created_at, last_seen_at, user_agent FROM sessions;
DROP TABLE sessions;
ALTER TABLE user_sessions RENAME TO sessions;
CREATE INDEX sessions_by_user ON sessions(user_id, created_at);
CREATE INDEX sessions_by_account ON sessions(account_id);
DROP INDEX accounts_by_email;
CREATE INDEX accounts_by_email ON accounts(email COLLATE NOCASE);
ALTER TABLE accounts DROP COLUMN password_hash;
ALTER TABLE accounts DROP COLUMN email_verified_at;
ALTER TABLE accounts DROP COLUMN role;
";

const USER_COLS: &str = "id, email, password_hash, email_verified_at, role, created_at";

fn user_from(r: &Row<'_>) -> Result<User, StoreError> {
    Ok(User {
        id: UserId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        email: get::<String>(r, 1)?
            .try_into()
            .map_err(|_| corrupt("email"))?,
        password_hash: get::<Option<String>>(r, 2)?
            .map(|h| PasswordHash::parse(&h).map_err(|_| corrupt("password_hash")))
            .transpose()?,
        email_verified_at: get::<Option<i64>>(r, 3)?.map(time).transpose()?,
        role: get::<String>(r, 4)?.parse().map_err(|_| corrupt("role"))?,
        created_at: time(get(r, 5)?)?,
    })
}

const MEMBERSHIP_COLS: &str = "account_id, user_id, role, created_at";

fn membership_from(r: &Row<'_>) -> Result<Membership, StoreError> {
    Ok(Membership {
        account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        user_id: UserId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        role: get::<String>(r, 2)?.parse().map_err(|_| corrupt("role"))?,
        created_at: time(get(r, 3)?)?,
    })
}

impl UserReads for SqlTx<'_> {
    fn user(&self, id: UserId) -> Result<Option<User>, StoreError> {
        let sql = format!("SELECT {USER_COLS} FROM users WHERE id = ?1");
        self.one(&sql, [&user_bytes(id)[..]], user_from)
    }

    fn user_by_email(&self, email: &Email) -> Result<Option<User>, StoreError> {
        // NOCASE folds ASCII letters only, exactly as `Email::lookup_key` does, and matches the
        // collation of the unique index `users_by_email`, so the lookup uses it.
        let sql = format!("SELECT {USER_COLS} FROM users WHERE email = ?1 COLLATE NOCASE");
        self.one(&sql, [email.as_str()], user_from)
    }

    fn users(&self) -> Result<Vec<User>, StoreError> {
        let sql = format!("SELECT {USER_COLS} FROM users ORDER BY created_at, id");
        self.all(&sql, [], user_from)
    }

    fn membership(
        &self,
        account: AccountId,
        user: UserId,
    ) -> Result<Option<Membership>, StoreError> {
        let sql = format!(
            "SELECT {MEMBERSHIP_COLS} FROM memberships WHERE account_id = ?1 AND user_id = ?2"
        );
        self.one(
            &sql,
            params![&id_bytes(account)[..], &user_bytes(user)[..]],
            membership_from,
        )
    }

    fn memberships_of_user(&self, user: UserId) -> Result<Vec<Membership>, StoreError> {
        let sql = format!(
            "SELECT {MEMBERSHIP_COLS} FROM memberships WHERE user_id = ?1 ORDER BY created_at, account_id"
        );
        self.all(&sql, [&user_bytes(user)[..]], membership_from)
    }

    fn members_of(&self, account: AccountId) -> Result<Vec<Membership>, StoreError> {
        let sql = format!(
            "SELECT {MEMBERSHIP_COLS} FROM memberships WHERE account_id = ?1 ORDER BY created_at, user_id"
        );
        self.all(&sql, [&id_bytes(account)[..]], membership_from)
    }
}

impl UserWrites for SqlTx<'_> {
    fn insert_user(&mut self, u: &User) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO users (id, email, password_hash, email_verified_at, role, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                &user_bytes(u.id)[..],
                u.email.as_str(),
                u.password_hash.as_ref().map(PasswordHash::as_str),
                u.email_verified_at.map(micros),
                u.role.as_str(),
                micros(u.created_at)
            ],
        )?;
        Ok(())
    }

    fn update_user(&mut self, u: &User) -> Result<bool, StoreError> {
        let n = self.exec(
            "UPDATE users SET email = ?2, password_hash = ?3, email_verified_at = ?4, role = ?5
             WHERE id = ?1",
            params![
                &user_bytes(u.id)[..],
                u.email.as_str(),
                u.password_hash.as_ref().map(PasswordHash::as_str),
                u.email_verified_at.map(micros),
                u.role.as_str()
            ],
        )?;
        Ok(n > 0)
    }

    fn delete_user(&mut self, user: UserId) -> Result<bool, StoreError> {
        // Memberships, sessions and tokens go with the user (ON DELETE CASCADE).
        Ok(self.exec("DELETE FROM users WHERE id = ?1", [&user_bytes(user)[..]])? > 0)
    }

    fn put_membership(&mut self, m: &Membership) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO memberships (account_id, user_id, role, created_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (account_id, user_id) DO UPDATE SET role = excluded.role",
            params![
                &id_bytes(m.account_id)[..],
                &user_bytes(m.user_id)[..],
                m.role.as_str(),
                micros(m.created_at)
            ],
        )?;
        Ok(())
    }

    fn delete_membership(&mut self, account: AccountId, user: UserId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM memberships WHERE account_id = ?1 AND user_id = ?2",
            params![&id_bytes(account)[..], &user_bytes(user)[..]],
        )? > 0)
    }
}
