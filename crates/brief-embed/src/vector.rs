//! Vectors as brief keeps them: unit length, 8 bits per dimension with one scale per vector
//! (a quarter of the bytes of `f32`, cosine within about 0.01 of the exact one), scanned from
//! one contiguous [`Matrix`].

/// Makes `vector` unit length; false when it cannot be (a value that is not finite, or all
/// zeros), leaving it unusable.
pub fn normalize(vector: &mut [f32]) -> bool {
    let norm = vector
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    if !norm.is_finite() || norm == 0.0 || vector.iter().any(|x| !x.is_finite()) {
        return false;
    }
    for x in vector.iter_mut() {
        *x = (f64::from(*x) / norm) as f32;
    }
    true
}

/// A unit vector in 8 bits per dimension: `values[i] · scale` approximates it.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized {
    /// The value of one step.
    pub scale: f32,
    /// The steps, one per dimension.
    pub values: Vec<i8>,
}

/// Bytes before the values in [`Quantized::to_bytes`]: the scale.
const SCALE_BYTES: usize = 4;

impl Quantized {
    /// Quantizes a unit vector (symmetric: its largest magnitude becomes ±127).
    pub fn of(vector: &[f32]) -> Quantized {
        let largest = vector.iter().fold(0f32, |m, &x| m.max(x.abs()));
        let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
        let values = vector
            .iter()
            .map(|&x| (x / scale).round().clamp(-127.0, 127.0) as i8)
            .collect();
        Quantized { scale, values }
    }

    /// The stored form: the scale (little-endian `f32`), then one byte per dimension.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(SCALE_BYTES + self.values.len());
        bytes.extend_from_slice(&self.scale.to_le_bytes());
        bytes.extend(self.values.iter().map(|&v| v as u8));
        bytes
    }

    /// Reads the stored form; `None` when it is too short or its scale is not a positive
    /// finite number. Only the round-trip test reads one back: stored vectors are read
    /// straight into a [`Matrix`] (`Matrix::push_bytes`).
    #[cfg(test)]
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Quantized> {
        let (scale, values) = split(bytes)?;
        Some(Quantized {
            scale,
            values: values.iter().map(|&v| v as i8).collect(),
        })
    }

    /// The number of dimensions.
    pub fn dims(&self) -> usize {
        self.values.len()
    }
}

/// The scale and the value bytes of a stored vector.
fn split(bytes: &[u8]) -> Option<(f32, &[u8])> {
    let head: [u8; SCALE_BYTES] = bytes.get(..SCALE_BYTES)?.try_into().ok()?;
    let scale = f32::from_le_bytes(head);
    let values = &bytes[SCALE_BYTES..];
    (scale.is_finite() && scale > 0.0 && !values.is_empty()).then_some((scale, values))
}

/// Many vectors of one length in one contiguous block, each under a key (a node), scanned
/// together against a query.
#[derive(Debug, Clone, Default)]
pub struct Matrix {
    dims: usize,
    keys: Vec<u32>,
    scales: Vec<f32>,
    values: Vec<i8>,
}

impl Matrix {
    /// An empty matrix of vectors of `dims` dimensions.
    pub fn new(dims: usize) -> Matrix {
        Matrix {
            dims,
            ..Matrix::default()
        }
    }

    /// The length of its vectors.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// How many vectors it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The keys, in the order they were added (the order of [`Matrix::scores`]).
    pub fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// Adds a stored vector (see [`Quantized::to_bytes`]) under `key`; false (and nothing
    /// added) when it does not decode or is of another length.
    pub fn push_bytes(&mut self, key: u32, bytes: &[u8]) -> bool {
        match split(bytes) {
            Some((scale, values)) if values.len() == self.dims => {
                self.keys.push(key);
                self.scales.push(scale);
                self.values.extend(values.iter().map(|&v| v as i8));
                true
            }
            _ => false,
        }
    }

    /// Adds a vector under `key`; false when it is of another length.
    pub fn push(&mut self, key: u32, vector: &Quantized) -> bool {
        if vector.dims() != self.dims {
            return false;
        }
        self.keys.push(key);
        self.scales.push(vector.scale);
        self.values.extend_from_slice(&vector.values);
        true
    }

