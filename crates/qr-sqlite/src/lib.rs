//! The SQLite adapter of the `qr-domain` storage traits: the embedded default store.
