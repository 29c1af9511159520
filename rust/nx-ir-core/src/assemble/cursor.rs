//! A position in the text, line by line. The text form is indentation-structured: a construct
//! that takes more than one line continues on lines indented relative to the line it starts on,
//! so the cursor moves to a new line only by asking for its exact indentation.

use super::syntax::Pos;
use crate::error::{codes, IrError};

/// An `nx-ir-assemble` error naming a position.
pub(super) fn error_at(at: Pos, message: impl std::fmt::Display) -> IrError {
    IrError::new(
        codes::ASSEMBLE,
        format!("line {}, column {}: {message}", at.line, at.column),
    )
}

pub(super) type ParseResult<T> = Result<T, IrError>;

pub(super) struct Cursor<'t> {
    lines: Vec<&'t str>,
    line: usize,
    /// Byte offset into the current line.
    col: usize,
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

impl<'t> Cursor<'t> {
    pub fn new(text: &'t str) -> Cursor<'t> {
        Cursor {
            lines: text.split('\n').collect(),
            line: 0,
            col: 0,
        }
    }

    pub fn pos(&self) -> Pos {
        let line = self.lines[self.line];
        Pos {
            line: self.line + 1,
            column: line[..self.col].chars().count() + 1,
        }
    }

    pub fn error(&self, message: impl std::fmt::Display) -> IrError {
        error_at(self.pos(), message)
    }

    /// What is left of the current line.
    pub fn rest(&self) -> &'t str {
        &self.lines[self.line][self.col..]
    }

    pub fn at_eol(&self) -> bool {
        self.rest().is_empty()
    }

    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub fn eat(&mut self, text: &str) -> bool {
        if self.rest().starts_with(text) {
            self.col += text.len();
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, text: &str) -> ParseResult<()> {
        if self.eat(text) {
            Ok(())
        } else {
            match text.trim() {
                "" => Err(self.error("expected a space")),
                word => Err(self.error(format!("expected `{word}`"))),
            }
        }
    }

    pub fn expect_eol(&self) -> ParseResult<()> {
        if self.at_eol() {
            Ok(())
        } else {
            Err(self.error(format!("unexpected `{}`", self.rest())))
        }
    }

    /// Takes characters while `keep` holds.
    pub fn take_while(&mut self, keep: impl Fn(char) -> bool) -> &'t str {
        let rest = self.rest();
        let length = rest.find(|c| !keep(c)).unwrap_or(rest.len());
        self.col += length;
        &rest[..length]
    }

    /// Takes `length` bytes, which end on a character boundary.
    pub fn take(&mut self, length: usize) -> &'t str {
        let taken = &self.rest()[..length];
        self.col += length;
        taken
    }

    /// Takes characters up to (not including) the first of `stops`, or to the end of the line.
    pub fn take_until(&mut self, stops: &[char]) -> &'t str {
        self.take_while(|c| !stops.contains(&c))
    }

    /// The indentation of the next line, when there is one and it is not blank.
    pub fn next_indent(&self) -> Option<usize> {
        let next = self.lines.get(self.line + 1)?;
        (!next.trim().is_empty()).then(|| indentation(next))
    }

    /// Whether the next line starts with `text`, unindented.
    pub fn next_line_starts(&self, text: &str) -> bool {
        self.lines
            .get(self.line + 1)
            .is_some_and(|next| next.starts_with(text))
    }

    /// The next line's text after its indentation, when it is indented by exactly `indent`.
    pub fn next_line_content(&self, indent: usize) -> Option<&'t str> {
        let next = self.lines.get(self.line + 1)?;
        (indentation(next) == indent).then(|| &next[indent..])
    }

    /// Whether the next line is `content` at `indent`.
    pub fn next_line_is(&self, indent: usize, content: &str) -> bool {
        self.lines
            .get(self.line + 1)
            .is_some_and(|next| indentation(next) == indent && &next[indent..] == content)
    }

    /// Moves to the start of the next line's content, which must be indented by exactly `indent`;
    /// the current line must be used up.
    pub fn newline(&mut self, indent: usize) -> ParseResult<()> {
        self.expect_eol()?;
        if self.next_indent() != Some(indent) {
            let message = format!("expected a line indented by {indent} spaces");
            return Err(match self.lines.get(self.line + 1) {
                Some(_) => error_at(
                    Pos {
                        line: self.line + 2,
                        column: 1,
                    },
                    message,
                ),
                None => self.error(format!("{message}, found the end of the text")),
            });
        }
        self.line += 1;
        self.col = indent;
        Ok(())
    }

    /// Moves past a blank line to the start of the line after it; `false` (without moving) when
    /// there is no further line.
    pub fn blank_line(&mut self) -> ParseResult<bool> {
        self.expect_eol()?;
        match (self.lines.get(self.line + 1), self.lines.get(self.line + 2)) {
            (None, _) => Ok(false),
            (Some(&""), Some(_)) => {
                self.line += 2;
                self.col = 0;
                Ok(true)
            }
            _ => Err(error_at(
                Pos {
                    line: self.line + 2,
                    column: 1,
                },
                "expected a blank line",
            )),
        }
    }

    /// Whether only the final newline's empty remainder is left.
    pub fn at_end(&self) -> bool {
        self.line + 2 == self.lines.len() && self.lines[self.line + 1].is_empty() && self.at_eol()
    }
}
