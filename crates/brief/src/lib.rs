//! brief: the context an AI agent needs before it works on one thing, assembled from a
//! project's knowledge graph — complete, exactly token-budgeted, deterministic, auditable.
//!
//! The façade. [`command`] is the API both front ends call: one [`command::Command`] in, one
//! [`command::Outcome`] out. Beside it, only the types that API's arguments and results are
//! made of: the context settings ([`ContextRequest`], [`Format`], [`Detail`], [`Depth`],
//! [`Encoding`]), the open project an MCP server hands in ([`Engine`], [`Cancel`],
//! [`Project`] and their errors), the indexing progress ([`Step`], [`Unit`]) and the session
//! commands' types ([`session`]). The stages stay behind their crates; the MCP server, the
//! evaluation and the tests and benches name them there.

pub mod command;

// The stages under their stage names, for the command module only.
use brief_check as check;
use brief_count as tokens;
use brief_index as index;
use brief_model as model;
use brief_project as project;
use brief_root as root;

pub use brief_count::Encoding;
pub use brief_engine::{Cancel, ContextRequest, Engine, EngineError, Format};
pub use brief_index::{Step, Unit};
pub use brief_model::{Depth, Detail};
pub use brief_project::{Project, ProjectError};

/// The session commands' arguments and results ([`command::Command::Session`]).
pub mod session {
    pub use brief_session::{
        Command, ConsumeRequest, ErrorRecord, ListRequest, NewPackage, Output, PackageType,
        Priority, Secrets,
    };
}
