//! The parallel side of a refresh: a parsed node made ready for writing.

use super::*;
use brief_sources::Places;

/// What the index stores of a parsed node, made on the parallel side of a refresh (the
/// rest of the node is dropped there too, not on the writing thread).
pub(crate) struct Prepared {
    pub(crate) id: String,
    pub(crate) kind: Kind,
    pub(crate) title: String,
    pub(crate) date: Option<String>,
    pub(crate) location: Location,
    pub(crate) links: Vec<Link>,
    pub(crate) data: String,
    /// [`row_sum`] of the node's row and [`data_sum`] of its data.
    pub(crate) sums: (i64, i64),
    pub(crate) body: String,
    pub(crate) fields: String,
    /// The hash of the text the node is embedded from (`vectors::passage`).
    pub(crate) passage: [u8; 32],
    /// When the node applies without a link, as stored in `marks` (`None`: only linked).
    pub(crate) applies: Option<String>,
    /// Its lifecycle when not current, as stored in `marks`.
    pub(crate) lifecycle: Option<&'static str>,
}

pub(crate) fn prepare(node: Node) -> Result<Prepared, Problem> {
    let data = serde_json::to_string(&node).map_err(|e| {
        Problem::error(
            ProblemKind::Invalid,
            node.location.clone(),
            format!("cannot store node: {e}"),
        )
    })?;
    let sums = (
        row_sum(
            &node.id,
            node.kind.name(),
            node.date.as_deref(),
            &node.title,
        ),
        data_sum(&data),
    );
    let (body, fields) = search_text(&node);
    let passage = crate::vectors::passage_hash(&node);
    let applies = if node.applies().is_linked() {
        None
    } else {
        serde_json::to_string(node.applies()).ok()
    };
    let lifecycle = Some(node.lifecycle())
        .filter(|l| !l.is_current())
        .map(|l| l.name());
    let Node {
        id,
        kind,
        title,
        date,
        location,
        links,
        ..
    } = node;
    Ok(Prepared {
        id,
        kind,
        title,
        date,
        location,
        links,
        data,
        sums,
        applies,
        lifecycle,
        body,
        fields,
        passage,
    })
}

/// Reads and hashes a Tana export (parsed later, inside the write transaction); its text is
/// kept only when its hash differs from the indexed one.
pub(crate) fn read_tana(
    root: &Root,
    file: &Listed,
    at: usize,
    hashes: &HashMap<String, Vec<u8>>,
) -> TanaRead {
    match read_stamped(root, &file.path) {
        Ok((text, stamp)) => {
            let hash = *blake3::hash(text.as_bytes()).as_bytes();
            let same = hashes
                .get(file.rel.as_str())
                .is_some_and(|old| old.as_slice() == hash);
            TanaRead {
                at,
                hash,
                stamp,
                text: Ok((!same).then_some(text)),
            }
        }
        Err(problem) => TanaRead {
            at,
            hash: [0; 32],
            stamp: None,
            text: Err(problem),
        },
    }
}

/// Reads, hashes and (when its hash changed) parses one file; a file that cannot be read or
/// parsed becomes its problem.
pub(crate) fn read_file(
    root: &Root,
    file: &Listed,
    at: usize,
    hashes: &HashMap<String, Vec<u8>>,
    catalog: &brief_sources::Catalog,
    places: &Places,
) -> Read {
    match read_stamped(root, &file.path) {
        Ok((text, stamp)) => {
            let hash = *blake3::hash(text.as_bytes()).as_bytes();
            let same = hashes
                .get(file.rel.as_str())
                .is_some_and(|old| old.as_slice() == hash);
            let parsed = (!same).then(|| {
                parse(&file.rel, &text, &file.parser, catalog)
                    .and_then(|nodes| nodes.into_iter().map(prepare).collect())
            });
            Read {
                at,
                hash,
                stamp,
                parsed,
            }
        }
        Err(mut problem) => {
            if let Parser::Spec(entry) = &file.parser {
                places.relocate(root, entry, &file.path, &mut problem);
            }
            Read {
                at,
                hash: [0; 32],
                stamp: None,
                parsed: Some(Err(problem)),
            }
        }
    }
}

