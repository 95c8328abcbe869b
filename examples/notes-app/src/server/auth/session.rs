// Session cookies for members and share-link guests.
// @spec SPEC-AUTH-001

pub const COOKIE_NAME: &str = "tm_session";
pub const MEMBER_TTL_MS: i64 = 30 * 24 * 60 * 60 * 1000;
pub const GUEST_MAX_TTL_MS: i64 = 24 * 60 * 60 * 1000;

pub enum Principal {
    Member { account_id: uuid::Uuid },
    Guest { note_id: uuid::Uuid, link_id: uuid::Uuid },
}

pub fn cookie_header(session_id: &str) -> String {
    format!("{COOKIE_NAME}={session_id}; Path=/; HttpOnly; Secure; SameSite=Lax")
}

/// A guest session lives until its link expires, and never longer than a day.
pub fn guest_expiry_ms(now_ms: i64, link_expires_at_ms: Option<i64>) -> i64 {
    let cap = now_ms + GUEST_MAX_TTL_MS;
    link_expires_at_ms.map_or(cap, |exp| exp.min(cap))
}
