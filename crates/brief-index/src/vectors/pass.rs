//! The embedding pass: every passage without a vector for the client's model key is sent in
//! batches, each batch's vectors written in one transaction (a failure keeps what came
//! before and leaves the rest for the next pass), then the blocks those nodes live in are
//! built again.

use std::time::{Duration, Instant};

use brief_embed::{Client, EmbedError, Quantized, Role};

use super::super::*;
use super::{block_of, passage};

/// How long a batch may take when the pass has no deadline: a minute, and two seconds more
/// per text (a small model on a busy CPU embeds a long text in a second or two).
fn batch_timeout(texts: usize) -> Duration {
    Duration::from_secs(60 + 2 * texts as u64)
}

/// How long an embedding pass may go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// Until every node has its vector or the endpoint fails (`brief index`); each batch
    /// may take a minute and two seconds per text.
    Done,
    /// Until this instant (a request that must answer in time); what is left waits for the
    /// next pass.
    Deadline(Instant),
}

/// What an embedding pass did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Embedded {
    /// Passages sent to the endpoint and stored (nodes with the same text count once).
    pub embedded: usize,
    /// Nodes still without a vector for this model afterwards.
    pub missing: usize,
    /// Why the pass stopped before the end: the endpoint failed.
    pub failure: Option<EmbedError>,
}

/// How a round of batches ended.
enum Round {
    /// At the end, at a failure or at the deadline.
    Over,
    /// The stored vectors were of another length and were dropped: ask for the rest again.
    Reset,
}

/// What storing a batch did.
enum Stored {
    /// Its vectors were added.
    Added,
    /// Every stored vector of the model was dropped first (another length).
    AfterReset,
}

/// A model key's row.
struct Model {
    id: i64,
    dims: Option<usize>,
    complete: bool,
}

/// A passage to embed: its hash and the nodes it is the text of.
struct Todo {
    hash: Vec<u8>,
    nodes: Vec<i64>,
}

impl Index {
    /// Embeds the passages that have no vector for `client`'s model key, `client.batch` at a
    /// time, until `until`; reports `Step`s in [`Unit::Vectors`]. A failure of the endpoint
    /// ends the pass with what was stored so far (it is in [`Embedded::failure`], not an
    /// error: the index is whole either way). Nothing is asked when every node already has
    /// its vector, which costs one lookup.
    pub fn embed(
        &mut self,
        client: &Client,
        until: Until,
        progress: &mut dyn FnMut(Step),
    ) -> Result<Embedded, IndexError> {
        let key = client.endpoint().vector_key();
        let location = self.location.clone();
        let e = |x: rusqlite::Error| err(&location, x);
        let changes = self.conn.total_changes();
        let mut model = self.model(&key).map_err(e)?;
        if model.complete {
            return Ok(Embedded::default());
        }
        let mut report = Embedded::default();
        // A second round only after the stored vectors were dropped for another length.
        for _ in 0..2 {
            let todo = self.missing(model.id).map_err(e)?;
            match self.embed_all(client, &mut model, &todo, until, &mut report, progress)? {
                Round::Reset => continue,
                Round::Over => break,
            }
        }
        report.missing = self.finish(model.id).map_err(e)?;
        // A write like a refresh's: the log emptied for the processes that open the index
        // next, and the file sealed so that they need not verify it. A pass that stored
        // nothing (an endpoint down, asked before every request) writes neither.
        if self.conn.total_changes() != changes {
            self.checkpoint();
            self.seal_written(Held::No);
        }
        self.forget();
        self.cache_version.set(None);
        Ok(report)
    }

