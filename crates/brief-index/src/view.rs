//! The index as a [`GraphView`], a [`Corpus`] and a [`CountStore`]: every read returns its
//! error.

use super::*;

impl GraphView for Index {
    fn lookup(&self, id: &str) -> Result<Option<NodeIx>, StoreError> {
        self.conn
            .prepare_cached("SELECT ix FROM nodes WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get::<_, i64>(0)).optional())
            .map(|ix| ix.map(|ix| ix as NodeIx))
            .map_err(|e| self.fail(e))
    }

    fn id_of(&self, ix: NodeIx) -> Result<String, StoreError> {
        if let Some(id) = self.ids.borrow().get(&ix) {
            return Ok(id.clone());
        }
        let id: String = self
            .conn
            .prepare_cached("SELECT id FROM nodes WHERE ix = ?1")
            .and_then(|mut s| s.query_row([ix], |r| r.get(0)))
            .map_err(|e| self.fail(e))?;
        self.ids.borrow_mut().insert(ix, id.clone());
        Ok(id)
    }

    fn kind_of(&self, ix: NodeIx) -> Result<Kind, StoreError> {
        if let Some(kind) = self.kinds.borrow().get(&ix) {
            return Ok(kind.clone());
        }
        let kind: String = self
            .conn
            .prepare_cached("SELECT kind FROM nodes WHERE ix = ?1")
            .and_then(|mut s| s.query_row([ix], |r| r.get(0)))
            .map_err(|e| self.fail(e))?;
        let kind = Kind::parse(&kind);
        self.kinds.borrow_mut().insert(ix, kind.clone());
        Ok(kind)
    }

    fn edges_out(&self, ix: NodeIx) -> Result<Vec<Edge>, StoreError> {
        self.edges(ix, Side::Out)
    }

    fn edges_in(&self, ix: NodeIx) -> Result<Vec<Edge>, StoreError> {
        self.edges(ix, Side::In)
    }

    fn edges_out_of(&self, ix: NodeIx, relation: &Relation) -> Result<Vec<Edge>, StoreError> {
        self.edges_of(ix, Side::Out, relation)
    }

    fn edges_in_of(&self, ix: NodeIx, relation: &Relation) -> Result<Vec<Edge>, StoreError> {
        self.edges_of(ix, Side::In, relation)
    }

    fn identity(&self) -> Result<Option<NodeIx>, StoreError> {
        self.conn
            .prepare_cached("SELECT ix FROM nodes WHERE kind = 'identity' ORDER BY id LIMIT 1")
            .and_then(|mut s| s.query_row([], |r| r.get::<_, i64>(0)).optional())
            .map(|ix| ix.map(|ix| ix as NodeIx))
            .map_err(|e| self.fail(e))
    }

    fn scoped(&self) -> Result<Vec<(NodeIx, Applies)>, StoreError> {
        type Stored = (i64, String, Option<String>, i64);
        let rows = (|| -> Result<Vec<Stored>, rusqlite::Error> {
            let mut stmt = self.conn.prepare_cached(
                "SELECT ix, applies, lifecycle, sum FROM marks WHERE applies IS NOT NULL
                 ORDER BY ix",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect()
        })()
        .map_err(|e| self.fail(e))?;
        rows.into_iter()
            .map(|(ix, text, lifecycle, sum)| {
                if marks_sum(ix, Some(&text), lifecycle.as_deref()) != sum {
                    return Err(
                        self.damaged(format!("node {ix}: marks do not match their checksum"))
                    );
                }
                serde_json::from_str(&text)
                    .map(|applies| (ix as NodeIx, applies))
                    .map_err(|e| self.damaged(format!("node {ix}: scope does not decode ({e})")))
            })
            .collect()
    }

    fn files_of(&self, ix: NodeIx) -> Result<Vec<String>, StoreError> {
        if let Some(node) = self.nodes_read.borrow().get(&ix) {
            return Ok(node.files());
        }
        let node = self.load_node(ix)?;
        let files = node.files();
        // Bounded: a caller asking for every node's files (`impact`) keeps none beyond it.
        let mut read = self.nodes_read.borrow_mut();
        if read.len() < NODES_KEPT {
            read.insert(ix, node);
        }
        Ok(files)
    }

    fn lifecycle_of(&self, ix: NodeIx) -> Result<Lifecycle, StoreError> {
        let row: Option<Marks> = self
            .conn
            .prepare_cached(
                "SELECT applies, lifecycle, sum FROM marks WHERE ix = CAST(?1 AS INTEGER)",
            )
            .and_then(|mut s| {
                s.query_row([ix], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
            })
            .map_err(|e| self.fail(e))?;
        self.lifecycle_in(ix, row)
    }

    fn dangling_from(&self, ix: NodeIx) -> Result<Vec<Dangling>, StoreError> {
        let result = (|| -> Result<Vec<(String, String, i64)>, rusqlite::Error> {
            let mut stmt = self.conn.prepare_cached(
                "SELECT rel, target, sum FROM dangling WHERE src = CAST(?1 AS INTEGER)
                 ORDER BY rel, target",
            )?;
            let rows = stmt.query_map([ix], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect()
        })();
        let mut found = Vec::new();
        for (rel, target, sum) in result.map_err(|e| self.fail(e))? {
            if dangling_sum(i64::from(ix), &rel, &target) != sum {
                return Err(self.damaged(format!(
                    "node {ix}: a missing link does not match its checksum"
                )));
            }
            found.push(Dangling {
                from: ix,
                relation: Relation::from_key(&rel),
                target,
            });
        }
        found.dedup();
        Ok(found)
    }

    fn all_ids(&self) -> Result<Vec<String>, StoreError> {
        let result = (|| -> Result<Vec<String>, rusqlite::Error> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT id FROM nodes ORDER BY id")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect()
        })();
        result.map_err(|e| self.fail(e))
    }

    fn relation_pairs(
        &self,
        relation: &Relation,
    ) -> Result<Option<Vec<(NodeIx, NodeIx)>>, StoreError> {
        let result = (|| -> Result<Vec<(NodeIx, NodeIx)>, rusqlite::Error> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT src, dst FROM edges WHERE rel = ?1")?;
            let rows = stmt.query_map([relation.name()], |r| {
                Ok((r.get::<_, i64>(0)? as NodeIx, r.get::<_, i64>(1)? as NodeIx))
            })?;
            rows.collect()
        })();
        result.map(Some).map_err(|e| self.fail(e))
    }

    fn nodes_of_kind(&self, kind: &Kind) -> Result<Option<Vec<NodeIx>>, StoreError> {
        let result = (|| -> Result<Vec<NodeIx>, rusqlite::Error> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT ix FROM nodes WHERE kind = ?1")?;
            let rows = stmt.query_map([kind.name()], |r| Ok(r.get::<_, i64>(0)? as NodeIx))?;
            rows.collect()
        })();
        result.map(Some).map_err(|e| self.fail(e))
    }

    fn nodes_of_kind_upto(
        &self,
        kind: &Kind,
        most: usize,
    ) -> Result<Option<Vec<NodeIx>>, StoreError> {
        let limit = i64::try_from(most.saturating_add(1)).unwrap_or(i64::MAX);
        let result = (|| -> Result<Vec<NodeIx>, rusqlite::Error> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT ix FROM nodes WHERE kind = ?1 ORDER BY ix LIMIT ?2")?;
            let rows = stmt.query_map(rusqlite::params![kind.name(), limit], |r| {
                Ok(r.get::<_, i64>(0)? as NodeIx)
            })?;
            rows.collect()
        })();
        result.map(Some).map_err(|e| self.fail(e))
    }

