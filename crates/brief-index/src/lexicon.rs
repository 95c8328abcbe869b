//! What the index knows about the words of a query: how its tokenizer reads each word, how
//! many nodes hold it, and which nodes hold it with what BM25 relevance. The query model that
//! weighs these (stop words, coverage, status) is the engine's; this module only asks SQLite.
//!
//! The words are tokenized by the search table's own tokenizer, run through FTS5's API, so a
//! query word and the indexed text are stemmed and folded by one and the same code, and a
//! word's node count is read from an `fts5vocab` table over the search
//! index, never by counting matches. That walks the word's whole list of nodes, so the count
//! of a word many nodes hold is kept once read, for the write version it was read at (every
//! refresh that writes starts a new one and drops the kept counts).

use super::*;
use crate::view::Marks;

/// The tokenizer of the search table (`schema::CREATE`); the query's words go through the
/// same one.
const TOKENIZER: &str = "porter unicode61 remove_diacritics 2";

/// The BM25 weights of the search table's columns: id, title, body, fields.
pub(crate) const WEIGHTS: &str = "10.0, 4.0, 1.0, 2.0";

/// Tokens held by at least this many nodes keep their node count once read: counting one
/// held by 35,000 nodes takes half a millisecond, a rarer one's list is short.
const KEPT_FROM: u64 = 256;

/// The first byte of a kept node count's key in the `counts` table, which no token count's
/// key starts with (theirs is the encoding, 1 or 2).
const WORD_COUNT_TAG: u8 = 0x10;

/// The key of a token's kept node count: the tag, the write version it was counted at and
/// the token.
fn word_count_key(version: i64, token: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(9 + token.len());
    key.push(WORD_COUNT_TAG);
    key.extend_from_slice(&version.to_le_bytes());
    key.extend_from_slice(token.as_bytes());
    key
}

/// The key of the number of nodes in the `counts` table (checksummed as a count is: every
/// word's weight is read against it).
const NODE_TOTAL_KEY: &[u8] = &[0x11];

/// Keeps the number of nodes, as every refresh that writes leaves it.
pub(crate) fn keep_node_total(tx: &Connection, nodes: i64) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT OR REPLACE INTO counts(key, n, sum) VALUES (?1, ?2, ?3)",
        params![NODE_TOTAL_KEY, nodes, count_sum(NODE_TOTAL_KEY, nodes)],
    )
    .map(|_| ())
}

/// The number of nodes kept by the last refresh that wrote (`None` when there is none, or it
/// fails its checksum).
pub(crate) fn kept_node_total(conn: &Connection) -> rusqlite::Result<Option<i64>> {
    let row: Option<(i64, i64)> = conn
        .prepare_cached("SELECT n, sum FROM counts WHERE key = ?1")?
        .query_row([NODE_TOTAL_KEY], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(row
        .filter(|&(n, sum)| n >= 0 && count_sum(NODE_TOTAL_KEY, n) == sum)
        .map(|(n, _)| n))
}

/// Drops every kept node count: the writer that starts a new version calls it (none of them
/// would be read again).
pub(crate) fn forget_word_counts(tx: &Connection) -> rusqlite::Result<()> {
    tx.execute(
        "DELETE FROM counts WHERE key >= ?1 AND key < ?2",
        [[WORD_COUNT_TAG].as_slice(), [WORD_COUNT_TAG + 1].as_slice()],
    )
    .map(|_| ())
}

/// Fewest token counts kept however small the project: some 700 contexts on new targets
/// (each keeps a few hundred).
const TOKEN_COUNTS_FLOOR: i64 = 200_000;

/// Token counts kept per node before the cache is dropped: each node's blocks at every
/// detail level, twice over, and the texts contexts add around them.
const TOKEN_COUNTS_PER_NODE: i64 = 8;

/// How often (in writes of the index) the size of the cache is looked at: counting it reads
/// all of it.
const TOKEN_COUNTS_CHECKED_EVERY: i64 = 64;

/// Keeps the cache of token counts bounded: at the writes [`token_count_limit`] names,
/// every token count is dropped when there are more than it allows. Texts of nodes long edited
/// away would otherwise stay forever; a count dropped is only counted again.
pub(crate) fn bound_token_counts(tx: &Connection, writes: i64, nodes: i64) -> rusqlite::Result<()> {
    match token_count_limit(writes, nodes) {
        Some(most) => drop_token_counts_over(tx, most).map(|_| ()),
        None => Ok(()),
    }
}

/// How many token counts write number `writes` lets a project of `nodes` nodes keep:
/// [`TOKEN_COUNTS_PER_NODE`] a node, at least [`TOKEN_COUNTS_FLOOR`], looked at only every
/// [`TOKEN_COUNTS_CHECKED_EVERY`]th write (`None` at the others).
fn token_count_limit(writes: i64, nodes: i64) -> Option<i64> {
    (writes % TOKEN_COUNTS_CHECKED_EVERY == 0)
        .then(|| TOKEN_COUNTS_FLOOR.max(nodes.saturating_mul(TOKEN_COUNTS_PER_NODE)))
}

/// Drops every token count when there are more than `most` (a token count's key starts with
/// its encoding, 1 or 2; kept word counts and the node total have tags of their own).
fn drop_token_counts_over(tx: &Connection, most: i64) -> rusqlite::Result<usize> {
    let below_tags = [WORD_COUNT_TAG];
    let kept: i64 = tx.query_row(
        "SELECT count(*) FROM counts WHERE key < ?1",
        [below_tags.as_slice()],
        |r| r.get(0),
    )?;
    if kept <= most {
        return Ok(0);
    }
    tx.execute("DELETE FROM counts WHERE key < ?1", [below_tags.as_slice()])
}

/// Words shorter than this are never widened to a prefix: as a prefix they would match
/// almost anything.
pub(crate) const MIN_PREFIX_CHARS: usize = 5;

/// One word of a query, as the index reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The word as written in the query, lower-cased (`3.8`, `pull_request_target`).
    pub word: String,
    /// The index's tokens for it, in order (`3`, `8`): several make a phrase.
    pub tokens: Vec<String>,
    /// How many nodes hold it (for a phrase, an upper bound: the rarest token's count).
    pub nodes: u64,
    /// No node holds the word itself, and it is long enough: it is matched as a prefix
    /// (`idempot` finds `idempotency`), and `nodes` counts the prefix's nodes.
    pub prefix: bool,
}