    /// Embeds `todo` batch by batch into `report`, until the end, a failure, the deadline,
    /// or a batch that found vectors of another length stored (then the rest is asked again).
    fn embed_all(
        &mut self,
        client: &Client,
        model: &mut Model,
        todo: &[Todo],
        until: Until,
        report: &mut Embedded,
        progress: &mut dyn FnMut(Step),
    ) -> Result<Round, IndexError> {
        let total = report.embedded + todo.len();
        let batch = client.endpoint().batch.max(1);
        for chunk in todo.chunks(batch) {
            let timeout = match until {
                Until::Done => batch_timeout(chunk.len()),
                Until::Deadline(at) => match at.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left,
                    _ => break,
                },
            };
            let stored = self.embed_chunk(client, model, chunk, timeout, until)?;
            if stored.is_ok() {
                report.embedded += chunk.len();
                progress(Step {
                    done: report.embedded,
                    total,
                    unit: Unit::Vectors,
                });
            }
            match stored {
                Ok(Stored::Added) => {}
                Ok(Stored::AfterReset) => return Ok(Round::Reset),
                Err(failure) => {
                    report.failure = Some(failure);
                    break;
                }
            }
        }
        Ok(Round::Over)
    }

    /// The row of `key`, created when new.
    fn model(&self, key: &str) -> rusqlite::Result<Model> {
        let read = |conn: &Connection| {
            row(
                conn,
                "SELECT id, dims, complete FROM embed_models WHERE key = ?1",
                [key],
                |r| {
                    Ok(Model {
                        id: r.get(0)?,
                        dims: r.get::<_, Option<i64>>(1)?.map(|d| d as usize),
                        complete: r.get::<_, i64>(2)? != 0,
                    })
                },
            )
            .optional()
        };
        if let Some(model) = read(&self.conn)? {
            return Ok(model);
        }
        run(
            &self.conn,
            "INSERT OR IGNORE INTO embed_models(key) VALUES (?1)",
            [key],
        )?;
        read(&self.conn)?.ok_or(rusqlite::Error::QueryReturnedNoRows)
    }

    /// The passages without a vector for `model`, each with its nodes, in node order.
    fn missing(&self, model: i64) -> rusqlite::Result<Vec<Todo>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT p.ix, p.hash FROM passages p
             WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ?1 AND v.hash = p.hash)
             ORDER BY p.ix",
        )?;
        let rows = stmt.query_map([model], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?)))?;
        let mut todo: Vec<Todo> = Vec::new();
        let mut at: HashMap<Vec<u8>, usize> = HashMap::new();
        for row in rows {
            let (ix, hash): (i64, Vec<u8>) = row?;
            match at.get(&hash) {
                Some(&i) => todo[i].nodes.push(ix),
                None => {
                    at.insert(hash.clone(), todo.len());
                    todo.push(Todo {
                        hash,
                        nodes: vec![ix],
                    });
                }
            }
        }
        Ok(todo)
    }

    /// Embeds one batch and stores its vectors; the outer error is the index's, the inner
    /// one the endpoint's.
    fn embed_chunk(
        &mut self,
        client: &Client,
        model: &mut Model,
        chunk: &[Todo],
        timeout: Duration,
        until: Until,
    ) -> Result<Result<Stored, EmbedError>, IndexError> {
        let mut texts = Vec::with_capacity(chunk.len());
        for todo in chunk {
            let node = self.load_node(todo.nodes[0] as NodeIx)?;
            texts.push(passage(&node));
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = match client.embed(&refs, Role::Passage, timeout) {
            Ok(vectors) => vectors,
            Err(failure) => return Ok(Err(failure)),
        };
        let dims = vectors.first().map(Vec::len).unwrap_or(0);
        let reset = match model.dims {
            Some(known) if known != dims => match until {
                // The model behind the name changed: what is stored under it is of no use.
                Until::Done => true,
                Until::Deadline(_) => {
                    return Ok(Err(EmbedError::Dimensions {
                        expected: known,
                        got: dims,
                    }))
                }
            },
            _ => false,
        };
        let location = self.location.clone();
        let e = |x: rusqlite::Error| err(&location, x);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(e)?;
        if reset {
            run(&tx, "DELETE FROM vectors WHERE model = ?1", [model.id]).map_err(e)?;
            run(
                &tx,
                "DELETE FROM vector_blocks WHERE model = ?1",
                [model.id],
            )
            .map_err(e)?;
        }
        run(
            &tx,
            "UPDATE embed_models SET dims = ?2 WHERE id = ?1",
            params![model.id, dims as i64],
        )
        .map_err(e)?;
        for (todo, vector) in chunk.iter().zip(&vectors) {
            let data = Quantized::of(vector).to_bytes();
            run(
                &tx,
                "INSERT OR REPLACE INTO vectors(model, hash, data, sum) VALUES (?1, ?2, ?3, ?4)",
                params![model.id, todo.hash, data, data_sum_bytes(&data)],
            )
            .map_err(e)?;
            for &ix in &todo.nodes {
                run(
                    &tx,
                    "DELETE FROM vector_blocks WHERE block = ?1 AND model = ?2",
                    params![block_of(ix), model.id],
                )
                .map_err(e)?;
            }
        }
        tx.commit().map_err(e)?;
        model.dims = Some(dims);
        Ok(Ok(if reset {
            Stored::AfterReset
        } else {
            Stored::Added
        }))
    }

    /// Builds the blocks `model` lacks, drops vectors no node is embedded from any more, and
    /// marks the model complete when every passage has its vector; how many nodes do not.
    fn finish(&mut self, model: i64) -> rusqlite::Result<usize> {
        // One write transaction: no refresh can add a passage between the count and the mark.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let blocks: Vec<i64> = {
            let mut stmt = tx.prepare_cached(
                "SELECT DISTINCT ix >> 8 FROM passages
                 EXCEPT SELECT block FROM vector_blocks WHERE model = ?1 ORDER BY 1",
            )?;
            let rows = stmt.query_map([model], |r| r.get(0))?;
            rows.collect::<Result<_, _>>()?
        };
        for block in blocks {
            build_block(&tx, model, block)?;
        }
        let missing: i64 = row(
            &tx,
            "SELECT count(*) FROM passages p WHERE NOT EXISTS
               (SELECT 1 FROM vectors v WHERE v.model = ?1 AND v.hash = p.hash)",
            [model],
            |r| r.get(0),
        )?;
        if missing == 0 {
            run(
                &tx,
                "DELETE FROM vectors WHERE model = ?1 AND hash NOT IN (SELECT hash FROM passages)",
                [model],
            )?;
            run(
                &tx,
                "UPDATE embed_models SET complete = 1 WHERE id = ?1",
                [model],
            )?;
        }
        tx.commit()?;
        Ok(missing as usize)
    }
}

