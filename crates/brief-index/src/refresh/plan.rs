//! What a refresh looks at: whether the folders and manifests (or every file) kept their
//! stamps, and the listing kept in the index.

use super::*;

impl Index {
    pub(crate) fn watches_unchanged(&self) -> Result<bool, IndexError> {
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
    pub(crate) fn files_unchanged(&self) -> Result<Option<usize>, IndexError> {
        use std::sync::atomic::{AtomicBool, Ordering};
        /// Rows handed to the pool at a time: the stats of one batch run while the next is
        /// read, so reading the index and stat'ing the files overlap.
        const BATCH: usize = 1024;
        // Only the columns the check needs: this runs before every request.
        let mut stmt = self
            .conn
            .prepare("SELECT path, size, mtime, ctime, ino, dev, racy, problem FROM files")
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let changed = AtomicBool::new(false);
        let root = self.root.as_path();
        let check = |batch: Vec<(String, Stamp)>| {
            if changed.load(Ordering::Relaxed) {
                return;
            }
            let rels: Vec<&str> = batch.iter().map(|(rel, _)| rel.as_str()).collect();
            let now = stat_all(root, &rels);
            if !now
                .iter()
                .zip(&batch)
                .all(|(now, (_, known))| now.as_ref() == Some(known))
            {
                changed.store(true, Ordering::Relaxed);
            }
        };
        let mut count = 0;
        // The rows are read on this thread, each batch stat'ed on the pool meanwhile.
        let read: Result<(), IndexError> = rayon::in_place_scope(|scope| {
            let mut batch = Vec::with_capacity(BATCH);
            while let Some(r) = rows.next().map_err(|e| self.err(e))? {
                let racy = r.get::<_, i64>(6).map_err(|e| self.err(e))? != 0;
                let problem = r.get::<_, i64>(7).map_err(|e| self.err(e))? != 0;
                if racy || problem || changed.load(Ordering::Relaxed) {
                    // Read again whatever its stamp (or a change was found): no need to
                    // stat the rest.
                    changed.store(true, Ordering::Relaxed);
                    return Ok(());
                }
                let path: String = r.get(0).map_err(|e| self.err(e))?;
                batch.push((path, stamp_row(r, 1).map_err(|e| self.err(e))?));
                count += 1;
                if batch.len() == BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    scope.spawn(|_| check(full));
                }
            }
            check(batch);
            Ok(())
        });
        read?;
        Ok((!changed.into_inner()).then_some(count))
    }