    /// The vector at position `at` (in key order), as a unit vector of `f32`s; `None` past
    /// the end.
    pub fn vector(&self, at: usize) -> Option<Vec<f32>> {
        let scale = *self.scales.get(at)?;
        let row = self.values.get(at * self.dims..(at + 1) * self.dims)?;
        let mut vector: Vec<f32> = row.iter().map(|&v| f32::from(v) * scale).collect();
        normalize(&mut vector).then_some(vector)
    }

    /// The cosine similarity of `query` (a unit vector of this length) with every vector, in
    /// key order, rounded to four places so that the last bits of the arithmetic never
    /// decide an order. Empty when `query` is of another length.
    pub fn scores(&self, query: &[f32]) -> Vec<f32> {
        if query.len() != self.dims || self.dims == 0 {
            return Vec::new();
        }
        let q = Quantized::of(query);
        self.values
            .chunks_exact(self.dims)
            .zip(&self.scales)
            .map(|(row, &scale)| {
                let dot = dot(&q.values, row) as f32 * q.scale * scale;
                round4(dot)
            })
            .collect()
    }
}

/// The dot product of two 8-bit vectors (written so that the compiler vectorises it).
fn dot(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

/// Rounded to four decimal places.
fn round4(x: f32) -> f32 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let mut v = v.to_vec();
        assert!(normalize(&mut v));
        v
    }

    #[test]
    fn normalize_refuses_what_has_no_direction() {
        assert!(!normalize(&mut [0.0, 0.0]));
        assert!(!normalize(&mut [f32::NAN, 1.0]));
        assert!(!normalize(&mut [f32::INFINITY, 1.0]));
        let v = unit(&[3.0, 4.0]);
        assert_eq!(v, vec![0.6, 0.8]);
    }

    #[test]
    fn stored_vectors_round_trip_and_bad_bytes_are_refused() {
        let q = Quantized::of(&unit(&[0.1, -0.7, 0.3, 0.0]));
        assert_eq!(q.values[1], -127);
        assert_eq!(Quantized::from_bytes(&q.to_bytes()), Some(q.clone()));
        assert_eq!(Quantized::from_bytes(&[1, 2]), None);
        assert_eq!(Quantized::from_bytes(&f32::NAN.to_le_bytes()), None);
        let mut zero_scale = 0f32.to_le_bytes().to_vec();
        zero_scale.push(1);
        assert_eq!(Quantized::from_bytes(&zero_scale), None);
        let mut m = Matrix::new(4);
        assert!(m.push_bytes(7, &q.to_bytes()));
        assert!(!m.push_bytes(8, &q.to_bytes()[..6]), "another length");
        assert!(!m.push(9, &Quantized::of(&unit(&[1.0, 0.0]))));
        assert_eq!(m.keys(), &[7]);
    }

    #[test]
    fn scores_are_close_to_the_exact_cosine() {
        // A fixed pseudo-random set: 200 vectors of 384 dimensions.
        let mut state = 0x2545_f491_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state as f32 / u32::MAX as f32) - 0.5
        };
        let rows: Vec<Vec<f32>> = (0..200)
            .map(|_| unit(&(0..384).map(|_| next()).collect::<Vec<_>>()))
            .collect();
        let query = unit(&(0..384).map(|_| next()).collect::<Vec<_>>());
        let mut m = Matrix::new(384);
        for (i, row) in rows.iter().enumerate() {
            assert!(m.push(i as u32, &Quantized::of(row)));
        }
        let scores = m.scores(&query);
        assert_eq!(scores.len(), 200);
        for (row, score) in rows.iter().zip(&scores) {
            let exact: f32 = row.iter().zip(&query).map(|(a, b)| a * b).sum();
            assert!((exact - score).abs() < 0.01, "{exact} vs {score}");
        }
        // A vector with itself scores 1 (to the rounding).
        assert!((m.scores(&rows[3])[3] - 1.0).abs() < 0.01);
        assert!(
            m.scores(&[1.0, 0.0]).is_empty(),
            "a query of another length"
        );
    }

    #[test]
    fn scores_are_rounded_to_four_places() {
        let mut m = Matrix::new(3);
        m.push(0, &Quantized::of(&unit(&[1.0, 2.0, 3.0])));
        for s in m.scores(&unit(&[3.0, 2.0, 1.0])) {
            assert_eq!(s, round4(s));
        }
    }
}