impl Term {
    /// The FTS5 query for this term alone: the word quoted (no operator leaks in), with `*`
    /// when it is matched as a prefix.
    pub(crate) fn fts(&self) -> String {
        let quoted = format!("\"{}\"", self.word.replace('"', "\"\""));
        if self.prefix {
            format!("{quoted}*")
        } else {
            quoted
        }
    }
}

/// A node holding a term, and how well (BM25 over id, title, body and fields, higher is
/// better; only comparable within one term).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TermHit {
    /// The node.
    pub node: NodeIx,
    /// Its BM25 relevance for the term, higher is better.
    pub relevance: f64,
}

/// The nodes [`Index::term_parts`] reads.
#[derive(Debug, Clone, Copy)]
pub enum Holders<'a> {
    /// The nodes holding every one of these terms.
    All(&'a [&'a Term]),
    /// The nodes holding every one of `terms`, each given its relevance unless it cannot be
    /// among the `best` by score (the sum of each term's weight times its relevance, times
    /// the number of terms with a relevance): such a node may be listed with none, and costs
    /// no read of its length. Every node among the best has its relevance; which others have
    /// none depends on the order the index lists them in.
    Best {
        /// The terms every node holds.
        terms: &'a [&'a Term],
        /// Each term's weight in the score (none negative, or every node is given its
        /// relevance).
        weights: &'a [f64],
        /// How many of the best are wanted.
        best: usize,
    },
    /// The nodes holding one of `found` and one of `terms`.
    Among {
        /// Terms whose holders are already known.
        found: &'a [&'a Term],
        /// Terms whose relevance is read.
        terms: &'a [&'a Term],
    },
}

/// A node and its relevance for each term asked (in order; 0 for a term it does not hold),
/// the same as [`Index::term_hits`] gives it for each term alone; none at all for a node
/// that cannot be among the best asked for ([`Holders::Best`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TermParts {
    /// The node.
    pub node: NodeIx,
    /// Its BM25 relevance per term.
    pub relevance: Vec<f64>,
}

/// A node as the query model needs it to weigh a hit.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The node's index.
    pub node: NodeIx,
    /// Its id, matched against the query words.
    pub id: String,
    /// Its kind's name, which sets its kind factor.
    pub kind: String,
    /// Its title, where a word counts more.
    pub title: String,
    /// The node's source file, relative to the root.
    pub file: String,
    /// Whether it is current, superseded, deprecated, …, from its marks.
    pub lifecycle: Lifecycle,
}

/// The node counts of one query's tokens: the write version they are kept under and the
/// counts read fresh that are to be kept.
struct KeptCounts {
    version: Option<i64>,
    fresh: Vec<(Vec<u8>, usize)>,
}

