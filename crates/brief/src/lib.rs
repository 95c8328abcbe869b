//! brief: the context an AI agent needs before it works on one thing, assembled from a
//! project's knowledge graph — complete, exactly token-budgeted, deterministic, auditable.
//!
//! The pipeline runs one way, one module per stage:
//! [`project`] (find the root and its sources) → [`sources`] (load into [`model::Graph`]) →
//! [`resolve`] → [`traverse`] → [`rank`] → [`fit`] → [`render`]. [`context`] strings the stages
//! together for the CLI and the MCP server, which hold no logic of their own.

pub use brief_check as check;
pub mod command;
pub use brief_count as tokens;
pub use brief_embed as embed;
pub use brief_engine::context;
pub use brief_engine::diff;
pub use brief_engine::engine;
pub use brief_engine::explain;
pub use brief_engine::fit;
pub use brief_engine::impact;
pub use brief_engine::rank;
pub use brief_engine::render;
pub use brief_engine::resolve;
pub use brief_engine::revision;
pub use brief_engine::semantic;
pub use brief_engine::traverse;
pub use brief_engine::watched;
pub use brief_index as index;
pub use brief_model as model;
pub use brief_model::dates;
pub use brief_model::guidance;
pub use brief_model::lens;
pub use brief_project as project;
pub use brief_project::init;
pub use brief_root as root;
pub use brief_session as session;
pub use brief_sources as sources;
pub use brief_watch as watch;

pub use context::{assemble, show, ContextError, ContextOutput, ContextRequest};
pub use engine::{Engine, EngineError};
pub use model::{Detail, Graph, Kind, Node, Relation};
pub use project::{Project, ProjectError};
pub use render::Format;
pub use sources::{load, Loaded, Problem};
pub use tokens::Encoding;
pub use traverse::Depth;
