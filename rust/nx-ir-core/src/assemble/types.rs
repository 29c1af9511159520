//! Types as the explainer spells them: `name`, `identity:name`, an occurrence suffix `?` `+` `*`
//! (after parentheses around a function type), `<function [content ]p[?]:T ... />: R` and
//! `<function ... />: R`.

use super::cursor::ParseResult;
use super::parser::{Parser, MAX_DEPTH};
use super::syntax::{FunctionTypeParam, TypeSyntax};
use crate::model::kinds::flags;
use crate::spelling::occurrence_cell;

impl Parser<'_> {
    pub(super) fn ty(&mut self) -> ParseResult<TypeSyntax> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.cur.error("types nest too deeply"));
        }
        let result = self.unbounded_ty();
        self.depth -= 1;
        result
    }

    fn unbounded_ty(&mut self) -> ParseResult<TypeSyntax> {
        if self.cur.eat("(") {
            let inner = self.ty()?;
            self.cur.expect(")")?;
            return match self.suffix() {
                Some(cell) => Ok(TypeSyntax::Seq(Box::new(inner), cell)),
                None => Err(self
                    .cur
                    .error("expected `?`, `+` or `*` after a parenthesized type")),
            };
        }
        if self.cur.eat("<function") {
            return self.function_type();
        }
        let named = TypeSyntax::Named(self.name()?);
        Ok(match self.suffix() {
            Some(cell) => TypeSyntax::Seq(Box::new(named), cell),
            None => named,
        })
    }

    fn suffix(&mut self) -> Option<u32> {
        let cell = self.cur.peek().and_then(occurrence_cell)?;
        self.cur.take(1);
        Some(cell)
    }

    fn function_type(&mut self) -> ParseResult<TypeSyntax> {
        if self.cur.eat(" ... />: ") {
            return Ok(TypeSyntax::AnyFunction(Box::new(self.ty()?)));
        }
        let mut params = Vec::new();
        while !self.cur.eat(" />: ") {
            self.cur.expect(" ")?;
            let mut param_flags = 0;
            if self.cur.eat("content ") {
                param_flags |= flags::PARAM_CONTENT;
            }
            let name = self.cur.take_until(&[':', '?', ' ']);
            if name.is_empty() {
                return Err(self.cur.error("expected a parameter name"));
            }
            if self.cur.eat("?") {
                param_flags |= flags::PARAM_OPTIONAL;
            }
            self.cur.expect(":")?;
            params.push(FunctionTypeParam {
                name: name.to_string(),
                ty: self.ty()?,
                flags: param_flags,
            });
        }
        Ok(TypeSyntax::Function {
            params,
            result: Box::new(self.ty()?),
        })
    }
}