impl Index {
    /// The terms of `words` (each a query word as the engine splits it), in order, with the
    /// number of nodes holding each; the total number of nodes. A word the tokenizer reads
    /// as nothing (punctuation only) is left out.
    pub fn terms(&self, words: &[String]) -> Result<(Vec<Term>, u64), StoreError> {
        let tokens = self.tokenize(words).map_err(|e| self.fail(e))?;
        let mut kept = KeptCounts {
            version: self.write_version().map_err(|e| self.fail(e))?,
            fresh: Vec::new(),
        };
        let mut terms = Vec::with_capacity(words.len());
        for (word, tokens) in words.iter().zip(tokens) {
            if tokens.is_empty() {
                continue;
            }
            let mut term = Term {
                word: word.clone(),
                nodes: self
                    .nodes_holding(&tokens, &mut kept)
                    .map_err(|e| self.fail(e))?,
                tokens,
                prefix: false,
            };
            if term.nodes == 0 && term.tokens.len() == 1 && word.chars().count() >= MIN_PREFIX_CHARS
            {
                let widened = self.prefix_nodes(word).map_err(|e| self.fail(e))?;
                if widened > 0 {
                    term.prefix = true;
                    term.nodes = widened;
                }
            }
            terms.push(term);
        }
        // Best effort, as token counts: a read-only index counts again next time. Within a
        // `reading`, once it ends (a late one lands under its own version, never read again).
        self.put(&kept.fresh);
        let total = self.node_total().map_err(|e| self.fail(e))?;
        Ok((terms, total))
    }

    /// Each word's tokens as the search table's tokenizer reads it (stemmed and folded; none
    /// for punctuation), in order, without counting the nodes that hold them.
    pub fn tokens(&self, words: &[String]) -> Result<Vec<Vec<String>>, StoreError> {
        self.tokenize(words).map_err(|e| self.fail(e))
    }

