//! Resolve, traverse, rank, fit and render: the brief context engine.

mod context;
mod diff;
mod engine;
mod explain;
mod files;
mod find;
mod fit;
mod impact;
mod named;
mod rank;
mod related;
mod render;
mod resolve;
mod revision;
mod scoped;
mod sections;
mod semantic;
mod traverse;
mod usage;
mod watched;

pub use context::{
    assemble, assemble_from, plan, select, show, Confidence, ContextError, ContextOutput,
    ContextRequest, Found, NamedRule, Start,
};
pub use engine::{
    located, Cancel, ChangeSignal, Engine, EngineError, Pending, Searched, MAX_NAMED_CHANGES,
};
pub use explain::{explain, explanation_text};
pub use impact::{chain, impact, impact_text, Plans};
pub use render::search::search_hits;
pub use render::Format;
pub use resolve::Weakness;
pub use semantic::{probe, Semantic};
pub use usage::{FrontEnd, Param, Said};
pub use watched::{Answering, Cookies, Vouch, VouchError, COOKIE_PREFIX, SOCKET};
