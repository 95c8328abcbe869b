//! The text toolkit every reader shares: byte offsets to `line:col` positions.
//!
//! One rule for every message: lines and columns are 1-based, a column counts characters (not
//! bytes), and an offset inside a multi-byte character rounds down to that character's start.
//! An offset past the end is the end.

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let offset = floor_boundary(text, offset);
    let before = &text[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = text[line_start..offset].chars().count() as u32 + 1;
    (line, col)
}

/// [`line_col`] of many offsets in one pass over the text (answers in the order asked).
pub fn line_cols(text: &str, offsets: &[Option<usize>]) -> Vec<Option<(u32, u32)>> {
    let mut order: Vec<usize> = (0..offsets.len())
        .filter(|&i| offsets[i].is_some())
        .collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut out = vec![None; offsets.len()];
    let (mut at, mut line, mut col) = (0usize, 1u32, 1u32);
    for i in order {
        let target = floor_boundary(text, offsets[i].unwrap_or(0));
        for c in text[at..target].chars() {
            if c == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
        }
        at = target;
        out[i] = Some((line, col));
    }
    out
}

/// `offset` clamped to the text and moved back to the start of the character it falls in.
fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters() {
        let text = "ab\ncé:x\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        let x = text.find('x').unwrap();
        assert_eq!(line_col(text, x), (2, 4));
        assert_eq!(line_col(text, text.len() + 10), (3, 1));
    }

    #[test]
    fn an_offset_inside_a_character_rounds_down_to_its_start() {
        // `é` is two bytes (4..6 here): its second byte is the column of `é`, not of `:`.
        let text = "ab\ncé:x";
        let e = text.find('é').unwrap();
        assert_eq!(line_col(text, e + 1), line_col(text, e));
        assert_eq!(line_col(text, e + 1), (2, 2));
        // Before this toolkit, project.rs panicked on such an offset (it sliced the text)
        // and tana.rs counted the partial character as one more column.
    }

    #[test]
    fn many_offsets_agree_with_one_at_a_time() {
        let text = "línea\nδύο\n\ntres é\n";
        let offsets: Vec<Option<usize>> =
            (0..=text.len() + 1).rev().map(Some).chain([None]).collect();
        let many = line_cols(text, &offsets);
        for (o, got) in offsets.iter().zip(many) {
            assert_eq!(got, o.map(|o| line_col(text, o)), "offset {o:?}");
        }
    }
}