/// The reader thread's loop: `todo` a chunk at a time, each chunk on all cores, sent in
/// order to the writer. Stops when the writer hangs up (an error, or another process
/// changed the index).
pub(crate) fn read_chunks(
    todo: &[usize],
    read_one: &(dyn Fn(usize) -> Read + Sync),
    sender: &std::sync::mpsc::SyncSender<Vec<Read>>,
) {
    use rayon::prelude::*;
    for chunk in todo.chunks(PARSE_CHUNK) {
        let reads: Vec<Read> = chunk.par_iter().map(|&i| read_one(i)).collect();
        if sender.send(reads).is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::kit;
    use super::*;

    #[test]
    fn a_file_is_read_hashed_and_parsed_and_a_bad_one_is_its_problem() {
        let dir = kit::payments();
        kit::write(
            dir.path(),
            "specs/SPEC-BAD-001.md",
            "---\nid: SPEC-BAD-001\ntitle: [unclosed\n---\n# Bad\n",
        );
        let project = Project::at(dir.path()).unwrap();
        let (listed, _, _) = list(&project);
        let catalog = brief_sources::Catalog::default();
        let no_hashes = HashMap::new();
        let at = |rel: &str| listed.iter().position(|f| f.rel.ends_with(rel)).unwrap();
        let good = at("SPEC-PAY-001.md");
        let read = read_file(
            &project.guard,
            &listed[good],
            good,
            &no_hashes,
            &catalog,
            &Places::default(),
        );
        assert_eq!(read.at, good);
        assert!(read.stamp.is_some());
        let prepared = read.parsed.unwrap().unwrap();
        assert_eq!(prepared.len(), 1);
        let prepared = &prepared[0];
        assert_eq!(prepared.id, "SPEC-PAY-001");
        assert!(
            prepared.body.contains("idempotency key"),
            "{}",
            prepared.body
        );
        // The same hash as indexed: nothing to parse.
        let hashes = HashMap::from([(listed[good].rel.clone(), read.hash.to_vec())]);
        let again = read_file(
            &project.guard,
            &listed[good],
            good,
            &hashes,
            &catalog,
            &Places::default(),
        );
        assert!(again.parsed.is_none());
        assert_eq!(again.hash, read.hash);
        // A parse error is the file's problem, at its path and line.
        let bad = at("SPEC-BAD-001.md");
        let read = read_file(
            &project.guard,
            &listed[bad],
            bad,
            &no_hashes,
            &catalog,
            &Places::default(),
        );
        let problem = read.parsed.unwrap().err().expect("a problem");
        assert_eq!(problem.location.path, listed[bad].rel);
        assert!(problem.location.line >= 2, "{problem:?}");
        // A file gone since the listing is a problem too, never a panic.
        std::fs::remove_file(&listed[good].path).unwrap();
        let gone = read_file(
            &project.guard,
            &listed[good],
            good,
            &no_hashes,
            &catalog,
            &Places::default(),
        );
        assert!(matches!(gone.parsed, Some(Err(_))));
        assert_eq!(gone.hash, [0; 32]);
    }

    #[test]
    fn the_reader_sends_every_chunk_in_order() {
        let todo: Vec<usize> = (0..PARSE_CHUNK * 2 + 3).collect();
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        let read_one = |at: usize| Read {
            at,
            hash: [0; 32],
            stamp: None,
            parsed: None,
        };
        std::thread::scope(|scope| {
            scope.spawn(|| read_chunks(&todo, &read_one, &sender));
            let got: Vec<usize> = receiver
                .iter()
                .take(3)
                .flat_map(|chunk| chunk.into_iter().map(|r| r.at))
                .collect();
            assert_eq!(got, todo);
        });
    }
}
