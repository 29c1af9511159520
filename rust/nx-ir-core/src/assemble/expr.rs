//! Expressions. `base` is the indentation of the line an expression starts on: a form that takes
//! more than one line continues on lines at `base + 2` (its parts) and `base` (its closing line,
//! `else`), and a continuation is only looked for once the current line is used up.

use super::cursor::{error_at, ParseResult};
use super::parser::{is_name_char, is_name_start, Parser, MAX_DEPTH};
use super::syntax::{Expr, ExprKind};
use crate::model::kinds;

/// The largest integer an `int` constant holds; larger ones are `bigint` digits.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

impl Parser<'_> {
    pub(super) fn expr(&mut self, base: usize) -> ParseResult<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.cur.error("expressions nest too deeply"));
        }
        let result = self.postfix(base);
        self.depth -= 1;
        result
    }

    /// A primary expression followed by members, `?`, `?.` and calls written after it.
    fn postfix(&mut self, base: usize) -> ParseResult<Expr> {
        let mut expr = self.primary(base)?;
        loop {
            let at = expr.at;
            let kind = if self.cur.eat("?.") {
                ExprKind::OptionalMember {
                    base: Box::new(expr),
                    name: self.member_name()?,
                }
            } else if self.cur.rest().starts_with('.') {
                self.cur.take(1);
                ExprKind::Member {
                    base: Box::new(expr),
                    name: self.member_name()?,
                }
            } else if self.cur.eat("?") {
                ExprKind::Exists(Box::new(expr))
            } else if self.cur.peek() == Some('(') {
                let args = self.arguments(base)?;
                let ordering = if self.cur.eat(" ordering ") {
                    self.ordering()?
                } else {
                    Vec::new()
                };
                ExprKind::Call {
                    callee: Box::new(expr),
                    args,
                    ordering,
                }
            } else {
                return Ok(expr);
            };
            expr = Expr { at, kind };
        }
    }

    fn member_name(&mut self) -> ParseResult<String> {
        if !self.cur.peek().is_some_and(is_name_start) {
            return Err(self.cur.error("expected a member name"));
        }
        Ok(self.cur.take_while(is_name_char).to_string())
    }

    fn ordering(&mut self) -> ParseResult<Vec<String>> {
        let mut names = vec![self.member_name()?];
        while self.cur.eat(", ") {
            names.push(self.member_name()?);
        }
        Ok(names)
    }

    fn primary(&mut self, base: usize) -> ParseResult<Expr> {
        let at = self.cur.pos();
        let rest = self.cur.rest();
        let word_end = |word: &str| {
            rest.strip_prefix(word)
                .is_some_and(|after| !after.starts_with(is_name_char))
        };
        let kind = if ["in ", ">= ", "> ", "<= ", "< "]
            .iter()
            .any(|op| rest.starts_with(op))
        {
            ExprKind::Interval(self.interval(false)?)
        } else if rest.starts_with('(') {
            self.group(base)?
        } else if rest.starts_with('[') {
            self.list(base)?
        } else if self.cur.eat("{}") {
            ExprKind::Array(Vec::new())
        } else if rest.starts_with('"') {
            ExprKind::Str(self.string_literal()?)
        } else if rest.starts_with('<') {
            self.construct(base)?
        } else if self.cur.eat("if ") {
            self.conditional(base)?
        } else if self.cur.eat("for ") {
            self.each(base)?
        } else if self.cur.eat("handler ") {
            self.handler(base)?
        } else if let Some(op) = ["neg ", "not "].iter().position(|op| rest.starts_with(op)) {
            self.cur.take(4);
            ExprKind::Unary {
                op: op as u32,
                operand: Box::new(self.expr(base)?),
            }
        } else if self.cur.eat("text<") {
            self.text(base)?
        } else if word_end("true") || word_end("false") {
            ExprKind::Bool(self.cur.take_while(is_name_char) == "true")
        } else if self.cur.eat("-inf") {
            ExprKind::Float(f64::NEG_INFINITY)
        } else if rest.starts_with(|c: char| c.is_ascii_digit())
            || rest
                .strip_prefix('-')
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        {
            self.number()?
        } else if word_end("_") {
            return Err(self
                .cur
                .error("`_` stands only for a left-out call argument"));
        } else if self.identity_prefix(rest).is_some() || rest.starts_with(is_name_start) {
            ExprKind::Name(self.name()?)
        } else if rest.is_empty() {
            return Err(self
                .cur
                .error("expected an expression, found the end of the line"));
        } else {
            return Err(self.cur.error("expected an expression"));
        };
        Ok(Expr { at, kind })
    }

    /// `(lhs op rhs)` on one line, or `(`, lhs, op, rhs and `)` on lines of their own; or a
    /// check written the same two ways.
    fn group(&mut self, base: usize) -> ParseResult<ExprKind> {
        self.cur.expect("(")?;
        if let Some(check) = self.check(base)? {
            return Ok(check);
        }
        let (lhs, op_at, op, rhs) = if self.cur.at_eol() {
            self.cur.newline(base + 2)?;
            let lhs = self.expr(base + 2)?;
            self.cur.newline(base + 2)?;
            let op_at = self.cur.pos();
            let op = self.cur.take_until(&[]);
            self.cur.newline(base + 2)?;
            let rhs = self.expr(base + 2)?;
            self.cur.newline(base)?;
            (lhs, op_at, op, rhs)
        } else {
            let lhs = self.expr(base)?;
            self.cur.expect(" ")?;
            let op_at = self.cur.pos();
            let op = self.cur.take_until(&[' ']);
            self.cur.expect(" ")?;
            (lhs, op_at, op, self.expr(base)?)
        };
        self.cur.expect(")")?;
        let (lhs, rhs) = (Box::new(lhs), Box::new(rhs));
        if op == "??" {
            return Ok(ExprKind::Coalesce { lhs, rhs });
        }
        match kinds::BINARY_OPERATORS.iter().position(|name| *name == op) {
            Some(op) => Ok(ExprKind::Binary {
                op: op as u32,
                lhs,
                rhs,
            }),
            None => Err(error_at(op_at, format!("`{op}` is not a binary operator"))),
        }
    }

    /// After `(`: `check site: operand as type)` on one line, or `check site:`, the operand and
    /// `as type` on lines of their own and `)`; `None` (nothing read) for anything else. The
    /// site runs to the first `: ` on one line, to the line's final `:` on its own line; a
    /// binary operation whose left operand is named `check` is not a check.
    fn check(&mut self, base: usize) -> ParseResult<Option<ExprKind>> {
        let (site, operand) = if self.cur.at_eol() {
            let site = self
                .cur
                .next_line_content(base + 2)
                .and_then(|line| line.strip_prefix("check "))
                .and_then(|line| line.strip_suffix(':'));
            let Some(site) = site else { return Ok(None) };
            self.cur.newline(base + 2)?;
            self.cur.take(6 + site.len() + 1);
            self.cur.newline(base + 2)?;
            let operand = self.expr(base + 2)?;
            self.cur.newline(base + 2)?;
            self.cur.expect("as ")?;
            (site, operand)
        } else {
            let Some(rest) = self.cur.rest().strip_prefix("check ") else {
                return Ok(None);
            };
            let first_word = rest.split(' ').next().unwrap_or("");
            let binary = rest.len() > first_word.len()
                && (first_word == "??" || kinds::BINARY_OPERATORS.contains(&first_word));
            let Some(length) = rest.find(": ").filter(|_| !binary) else {
                return Ok(None);
            };
            self.cur.take(6);
            let site = self.cur.take(length);
            self.cur.take(2);
            let operand = self.expr(base)?;
            self.cur.expect(" as ")?;
            (site, operand)
        };
        let ty = self.ty()?;
        if self.cur.at_eol() {
            self.cur.newline(base)?;
        }
        self.cur.expect(")")?;
        Ok(Some(ExprKind::Check {
            site: site.to_string(),
            operand: Box::new(operand),
            ty,
        }))
    }

    /// `[a, b]` on one line, or `[`, the items and `]` on lines of their own.
    fn list(&mut self, base: usize) -> ParseResult<ExprKind> {
        self.cur.expect("[")?;
        let mut items = Vec::new();
        if self.cur.at_eol() {
            while self.cur.next_indent() == Some(base + 2) {
                self.cur.newline(base + 2)?;
                items.push(self.expr(base + 2)?);
            }
            self.cur.newline(base)?;
        } else {
            items.push(self.expr(base)?);
            while self.cur.eat(", ") {
                items.push(self.expr(base)?);
            }
        }
        self.cur.expect("]")?;
        Ok(ExprKind::Array(items))
    }

    /// `(a, b)` after a callee, or `(`, one argument per line and `)`; `_` is a left-out one.
    fn arguments(&mut self, base: usize) -> ParseResult<Vec<Option<Expr>>> {
        self.cur.expect("(")?;
        let mut args = Vec::new();
        if self.cur.eat(")") {
            return Ok(args);
        }
        if self.cur.at_eol() {
            while self.cur.next_indent() == Some(base + 2) {
                self.cur.newline(base + 2)?;
                args.push(self.argument(base + 2)?);
            }
            self.cur.newline(base)?;
        } else {
            args.push(self.argument(base)?);
            while self.cur.eat(", ") {
                args.push(self.argument(base)?);
            }
        }
        self.cur.expect(")")?;
        Ok(args)
    }

    fn argument(&mut self, base: usize) -> ParseResult<Option<Expr>> {
        let rest = self.cur.rest();
        if rest
            .strip_prefix('_')
            .is_some_and(|after| !after.starts_with(is_name_char))
        {
            self.cur.take(1);
            return Ok(None);
        }
        Ok(Some(self.expr(base)?))
    }

    fn text(&mut self, base: usize) -> ParseResult<ExprKind> {
        let type_name = self.cur.take_until(&['>']).to_string();
        self.cur.expect(">")?;
        let at = self.cur.pos();
        let mut args = self.arguments(base)?;
        match (args.pop(), args.is_empty()) {
            (Some(Some(operand)), true) => Ok(ExprKind::Text {
                type_name,
                operand: Box::new(operand),
            }),
            _ => Err(error_at(at, "a text conversion takes exactly one operand")),
        }
    }

    /// `<name key=value ...>`: properties that fit on the head line, then (when the head line
    /// ends open) longer ones on lines of their own closed by `>`, then content up to `</name>`.
    fn construct(&mut self, base: usize) -> ParseResult<ExprKind> {
        self.cur.expect("<")?;
        let at = self.cur.pos();
        let tag = self.cur.take_until(&[' ', '>']).to_string();
        if tag.is_empty() {
            return Err(error_at(at, "expected a name after `<`"));
        }
        let name = self.name_from_token(&tag, at);
        let mut props = Vec::new();
        let mut content = Vec::new();
        let head_left_open = loop {
            if self.cur.eat(" />") {
                return Ok(ExprKind::Construct {
                    name,
                    tag,
                    props,
                    content,
                });
            }
            if self.cur.eat(">") {
                break false;
            }
            if self.cur.at_eol() {
                break true;
            }
            self.cur.expect(" ")?;
            props.push(self.property(base)?);
        };
        if head_left_open {
            while self.cur.next_indent() == Some(base + 2) {
                self.cur.newline(base + 2)?;
                props.push(self.property(base + 2)?);
            }
            self.cur.newline(base)?;
            self.cur.expect(">")?;
        }
        while self.cur.next_indent() == Some(base + 2) {
            self.cur.newline(base + 2)?;
            content.push(self.expr(base + 2)?);
        }
        self.cur.newline(base)?;
        self.cur.expect("</")?;
        self.cur.expect(&tag)?;
        self.cur.expect(">")?;
        Ok(ExprKind::Construct {
            name,
            tag,
            props,
            content,
        })
    }

    fn property(&mut self, base: usize) -> ParseResult<(String, Expr)> {
        let key = self.cur.take_until(&['=', ' ']).to_string();
        if key.is_empty() {
            return Err(self.cur.error("expected a property name"));
        }
        self.cur.expect("=")?;
        Ok((key, self.expr(base)?))
    }

    /// After `if `: `cond then` with an optional `else`, or `scrutinee is` with its arms.
    fn conditional(&mut self, base: usize) -> ParseResult<ExprKind> {
        let subject = Box::new(self.expr(base)?);
        if self.cur.eat(" then") {
            self.cur.newline(base + 2)?;
            let then = Box::new(self.expr(base + 2)?);
            let mut otherwise = None;
            if self.cur.at_eol() && self.cur.next_line_is(base, "else") {
                self.cur.newline(base)?;
                self.cur.expect("else")?;
                self.cur.newline(base + 2)?;
                otherwise = Some(Box::new(self.expr(base + 2)?));
            }
            return Ok(ExprKind::If {
                cond: subject,
                then,
                otherwise,
            });
        }
        if !self.cur.eat(" is") {
            return Err(self.cur.error("expected ` then` or ` is`"));
        }
        let mut arms = Vec::new();
        let mut otherwise = None;
        while self.cur.at_eol() {
            let patterns = if self.cur.next_line_is(base + 2, "else =>") {
                self.cur.newline(base + 2)?;
                self.cur.expect("else =>")?;
                self.cur.newline(base + 4)?;
                otherwise = Some(Box::new(self.expr(base + 4)?));
                break;
            } else if self.cur.next_indent() == Some(base + 2) {
                self.cur.newline(base + 2)?;
                let mut patterns = vec![self.expr(base + 2)?];
                while self.cur.eat(" | ") {
                    patterns.push(self.expr(base + 2)?);
                }
                self.cur.expect(" =>")?;
                patterns
            } else if self.cur.next_indent() == Some(base + 4) {
                let mut patterns = Vec::new();
                loop {
                    self.cur.newline(base + 4)?;
                    patterns.push(self.expr(base + 4)?);
                    if self.cur.eat(" =>") {
                        break patterns;
                    }
                }
            } else {
                break;
            };
            self.cur.newline(base + 4)?;
            arms.push((patterns, self.expr(base + 4)?));
        }
        Ok(ExprKind::IfIs {
            scrutinee: subject,
            arms,
            otherwise,
        })
    }

    /// After `for `: `item[, index] in iterable yield`, then the body.
    fn each(&mut self, base: usize) -> ParseResult<ExprKind> {
        let item = self.member_name()?;
        let index = if self.cur.eat(", ") {
            Some(self.member_name()?)
        } else {
            None
        };
        self.cur.expect(" in ")?;
        let iterable = Box::new(self.expr(base)?);
        self.cur.expect(" yield")?;
        self.cur.newline(base + 2)?;
        let body = Box::new(self.expr(base + 2)?);
        Ok(ExprKind::For {
            item,
            index,
            iterable,
            body,
        })
    }

    /// After `handler `: `Component.emit action@slot:Action[ owner Owner] =>`, then the body.
    fn handler(&mut self, base: usize) -> ParseResult<ExprKind> {
        let at = self.cur.pos();
        let target = self.cur.take_until(&[' ']);
        let (component, emit) = target
            .rsplit_once('.')
            .ok_or_else(|| error_at(at, "expected `Component.emit`"))?;
        let component = self.name_from_token(component, at);
        self.cur.expect(" action@")?;
        let slot = self.unsigned("a slot number")?;
        self.cur.expect(":")?;
        let action = self.reference_token()?;
        let owner = if self.cur.eat(" owner ") {
            Some(self.reference_token()?)
        } else {
            None
        };
        self.cur.expect(" =>")?;
        self.cur.newline(base + 2)?;
        let body = Box::new(self.expr(base + 2)?);
        Ok(ExprKind::Handler {
            component,
            emit: emit.to_string(),
            slot,
            action,
            owner,
            body,
        })
    }

    pub(super) fn number(&mut self) -> ParseResult<ExprKind> {
        let at = self.cur.pos();
        let rest = self.cur.rest();
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(rest.len(), |n| n + sign);
        let fraction = rest[digits..]
            .strip_prefix('.')
            .filter(|after| after.starts_with(|c: char| c.is_ascii_digit()))
            .map_or(0, |after| {
                1 + after
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(after.len())
            });
        let text = self.cur.take(digits + fraction);
        if fraction > 0 {
            return text
                .parse()
                .map(ExprKind::Float)
                .map_err(|_| error_at(at, format!("`{text}` is not a number")));
        }
        Ok(match text.parse::<i64>() {
            Ok(value) if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&value) => {
                ExprKind::Int(value)
            }
            _ => ExprKind::BigInt(text.to_string()),
        })
    }

    /// A JSON string literal.
    pub(super) fn string_literal(&mut self) -> ParseResult<String> {
        let at = self.cur.pos();
        self.cur.expect("\"")?;
        let mut value = String::new();
        let mut chars = self.cur.rest().char_indices();
        let unterminated = || error_at(at, "the string does not end on its line");
        loop {
            let (offset, c) = chars.next().ok_or_else(unterminated)?;
            match c {
                '"' => {
                    self.cur.take(offset + 1);
                    return Ok(value);
                }
                '\\' => {
                    let (_, escape) = chars.next().ok_or_else(unterminated)?;
                    value.push(match escape {
                        '"' => '"',
                        '\\' => '\\',
                        '/' => '/',
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        'u' => {
                            let high =
                                hex4(&mut chars).ok_or_else(|| error_at(at, "bad `\\u` escape"))?;
                            let code = if (0xD800..0xDC00).contains(&high) {
                                let low = (chars.next().map(|(_, c)| c) == Some('\\')
                                    && chars.next().map(|(_, c)| c) == Some('u'))
                                .then(|| hex4(&mut chars))
                                .flatten()
                                .filter(|low| (0xDC00..0xE000).contains(low))
                                .ok_or_else(|| {
                                    error_at(at, "unpaired surrogate in `\\u` escape")
                                })?;
                                0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                high
                            };
                            char::from_u32(code).ok_or_else(|| error_at(at, "bad `\\u` escape"))?
                        }
                        other => return Err(error_at(at, format!("unknown escape `\\{other}`"))),
                    });
                }
                c => value.push(c),
            }
        }
    }
}

fn hex4(chars: &mut std::str::CharIndices<'_>) -> Option<u32> {
    let mut code = 0;
    for _ in 0..4 {
        code = code * 16 + chars.next()?.1.to_digit(16)?;
    }
    Some(code)
}
