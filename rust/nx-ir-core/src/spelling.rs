//! How the text form of an image spells its scalars, shared by the explainer (which writes them)
//! and the assembler (which reads them back): quoted strings, float constants, occurrence
//! suffixes, and source positions as one-based `line:column` with columns counted in characters.

use std::fmt::Write as _;

/// A string as a JSON string literal: quotes, backslashes and control characters escaped.
pub(crate) fn quote(value: &str) -> String {
    let mut text = String::with_capacity(value.len() + 2);
    text.push('"');
    for c in value.chars() {
        match c {
            '"' => text.push_str("\\\""),
            '\\' => text.push_str("\\\\"),
            '\n' => text.push_str("\\n"),
            '\r' => text.push_str("\\r"),
            '\t' => text.push_str("\\t"),
            '\u{8}' => text.push_str("\\b"),
            '\u{c}' => text.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(text, "\\u{:04x}", c as u32);
            }
            c => text.push(c),
        }
    }
    text.push('"');
    text
}

/// A float constant: an integral finite value keeps one decimal (`2.0`, `-0.0`), any other value
/// is Rust's shortest round-tripping form (`0.1`, `NaN`, `inf`).
pub(crate) fn float_text(value: f64) -> String {
    if value.is_finite() && value.fract() == 0.0 {
        format!("{value:.1}")
    } else {
        value.to_string()
    }
}

/// The suffix a seq type's occurrence cell spells.
pub(crate) fn occurrence_suffix(cell: u32) -> Option<char> {
    match cell {
        1 => Some('?'),
        2 => Some('+'),
        3 => Some('*'),
        _ => None,
    }
}

/// The occurrence cell a suffix stands for.
pub(crate) fn occurrence_cell(suffix: char) -> Option<u32> {
    match suffix {
        '?' => Some(1),
        '+' => Some(2),
        '*' => Some(3),
        _ => None,
    }
}

/// One-based line and column (in characters) of a byte offset into `source`. An offset past the
/// end reads as the end; one inside a character reads as that character's start.
pub(crate) fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

/// The byte offset of a one-based `line:column` position in `source`, the inverse of
/// [`line_column`]. The column may point just past the line's last character (at its newline or
/// at the end of the source); anything further is `None`.
pub(crate) fn byte_offset(source: &str, line: usize, column: usize) -> Option<usize> {
    let line_start = if line == 1 {
        0
    } else {
        source.match_indices('\n').nth(line.checked_sub(2)?)?.0 + 1
    };
    let text = &source[line_start..];
    let text = &text[..text.find('\n').unwrap_or(text.len())];
    let chars = column.checked_sub(1)?;
    match text.char_indices().nth(chars) {
        Some((at, _)) => Some(line_start + at),
        None if text.chars().count() == chars => Some(line_start + text.len()),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_json() {
        assert_eq!(quote("a\"b\\c\n\u{1}é"), "\"a\\\"b\\\\c\\n\\u0001é\"");
    }

    #[test]
    fn floats_keep_a_decimal_when_integral() {
        assert_eq!(float_text(2.0), "2.0");
        assert_eq!(float_text(-0.0), "-0.0");
        assert_eq!(float_text(1e21), "1000000000000000000000.0");
        assert_eq!(float_text(1e-7), "0.0000001");
        assert_eq!(float_text(f64::NAN), "NaN");
    }

    #[test]
    fn positions_count_characters_and_invert() {
        let source = "ab\né𝄞x\n";
        assert_eq!(line_column(source, 0), (1, 1));
        assert_eq!(line_column(source, 2), (1, 3));
        assert_eq!(line_column(source, 3), (2, 1));
        assert_eq!(line_column(source, 9), (2, 3));
        assert_eq!(line_column(source, 4), (2, 1));
        assert_eq!(line_column(source, 99), (3, 1));
        for offset in [0, 1, 2, 3, 5, 9, 10, 11] {
            let (line, column) = line_column(source, offset);
            assert_eq!(byte_offset(source, line, column), Some(offset));
        }
        assert_eq!(byte_offset(source, 1, 4), None);
        assert_eq!(byte_offset(source, 4, 1), None);
        assert_eq!(byte_offset(source, 0, 1), None);
    }
}
