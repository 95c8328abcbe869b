// Applying client updates to the in-memory document of a note.
// @spec SPEC-SYNC-002
// @decision DEC-SYNC-001

use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{Doc, ReadTxn, StateVector, Transact, Update};

pub struct MergeOutcome {
    /// Encoded state vector after the merge, sent back in the ack.
    pub state_vector: Vec<u8>,
    /// False when the update added nothing: no log row, no broadcast.
    pub changed: bool,
}

pub fn apply_update(doc: &Doc, update: &[u8]) -> Result<MergeOutcome, yrs::encoding::read::Error> {
    let update = Update::decode_v1(update)?;
    let before = doc.transact().state_vector();
    {
        let mut txn = doc.transact_mut();
        txn.apply_update(update);
    }
    let after = doc.transact().state_vector();
    Ok(MergeOutcome {
        changed: after != before,
        state_vector: after.encode_v1(),
    })
}

/// The update a subscriber is missing, given the state vector it sent.
pub fn diff_for(doc: &Doc, remote_sv: &[u8]) -> Result<Vec<u8>, yrs::encoding::read::Error> {
    let sv = StateVector::decode_v1(remote_sv)?;
    Ok(doc.transact().encode_state_as_update_v1(&sv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use yrs::{GetString, Text};

    // @test SPEC-SYNC-002
    #[test]
    fn applying_the_same_update_twice_changes_nothing() {
        let source = Doc::new();
        let text = source.get_or_insert_text("body");
        text.insert(&mut source.transact_mut(), 0, "tide tables");
        let update = source.transact().encode_state_as_update_v1(&StateVector::default());

        let server = Doc::new();
        assert!(apply_update(&server, &update).unwrap().changed);
        assert!(!apply_update(&server, &update).unwrap().changed);
        let body = server.get_or_insert_text("body");
        assert_eq!(body.get_string(&server.transact()), "tide tables");
    }
}
