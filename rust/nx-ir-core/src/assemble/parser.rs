//! Reads the module header and the declarations of an explain text into [`ModuleSyntax`].
//! Expressions and types are read by the `expr` and `types` halves of the same parser.

use super::cursor::{error_at, Cursor, ParseResult};
use super::syntax::*;
use crate::model::kinds::flags;

pub(super) struct Parser<'t> {
    pub cur: Cursor<'t>,
    /// The linked modules' identities, longest first, so that a name written `identity:name`
    /// is split at the identity rather than at a colon.
    identities: Vec<String>,
    /// How deep the expression being read nests.
    pub depth: usize,
}

/// How deep expressions and types may nest in a text.
pub(super) const MAX_DEPTH: usize = 300;

pub(super) fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

pub(super) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Whether `text` is one whole name segment: a name's first character, then name characters.
pub(super) fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(is_name_start) && chars.all(is_name_char)
}

/// Reads a whole explain text.
pub(super) fn parse_module(text: &str) -> ParseResult<ModuleSyntax> {
    let mut parser = Parser {
        cur: Cursor::new(text),
        identities: Vec::new(),
        depth: 0,
    };
    parser.module()
}

impl<'t> Parser<'t> {
    fn module(&mut self) -> ParseResult<ModuleSyntax> {
        let (identity, fingerprint) = self.module_line()?;
        let mut links = Vec::new();
        while self.cur.next_line_starts("links ") {
            self.cur.newline(0)?;
            links.push(self.link_line()?);
        }
        self.identities = links.iter().map(|link| link.identity.clone()).collect();
        self.identities
            .sort_by_key(|identity| std::cmp::Reverse(identity.len()));
        let mut features = Vec::new();
        if self.cur.next_line_starts("requires ") {
            self.cur.newline(0)?;
            self.cur.expect("requires ")?;
            features = self
                .cur
                .take_until(&[])
                .split(' ')
                .map(str::to_string)
                .collect();
        }
        self.cur.newline(0)?;
        self.cur.expect("entrypoints functions [")?;
        let function_entrypoints = self.name_list()?;
        self.cur.expect(" components [")?;
        let component_entrypoints = self.name_list()?;
        let mut declarations = Vec::new();
        while !self.cur.at_end() {
            if !self.cur.blank_line()? {
                return Err(self.cur.error("the text must end with a newline"));
            }
            declarations.push(self.declaration()?);
        }
        Ok(ModuleSyntax {
            identity,
            fingerprint,
            links,
            features,
            function_entrypoints,
            component_entrypoints,
            declarations,
        })
    }

    fn module_line(&mut self) -> ParseResult<(String, u64)> {
        self.cur.expect("module ")?;
        let at = self.cur.pos();
        let rest = self.cur.take_until(&[]);
        let (identity, fingerprint) = rest
            .rsplit_once(" fingerprint ")
            .ok_or_else(|| error_at(at, "expected `module <identity> fingerprint <number>`"))?;
        let fingerprint = fingerprint
            .parse()
            .map_err(|_| error_at(at, format!("`{fingerprint}` is not a fingerprint")))?;
        Ok((identity.to_string(), fingerprint))
    }

    fn link_line(&mut self) -> ParseResult<LinkSyntax> {
        self.cur.expect("links ")?;
        let rest = self.cur.rest();
        let length = rest.find(" version \"").ok_or_else(|| {
            self.cur
                .error("expected `links <identity> version \"<version>\"`")
        })?;
        let identity = self.cur.take(length);
        self.cur.expect(" version ")?;
        let version = self.string_literal()?;
        self.cur.expect(" fingerprint ")?;
        let fingerprint = self.unsigned("a fingerprint")?;
        self.cur.expect_eol()?;
        Ok(LinkSyntax {
            identity: identity.to_string(),
            version,
            fingerprint,
        })
    }