    fn layer_guides(
        &self,
        layer: NodeIx,
    ) -> Result<Option<Vec<brief_model::LayerGuide>>, StoreError> {
        guides::read(&self.conn, layer)
            .map(Some)
            .map_err(|e| self.fail(e))
    }
}

impl Corpus for Index {
    fn store(&self, needed: &[NodeIx]) -> Result<Box<dyn NodeStore + '_>, StoreError> {
        let mut sub = Subgraph::default();
        for &ix in needed {
            let read = self.nodes_read.borrow_mut().remove(&ix);
            let node = match read {
                Some(node) => node,
                None => self.load_node(ix)?,
            };
            // What traversal was told about the node must be what is stored.
            let id_differs = self.ids.borrow().get(&ix).is_some_and(|id| *id != node.id);
            let kind_differs = self
                .kinds
                .borrow()
                .get(&ix)
                .is_some_and(|kind| *kind != node.kind);
            if id_differs || kind_differs {
                return Err(self.damaged(format!("node {ix}: its row and its edges disagree")));
            }
            sub.nodes.insert(ix, node);
        }
        sub.newest_date = self
            .conn
            .query_row("SELECT max(date) FROM nodes", [], |r| {
                r.get::<_, Option<String>>(0)
            })
            .map_err(|e| self.fail(e))?;
        Ok(Box::new(sub))
    }

    fn counts(&self) -> Option<&dyn CountStore> {
        Some(self)
    }
}

