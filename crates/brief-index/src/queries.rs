//! Reading the index: problems, kinds, the catalog, full-text search, whole nodes and edge
//! lists.

use super::*;

/// The longest query brief searches, in bytes (a search, or a context target that is not an
/// id): a longer one is refused before anything runs.
pub(crate) const MAX_QUERY_BYTES: usize = 8192;

/// The most distinct words a query may hold (a word repeated counts once).
pub(crate) const MAX_QUERY_WORDS: usize = 256;

/// A query over the limits.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// Longer than [`MAX_QUERY_BYTES`].
    #[error("the query is {bytes} bytes long; brief searches at most {max} bytes (ask with fewer words)", max = MAX_QUERY_BYTES)]
    TooLong {
        /// The query's length in bytes.
        bytes: usize,
    },
    /// More distinct words than [`MAX_QUERY_WORDS`].
    #[error("the query has {words} distinct words; brief searches at most {max} (ask with fewer words)", max = MAX_QUERY_WORDS)]
    TooManyWords {
        /// How many distinct words it has.
        words: usize,
    },
}

/// Refuses a query over [`MAX_QUERY_BYTES`] or [`MAX_QUERY_WORDS`].
pub fn check_query(query: &str) -> Result<(), QueryError> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(QueryError::TooLong { bytes: query.len() });
    }
    let words = query_words(query).len();
    if words > MAX_QUERY_WORDS {
        return Err(QueryError::TooManyWords { words });
    }
    Ok(())
}

