//! brief: the context an AI agent needs before it works on one thing, assembled from a
//! project's knowledge graph — complete, exactly token-budgeted, deterministic, auditable.
//!
//! The pipeline runs one way, one module per stage:
//! [`project`] (find the root and its sources) → [`sources`] (load into [`model::Graph`]) →
//! [`resolve`] → [`traverse`] → [`rank`] → [`fit`] → [`render`]. [`context`] strings the stages
//! together for the CLI and the MCP server, which hold no logic of their own.

pub mod check;
pub mod command;
pub mod context;
pub mod dates;
pub mod diff;
pub mod engine;
pub mod explain;
pub mod fit;
pub mod guidance;
pub mod impact;
pub mod index;
pub mod init;
pub mod lens;
pub mod model;
pub mod project;
pub mod rank;
pub mod render;
pub mod resolve;
pub mod revision;
pub mod root;
pub use index::search;
pub mod session;
pub mod sources;
pub mod tokens;
pub mod traverse;

pub use context::{assemble, show, ContextError, ContextOutput, ContextRequest};
pub use engine::{Engine, EngineError};
pub use model::{Detail, Graph, Kind, Node, Relation};
pub use project::{Project, ProjectError};
pub use render::Format;
pub use sources::{load, Loaded, Problem};
pub use tokens::Encoding;
pub use traverse::Depth;
