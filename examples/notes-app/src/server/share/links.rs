// Share link creation and lookup.
// @spec SPEC-SHARE-001
// @decision DEC-SHARE-001

use rand::RngCore;
use sha2::{Digest, Sha256};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    View,
    Edit,
}

pub struct NewLink {
    /// Shown to the owner once, never stored.
    pub token: String,
    /// What the database keeps.
    pub token_hash: [u8; 32],
}

pub fn new_link() -> NewLink {
    let mut raw = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut raw);
    let token = base64_url::encode(&raw);
    NewLink { token_hash: hash_token(&token), token }
}

pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// A link is usable only if it is neither revoked nor expired at `now_ms` (NORM-DATA-001: UTC ms).
pub fn is_usable(revoked_at_ms: Option<i64>, expires_at_ms: Option<i64>, now_ms: i64) -> bool {
    revoked_at_ms.is_none() && expires_at_ms.map_or(true, |exp| now_ms < exp)
}