    /// The files of the last listing, from the index.
    pub(crate) fn listed_from_index(&self) -> Result<Vec<Listed>, IndexError> {
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
    pub(crate) fn markdown_catalog(
        &self,
        listed: &mut [Listed],
        scope: Scope,
    ) -> Result<brief_sources::Catalog, IndexError> {
        if !listed.iter().any(|f| f.parser.is_page()) {
            return Ok(brief_sources::Catalog::default());
        }
        let mut files: Vec<(String, Parser)> = listed
            .iter()
            .map(|f| (f.rel.clone(), f.parser.clone()))
            .collect();
        if scope == Scope::Named {
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
        let mut layout = brief_sources::Layout::detect(&self.guard);
        for format in files.iter().filter_map(|(_, p)| p.format()) {
            layout.page_extensions.extend(format.extensions());
        }
        layout.page_extensions.sort_unstable();
        layout.page_extensions.dedup();
        let pages = files
            .iter()
            .filter(|(_, p)| p.is_page())
            .map(|(rel, _)| rel.clone());
        let mut catalog = brief_sources::Catalog::new(layout, pages);
        catalog.set_repository(brief_sources::Repository::detect(&self.guard));
        let formatted = files
            .iter()
            .filter_map(|(rel, p)| Some((rel.as_str(), p.format()?)));
        brief_sources::add_labels(&mut catalog, &self.guard, formatted);
        for (rel, parser) in &files {
            if let Parser::Spec(entry) = parser {
                catalog.add_other(rel.clone(), entry.id.clone());
            }
        }
        let fingerprint = catalog.fingerprint();
        for file in listed.iter_mut() {
            if let Some(print) = file.parser.fingerprint_mut() {
                print.clone_from(&fingerprint);
            }
        }
        Ok(catalog)
    }
}

/// What a refresh reads and removes, decided from the listing, the stamps on disk and what
/// the index knows: nothing is read or written yet.
pub(crate) struct Plan {
    /// What the index knows of each listed file.
    pub(crate) known: HashMap<String, Known>,
    /// Each listed file's stamp now (`None` when not taken: into an empty index, or for
    /// named files, every file is read and stamped as it is read).
    pub(crate) stats: Vec<Option<Stamp>>,
    /// The listed files to read again (positions in the listing, in listing order).
    pub(crate) todo: Vec<usize>,
    /// The indexed content hashes of the files to read whose parser did not change: an
    /// unchanged hash then means nothing to parse.
    pub(crate) hashes: HashMap<String, Vec<u8>>,
    /// Indexed files no longer listed.
    pub(crate) removed: Vec<String>,
}

impl Index {
    /// Compares the listing with the index: which files changed (by stamp or parser), which
    /// left. [`Scope::Named`] reads every listed file and removes none.
    pub(crate) fn plan(&self, listed: &[Listed], scope: Scope) -> Result<Plan, IndexError> {
        let e = |x: rusqlite::Error| self.err(x);
        let partial = scope == Scope::Named;
        // What the index knows of each listed file (read in one pass unless the listing
        // came from the index and carries it already).
        let from_index = !listed.is_empty() && listed.iter().all(|f| f.known.is_some());
        let known: HashMap<String, Known> = if from_index {
            listed
                .iter()
                .filter_map(|f| f.known.clone().map(|k| (f.rel.clone(), k)))
                .collect()
        } else if partial {
            let mut known = HashMap::new();
            for file in listed {
                if let Some(k) = self.known(&file.rel)? {
                    known.insert(file.rel.clone(), k);
                }
            }
            known
        } else {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT path, size, mtime, ctime, ino, dev, racy, problem, parser FROM files",
                )
                .map_err(e)?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, known_row_at(r, 1)?)))
                .map_err(e)?;
            rows.collect::<Result<_, _>>().map_err(e)?
        };
        // Into an empty index every file is read, and stamped as it is read: no stat first.
        let stats: Vec<Option<Stamp>> = if known.is_empty() || partial {
            vec![None; listed.len()]
        } else {
            let rels: Vec<&str> = listed.iter().map(|f| f.rel.as_str()).collect();
            stat_all(&self.root, &rels)
        };
        let mut todo: Vec<usize> = Vec::new();
        for (i, file) in listed.iter().enumerate() {
            let trusted = !partial
                && known.get(&file.rel).is_some_and(|k| {
                    k.unchanged(stats[i].as_ref()) && k.parser == encode_parser(&file.parser)
                });
            if !trusted {
                todo.push(i);
            }
        }
        // Hashes for the files read again whose parser is the same: an unchanged hash then
        // means nothing to parse (a changed parser — a manifest entry's id or expected type —
        // parses the file again whatever its content).
        let mut hashes: HashMap<String, Vec<u8>> = HashMap::new();
        for &i in &todo {
            let rel = listed[i].rel.as_str();
            if known
                .get(rel)
                .is_some_and(|k| !k.problem && k.parser == encode_parser(&listed[i].parser))
            {
                let hash: Vec<u8> = row(
                    &self.conn,
                    "SELECT hash FROM files WHERE path = ?1",
                    [rel],
                    |r| r.get(0),
                )
                .map_err(e)?;
                hashes.insert(rel.to_string(), hash);
            }
        }
        let removed: Vec<String> = if partial || known.is_empty() {
            Vec::new()
        } else {
            let seen: HashSet<&str> = listed.iter().map(|f| f.rel.as_str()).collect();
            known
                .keys()
                .filter(|path| !seen.contains(path.as_str()))
                .cloned()
                .collect()
        };

        Ok(Plan {
            known,
            stats,
            todo,
            hashes,
            removed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::kit;
    use super::*;

    /// The rel paths a plan reads again.
    fn to_read(listed: &[Listed], plan: &Plan) -> Vec<String> {
        let mut rels: Vec<String> = plan.todo.iter().map(|&i| listed[i].rel.clone()).collect();
        rels.sort();
        rels
    }

    #[test]
    fn a_plan_reads_what_changed_and_removes_what_left() {
        let dir = kit::payments();
        kit::settle();
        let (project, index) = kit::built(dir.path());
        kit::settle();
        // Nothing changed: nothing to read, nothing removed.
        let (listed, _, _) = list(&project);
        let plan = index.plan(&listed, Scope::All).unwrap();
        assert!(plan.todo.is_empty(), "{:?}", to_read(&listed, &plan));
        assert!(plan.removed.is_empty());
        assert_eq!(plan.known.len(), 3);
        // One changed (same parser: its hash is looked up), one added, one removed.
        kit::write(
            dir.path(),
            "specs/SPEC-PAY-002.md",
            &kit::spec("SPEC-PAY-002", "Refunds", &[], "Refunds within 30 days."),
        );
        kit::write(
            dir.path(),
            "specs/SPEC-PAY-003.md",
            &kit::spec("SPEC-PAY-003", "Payouts", &[], "Weekly payouts."),
        );
        std::fs::remove_file(dir.path().join(".contextia/system/norms/NORM-SEC-001.md")).unwrap();
        let (listed, _, _) = list(&project);
        let plan = index.plan(&listed, Scope::All).unwrap();
        assert_eq!(
            to_read(&listed, &plan),
            [
                ".contextia/system/specs/SPEC-PAY-002.md",
                ".contextia/system/specs/SPEC-PAY-003.md"
            ]
        );
        assert_eq!(plan.removed, [".contextia/system/norms/NORM-SEC-001.md"]);
        assert_eq!(
            plan.hashes.keys().collect::<Vec<_>>(),
            [".contextia/system/specs/SPEC-PAY-002.md"],
            "only a file the index knows has a hash to compare"
        );
        // Named files are read whatever their stamps, and nothing is removed.
        let plan = index.plan(&listed[..1], Scope::Named).unwrap();
        assert_eq!(plan.todo, [0]);
        assert!(plan.removed.is_empty());
    }

    #[test]
    fn stat_all_gives_each_path_its_own_stamp_in_the_order_asked() {
        let dir = kit::payments();
        let root = dir.path();
        let rels = [
            ".contextia/system/specs/SPEC-PAY-001.md",
            "missing/file.md",
            ".contextia/system/norms/NORM-SEC-001.md",
            ".contextia/config.yaml",
            ".contextia/system/specs/SPEC-PAY-002.md",
            ".contextia/system/specs/absent.md",
            ".contextia/system/specs",
        ];
        let got = stat_all(root, &rels);
        let want: Vec<Option<Stamp>> = rels.iter().map(|rel| stat(&root.join(rel))).collect();
        assert_eq!(got, want);
        assert!(got[0].is_some() && got[1].is_none() && got[5].is_none());
        assert_eq!(
            got[6].map(|s| s.size),
            Some(0),
            "a folder's size is not compared"
        );
    }

    #[test]
    fn a_change_in_any_batch_of_a_large_project_is_found() {
        // More files than one batch of the check, in several folders; each round edits one
        // file in place (same size, so only the times tell) and the check must see it.
        let files: Vec<(String, String)> = (0..2600)
            .map(|i| {
                let id = format!("SPEC-BULK-{i:04}");
                (
                    format!("specs/group-{}/{id}.md", i % 7),
                    kit::spec(&id, &format!("Bulk spec {i}"), &[], "Body."),
                )
            })
            .collect();
        let borrowed: Vec<(&str, String)> = files
            .iter()
            .map(|(rel, text)| (rel.as_str(), text.clone()))
            .collect();
        let dir = kit::project(&borrowed);
        kit::settle();
        let (_project, index) = kit::built(dir.path());
        kit::settle();
        assert_eq!(index.files_unchanged().unwrap(), Some(2600));
        for i in [0usize, 1500, 2599] {
            let rel = &files[i].0;
            let text = files[i].1.replace("Body.", "Edit.");
            kit::write(dir.path(), rel, &text);
            assert_eq!(
                index.files_unchanged().unwrap(),
                None,
                "edit of {rel} not seen"
            );
            // Back as it was indexed (the times still differ from the stamp).
            kit::write(dir.path(), rel, &files[i].1);
            assert_eq!(index.files_unchanged().unwrap(), None);
        }
    }

    #[test]
    fn an_empty_index_reads_everything_without_stat() {
        let dir = kit::payments();
        let project = Project::at(dir.path()).unwrap();
        let index = Index::open(&project).unwrap();
        let (listed, _, _) = list(&project);
        let plan = index.plan(&listed, Scope::All).unwrap();
        assert_eq!(plan.todo.len(), 3);
        assert!(plan.stats.iter().all(Option::is_none));
        assert!(plan.known.is_empty() && plan.removed.is_empty());
    }
}