    /// Space-separated names up to `]`.
    fn name_list(&mut self) -> ParseResult<Vec<(String, Pos)>> {
        let mut names = Vec::new();
        loop {
            if self.cur.eat("]") {
                return Ok(names);
            }
            if !names.is_empty() {
                self.cur.expect(" ")?;
            }
            let at = self.cur.pos();
            let name = self.cur.take_until(&[' ', ']']);
            if name.is_empty() {
                return Err(self.cur.error("expected a declaration name or `]`"));
            }
            names.push((name.to_string(), at));
        }
    }

    pub(super) fn unsigned<T: std::str::FromStr>(&mut self, what: &str) -> ParseResult<T> {
        let at = self.cur.pos();
        let digits = self.cur.take_while(|c| c.is_ascii_digit());
        digits
            .parse()
            .map_err(|_| error_at(at, format!("expected {what}")))
    }

    fn declaration(&mut self) -> ParseResult<DeclSyntax> {
        let at = self.cur.pos();
        let keyword = self.cur.take_until(&[' ']);
        const KEYWORDS: [&str; 6] = ["function", "value", "record", "component", "union", "alias"];
        if !KEYWORDS.contains(&keyword) {
            return Err(error_at(
                at,
                format!("expected a declaration, found `{keyword}`"),
            ));
        }
        self.cur.expect(" ")?;
        let name_at = self.cur.pos();
        let name = match keyword {
            "function" => self.cur.take_until(&['(']),
            "value" => self.cur.take_until(&[' ', ':']),
            "record" | "component" | "union" | "alias" => self.cur.take_until(&[' ']),
            _ => {
                return Err(error_at(
                    at,
                    format!("expected a declaration, found `{keyword}`"),
                ))
            }
        }
        .to_string();
        if name.is_empty() {
            return Err(error_at(name_at, "expected a declaration name"));
        }
        let (kind, span) = match keyword {
            "function" => self.function()?,
            "value" => self.value()?,
            "record" => self.record()?,
            "component" => self.component()?,
            "union" => self.union()?,
            _ => {
                let span = self.span()?;
                self.cur.expect_eol()?;
                (DeclKind::Alias, span)
            }
        };
        Ok(DeclSyntax {
            name,
            at,
            span,
            kind,
        })
    }

    /// An optional ` @line:column-line:column`.
    fn span(&mut self) -> ParseResult<Option<SpanSyntax>> {
        if !self.cur.eat(" @") {
            return Ok(None);
        }
        let at = self.cur.pos();
        let start = self.position()?;
        self.cur.expect("-")?;
        let end = self.position()?;
        Ok(Some(SpanSyntax { start, end, at }))
    }

    fn position(&mut self) -> ParseResult<Pos> {
        let line = self.unsigned("a line number")?;
        self.cur.expect(":")?;
        let column = self.unsigned("a column number")?;
        Ok(Pos { line, column })
    }

    /// ` =` ending a header line, then the body on the next line, two spaces further in.
    fn body(&mut self, indent: usize) -> ParseResult<Expr> {
        self.cur.expect(" =")?;
        self.cur.newline(indent)?;
        self.expr(indent)
    }

    fn function(&mut self) -> ParseResult<(DeclKind, Option<SpanSyntax>)> {
        self.cur.expect("(")?;
        let mut params = Vec::new();
        if !self.cur.eat(")") {
            loop {
                params.push(self.parameter()?);
                if self.cur.eat(")") {
                    break;
                }
                self.cur.expect(", ")?;
            }
        }
        let result = if self.cur.eat(": ") {
            Some(self.ty()?)
        } else {
            None
        };
        let optional_result = self.cur.eat(" (optional result)");
        let span = self.span()?;
        let body = self.body(2)?;
        Ok((
            DeclKind::Function {
                params,
                result,
                optional_result,
                body,
            },
            span,
        ))
    }

