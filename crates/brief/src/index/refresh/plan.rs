//! What a refresh looks at: whether the folders and manifests (or every file) kept their
//! stamps, and the listing kept in the index.

use super::*;

impl Index {
    pub(in crate::index) fn watches_unchanged(&self) -> Result<bool, IndexError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, size, mtime, ctime, ino, dev, racy FROM watches")
            .map_err(|e| self.err(e))?;
        let rows: Vec<(String, Stamp, bool)> = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, stamp_row(r, 1)?, r.get::<_, i64>(6)? != 0))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        if rows.is_empty() {
            return Ok(false);
        }
        Ok(rows.iter().all(|(path, stamp, racy)| {
            !racy && stat(&self.root.join(path)).as_ref() == Some(stamp)
        }))
    }

    /// `Some(number of files)` when every indexed file still has its indexed stamp, none had
    /// a problem and none was stamped too soon after a change: then a refresh has nothing
    /// to do.
    pub(in crate::index) fn files_unchanged(&self) -> Result<Option<usize>, IndexError> {
        use rayon::prelude::*;
        let mut stmt = self
            .conn
            .prepare("SELECT path, size, mtime, ctime, ino, dev, racy, problem, parser FROM files")
            .map_err(|e| self.err(e))?;
        let rows: Vec<(String, Known)> = stmt
            .query_map([], |r| Ok((r.get(0)?, known_row_at(r, 1)?)))
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        let root = self.root.as_path();
        let unchanged = rows
            .par_iter()
            .all(|(rel, known)| known.unchanged(stat(&root.join(rel)).as_ref()));
        Ok(unchanged.then_some(rows.len()))
    }

    /// The files of the last listing, from the index.
    pub(in crate::index) fn listed_from_index(&self) -> Result<Vec<Listed>, IndexError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, size, mtime, ctime, ino, dev, racy, problem, parser FROM files
                 ORDER BY path",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, known_row_at(r, 1)?)))
            .map_err(|e| self.err(e))?;
        let mut listed = Vec::new();
        for row in rows {
            let (rel, known) = row.map_err(|e| self.err(e))?;
            if let Some(parser) = decode_parser(&known.parser) {
                listed.push(Listed {
                    path: self.root.join(&rel),
                    rel,
                    parser,
                    known: Some(known),
                });
            }
        }
        Ok(listed)
    }

    /// The catalogue knowledge-base links resolve against, and each Markdown file's parser
    /// set to its fingerprint. A full refresh has the whole listing; a refresh of named
    /// files takes the other files from the index.
    pub(in crate::index) fn markdown_catalog(
        &self,
        listed: &mut [Listed],
        partial: bool,
    ) -> Result<kb::Catalog, IndexError> {
        if !listed
            .iter()
            .any(|f| matches!(f.parser, Parser::Markdown(_)))
        {
            return Ok(kb::Catalog::default());
        }
        let mut files: Vec<(String, Parser)> = listed
            .iter()
            .map(|f| (f.rel.clone(), f.parser.clone()))
            .collect();
        if partial {
            let mut stmt = self
                .conn
                .prepare("SELECT path, parser FROM files")
                .map_err(|e| self.err(e))?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(|e| self.err(e))?;
            for row in rows {
                let (rel, parser) = row.map_err(|e| self.err(e))?;
                if let Some(parser) = decode_parser(&parser) {
                    files.push((rel, parser));
                }
            }
            files.sort_by(|a, b| a.0.cmp(&b.0));
            files.dedup_by(|a, b| a.0 == b.0);
        }
        let layout = kb::Layout::detect(&self.guard);
        let markdown = files
            .iter()
            .filter(|(_, p)| matches!(p, Parser::Markdown(_)))
            .map(|(rel, _)| rel.clone());
        let mut catalog = kb::Catalog::new(layout, markdown);
        for (rel, parser) in &files {
            if let Parser::Spec(entry) = parser {
                catalog.add_other(rel.clone(), entry.id.clone());
            }
        }
        let fingerprint = catalog.fingerprint();
        for file in listed.iter_mut() {
            if let Parser::Markdown(print) = &mut file.parser {
                print.clone_from(&fingerprint);
            }
        }
        Ok(catalog)
    }
}
