//! The SQL side of a refresh: nodes, edges, FTS rows and problems written and removed.

use super::*;

/// A node written by a refresh, with the links still to be turned into edges.
pub(crate) struct Written {
    pub(crate) ix: NodeIx,
    pub(crate) id: String,
    pub(crate) links: Vec<Link>,
    /// A section of a page: links to its heading that landed on the page move to it.
    pub(crate) section: bool,
}

/// The id links name to reach a node: a section's page (links name the page and a heading;
/// see `brief_model::section_of`), else the node itself.
fn written_target<'a>(id: &'a str, kind: &str) -> &'a str {
    match kind {
        "section" => brief_model::page_of_section(id),
        _ => id,
    }
}

/// Records a problem found reading `file` (reading it again replaces its problems), located
/// wherever the problem is (a manifest entry's problem is found by the manifest too).
pub(crate) fn insert_problem(
    tx: &Connection,
    file: &str,
    problem: &Problem,
) -> rusqlite::Result<()> {
    let path = problem.location.path.as_str();
    let (line, col) = (
        i64::from(problem.location.line),
        i64::from(problem.location.col),
    );
    let severity = (problem.severity == Severity::Error) as i64;
    let kind = problem.kind.name();
    run(
        tx,
        "INSERT INTO problems(file, path, line, col, severity, kind, message, sum)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            file,
            path,
            line,
            col,
            severity,
            kind,
            problem.message,
            problem_sum(file, path, line, col, severity, kind, &problem.message)
        ],
    )?;
    Ok(())
}

/// Records a link from `src` over `rel` to an id no node has.
pub(crate) fn insert_dangling(
    tx: &Connection,
    src: i64,
    rel: &str,
    target: &str,
) -> rusqlite::Result<()> {
    run(
        tx,
        "INSERT INTO dangling(src, rel, target, sum) VALUES (?1, ?2, ?3, ?4)",
        params![src, rel, target, dangling_sum(src, rel, target)],
    )?;
    Ok(())
}

