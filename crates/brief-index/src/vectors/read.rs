//! The stored vectors of one model key as one contiguous [`Matrix`], read block by block and
//! kept until the index changes.

use std::sync::Arc;

use brief_embed::Matrix;

use super::super::*;
use super::pass::data_sum_bytes;

impl Index {
    /// Every stored vector of the model key `key` (see `Endpoint::vector_key`), keyed by node
    /// index, in node order; `None` when nothing was ever embedded under that key. Call it
    /// inside [`Index::reading`]: the matrix is kept for later calls until another commit
    /// (this process's or another's) changes the index.
    pub fn vectors(&self, key: &str) -> Result<Option<Arc<Matrix>>, StoreError> {
        if let Some((cached, matrix)) = &*self.vector_cache.borrow() {
            if cached == key {
                return Ok(Some(Arc::clone(matrix)));
            }
        }
        let Some(matrix) = self.read_vectors(key)? else {
            return Ok(None);
        };
        let matrix = Arc::new(matrix);
        *self.vector_cache.borrow_mut() = Some((key.to_string(), Arc::clone(&matrix)));
        Ok(Some(matrix))
    }

    /// [`Index::vectors`] read from the file every time (nothing kept).
    pub fn read_vectors(&self, key: &str) -> Result<Option<Matrix>, StoreError> {
        let model: Option<(i64, Option<i64>)> = row(
            &self.conn,
            "SELECT id, dims FROM embed_models WHERE key = ?1",
            [key],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(|e| self.fail(e))?;
        let Some((model, Some(dims))) = model else {
            return Ok(None);
        };
        self.read_blocks(model, dims as usize).map(Some)
    }

    /// The length of the vectors stored under the model key `key`; `None` when nothing was
    /// ever embedded under it. One small lookup.
    pub fn vector_dims(&self, key: &str) -> Result<Option<usize>, StoreError> {
        row(
            &self.conn,
            "SELECT dims FROM embed_models WHERE key = ?1",
            [key],
            |r| r.get::<_, Option<i64>>(0),
        )
        .optional()
        .map(|dims| dims.flatten().map(|d| d as usize))
        .map_err(|e| self.fail(e))
    }

    /// The blocks of `model` as one matrix; a block whose checksum or records do not hold is
    /// damage.
    fn read_blocks(&self, model: i64, dims: usize) -> Result<Matrix, StoreError> {
        let record = 4 + 4 + dims;
        let mut matrix = Matrix::new(dims);
        let result = (|| -> rusqlite::Result<Option<String>> {
            let mut stmt = self.conn.prepare_cached(
                "SELECT block, data, sum FROM vector_blocks WHERE model = ?1 ORDER BY block",
            )?;
            let mut rows = stmt.query([model])?;
            while let Some(r) = rows.next()? {
                let block: i64 = r.get(0)?;
                let data = r.get_ref(1)?.as_blob()?;
                let sum: i64 = r.get(2)?;
                if data_sum_bytes(data) != sum || data.len() % record != 0 {
                    return Ok(Some(format!("vector block {block}: checksum mismatch")));
                }
                for item in data.chunks_exact(record) {
                    let (ix, vector) = item.split_at(4);
                    let ix = u32::from_le_bytes([ix[0], ix[1], ix[2], ix[3]]);
                    if !matrix.push_bytes(ix, vector) {
                        return Ok(Some(format!(
                            "vector block {block}: a vector does not decode"
                        )));
                    }
                }
            }
            Ok(None)
        })();
        match result {
            Ok(None) => Ok(matrix),
            Ok(Some(damage)) => Err(self.damaged(damage)),
            Err(e) => Err(self.fail(e)),
        }
    }
}
