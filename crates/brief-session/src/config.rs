//! `brief.toml`'s `[session]` table and the built-in limits and windows: plain data owned by the
//! project (`project::config`), so the project never depends on the session store.

pub use brief_project::{
    SessionConfig, DEFAULT_LIMIT, DEFAULT_LIMITS, DEFAULT_MODEL, DEFAULT_SAFETY_MARGIN,
    DEFAULT_WINDOWS,
};
