//! `brief.toml`'s `[check]` table: plain data owned by the project (`project::config`), so the
//! project never depends on `check`.

pub use brief_project::{CheckConfig, Level};
