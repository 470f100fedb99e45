//! What each configuration change names (schema version 8): row triggers on accounts and keys that move the version and `NOTIFY qr_config` with what changed, and the parsing of those notifications.

use qr_domain::accounts::config_change::ConfigChange;
use qr_domain::accounts::key::KeyHash;
use qr_domain::{AccountId, KeyId};
use uuid::Uuid;

/// Version 8: the statement triggers of version 1 on accounts and keys (one version and one
/// notification per statement, naming nothing) replaced by row triggers, so every server drops
/// just the cached keys a change concerns. Each changed row moves the version by one and
/// notifies `qr_config` with `<version> account <id>` or `<version> key <id> <hash in hex>`
/// (the hash of the key's secret after the change; before it, for a deletion): at most 110
/// bytes, far below PostgreSQL's 8,000-byte limit. Notifications of one transaction arrive in
/// order, and transactions in commit order, which is the order of their versions (the version
/// row's lock is held until commit). Webhooks keep their statement trigger: they change no
/// cached key, and their notification is the version alone.
pub(crate) const V8_CONFIG_CHANGES: &str = r"
CREATE FUNCTION qr_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    version bigint;
    changed uuid;
BEGIN
    IF TG_OP = 'DELETE' THEN changed := OLD.id; ELSE changed := NEW.id; END IF;
    UPDATE meta SET value = value + 1 WHERE key = 'config_version' RETURNING value INTO version;
    PERFORM pg_notify('qr_config', version::text || ' account ' || changed::text);
    RETURN NULL;
END
$$;
CREATE FUNCTION qr_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    version bigint;
    changed uuid;
    hash bytea;
BEGIN
    IF TG_OP = 'DELETE' THEN
        changed := OLD.id;
        hash := OLD.hash;
    ELSE
        changed := NEW.id;
        hash := NEW.hash;
    END IF;
    UPDATE meta SET value = value + 1 WHERE key = 'config_version' RETURNING value INTO version;
    PERFORM pg_notify('qr_config', version::text || ' key ' || changed::text || ' ' || encode(hash, 'hex'));
    RETURN NULL;
END
$$;
DROP TRIGGER accounts_changed ON accounts;
DROP TRIGGER api_keys_added_or_removed ON api_keys;
DROP TRIGGER api_keys_changed ON api_keys;
CREATE TRIGGER accounts_row_changed AFTER INSERT OR UPDATE OR DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION qr_account_changed();
CREATE TRIGGER api_keys_row_added_or_removed AFTER INSERT OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION qr_key_changed();
CREATE TRIGGER api_keys_row_changed AFTER UPDATE OF account_id, mode, hash, display_prefix, settings ON api_keys
    FOR EACH ROW EXECUTE FUNCTION qr_key_changed();
";

/// What a `qr_config` notification says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notice {
    /// The version moved, changing nothing a key cache holds (a webhook).
    Version(u64),
    /// The version moved with this account or key change.
    Change(u64, ConfigChange),
    /// The version moved by a change this build cannot read (a newer server's): anything
    /// cached may be stale.
    Unreadable(u64),
}

/// Reads a notification's payload; `None` when not even the version can be read.
pub(crate) fn parse(payload: &str) -> Option<Notice> {
    let mut words = payload.split(' ');
    let version = words.next()?.parse::<u64>().ok()?;
    let change = match (words.next(), words.next(), words.next(), words.next()) {
        (None, ..) => return Some(Notice::Version(version)),
        (Some("account"), Some(id), None, None) => Uuid::parse_str(id)
            .ok()
            .map(|id| ConfigChange::Account(AccountId::from_uuid(id))),
        (Some("key"), Some(id), Some(hash), None) => Uuid::parse_str(id)
            .ok()
            .zip(hex_hash(hash))
            .map(|(id, hash)| ConfigChange::Key {
                id: KeyId::from_uuid(id),
                hash,
            }),
        _ => None,
    };
    Some(change.map_or(Notice::Unreadable(version), |c| Notice::Change(version, c)))
}

/// A key hash written by `encode(hash, 'hex')`: 64 lower-case hex digits.
fn hex_hash(text: &str) -> Option<KeyHash> {
    if text.len() != 64 {
        return None;
    }
    let mut hash = [0u8; 32];
    for (byte, pair) in hash.iter_mut().zip(text.as_bytes().chunks(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(KeyHash(hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notifications_name_what_changed() {
        let id = "6f1c1d1e-8a7b-4c3d-9e2f-0a1b2c3d4e5f";
        let uuid = Uuid::parse_str(id).unwrap();
        assert_eq!(parse("41"), Some(Notice::Version(41)));
        assert_eq!(
            parse(&format!("42 account {id}")),
            Some(Notice::Change(
                42,
                ConfigChange::Account(AccountId::from_uuid(uuid))
            ))
        );
        let hex = "00ff".repeat(16);
        let mut hash = [0u8; 32];
        for pair in hash.chunks_mut(2) {
            pair[1] = 0xff;
        }
        assert_eq!(
            parse(&format!("43 key {id} {hex}")),
            Some(Notice::Change(
                43,
                ConfigChange::Key {
                    id: KeyId::from_uuid(uuid),
                    hash: KeyHash(hash),
                }
            ))
        );
        assert_eq!(
            parse(&format!("44 key {id} 00ff")),
            Some(Notice::Unreadable(44))
        );
        assert_eq!(parse("45 link x"), Some(Notice::Unreadable(45)));
        assert_eq!(parse("x account y"), None);
    }
}