    /// The nodes holding `term`, best first, at most `limit` (ties by node index, which is
    /// stable within one index).
    pub fn term_hits(&self, term: &Term, limit: usize) -> Result<Vec<TermHit>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT rowid, bm25(search, {WEIGHTS}) AS score FROM search
                     WHERE search MATCH ?1 ORDER BY score, rowid LIMIT ?2"
            ))
            .map_err(|e| self.fail(e))?;
        let rows = stmt
            .query_map(params![term.fts(), limit], |r| {
                Ok(TermHit {
                    node: r.get::<_, i64>(0)? as NodeIx,
                    // SQLite's bm25 is the negated relevance.
                    relevance: -r.get::<_, f64>(1)?,
                })
            })
            .map_err(|e| self.fail(e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.fail(e))
    }

    /// Whether [`Index::term_parts`] can be asked on this connection.
    /// Without it, words many nodes hold are scored over every holder (slower, same hits).
    pub fn reads_term_parts(&self) -> bool {
        if let Some(known) = self.parts.get() {
            return known;
        }
        let registered = crate::parts::register(&self.conn).is_ok();
        self.parts.set(Some(registered));
        registered
    }

    /// What [`Index::term_parts`] gives, read through FTS5: the nodes it lists, each word's
    /// positions, and the lengths of the nodes that can be among the best. The caller has
    /// made sure the functions are registered ([`Index::reads_term_parts`]).
    pub(crate) fn fts_parts(&self, holders: Holders<'_>) -> Result<Vec<TermParts>, StoreError> {
        let join = |terms: &[&Term], op: &str| -> String {
            let fts: Vec<String> = terms.iter().map(|t| t.fts()).collect();
            fts.join(op)
        };
        let (expr, phrases, skip): (String, Vec<&Term>, usize) = match holders {
            Holders::All(terms) | Holders::Best { terms, .. } => {
                (join(terms, " AND "), terms.to_vec(), 0)
            }
            Holders::Among { found, terms } => (
                format!("({}) AND ({})", join(found, " OR "), join(terms, " OR ")),
                found.iter().chain(terms).copied().collect(),
                found.len(),
            ),
        };
        let (best, weights) = match holders {
            Holders::Best { weights, best, .. } if weights.len() == phrases.len() => {
                (best, weights.to_vec())
            }
            _ => (0, vec![1.0; phrases.len()]),
        };
        let nothing_found = matches!(holders, Holders::Among { found: [], .. });
        if phrases.len() == skip || nothing_found {
            return Ok(Vec::new());
        }
        // The match, how many of the best, then each phrase's count and weight.
        let args: String = (0..=2 * phrases.len())
            .map(|k| format!(", ?{}", k + 2))
            .collect();
        let sql = format!(
            "SELECT rowid, {}(search, {WEIGHTS}{args}) FROM search WHERE search MATCH ?1",
            crate::parts::NAME.to_string_lossy()
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.fail(e))?;
        use rusqlite::types::Value;
        let mut values: Vec<Value> = vec![expr.into()];
        values.push(Value::Integer(i64::try_from(best).unwrap_or(i64::MAX)));
        values.extend(
            phrases
                .iter()
                .map(|t| Value::Integer(i64::try_from(t.nodes).unwrap_or(i64::MAX))),
        );
        values.extend(weights.into_iter().map(Value::Real));
        let rows = stmt
            .query_map(rusqlite::params_from_iter(values), |r| {
                let node = r.get::<_, i64>(0)? as NodeIx;
                let blob = match r.get_ref(1)? {
                    rusqlite::types::ValueRef::Null => &[][..],
                    value => value.as_blob()?,
                };
                let relevance: Vec<f64> = blob
                    .chunks_exact(8)
                    .skip(skip)
                    .map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                    .collect();
                Ok(TermParts { node, relevance })
            })
            .map_err(|e| self.fail(e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.fail(e))
    }

    /// The rows of `nodes` (id, kind, title, file) and each node's lifecycle, checked against
    /// their checksums, in the order asked: one query for all of them.
    pub fn candidates(&self, nodes: &[NodeIx]) -> Result<Vec<Candidate>, StoreError> {
        type Row = (
            String,
            String,
            String,
            String,
            Option<String>,
            i64,
            Option<Marks>,
        );
        let list = serde_json::to_string(nodes).map_err(|e| StoreError {
            store: format!("index {}", self.location),
            message: format!("cannot list the nodes to read: {e}"),
            fault: brief_model::Fault::Other,
        })?;
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT n.ix, n.id, n.kind, n.title, n.file, n.date, n.sum,
                        m.ix IS NOT NULL, m.applies, m.lifecycle, m.sum
                 FROM nodes n LEFT JOIN marks m ON m.ix = n.ix
                 WHERE n.ix IN (SELECT value FROM json_each(?1))",
            )
            .map_err(|e| self.fail(e))?;
        let rows: HashMap<NodeIx, Row> = stmt
            .query_map([list], |r| {
                let marks = if r.get::<_, bool>(7)? {
                    Some((r.get(8)?, r.get(9)?, r.get(10)?))
                } else {
                    None
                };
                Ok((
                    r.get::<_, i64>(0)? as NodeIx,
                    (
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        marks,
                    ),
                ))
            })
            .map_err(|e| self.fail(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.fail(e))?;
        let mut out = Vec::with_capacity(nodes.len());
        for &node in nodes {
            let Some((id, kind, title, file, date, sum, marks)) = rows.get(&node).cloned() else {
                return Err(self.damaged(format!("search names node {node}, which has no row")));
            };
            if row_sum(&id, &kind, date.as_deref(), &title) != sum {
                return Err(self.damaged(format!("node {node}: checksum mismatch")));
            }
            out.push(Candidate {
                node,
                lifecycle: self.lifecycle_in(node, marks)?,
                id,
                kind,
                title,
                file,
            });
        }
        Ok(out)
    }

    /// Each word's tokens, read by the search table's tokenizer itself (`fts5::tokenize`).
    fn tokenize(&self, words: &[String]) -> rusqlite::Result<Vec<Vec<String>>> {
        crate::fts5::tokenize(&self.conn, TOKENIZER, words)
    }

    /// How many nodes hold every token (a phrase: its rarest token's count bounds it, and a
    /// phrase is rare enough to be counted exactly).
    fn nodes_holding(&self, tokens: &[String], kept: &mut KeptCounts) -> rusqlite::Result<u64> {
        let mut rarest = u64::MAX;
        for token in tokens {
            rarest = rarest.min(self.token_nodes(token, kept)?);
        }
        if tokens.len() > 1 && rarest > 0 {
            let phrase = format!("\"{}\"", tokens.join(" ").replace('"', "\"\""));
            let n: i64 = self.conn.query_row(
                "SELECT count(*) FROM search WHERE search MATCH ?1",
                [phrase],
                |r| r.get(0),
            )?;
            return Ok(n.max(0) as u64);
        }
        Ok(if rarest == u64::MAX { 0 } else { rarest })
    }

    /// How many nodes hold one token: its kept count, or else its count from the index's
    /// vocabulary (kept when it is high, see [`KEPT_FROM`]).
    fn token_nodes(&self, token: &str, kept: &mut KeptCounts) -> rusqlite::Result<u64> {
        let key = kept.version.map(|version| word_count_key(version, token));
        if let Some(n) = key.as_deref().and_then(|key| self.get(key)) {
            return Ok(n as u64);
        }
        // The vocabulary table is this connection's own (the temporary database), so a
        // read-only snapshot of the index stays untouched; made once per connection.
        if !self.vocabulary.get() {
            self.conn.execute_batch(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_terms
                     USING fts5vocab(main, search, row);",
            )?;
            self.vocabulary.set(true);
        }
        let docs: Option<i64> = self
            .conn
            .prepare_cached("SELECT doc FROM temp.search_terms WHERE term = ?1")?
            .query_row([token], |r| r.get(0))
            .optional()?;
        let docs = docs.unwrap_or(0).max(0) as u64;
        if let (Some(key), true) = (key, docs >= KEPT_FROM) {
            kept.fresh.push((key, docs as usize));
        }
        Ok(docs)
    }

    /// The version of what the search table holds: a number every refresh that writes
    /// raises (`None` in an index no refresh has written yet).
    pub(crate) fn write_version(&self) -> rusqlite::Result<Option<i64>> {
        let value: Option<String> = row(
            &self.conn,
            "SELECT value FROM meta WHERE key = 'writes'",
            [],
            |r| r.get(0),
        )
        .optional()?;
        Ok(value.and_then(|v| v.parse().ok()))
    }

    /// How many nodes hold a word starting with `word` (the tokenizer's reading of a prefix
    /// is the word lower-cased and folded, unstemmed).
    fn prefix_nodes(&self, word: &str) -> rusqlite::Result<u64> {
        let n: i64 = self.conn.query_row(
            "SELECT count(*) FROM search WHERE search MATCH ?1",
            [format!("\"{}\"*", word.replace('"', "\"\""))],
            |r| r.get(0),
        )?;
        Ok(n.max(0) as u64)
    }

    /// The number of nodes: kept by every refresh that writes (counting 100,000 rows costs a
    /// query half a millisecond), counted when none is kept or it fails its checksum.
    fn node_total(&self) -> rusqlite::Result<u64> {
        let n: i64 = match kept_node_total(&self.conn)? {
            Some(n) => n,
            None => self
                .conn
                .query_row("SELECT count(*) FROM nodes", [], |r| r.get(0))?,
        };
        Ok(n.max(0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use crate::kit::*;
    use crate::{Index, Verify};

    /// The tokens a temporary FTS5 table with the search table's tokenizer gives each text:
    /// what the index itself reads.
    fn tokens_of_a_table(index: &Index, texts: &[String]) -> Vec<Vec<String>> {
        index
            .conn
            .execute_batch(&format!(
                "CREATE VIRTUAL TABLE temp.words USING fts5(w, tokenize='{}');
                 CREATE VIRTUAL TABLE temp.word_tokens USING fts5vocab(temp, words, instance);",
                super::TOKENIZER
            ))
            .unwrap();
        for (k, text) in texts.iter().enumerate() {
            index
                .conn
                .execute(
                    "INSERT INTO temp.words(rowid, w) VALUES (?1, ?2)",
                    rusqlite::params![k as i64 + 1, text],
                )
                .unwrap();
        }
        let mut tokens = vec![Vec::new(); texts.len()];
        let mut stmt = index
            .conn
            .prepare("SELECT doc, term FROM temp.word_tokens ORDER BY doc, offset")
            .unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .unwrap();
        for row in rows {
            let (doc, term) = row.unwrap();
            tokens[doc as usize - 1].push(term);
        }
        tokens
    }

    #[test]
    fn the_tokenizer_run_directly_reads_words_as_the_index_does() {
        let dir = project(&[("norms/NORM-1.md", norm("NORM-1", "A", "b"))]);
        let (_project, index) = built(dir.path());
        let texts: Vec<String> = [
            "Databases",
            "running",
            "pull_request_target",
            "3.8",
            "Ünïcödé naïve café",
            "日本語のテキスト",
            "x-y/z",
            "",
            "...",
            "Caching POLICIES",
            "e\u{301}",
            "emoji 🚀 rockets",
            "don't",
            "tab\tseparated\nlines",
        ]
        .map(String::from)
        .to_vec();
        let direct = index.tokenize(&texts).unwrap();
        assert_eq!(direct, tokens_of_a_table(&index, &texts));
        assert_eq!(direct[0], vec!["databas"]);
    }

    #[test]
    fn words_are_read_by_the_index_tokenizer_with_their_node_counts() {
        let dir = project(&[
            (
                "norms/NORM-1.md",
                norm("NORM-1", "Caching policies", "We cache databases."),
            ),
            (
                "specs/SPEC-1.md",
                spec(
                    "SPEC-1",
                    "Storage",
                    &[],
                    "Databases everywhere, Python 3.8 too.",
                ),
            ),
        ]);
        let (_project, index) = built(dir.path());
        let words: Vec<String> = ["policies", "databases", "3.8", "zzz", "idempot", "caching"]
            .iter()
            .map(|w| w.to_string())
            .collect();
        let (terms, total) = index.reading(|| index.terms(&words)).unwrap().unwrap();
        assert!(total >= 2);
        let find = |w: &str| terms.iter().find(|t| t.word == w).unwrap();
        assert_eq!(find("policies").tokens, vec!["polici"]);
        assert_eq!(find("policies").nodes, 1);
        assert_eq!(find("databases").nodes, 2);
        assert_eq!(find("3.8").tokens, vec!["3", "8"]);
        assert_eq!(find("3.8").nodes, 1);
        assert_eq!(find("zzz").nodes, 0);
        assert!(!find("zzz").prefix, "too short to widen");
        assert_eq!(find("caching").nodes, 1);
        let hits = index
            .reading(|| index.term_hits(find("databases"), 10))
            .unwrap()
            .unwrap();
        assert_eq!(hits.len(), 2);
        assert!(hits[0].relevance >= hits[1].relevance);
    }

    /// A count kept for a word many nodes hold is read back while nothing changes, and never
    /// after a refresh that writes: the count is then the new one.
    #[test]
    fn a_kept_word_count_lasts_until_the_next_write() {
        let held = super::KEPT_FROM as usize + 4;
        let files: Vec<(String, String)> = (0..held)
            .map(|k| {
                let id = format!("NORM-{k}");
                (
                    format!("norms/{id}.md"),
                    norm(&id, "Rows", "The ledger rows stay."),
                )
            })
            .collect();
        let refs: Vec<(&str, String)> =
            files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
        let dir = project(&refs);
        let (project, mut index) = built(dir.path());
        let words = vec!["ledger".to_string()];
        let nodes =
            |index: &Index| index.reading(|| index.terms(&words)).unwrap().unwrap().0[0].nodes;
        let kept = |index: &Index| -> i64 {
            index
                .conn
                .query_row(
                    "SELECT count(*) FROM counts WHERE hex(key) LIKE '10%'",
                    [],
                    |r| r.get(0),
                )
                .unwrap()
        };
        assert_eq!(kept(&index), 0);
        assert_eq!(nodes(&index), held as u64);
        assert_eq!(kept(&index), 1, "the count is kept");
        // Read back, not counted: a kept count rewritten with its checksum is what is read.
        let key: Vec<u8> = index
            .conn
            .query_row(
                "SELECT key FROM counts WHERE hex(key) LIKE '10%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let set = |n: i64, sum: i64| {
            index
                .conn
                .execute(
                    "UPDATE counts SET n = ?1, sum = ?2 WHERE key = ?3",
                    rusqlite::params![n, sum, key],
                )
                .unwrap();
        };
        set(7, crate::schema::count_sum(&key, 7));
        assert_eq!(nodes(&index), 7);
        // One changed behind brief's back fails its checksum and is counted again.
        set(8, crate::schema::count_sum(&key, 7));
        assert_eq!(nodes(&index), held as u64);
        settle();
        write(
            dir.path(),
            "norms/NORM-0.md",
            &norm("NORM-0", "Rows", "The rows stay."),
        );
        index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
        assert_eq!(kept(&index), 0, "a write drops the kept counts");
        assert_eq!(nodes(&index), held as u64 - 1);
    }

    /// Candidates come in the order asked, each with its lifecycle from its marks; a marks row
    /// changed behind brief's back is damage, as when it is read alone.
    #[test]
    fn candidates_are_read_in_one_go_in_the_order_asked() {
        let retired =
            "---\nid: NORM-2\ntitle: Old rule\nstatus: deprecated\n---\n# Old rule\n\nGone.\n";
        let dir = project(&[
            ("norms/NORM-1.md", norm("NORM-1", "Rule", "Kept.")),
            ("norms/NORM-2.md", retired.to_string()),
        ]);
        let (_project, index) = built(dir.path());
        let ix = |id: &str| -> brief_model::NodeIx {
            index
                .conn
                .query_row("SELECT ix FROM nodes WHERE id = ?1", [id], |r| {
                    r.get::<_, i64>(0)
                })
                .unwrap() as brief_model::NodeIx
        };
        let (one, two) = (ix("NORM-1"), ix("NORM-2"));
        let read = index
            .reading(|| index.candidates(&[two, one, two]))
            .unwrap()
            .unwrap();
        let got: Vec<(&str, bool)> = read
            .iter()
            .map(|c| (c.id.as_str(), c.lifecycle.is_current()))
            .collect();
        assert_eq!(
            got,
            vec![("NORM-2", false), ("NORM-1", true), ("NORM-2", false)]
        );
        index
            .conn
            .execute(
                "UPDATE marks SET lifecycle = 'current' WHERE ix = ?1",
                [two as i64],
            )
            .unwrap();
        let damaged = index.reading(|| index.candidates(&[one, two])).unwrap();
        assert!(damaged.is_err(), "{damaged:?}");
        assert!(index
            .reading(|| index.candidates(&[9_999]))
            .unwrap()
            .is_err());
    }

    #[test]
    fn term_parts_are_each_words_own_relevance() {
        let dir = project(&[
            (
                "norms/NORM-1.md",
                norm("NORM-1", "Cache policy", "We cache the ledger rows."),
            ),
            (
                "norms/NORM-2.md",
                norm(
                    "NORM-2",
                    "Ledger",
                    "The ledger is append only. Ledger rows stay.",
                ),
            ),
            (
                "specs/SPEC-1.md",
                spec("SPEC-1", "Storage", &[], "A cache in front of storage."),
            ),
            (
                "specs/SPEC-2.md",
                spec("SPEC-2", "Exports", &[], "Exports read the ledger."),
            ),
        ]);
        let (_project, index) = built(dir.path());
        assert!(index.reads_term_parts());
        let words: Vec<String> = ["cache", "ledger", "storage"].map(String::from).to_vec();
        let (terms, _) = index.reading(|| index.terms(&words)).unwrap().unwrap();
        let hits = |k: usize| -> Vec<super::TermHit> {
            index
                .reading(|| index.term_hits(&terms[k], 100))
                .unwrap()
                .unwrap()
        };
        let alone = |k: usize, node| {
            hits(k)
                .iter()
                .find(|h| h.node == node)
                .map_or(0.0, |h| h.relevance)
        };
        let both = [&terms[0], &terms[1]];
        let parts = index
            .reading(|| index.term_parts(super::Holders::All(&both)))
            .unwrap()
            .unwrap();
        assert_eq!(
            parts.len(),
            1,
            "only NORM-1 holds cache and ledger: {parts:?}"
        );
        for part in &parts {
            for (k, relevance) in part.relevance.iter().enumerate() {
                assert!((relevance - alone(k, part.node)).abs() < 1e-12, "{part:?}");
            }
        }
        let found = [&terms[2]];
        let read = [&terms[0], &terms[1]];
        let among = index
            .reading(|| {
                index.term_parts(super::Holders::Among {
                    found: &found,
                    terms: &read,
                })
            })
            .unwrap()
            .unwrap();
        // SPEC-1 holds storage and cache, not ledger.
        assert_eq!(among.len(), 1, "{among:?}");
        assert!(among[0].relevance[0] > 0.0);
        assert_eq!(among[0].relevance[1], 0.0);
        assert!((among[0].relevance[0] - alone(0, among[0].node)).abs() < 1e-12);
    }

    /// Asked for the best few, every holder is still listed; the ones given a relevance
    /// have the same as without the bound, and every node among the best few by score is
    /// one of them: the others could not have been.
    #[test]
    fn the_best_few_are_scored_as_all_are_and_the_rest_only_listed() {
        // Sixty rules holding both words, at lengths from short to long, so that the bound
        // from the instances' positions leaves some out.
        let bodies: Vec<String> = (0..60)
            .map(|k| {
                let filler = "padding words ".repeat(k % 17 * 3);
                let extra = if k % 5 == 0 { " ledger cache" } else { "" };
                format!("{filler}The ledger sits behind a cache.{extra}")
            })
            .collect();
        for best in [1, 5, 20] {
            let left_out = best_agrees_with_all(&bodies, &["ledger", "cache"], &[1.0, 0.3], best);
            assert!(
                left_out > 0,
                "the bound leaves some out when {best} are wanted"
            );
        }
    }

    /// Builds rules of `bodies`, reads `words` for the nodes holding all of them with and
    /// without the bound of the `best`, and checks what the bound promises; how many nodes
    /// were listed without their relevance.
    fn best_agrees_with_all(
        bodies: &[String],
        words: &[&str],
        weights: &[f64],
        best: usize,
    ) -> usize {
        let files: Vec<(String, String)> = bodies
            .iter()
            .enumerate()
            .map(|(k, body)| {
                let text = norm(&format!("NORM-{k}"), &format!("Rule {k}"), body);
                (format!("norms/NORM-{k}.md"), text)
            })
            .collect();
        let refs: Vec<(&str, String)> = files
            .iter()
            .map(|(path, text)| (path.as_str(), text.clone()))
            .collect();
        let dir = project(&refs);
        let (_project, index) = built(dir.path());
        assert!(index.reads_term_parts());
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let (terms, _) = index.reading(|| index.terms(&words)).unwrap().unwrap();
        let terms: Vec<&super::Term> = terms.iter().collect();
        let all = index
            .reading(|| index.term_parts(super::Holders::All(&terms)))
            .unwrap()
            .unwrap();
        let score = |relevance: &[f64]| -> f64 {
            let sum: f64 = relevance.iter().zip(weights).map(|(r, w)| r * w).sum();
            sum * relevance.iter().filter(|r| **r > 0.0).count() as f64
        };
        let mut scores: Vec<f64> = all.iter().map(|p| score(&p.relevance)).collect();
        scores.sort_by(|a, b| b.total_cmp(a));
        let listed = index
            .reading(|| {
                index.term_parts(super::Holders::Best {
                    terms: &terms,
                    weights,
                    best,
                })
            })
            .unwrap()
            .unwrap();
        let nodes =
            |parts: &[super::TermParts]| -> Vec<_> { parts.iter().map(|p| p.node).collect() };
        assert_eq!(nodes(&listed), nodes(&all), "every holder is listed");
        let floor = scores.get(best - 1).copied().unwrap_or(0.0);
        let mut left_out = 0;
        for (got, whole) in listed.iter().zip(&all) {
            if got.relevance.is_empty() {
                left_out += 1;
                assert!(
                    score(&whole.relevance) < floor,
                    "{whole:?} is among the best {best}"
                );
            } else {
                assert_eq!(got.relevance, whole.relevance);
            }
        }
        left_out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Whatever the texts, their lengths, the words' weights and how many are wanted,
        /// the bound never leaves out a node among the best, nor changes a relevance.
        #[test]
        fn the_bound_never_leaves_out_one_of_the_best(
            shapes in proptest::collection::vec(
                (0usize..40, 0usize..4, 0usize..4, proptest::bool::ANY),
                2..40,
            ),
            heavy in proptest::bool::ANY,
            best in 1usize..30,
        ) {
            let bodies: Vec<String> = shapes
                .iter()
                .map(|&(filler, ledgers, caches, early)| {
                    let pad = "padding words ".repeat(filler);
                    let more = format!("{}{}", " ledger".repeat(ledgers), " cache".repeat(caches));
                    if early {
                        format!("The ledger and its cache{more}. {pad}")
                    } else {
                        format!("{pad}The ledger and its cache{more}.")
                    }
                })
                .collect();
            let weights = if heavy { [1.0, 1.0] } else { [0.3, 1.0] };
            best_agrees_with_all(&bodies, &["ledger", "cache"], &weights, best);
        }
    }

    /// Past its bound the cache of token counts is dropped whole, and only at the writes
    /// that look; word counts and the node total stay.
    #[test]
    fn token_counts_past_their_bound_are_dropped() {
        use brief_count::CountStore;
        let dir = payments();
        let (_project, index) = built(dir.path());
        let entries: Vec<(Vec<u8>, usize)> = (0..50u32)
            .map(|k| {
                (
                    brief_count::count_key(brief_count::Encoding::default(), &format!("text {k}"))
                        .to_vec(),
                    3,
                )
            })
            .collect();
        index.put(&entries);
        let tokens = || -> i64 {
            index
                .conn
                .query_row("SELECT count(*) FROM counts WHERE key < x'10'", [], |r| {
                    r.get(0)
                })
                .unwrap()
        };
        let total = super::kept_node_total(&index.conn).unwrap();
        assert!(tokens() >= 50);
        assert_eq!(
            super::drop_token_counts_over(&index.conn, 1_000).unwrap(),
            0
        );
        assert!(tokens() >= 50, "under the bound, nothing goes");
        // Only every 64th write looks, with room for 8 counts a node, 200,000 at least.
        assert_eq!(super::token_count_limit(63, 1), None);
        assert_eq!(super::token_count_limit(64, 1), Some(200_000));
        assert_eq!(super::token_count_limit(128, 100_000), Some(800_000));
        let before = tokens() as usize;
        assert_eq!(
            super::drop_token_counts_over(&index.conn, 10).unwrap(),
            before
        );
        assert_eq!(tokens(), 0);
        assert_eq!(super::kept_node_total(&index.conn).unwrap(), total);
        assert_eq!(index.get(&entries[0].0), None, "counted again when asked");
    }
}
