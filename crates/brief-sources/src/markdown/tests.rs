//! Unit tests of the knowledge-base parser on small pages in the real formats.

use super::*;
use crate::kb::{Catalog, Layout};

fn catalog(files: &[&str]) -> Catalog {
    let layout = Layout {
        adr_dirs: vec!["docs/adr".into()],
        ..Layout::default()
    };
    Catalog::new(layout, files.iter().map(|f| f.to_string()))
}
