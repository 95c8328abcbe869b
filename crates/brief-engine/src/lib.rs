//! Resolve, traverse, rank, fit and render: the brief context engine.

pub mod context;
mod diff;
pub mod engine;
pub mod explain;
mod files;
mod find;
mod fit;
pub mod impact;
mod rank;
mod related;
pub mod render;
mod resolve;
mod revision;
mod scoped;
pub mod semantic;
pub mod traverse;
mod usage;
pub mod watched;

pub use usage::{FrontEnd, Param, Said};