/// Records as dangling the links `select` finds (rows of `src, rel, target`): links into
/// nodes about to be removed.
fn insert_dangling_from(
    tx: &Connection,
    select: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<()> {
    let rows: Vec<(i64, String, String)> = {
        let mut stmt = tx.prepare_cached(select)?;
        let rows = stmt.query_map(params, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    for (src, rel, target) in rows {
        insert_dangling(tx, src, &rel, &target)?;
    }
    Ok(())
}

/// Removes the nodes of a file in a few set-wide statements (an export has a million);
/// links from other files that pointed at them become dangling.
pub(crate) fn remove_file_nodes_bulk(tx: &Connection, file: &str) -> rusqlite::Result<()> {
    // A link into a section was written to its page (the file's node that is not a section).
    insert_dangling_from(
        tx,
        "SELECT e.src, e.rel,
                CASE WHEN n.kind = 'section'
                     THEN coalesce((SELECT p.id FROM nodes p
                                    WHERE p.file = ?1 AND p.kind <> 'section'), n.id)
                     ELSE n.id END
         FROM edges e JOIN nodes n ON n.ix = e.dst
         WHERE n.file = ?1 AND e.src NOT IN (SELECT ix FROM nodes WHERE file = ?1)",
        [file],
    )?;
    crate::vectors::removing_file(tx, file)?;
    for sql in [
        "DELETE FROM edges WHERE src IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM edges WHERE dst IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM dangling WHERE src IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM search WHERE rowid IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM node_data WHERE ix IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM marks WHERE ix IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM nodes WHERE file = ?1",
    ] {
        run(tx, sql, [file])?;
    }
    Ok(())
}

/// Nodes built and stored per round: big enough to keep all cores busy, small enough that a
/// million-node export never holds more than this many built nodes at once.
pub(crate) const TANA_CHUNK: usize = 32_768;

/// Replaces every node of a Tana export with what its text holds now; returns how many were
/// written. Runs inside the refresh's write transaction, so readers see the old export or
/// the new one, never a mix.
pub(crate) fn write_tana(
    tx: &Connection,
    rel: &str,
    text: &str,
    progress: &mut dyn FnMut(Step),
) -> rusqlite::Result<usize> {
    use rayon::prelude::*;
    remove_file_nodes_bulk(tx, rel)?;
    run(tx, "DELETE FROM problems WHERE file = ?1", [rel])?;
    let export = match brief_sources::parse_tana(rel, text) {
        Ok(export) => export,
        Err(problem) => {
            insert_problem(tx, rel, &problem)?;
            return Ok(0);
        }
    };
    // Node i of the export (in id order) gets index base + i, so edges are written without
    // looking their targets up.
    let base: i64 = tx.query_row("SELECT coalesce(max(ix), 0) + 1 FROM nodes", [], |r| {
        r.get(0)
    })?;
    let mut written = 0;
    let mut skipped: Vec<i64> = Vec::new();
    let mut duplicates: Vec<Problem> = Vec::new();
    let problems =
        export.build::<rusqlite::Error>(TANA_CHUNK, &mut |first, total, nodes, lookup| {
            let done = first + nodes.len();
            let prepared: Vec<Result<Prepared, Problem>> =
                nodes.into_par_iter().map(prepare).collect();
            let mut insert_node = tx.prepare_cached(
                "INSERT OR IGNORE INTO nodes(ix, id, kind, file, date, title, sum)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            let mut insert_data =
                tx.prepare_cached("INSERT INTO node_data(ix, data, sum) VALUES (?1, ?2, ?3)")?;
            let mut insert_search = tx.prepare_cached(
                "INSERT INTO search(rowid, id, title, body, fields) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            let mut insert_edge = tx
                .prepare_cached("INSERT OR IGNORE INTO edges(src, dst, rel) VALUES (?1, ?2, ?3)")?;
            for (k, prepared) in prepared.into_iter().enumerate() {
                let ix = base + (first + k) as i64;
                let prepared = match prepared {
                    Ok(prepared) => prepared,
                    Err(problem) => {
                        skipped.push(ix);
                        duplicates.push(problem);
                        continue;
                    }
                };
                let node = &prepared;
                if insert_node.execute(params![
                    ix,
                    node.id,
                    node.kind.name(),
                    rel,
                    node.date,
                    node.title,
                    node.sums.0
                ])? == 0
                {
                    // Another source has this id: the first one indexed keeps it.
                    skipped.push(ix);
                    duplicates.push(Problem::error(
                        ProblemKind::DuplicateId,
                        node.location.clone(),
                        format!(
                            "duplicate id `{}` (already defined by another source)",
                            node.id
                        ),
                    ));
                    continue;
                }
                insert_data.execute(params![ix, node.data, node.sums.1])?;
                insert_search.execute(params![ix, node.id, node.title, node.body, node.fields])?;
                crate::vectors::written(tx, ix, &node.passage)?;
                for link in &node.links {
                    if let Some(p) = lookup(&link.target) {
                        insert_edge.execute(params![ix, base + p as i64, link.relation.name()])?;
                    }
                }
                written += 1;
            }
            progress(Step {
                done,
                total,
                unit: Unit::Nodes,
            });
            Ok(())
        })?;
    for ix in skipped {
        run(tx, "DELETE FROM edges WHERE dst = ?1", [ix])?;
    }
    // Links from other sources to ids this export now defines.
    run(
        tx,
        "INSERT OR IGNORE INTO edges(src, dst, rel)
         SELECT d.src, n.ix, d.rel FROM dangling d JOIN nodes n ON n.id = d.target WHERE n.file = ?1",
        [rel],
    )?;
    run(
        tx,
        "DELETE FROM dangling WHERE target IN (SELECT id FROM nodes WHERE file = ?1)",
        [rel],
    )?;
    for problem in problems.iter().chain(&duplicates) {
        insert_problem(tx, rel, problem)?;
    }
    Ok(written)
}

/// Removes the nodes of a file; links that pointed at them become dangling.
pub(crate) fn remove_file_nodes(tx: &Connection, file: &str) -> rusqlite::Result<()> {
    for (ix, id, kind) in file_nodes(tx, file)? {
        remove_node(tx, ix, written_target(&id, &kind))?;
    }
    Ok(())
}

/// The nodes of a file: index, id and kind.
fn file_nodes(tx: &Connection, file: &str) -> rusqlite::Result<Vec<(i64, String, String)>> {
    let mut stmt = tx.prepare_cached("SELECT ix, id, kind FROM nodes WHERE file = ?1")?;
    let rows = stmt.query_map([file], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    rows.collect()
}

/// Moves the edges into `from` that name a heading of `page` to `to` when `lands` says the
/// heading's section is `to` (an edge `to` already has is dropped, not doubled).
fn move_heading_edges(
    tx: &Connection,
    from: i64,
    to: i64,
    page: &str,
    lands: &dyn Fn(Option<String>) -> bool,
) -> rusqlite::Result<()> {
    let edges: Vec<(i64, String)> = {
        let mut stmt =
            tx.prepare_cached("SELECT src, rel FROM edges WHERE dst = ?1 AND rel LIKE '%#%'")?;
        let rows = stmt.query_map([from], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    for (src, rel) in edges {
        if lands(brief_model::section_of(page, &Relation::from_key(&rel))) {
            run(
                tx,
                "UPDATE OR IGNORE edges SET dst = ?3 WHERE src = ?1 AND rel = ?2 AND dst = ?4",
                params![src, rel, to, from],
            )?;
            run(
                tx,
                "DELETE FROM edges WHERE src = ?1 AND rel = ?2 AND dst = ?3",
                params![src, rel, from],
            )?;
        }
    }
    Ok(())
}

pub(crate) fn remove_node(tx: &Connection, ix: i64, id: &str) -> rusqlite::Result<()> {
    insert_dangling_from(
        tx,
        "SELECT src, rel, ?2 FROM edges WHERE dst = ?1 AND src <> ?1",
        params![ix, id],
    )?;
    run(tx, "DELETE FROM edges WHERE src = ?1 OR dst = ?1", [ix])?;
    run(tx, "DELETE FROM dangling WHERE src = ?1", [ix])?;
    run(tx, "DELETE FROM search WHERE rowid = ?1", [ix])?;
    run(tx, "DELETE FROM marks WHERE ix = ?1", [ix])?;
    run(tx, "DELETE FROM node_data WHERE ix = ?1", [ix])?;
    crate::vectors::removed(tx, ix)?;
    run(tx, "DELETE FROM nodes WHERE ix = ?1", [ix])?;
    Ok(())
}

/// Writes the nodes of a file (one, or a page and its sections), keeping the index of every
/// id the file still holds (so links to it stay valid) and removing the file's other nodes.
/// A duplicate id comes back as a problem.
pub(crate) fn upsert_nodes(
    tx: &Connection,
    file: &str,
    prepared: Vec<Prepared>,
    fresh: bool,
) -> rusqlite::Result<Vec<Result<Written, Problem>>> {
    let existing = if fresh {
        Vec::new()
    } else {
        file_nodes(tx, file)?
    };
    let staying: HashSet<&str> = prepared.iter().map(|p| p.id.as_str()).collect();
    let page = prepared.first().map(|p| p.id.clone()).unwrap_or_default();
    let page_ix = existing.iter().find(|(_, id, _)| *id == page).map(|n| n.0);
    let mut kept: HashMap<String, i64> = HashMap::new();
    for (ix, old, kind) in existing {
        if staying.contains(old.as_str()) {
            kept.insert(old, ix);
            continue;
        }
        // A section that leaves gives the links to its heading back to its page.
        if let (Some(page_ix), "section") = (page_ix, kind.as_str()) {
            move_heading_edges(tx, ix, page_ix, &page, &|_| true)?;
        }
        remove_node(tx, ix, written_target(&old, &kind))?;
    }
    let mut out = Vec::with_capacity(prepared.len());
    for node in prepared {
        let keep = kept.get(&node.id).copied();
        out.push(write_node(tx, file, node, keep)?);
    }
    Ok(out)
}

/// Writes one node: in place of `keep`, or as a new row.
fn write_node(
    tx: &Connection,
    file: &str,
    prepared: Prepared,
    keep: Option<i64>,
) -> rusqlite::Result<Result<Written, Problem>> {
    let Prepared {
        id,
        kind,
        title,
        date,
        location,
        links,
        data,
        sums,
        body,
        fields,
        passage,
        applies,
        lifecycle,
    } = prepared;
    let ix = match keep {
        Some(ix) => {
            run(
                tx,
                "UPDATE nodes SET kind = ?2, date = ?3, title = ?4, sum = ?5 WHERE ix = ?1",
                params![ix, kind.name(), date, title, sums.0],
            )?;
            run(
                tx,
                "UPDATE node_data SET data = ?2, sum = ?3 WHERE ix = ?1",
                params![ix, data, sums.1],
            )?;
            run(tx, "DELETE FROM search WHERE rowid = ?1", [ix])?;
            ix
        }
        None => {
            // Into an empty index the unique constraint finds a duplicate without a lookup.
            let inserted = run(
                tx,
                "INSERT OR IGNORE INTO nodes(id, kind, file, date, title, sum)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, kind.name(), file, date, title, sums.0],
            )?;
            if inserted == 0 {
                let first: String = row(tx, "SELECT file FROM nodes WHERE id = ?1", [&id], |r| {
                    r.get(0)
                })?;
                return Ok(Err(Problem::error(
                    ProblemKind::DuplicateId,
                    location,
                    format!("duplicate id `{id}` (first defined in {first})"),
                )));
            }
            let ix = tx.last_insert_rowid();
            run(
                tx,
                "INSERT INTO node_data(ix, data, sum) VALUES (?1, ?2, ?3)",
                params![ix, data, sums.1],
            )?;
            ix
        }
    };
    run(
        tx,
        "INSERT INTO search(rowid, id, title, body, fields) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![ix, id, title, body, fields],
    )?;
    crate::vectors::written(tx, ix, &passage)?;
    run(tx, "DELETE FROM marks WHERE ix = ?1", [ix])?;
    if applies.is_some() || lifecycle.is_some() {
        let sum = marks_sum(ix, applies.as_deref(), lifecycle);
        run(
            tx,
            "INSERT INTO marks(ix, applies, lifecycle, sum) VALUES (?1, ?2, ?3, ?4)",
            params![ix, applies, lifecycle, sum],
        )?;
    }
    Ok(Ok(Written {
        ix: ix as NodeIx,
        id,
        links,
        section: kind == Kind::Section,
    }))
}

/// The searchable body and fields of a node.
pub(crate) fn search_text(node: &Node) -> (String, String) {
    let mut body = String::new();
    let mut fields = vec![node.kind.name().to_string()];
    fields.extend(node.status.clone());
    match &node.content {
        Content::Spec(spec) => {
            for text in [
                &spec.expectation,
                &spec.statement,
                &spec.description,
                &spec.rationale,
            ]
            .into_iter()
            .flatten()
            {
                body.push_str(text);
                body.push('\n');
            }
            for text in &spec.constraints {
                body.push_str(text);
                body.push('\n');
            }
            for alt in &spec.rejected_alternatives {
                body.push_str(&format!("{}: {}\n", alt.title, alt.reason));
            }
            fields.extend(spec.category.clone());
            fields.extend(spec.severity.clone());
            for (key, value) in spec.metadata.iter().chain(&spec.extra) {
                fields.push(format!("{key} {value}"));
            }
        }
        Content::Tana(tana) => {
            if let Some(description) = &tana.description {
                body.push_str(description);
                body.push('\n');
            }
            fields.extend(tana.all_tags().map(str::to_string));
            for field in &tana.fields {
                fields.push(format!("{} {}", field.name, field.values.join(", ")));
            }
        }
        Content::Artifact(fields_of) => {
            let prose = brief_sources::without_opening_metadata(&fields_of.body);
            body.push_str(&brief_sources::without_fence_labels(&prose));
            fields.extend(fields_of.description.clone());
            fields.extend(fields_of.tags.iter().cloned());
            fields.extend(fields_of.paths.iter().cloned());
            for (key, value) in &fields_of.extra {
                fields.push(format!("{key} {value}"));
            }
        }
    }
    (body, fields.join("\n"))
}

/// FTS5 tuned for a bulk load: no automerge while inserting, and terms kept in memory
/// longer (SQLite's default is 1 MiB), so the load writes a few large segments instead of
/// many small ones merged again and again.
pub(crate) fn start_bulk_fts(tx: &Connection) -> rusqlite::Result<()> {
    run(
        tx,
        "INSERT INTO search(search, rank) VALUES ('automerge', 0)",
        [],
    )?;
    run(
        tx,
        "INSERT INTO search(search, rank) VALUES ('hashsize', ?1)",
        [BULK_FTS_MEMORY],
    )?;
    Ok(())
}

/// After a bulk load: one segment to search, then SQLite's defaults again for the
/// incremental refreshes that follow.
pub(crate) fn end_bulk_fts(tx: &Connection) -> rusqlite::Result<()> {
    run(tx, "INSERT INTO search(search) VALUES ('optimize')", [])?;
    run(
        tx,
        "INSERT INTO search(search, rank) VALUES ('automerge', 4)",
        [],
    )?;
    run(
        tx,
        "INSERT INTO search(search, rank) VALUES ('hashsize', 1048576)",
        [],
    )?;
    Ok(())
}

/// Removes a file that left the listing: its nodes, its problems, its row.
pub(crate) fn remove_file(tx: &Connection, path: &str) -> rusqlite::Result<()> {
    remove_file_nodes_bulk(tx, path)?;
    run(tx, "DELETE FROM problems WHERE file = ?1", [path])?;
    run(tx, "DELETE FROM files WHERE path = ?1", [path])?;
    Ok(())
}

/// Writes the links of the nodes (re)written — an edge when the target exists, else a
/// dangling link — and turns the dangling links of other nodes that now resolve into edges.
/// Into an empty index (`fresh`) every node is in `touched`, so links resolve from memory.
pub(crate) fn write_links(
    tx: &Connection,
    touched: &[Written],
    fresh: bool,
) -> rusqlite::Result<()> {
    // Links of the nodes (re)written; links of others that now resolve.
    // Into an empty index every node is in `touched`: resolve links from memory.
    let fresh_ids: HashMap<&str, NodeIx> = if fresh {
        touched.iter().map(|w| (w.id.as_str(), w.ix)).collect()
    } else {
        HashMap::new()
    };
    let mut insert_edge =
        tx.prepare_cached("INSERT OR IGNORE INTO edges(src, dst, rel) VALUES (?1, ?2, ?3)")?;
    let mut lookup = tx.prepare_cached("SELECT ix FROM nodes WHERE id = ?1")?;
    for written in touched {
        let ix = written.ix;
        if !fresh {
            run(tx, "DELETE FROM edges WHERE src = ?1", [ix])?;
            run(tx, "DELETE FROM dangling WHERE src = ?1", [ix])?;
        }
        for link in &written.links {
            // A link to a heading lands on its section when the page has one.
            let section = link.section();
            let mut target = None;
            for id in section.as_deref().into_iter().chain([link.target.as_str()]) {
                // A miss may still be a node written another way (a Tana export's).
                target = match fresh_ids.get(id) {
                    Some(&t) => Some(i64::from(t)),
                    None => lookup.query_row([id], |r| r.get(0)).optional()?,
                };
                if target.is_some() {
                    break;
                }
            }
            match target {
                Some(dst) => {
                    insert_edge.execute(params![ix, dst, link.relation.name()])?;
                }
                None => insert_dangling(tx, i64::from(ix), link.relation.name(), &link.target)?,
            }
        }
    }
    drop((insert_edge, lookup));
    for written in touched.iter().filter(|_| !fresh) {
        run(
            tx,
            "INSERT OR IGNORE INTO edges(src, dst, rel)
         SELECT src, ?1, rel FROM dangling WHERE target = ?2",
            params![written.ix, written.id],
        )?;
        run(tx, "DELETE FROM dangling WHERE target = ?1", [&written.id])?;
    }
    // A section takes the links to its heading that landed on its page.
    for written in touched.iter().filter(|w| w.section && !fresh) {
        let Some((page, _)) = written.id.rsplit_once('#') else {
            continue;
        };
        let page_ix: Option<i64> = tx
            .query_row("SELECT ix FROM nodes WHERE id = ?1", [page], |r| r.get(0))
            .optional()?;
        if let Some(page_ix) = page_ix {
            let id = written.id.as_str();
            let lands = |section: Option<String>| section.as_deref() == Some(id);
            move_heading_edges(tx, page_ix, i64::from(written.ix), page, &lands)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::super::kit;
    use super::*;

    /// Rows of one table that no node owns, or that name no node: zero in a consistent file.
    fn orphans(conn: &Connection) -> i64 {
        conn.query_row(
            "SELECT (SELECT count(*) FROM edges WHERE src NOT IN (SELECT ix FROM nodes)
                                               OR dst NOT IN (SELECT ix FROM nodes))
                  + (SELECT count(*) FROM dangling WHERE src NOT IN (SELECT ix FROM nodes))
                  + (SELECT count(*) FROM node_data WHERE ix NOT IN (SELECT ix FROM nodes))
                  + (SELECT count(*) FROM search WHERE rowid NOT IN (SELECT ix FROM nodes))
                  + (SELECT count(*) FROM nodes WHERE ix NOT IN (SELECT rowid FROM search))",
            [],
            |r| r.get(0),
        )
        .unwrap()
    }

    fn refresh(project: &Project, index: &mut Index) -> Refresh {
        kit::settle();
        index.refresh(project, Verify::Full, &mut |_| {}).unwrap()
    }

    #[test]
    fn removing_and_restoring_a_node_keeps_search_and_links_consistent() {
        let dir = kit::payments();
        let (project, mut index) = kit::built(dir.path());
        assert_eq!(orphans(&index.conn), 0);
        let spec = index.lookup("SPEC-PAY-001").unwrap().unwrap();
        let norm_id = "NORM-SEC-001";
        let norm = index.lookup(norm_id).unwrap().unwrap();
        assert!(index.edges_out(spec).unwrap().iter().any(|e| e.to == norm));
        // The norm leaves: its search row and the edges into it go; the links become dangling.
        let norm_file = dir.path().join(".contextia/system/norms/NORM-SEC-001.md");
        let text = std::fs::read_to_string(&norm_file).unwrap();
        std::fs::remove_file(&norm_file).unwrap();
        let done = refresh(&project, &mut index);
        assert_eq!(done.removed, 1);
        assert_eq!(orphans(&index.conn), 0);
        assert_eq!(index.lookup(norm_id).unwrap(), None);
        assert!(index.search("server-side", 10, None).unwrap().is_empty());
        let dangling = index.dangling_from(spec).unwrap();
        assert_eq!(dangling.len(), 1, "{dangling:?}");
        assert_eq!(dangling[0].target, norm_id);
        // It comes back: the dangling links resolve to it again.
        std::fs::write(&norm_file, text).unwrap();
        let done = refresh(&project, &mut index);
        assert_eq!(done.parsed, 1);
        assert_eq!(orphans(&index.conn), 0);
        let norm = index.lookup(norm_id).unwrap().unwrap();
        assert!(index.dangling_from(spec).unwrap().is_empty());
        assert!(index.edges_out(spec).unwrap().iter().any(|e| e.to == norm));
        assert_eq!(
            index.search("server-side", 10, None).unwrap()[0].id,
            norm_id
        );
    }

    #[test]
    fn an_edited_node_keeps_its_rowid_and_its_incoming_links() {
        let dir = kit::payments();
        let (project, mut index) = kit::built(dir.path());
        let norm = index.lookup("NORM-SEC-001").unwrap().unwrap();
        let before = index.edges_in(norm).unwrap();
        kit::write(
            dir.path(),
            "norms/NORM-SEC-001.md",
            &kit::norm(
                "NORM-SEC-001",
                "Secrets stay server-side",
                "Tokens live in the vault.",
            ),
        );
        let done = refresh(&project, &mut index);
        assert_eq!(done.parsed, 1);
        assert_eq!(index.lookup("NORM-SEC-001").unwrap(), Some(norm));
        assert_eq!(index.edges_in(norm).unwrap(), before);
        assert_eq!(orphans(&index.conn), 0);
        assert_eq!(
            index.search("vault", 5, None).unwrap()[0].id,
            "NORM-SEC-001"
        );
        assert!(index.search("browser", 5, Some("norm")).unwrap().is_empty());
    }
}