    /// `[content ]name[?]: T[ = default]`.
    fn parameter(&mut self) -> ParseResult<FieldSyntax> {
        let mut flags = 0;
        if self.cur.eat("content ") {
            flags |= flags::PARAM_CONTENT;
        }
        let name = self.field_name(&[':', '?', ' '])?;
        if self.cur.eat("?") {
            flags |= flags::PARAM_OPTIONAL;
        }
        self.cur.expect(": ")?;
        let ty = self.ty()?;
        // A default that takes more than one line is shown joined on the header line, which
        // this reader does not split again.
        let default = if self.cur.eat(" = ") {
            Some(self.expr(0)?)
        } else {
            None
        };
        Ok(FieldSyntax {
            name,
            ty,
            flags,
            default,
        })
    }

    fn field_name(&mut self, stops: &[char]) -> ParseResult<String> {
        let name = self.cur.take_until(stops);
        if name.is_empty() {
            return Err(self.cur.error("expected a name"));
        }
        Ok(name.to_string())
    }

    fn value(&mut self) -> ParseResult<(DeclKind, Option<SpanSyntax>)> {
        let ty = if self.cur.eat(": ") {
            Some(self.ty()?)
        } else {
            None
        };
        let span = self.span()?;
        let init = self.body(2)?;
        Ok((DeclKind::Value { ty, init }, span))
    }

    fn record(&mut self) -> ParseResult<(DeclKind, Option<SpanSyntax>)> {
        let is_abstract = self.cur.eat(" abstract");
        let bases = self.extends()?;
        let update_of = if self.cur.eat(" update of ") {
            Some(self.reference_token()?)
        } else {
            None
        };
        let span = self.span()?;
        self.cur.expect_eol()?;
        let fields = self.fields(2)?;
        Ok((
            DeclKind::Record {
                is_abstract,
                bases,
                update_of,
                fields,
            },
            span,
        ))
    }

    fn extends(&mut self) -> ParseResult<Vec<Name>> {
        let mut bases = Vec::new();
        if self.cur.eat(" extends ") {
            loop {
                bases.push(self.reference_token()?);
                if !self.cur.eat(", ") {
                    break;
                }
            }
        }
        Ok(bases)
    }

    fn component(&mut self) -> ParseResult<(DeclKind, Option<SpanSyntax>)> {
        let mut component_flags = 0;
        if self.cur.eat(" abstract") {
            component_flags |= flags::COMPONENT_ABSTRACT;
        }
        if self.cur.eat(" external") {
            component_flags |= flags::COMPONENT_EXTERNAL;
        }
        let state_record = if self.cur.eat(" state ") {
            Some(self.reference_token()?)
        } else {
            None
        };
        let span = self.span()?;
        self.cur.expect_eol()?;
        let mut sections = [Vec::new(), Vec::new()];
        for (label, fields) in ["props", "state"].into_iter().zip(&mut sections) {
            if self.cur.next_line_is(2, label) {
                self.cur.newline(2)?;
                self.cur.expect(label)?;
                *fields = self.fields(4)?;
            }
        }
        let [props, state] = sections;
        let mut emits = Vec::new();
        if self.cur.next_line_is(2, "emits") {
            self.cur.newline(2)?;
            self.cur.expect("emits")?;
            while self.cur.next_indent() == Some(4) {
                self.cur.newline(4)?;
                let name = self.field_name(&[' '])?;
                self.cur.expect(" = ")?;
                emits.push((name, self.reference_token()?));
                self.cur.expect_eol()?;
            }
        }
        let mut body = None;
        if self.cur.next_line_is(2, "body =") {
            self.cur.newline(2)?;
            self.cur.expect("body")?;
            body = Some(self.body(4)?);
        }
        Ok((
            DeclKind::Component {
                flags: component_flags,
                state_record,
                props,
                state,
                emits,
                body,
            },
            span,
        ))
    }