/// A query's distinct words, lower-cased, in the order they first appear.
pub(super) fn query_words(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// An FTS5 query for free text: every distinct word quoted (no operators leak in), any may
/// match, words of three characters or more also as a prefix (`idempot` finds `idempotent`).
/// A word repeated is searched once (FTS5 is quadratic in repeated terms).
pub(super) fn fts_query(query: &str) -> Option<String> {
    let words: Vec<String> = query_words(query)
        .into_iter()
        .map(|w| crate::search::fts_term(&w))
        .collect();
    (!words.is_empty()).then(|| words.join(" OR "))
}

impl Index {
    /// Every load problem recorded for the indexed files, sorted by location; each checked
    /// against its checksum (a damaged severity would turn an error into a warning).
    pub fn problems(&self) -> Result<Vec<Problem>, IndexError> {
        type Stored = (String, String, i64, i64, i64, String, String, i64);
        let rows = (|| -> rusqlite::Result<Vec<Stored>> {
            let mut stmt = self.conn.prepare_cached(
                "SELECT file, path, line, col, severity, kind, message, sum FROM problems
                 ORDER BY path, line, col, message",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })?;
            rows.collect()
        })()
        .map_err(|e| self.err(e))?;
        let mut problems = Vec::with_capacity(rows.len());
        for (file, path, line, col, severity, kind_name, message, sum) in rows {
            let located = u32::try_from(line).ok().zip(u32::try_from(col).ok());
            let kind = ProblemKind::from_name(&kind_name);
            let Some(((line, col), kind)) = located.zip(kind).filter(|_| {
                problem_sum(&file, &path, line, col, severity, &kind_name, &message) == sum
                    && (severity == 0 || severity == 1)
            }) else {
                return Err(damage(
                    &self.location,
                    "a recorded problem does not match its checksum",
                ));
            };
            problems.push(Problem {
                severity: if severity == 1 {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                kind,
                location: brief_model::Location { path, line, col },
                message,
            });
        }
        Ok(problems)
    }

    /// The kinds of the indexed nodes, sorted (what `--kind` may name).
    pub fn kinds(&self) -> Result<Vec<String>, IndexError> {
        let result = (|| -> Result<Vec<String>, rusqlite::Error> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT DISTINCT kind FROM nodes ORDER BY kind")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect()
        })();
        result.map_err(|e| self.err(e))
    }

    /// Every node's id, kind and title, sorted by id.
    pub fn catalog(&self) -> Result<Vec<CatalogEntry>, IndexError> {
        let result = (|| -> Result<Vec<(CatalogEntry, bool)>, rusqlite::Error> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT id, kind, title, date, sum FROM nodes ORDER BY id")?;
            let rows = stmt.query_map([], |r| {
                let entry = CatalogEntry {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    title: r.get(2)?,
                };
                let intact = row_sum(
                    &entry.id,
                    &entry.kind,
                    r.get::<_, Option<String>>(3)?.as_deref(),
                    &entry.title,
                ) == r.get::<_, i64>(4)?;
                Ok((entry, intact))
            })?;
            rows.collect::<Result<Vec<_>, _>>()
        })();
        let rows = result.map_err(|e| self.err(e))?;
        if rows.iter().any(|(_, intact)| !intact) {
            return Err(damage(
                &self.location,
                "a node row does not match its checksum",
            ));
        }
        Ok(rows.into_iter().map(|(entry, _)| entry).collect())
    }

    /// Full-text search over id, title, body and fields, BM25-ranked, an exact id first.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        kind: Option<&str>,
    ) -> Result<Vec<Hit>, IndexError> {
        let mut hits = Vec::new();
        // The engine refuses longer queries with a message; here they are cut, so no caller
        // can make a search unbounded.
        let mut cut = query.len().min(MAX_QUERY_BYTES);
        while !query.is_char_boundary(cut) {
            cut -= 1;
        }
        let query = &query[..cut];
        let exact = self.lookup_any_case(query.trim())?;
        if let Some(ix) = exact {
            let node = self.load_node(ix)?;
            if kind.is_none_or(|k| node.kind.name() == k) {
                hits.push(Hit {
                    id: node.id.clone(),
                    kind: node.kind.name().to_string(),
                    title: node.title.clone(),
                    score: f64::INFINITY,
                });
            }
        }
        let Some(fts) = fts_query(query) else {
            return Ok(hits);
        };
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT n.ix, n.id, n.kind, n.title, bm25(search, 10.0, 4.0, 1.0, 2.0) AS score,
                        n.date, n.sum
                 FROM search JOIN nodes n ON n.ix = search.rowid
                 WHERE search MATCH ?1 AND (?2 IS NULL OR n.kind = ?2)
                 ORDER BY score, n.id LIMIT ?3",
            )
            .map_err(|e| self.err(e))?;
        // One more than asked for, so the exact match can be set aside (any `limit` fits).
        let sql_limit = i64::try_from(limit).unwrap_or(i64::MAX).saturating_add(1);
        let rows = stmt
            .query_map(params![fts, kind, sql_limit], |r| {
                Ok((
                    r.get::<_, i64>(0)? as NodeIx,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, f64>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, i64>(6)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        // BM25 relevance (SQLite's `bm25` is its negation), normalised below by the best.
        let mut text_hits = Vec::new();
        for row in rows {
            let (ix, id, kind, title, score, date, sum) = row.map_err(|e| self.err(e))?;
            if row_sum(&id, &kind, date.as_deref(), &title) != sum {
                return Err(damage(
                    &self.location,
                    format!("node {ix}: checksum mismatch"),
                ));
            }
            if Some(ix) == exact {
                continue;
            }
            text_hits.push(Hit {
                id,
                kind,
                title,
                score: -score,
            });
        }
        crate::search::normalise(&mut text_hits);
        // The exact id match ranks first, as relevant as the best text match.
        if let Some(first) = hits.first_mut() {
            first.score = 1.0;
        }
        hits.extend(text_hits);
        hits.truncate(limit);
        Ok(hits)
    }

    /// How many nodes are read from files under the folder `rel` (root-relative, no
    /// trailing `/`, `""` for the root; sections aside), and the ids of the first `first` of
    /// them by file.
    pub fn nodes_under(&self, rel: &str, first: usize) -> Result<(usize, Vec<String>), StoreError> {
        // `file` between `rel/` and `rel0` (the byte after `/`): what lies under the folder;
        // every file for the root (no path is above U+10FFFF).
        let (from, to) = if rel.is_empty() {
            (String::new(), char::MAX.to_string())
        } else {
            (format!("{rel}/"), format!("{rel}0"))
        };
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id FROM nodes WHERE file >= ?1 AND file < ?2 AND instr(id, '#') = 0 \
                 ORDER BY file, id",
            )
            .map_err(|e| self.fail(e))?;
        let rows = stmt
            .query_map([&from, &to], |r| r.get::<_, String>(0))
            .map_err(|e| self.fail(e))?;
        let mut count = 0;
        let mut ids = Vec::new();
        for id in rows {
            let id = id.map_err(|e| self.fail(e))?;
            if ids.len() < first {
                ids.push(id);
            }
            count += 1;
        }
        Ok((count, ids))
    }

    /// The node a file is, when it is one page: the only node read from `rel` (root-relative),
    /// or the page whose sections (`page#section`) are the file's other nodes. `None` for a
    /// file of several nodes of their own (a task list, a workspace export) or of none.
    pub fn node_of_file(&self, rel: &str) -> Result<Option<NodeIx>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT ix, id FROM nodes WHERE file = ?1 ORDER BY ix")
            .map_err(|e| self.fail(e))?;
        let rows = stmt
            .query_map([rel], |r| {
                Ok((r.get::<_, i64>(0)? as NodeIx, r.get::<_, String>(1)?))
            })
            .map_err(|e| self.fail(e))?;
        let nodes: Vec<(NodeIx, String)> =
            rows.collect::<Result<_, _>>().map_err(|e| self.fail(e))?;
        let Some(page) = nodes.iter().find(|(_, id)| !id.contains('#')) else {
            return Ok(None);
        };
        let prefix = format!("{}#", page.1);
        let one_page = nodes
            .iter()
            .all(|(ix, id)| *ix == page.0 || id.starts_with(&prefix));
        Ok(one_page.then_some(page.0))
    }

    /// The node whose id equals `id` ignoring ASCII case (the exact id first).
    pub fn lookup_any_case(&self, id: &str) -> Result<Option<NodeIx>, StoreError> {
        if let Some(ix) = self.lookup(id)? {
            return Ok(Some(ix));
        }
        self.conn
            .query_row(
                "SELECT ix FROM nodes WHERE id = ?1 COLLATE NOCASE ORDER BY id LIMIT 1",
                [id],
                |r| r.get::<_, i64>(0),
            )
            .optional()
            .map(|ix| ix.map(|ix| ix as NodeIx))
            .map_err(|e| self.fail(e))
    }

    /// A whole node, checked against its checksum and its row (a mismatch is damage).
    pub(super) fn load_node(&self, ix: NodeIx) -> Result<Node, StoreError> {
        type Stored = (String, String, Option<String>, String, i64, String, i64);
        let (id, kind, date, title, row, data, sum): Stored = self
            .conn
            .prepare_cached(
                "SELECT n.id, n.kind, n.date, n.title, n.sum, d.data, d.sum
                 FROM nodes n JOIN node_data d ON d.ix = n.ix WHERE n.ix = CAST(?1 AS INTEGER)",
            )
            .and_then(|mut s| {
                s.query_row([ix], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                })
            })
            .map_err(|e| self.fail(e))?;
        let damaged = |what: &str| self.damaged(format!("node {ix}: {what}"));
        if row_sum(&id, &kind, date.as_deref(), &title) != row || data_sum(&data) != sum {
            return Err(damaged("checksum mismatch"));
        }
        let node: Node = serde_json::from_str(&data)
            .map_err(|e| damaged(&format!("data does not decode ({e})")))?;
        if node.id != id || node.kind.name() != kind || node.title != title || node.date != date {
            return Err(damaged("data differs from its row"));
        }
        Ok(node)
    }

    pub(super) fn edges(&self, ix: NodeIx, side: Side) -> Result<Vec<Edge>, StoreError> {
        self.cached_edges(ix, side, None)
    }

    /// The edges of one relation at a node: filtered from the node's whole list when that
    /// was read, else read with the relation in the query, so a hub's other edges are never
    /// loaded.
    pub(super) fn edges_of(
        &self,
        ix: NodeIx,
        side: Side,
        relation: &Relation,
    ) -> Result<Vec<Edge>, StoreError> {
        if let Some(edges) = self.edge_cache.borrow().get(&(ix, side, None)) {
            return Ok(edges
                .iter()
                .filter(|e| &e.relation == relation)
                .cloned()
                .collect());
        }
        self.cached_edges(ix, side, Some(relation))
    }

    fn cached_edges(
        &self,
        ix: NodeIx,
        side: Side,
        relation: Option<&Relation>,
    ) -> Result<Vec<Edge>, StoreError> {
        let key = (ix, side, relation.cloned());
        if let Some(edges) = self.edge_cache.borrow().get(&key) {
            return Ok(edges.clone());
        }
        let edges = self
            .read_edges(ix, side, relation)
            .map_err(|e| self.fail(e))?;
        self.edge_cache.borrow_mut().insert(key, edges.clone());
        Ok(edges)
    }

    /// A node's edges (or those of one relation), sorted by the other end's id, then by
    /// relation; the other ends' ids and kinds are remembered on the way.
    pub(super) fn read_edges(
        &self,
        ix: NodeIx,
        side: Side,
        relation: Option<&Relation>,
    ) -> Result<Vec<Edge>, rusqlite::Error> {
        // `CAST(?1 …)`, not a bare `?1`: SQLite built with STAT4 re-plans a statement whose
        // plan may depend on a bound value on every run, which cost more than the query.
        // One relation is `e.rel = ?2`, a range of the edges' key or of `edges_dst`.
        let sql = match (side, relation.is_some()) {
            (Side::Out, false) => {
                "SELECT e.dst, e.rel, n.id, n.kind FROM edges e JOIN nodes n ON n.ix = e.dst
                 WHERE e.src = CAST(?1 AS INTEGER) ORDER BY n.id, e.rel"
            }
            (Side::In, false) => {
                "SELECT e.src, e.rel, n.id, n.kind FROM edges e JOIN nodes n ON n.ix = e.src
                 WHERE e.dst = CAST(?1 AS INTEGER) ORDER BY n.id, e.rel"
            }
            (Side::Out, true) => {
                "SELECT e.dst, e.rel, n.id, n.kind FROM edges e JOIN nodes n ON n.ix = e.dst
                 WHERE e.src = CAST(?1 AS INTEGER) AND e.rel = CAST(?2 AS TEXT) ORDER BY n.id"
            }
            (Side::In, true) => {
                "SELECT e.src, e.rel, n.id, n.kind FROM edges e JOIN nodes n ON n.ix = e.src
                 WHERE e.dst = CAST(?1 AS INTEGER) AND e.rel = CAST(?2 AS TEXT) ORDER BY n.id"
            }
        };
        let mut stmt = self.conn.prepare_cached(sql)?;
        let map = |r: &rusqlite::Row<'_>| {
            Ok((
                r.get::<_, i64>(0)? as NodeIx,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        };
        let rows = match relation {
            Some(relation) => stmt.query_map(params![ix, relation.name()], map)?,
            None => stmt.query_map(params![ix], map)?,
        };
        let mut edges = Vec::new();
        for row in rows {
            let (other, rel, id, kind) = row?;
            self.ids.borrow_mut().insert(other, id);
            self.kinds.borrow_mut().insert(other, Kind::parse(&kind));
            let relation = Relation::from_key(&rel);
            let (from, to) = match side {
                Side::Out => (ix, other),
                Side::In => (other, ix),
            };
            edges.push(Edge { from, to, relation });
        }
        Ok(edges)
    }
}

#[cfg(test)]
mod tests {
    use super::super::kit;
    use super::*;

    #[test]
    fn lookups_and_edges_come_by_id() {
        let dir = kit::payments();
        let (_project, index) = kit::built(dir.path());
        let ix = |id: &str| index.lookup(id).unwrap().unwrap();
        let (one, two, norm) = (ix("SPEC-PAY-001"), ix("SPEC-PAY-002"), ix("NORM-SEC-001"));
        assert_eq!(index.lookup("SPEC-PAY-999").unwrap(), None);
        assert_eq!(index.lookup_any_case("spec-pay-002").unwrap(), Some(two));
        assert_eq!(index.id_of(norm).unwrap(), "NORM-SEC-001");
        assert_eq!(index.kind_of(one).unwrap(), Kind::Spec);
        // Both specs name the norm: its incoming edges come in the order of their ids.
        let from: Vec<String> = index
            .edges_in(norm)
            .unwrap()
            .iter()
            .map(|e| index.id_of(e.from).unwrap())
            .collect();
        assert_eq!(from, ["SPEC-PAY-001", "SPEC-PAY-002"]);
        let to: Vec<NodeIx> = index.edges_out(one).unwrap().iter().map(|e| e.to).collect();
        assert!(to.contains(&norm), "{to:?}");
        // A whole node, checked against its row.
        let node = index.load_node(two).unwrap();
        assert_eq!(
            (node.id.as_str(), node.title.as_str()),
            ("SPEC-PAY-002", "Refunds")
        );
        assert_eq!(index.kinds().unwrap(), ["norm", "spec"]);
    }

    #[test]
    fn edges_of_one_relation_are_the_filtered_edges_read_or_cached() {
        let dir = kit::payments();
        let (_project, index) = kit::built(dir.path());
        let nodes: Vec<NodeIx> = ["SPEC-PAY-001", "SPEC-PAY-002", "NORM-SEC-001"]
            .iter()
            .map(|id| index.lookup(id).unwrap().unwrap())
            .collect();
        let mut relations: Vec<Relation> = Relation::SPEC_GRAPH.to_vec();
        relations.push(Relation::from_key("norms"));
        let of_one = |index: &Index| -> Vec<Vec<Edge>> {
            let mut lists = Vec::new();
            for &n in &nodes {
                for r in &relations {
                    lists.push(index.edges_out_of(n, r).unwrap());
                    lists.push(index.edges_in_of(n, r).unwrap());
                }
            }
            lists
        };
        // First from SQL (nothing cached yet), then from the cache the full reads fill.
        let read = of_one(&index);
        let mut filtered = Vec::new();
        for &n in &nodes {
            let (out, inn) = (index.edges_out(n).unwrap(), index.edges_in(n).unwrap());
            for r in &relations {
                let of = |edges: &[Edge]| -> Vec<Edge> {
                    edges.iter().filter(|e| &e.relation == r).cloned().collect()
                };
                filtered.push(of(&out));
                filtered.push(of(&inn));
            }
        }
        assert_eq!(read, filtered);
        assert!(
            read.iter().any(|edges| !edges.is_empty()),
            "some relation has edges"
        );
        assert_eq!(of_one(&index), filtered);
    }

    #[test]
    fn edges_of_one_relation_are_read_once() {
        // `impact` selects thousands of targets over the same nodes: a relation's edges must
        // come from the cache after the first read, as whole lists do.
        let dir = kit::payments();
        let (_project, index) = kit::built(dir.path());
        let norm = index.lookup("NORM-SEC-001").unwrap().unwrap();
        let norms = Relation::from_key("norms");
        let first = index.edges_in_of(norm, &norms).unwrap();
        assert_eq!(first.len(), 2, "both specs name the norm: {first:?}");
        // Emptied behind the cache (by this connection: no other writer to notice).
        index.conn.execute("DELETE FROM edges", []).unwrap();
        assert_eq!(index.edges_in_of(norm, &norms).unwrap(), first);
    }

    #[test]
    fn search_ranks_the_exact_id_first_then_by_relevance() {
        let dir = kit::payments();
        let (_project, index) = kit::built(dir.path());
        let hits = index.search("SPEC-PAY-002", 10, None).unwrap();
        assert_eq!(hits[0].id, "SPEC-PAY-002");
        assert_eq!(hits[0].score, 1.0);
        // "card" is in a title and two bodies; the title weighs most.
        let hits = index.search("card", 10, None).unwrap();
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids[0], "SPEC-PAY-001", "{hits:?}");
        assert!(
            hits.windows(2).all(|w| w[0].score >= w[1].score),
            "{hits:?}"
        );
        assert!(index
            .search("card", 10, Some("norm"))
            .unwrap()
            .iter()
            .all(|h| h.kind == "norm"));
        assert!(index.search("zeppelin", 10, None).unwrap().is_empty());
    }

    #[test]
    fn counts_are_kept_and_a_damaged_one_is_a_miss() {
        let dir = kit::payments();
        let (_project, index) = kit::built(dir.path());
        let key = b"0123456789abcdefg".to_vec();
        assert_eq!(index.get(&key), None);
        index.put(&[(key.clone(), 42)]);
        assert_eq!(index.get(&key), Some(42));
        index
            .conn
            .execute("UPDATE counts SET n = 41 WHERE key = ?1", [&key])
            .unwrap();
        assert_eq!(
            index.get(&key),
            None,
            "a count that fails its checksum is a miss"
        );
        index.put(&[(key.clone(), 42)]);
        assert_eq!(index.get(&key), Some(42), "the recount replaces it");
        // Many at once, in the order asked, as one by one.
        let other = b"\x00\xff\x10key with bytes".to_vec();
        let missing = b"never stored".to_vec();
        index.put(&[(other.clone(), 7)]);
        let keys: Vec<&[u8]> = vec![&missing, &other, &key, &other];
        assert_eq!(
            index.get_many(&keys),
            vec![None, Some(7), Some(42), Some(7)]
        );
        index
            .conn
            .execute("UPDATE counts SET n = 8 WHERE key = ?1", [&other])
            .unwrap();
        assert_eq!(index.get_many(&keys), vec![None, None, Some(42), None]);
    }

    #[test]
    fn query_limits_are_checked() {
        assert!(check_query("card payments").is_ok());
        assert!(check_query(&"x".repeat(MAX_QUERY_BYTES + 1)).is_err());
        let many: Vec<String> = (0..=MAX_QUERY_WORDS).map(|n| format!("w{n}")).collect();
        assert!(check_query(&many.join(" ")).is_err());
        assert_eq!(fts_query("  "), None);
    }
}