/// Writes the block of `model`'s vectors for the nodes of `block` that have one.
fn build_block(tx: &Connection, model: i64, block: i64) -> rusqlite::Result<()> {
    let first = block << super::BLOCK_SHIFT;
    let mut stmt = tx.prepare_cached(
        "SELECT p.ix, v.data FROM passages p JOIN vectors v ON v.model = ?1 AND v.hash = p.hash
         WHERE p.ix >= ?2 AND p.ix < ?3 ORDER BY p.ix",
    )?;
    let mut rows = stmt.query(params![model, first, first + (1 << super::BLOCK_SHIFT)])?;
    let mut data: Vec<u8> = Vec::new();
    while let Some(r) = rows.next()? {
        let ix: i64 = r.get(0)?;
        let vector = r.get_ref(1)?.as_blob()?;
        data.extend_from_slice(&(ix as u32).to_le_bytes());
        data.extend_from_slice(vector);
    }
    drop(rows);
    drop(stmt);
    run(
        tx,
        "INSERT OR REPLACE INTO vector_blocks(block, model, data, sum) VALUES (?1, ?2, ?3, ?4)",
        params![block, model, data, data_sum_bytes(&data)],
    )?;
    Ok(())
}

/// The checksum stored with a vector or a block.
pub(super) fn data_sum_bytes(data: &[u8]) -> i64 {
    sum_of(&[data])
}
