//! brief: the context an AI agent needs before it works on one thing, assembled from a
//! project's knowledge graph — complete, exactly token-budgeted, deterministic, auditable.
//!
//! The façade. [`command`] is the API both front ends call: one [`command::Command`] in, one
//! [`command::Outcome`] out. Beside it, the stage crates and types that the front ends, the
//! evaluation, the benches and the integration tests still name are re-exported under their
//! stage names ([`project`], [`sources`], [`model`], [`index`], [`context`], [`engine`], …);
//! the rest of each stage stays behind its crate.

pub use brief_check as check;
pub mod command;
pub use brief_count as tokens;
pub use brief_embed as embed;
pub use brief_engine::context;
pub use brief_engine::engine;
pub use brief_engine::explain;
pub use brief_engine::impact;
use brief_engine::render;
pub use brief_engine::semantic;
use brief_engine::traverse;
pub use brief_engine::watched;
pub use brief_index as index;
pub use brief_model as model;
pub use brief_project as project;
use brief_root as root;
pub use brief_session as session;
pub use brief_sources as sources;
pub use brief_watch as watch;

pub use context::{assemble, show, ContextRequest};
pub use engine::EngineError;
pub use model::{Detail, Graph, Kind};
pub use project::{Project, ProjectError};
pub use render::Format;
pub use sources::Problem;
pub use tokens::Encoding;
pub use traverse::Depth;