    fn union(&mut self) -> ParseResult<(DeclKind, Option<SpanSyntax>)> {
        let bases = self.extends()?;
        let property_of = if self.cur.eat(" property of ") {
            Some(self.reference_token()?)
        } else {
            None
        };
        let span = self.span()?;
        self.cur.expect_eol()?;
        let mut cases = Vec::new();
        while self.cur.next_indent() == Some(2) {
            self.cur.newline(2)?;
            self.cur.expect("case ")?;
            let name = self.field_name(&[' '])?;
            let constant = self.cur.eat(" constant");
            self.cur.expect_eol()?;
            cases.push(CaseSyntax {
                name,
                constant,
                fields: self.fields(4)?,
            });
        }
        Ok((
            DeclKind::Union {
                bases,
                property_of,
                cases,
            },
            span,
        ))
    }

    /// Field lines at `indent`: `[content ]name: T[ required][ = default]`, a default that
    /// takes more than one line following on lines two spaces further in.
    fn fields(&mut self, indent: usize) -> ParseResult<Vec<FieldSyntax>> {
        let mut fields = Vec::new();
        while self.cur.next_indent() == Some(indent) {
            self.cur.newline(indent)?;
            let mut field_flags = 0;
            if self.cur.eat("content ") {
                field_flags |= flags::FIELD_CONTENT;
            }
            let name = self.field_name(&[':', ' '])?;
            self.cur.expect(": ")?;
            let ty = self.ty()?;
            if self.cur.eat(" required") {
                field_flags |= flags::FIELD_REQUIRED;
            }
            let default = if self.cur.eat(" = ") {
                Some(self.expr(indent)?)
            } else if self.cur.eat(" =") {
                self.cur.newline(indent + 2)?;
                Some(self.expr(indent + 2)?)
            } else {
                None
            };
            self.cur.expect_eol()?;
            fields.push(FieldSyntax {
                name,
                ty,
                flags: field_flags,
                default,
            });
        }
        Ok(fields)
    }

    /// A reference written as one token, up to a space or comma: `identity:name` or `name`.
    pub(super) fn reference_token(&mut self) -> ParseResult<Name> {
        let at = self.cur.pos();
        let token = self.cur.take_until(&[' ', ',']);
        if token.is_empty() {
            return Err(error_at(at, "expected a name"));
        }
        Ok(self.name_from_token(token, at))
    }

    /// Splits a token at a linked module's identity, if it starts with one and a colon.
    pub(super) fn name_from_token(&self, token: &str, at: Pos) -> Name {
        let (module, rest) = match self.identity_prefix(token) {
            Some(identity) => (Some(identity.to_string()), &token[identity.len() + 1..]),
            None => (None, token),
        };
        Name {
            module,
            path: rest.split('.').map(str::to_string).collect(),
            at,
        }
    }

    /// The linked identity `text` starts with, followed by `:`.
    pub(super) fn identity_prefix(&self, text: &str) -> Option<&str> {
        self.identities
            .iter()
            .find(|identity| {
                text.strip_prefix(identity.as_str())
                    .is_some_and(|rest| rest.starts_with(':'))
            })
            .map(String::as_str)
    }

    /// A name in an expression or type: an optional linked identity and colon, then dotted
    /// segments.
    pub(super) fn name(&mut self) -> ParseResult<Name> {
        let at = self.cur.pos();
        let module = self.identity_prefix(self.cur.rest()).map(str::to_string);
        if let Some(identity) = &module {
            self.cur.eat(identity);
            self.cur.expect(":")?;
        }
        let mut path = Vec::new();
        loop {
            if !self.cur.peek().is_some_and(is_name_start) {
                return Err(self.cur.error("expected a name"));
            }
            path.push(self.cur.take_while(is_name_char).to_string());
            let continues = self
                .cur
                .rest()
                .strip_prefix('.')
                .is_some_and(|rest| rest.chars().next().is_some_and(is_name_start));
            if !continues {
                return Ok(Name { module, path, at });
            }
            self.cur.expect(".")?;
        }
    }
}
