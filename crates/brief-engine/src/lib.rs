//! Resolve, traverse, rank, fit and render: the brief context engine.

pub mod context;
pub mod diff;
pub mod engine;
pub mod explain;
pub mod files;
mod find;
pub mod fit;
pub mod impact;
pub mod rank;
mod related;
pub mod render;
pub mod resolve;
pub mod revision;
pub mod scoped;
pub mod semantic;
pub mod traverse;
mod usage;
pub mod watched;

pub use usage::{FrontEnd, Param, Said};