impl CountStore for Index {
    fn get(&self, key: &[u8]) -> Option<usize> {
        let (n, sum) = self
            .conn
            .prepare_cached("SELECT n, sum FROM counts WHERE key = ?1")
            .and_then(|mut s| {
                s.query_row([key], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
                    .optional()
            })
            .ok()
            .flatten()?;
        // A count that fails its checksum is a miss: the text is counted again and `put`
        // replaces the row, so a damaged cache entry costs a recount, never a wrong count.
        if count_sum(key, n) != sum || n < 0 {
            return None;
        }
        Some(n as usize)
    }

    fn get_many(&self, keys: &[&[u8]]) -> Vec<Option<usize>> {
        if keys.len() < 2 {
            return keys.iter().map(|key| self.get(key)).collect();
        }
        let hex: Vec<String> = keys.iter().map(|key| hex_of(key)).collect();
        let Ok(list) = serde_json::to_string(&hex) else {
            return vec![None; keys.len()];
        };
        let found: Result<HashMap<Vec<u8>, (i64, i64)>, rusqlite::Error> = self
            .conn
            .prepare_cached(
                "SELECT key, n, sum FROM counts WHERE key IN (SELECT unhex(value) FROM json_each(?1))",
            )
            .and_then(|mut s| {
                s.query_map([list], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?
                    .collect()
            });
        let Ok(found) = found else {
            return keys.iter().map(|key| self.get(key)).collect();
        };
        keys.iter()
            .map(|key| {
                let &(n, sum) = found.get(*key)?;
                // As `get`: a count that fails its checksum is a miss.
                (count_sum(key, n) == sum && n >= 0).then_some(n as usize)
            })
            .collect()
    }

    fn put(&self, entries: &[(Vec<u8>, usize)]) {
        if entries.is_empty() {
            return;
        }
        // Within a read, written once it ends: writing now would hold the write lock for the
        // rest of the request.
        if !self.conn.is_autocommit() {
            self.counts_to_keep.borrow_mut().extend_from_slice(entries);
            return;
        }
        // Best effort: a read-only or busy database only costs a recount next time.
        self.keep_cached(|conn| {
            let mut stmt = conn
                .prepare_cached("INSERT OR REPLACE INTO counts(key, n, sum) VALUES (?1, ?2, ?3)")?;
            for (key, n) in entries {
                let n = *n as i64;
                stmt.execute(params![key, n, count_sum(key, n)])?;
            }
            Ok(())
        });
    }
}

impl Index {
    /// Writes what a reader caches (counts, lists of holders) in a transaction of its own,
    /// then empties the log and seals, as every write does. Best effort: a read-only index,
    /// or one another connection writes for longer than [`KEEP_WAIT`], rolls back, and the
    /// cache is made again next time.
    pub(crate) fn keep_cached(&self, write: impl FnOnce(&Connection) -> rusqlite::Result<()>) {
        let _ = self.conn.busy_timeout(KEEP_WAIT);
        let begun = self.conn.execute_batch("BEGIN IMMEDIATE");
        let _ = self.conn.busy_timeout(BUSY_TIMEOUT);
        let written = begun
            .and_then(|()| write(&self.conn))
            .and_then(|()| self.conn.execute_batch("COMMIT"));
        match written {
            Ok(()) => {
                self.checkpoint();
                self.seal_written(Held::No);
            }
            Err(_) => {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
        }
    }
}

/// How long a reader waits for the write lock to keep what it cached: a refresh writing
/// meanwhile raises the version most of it is keyed by, so waiting it out gains little.
const KEEP_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// Bytes as lower-case hexadecimal (what SQLite's `unhex` reads).
fn hex_of(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        hex.push(char::from(DIGITS[usize::from(b >> 4)]));
        hex.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    hex
}

/// A node's row in `marks` (applies, lifecycle, checksum), as read.
pub(crate) type Marks = (Option<String>, Option<String>, i64);

impl Index {
    /// The lifecycle a node's marks say (current without a row), checked against their
    /// checksum.
    pub(crate) fn lifecycle_in(
        &self,
        ix: NodeIx,
        marks: Option<Marks>,
    ) -> Result<Lifecycle, StoreError> {
        let word = match marks {
            Some((applies, lifecycle, sum)) => {
                if marks_sum(i64::from(ix), applies.as_deref(), lifecycle.as_deref()) != sum {
                    return Err(
                        self.damaged(format!("node {ix}: marks do not match their checksum"))
                    );
                }
                lifecycle
            }
            None => None,
        };
        match word {
            None => Ok(Lifecycle::Current),
            Some(word) => Lifecycle::parse(&word)
                .ok_or_else(|| self.damaged(format!("node {ix}: unknown lifecycle `{word}`"))),
        }
    }
}

/// Most nodes a `reading` keeps once decoded for `files_of`, for the context's store: more
/// than related material ever asks about.
const NODES_KEPT: usize = 512;

#[cfg(test)]
mod tests {
    #[test]
    fn hex_is_two_lower_case_digits_a_byte() {
        assert_eq!(super::hex_of(&[0x00, 0x0f, 0xa5, 0xff, 0x10]), "000fa5ff10");
        assert_eq!(super::hex_of(&[]), "");
    }
}
