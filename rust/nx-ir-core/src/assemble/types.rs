//! Types as the explainer spells them: `name`, `identity:name`, an occurrence suffix `?` `+` `*`
//! (after parentheses around a function type), `<function [content ]p[?]:T ... />: R` and
//! `<function ... />: R`, and schema 6's `base where interval`.

use super::cursor::ParseResult;
use super::parser::{Parser, MAX_DEPTH};
use super::syntax::{ExprKind, FunctionTypeParam, IntervalSyntax, NumberSyntax, TypeSyntax};
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
                // An optional parameter's declared constrained type keeps the parentheses its
                // read type's `?` needed.
                None if matches!(inner, TypeSyntax::Constrained { .. }) => Ok(inner),
                None => Err(self
                    .cur
                    .error("expected `?`, `+` or `*` after a parenthesized type")),
            };
        }
        if self.cur.eat("<function") {
            return self.function_type();
        }
        let named = TypeSyntax::Named(self.name()?);
        if self.cur.rest().starts_with(" where ") {
            self.cur.take(1);
            let at = self.cur.pos();
            self.cur.take("where ".len());
            return Ok(TypeSyntax::Constrained {
                base: Box::new(named),
                interval: self.interval(true)?,
                at,
            });
        }
        Ok(match self.suffix() {
            Some(cell) => TypeSyntax::Seq(Box::new(named), cell),
            None => named,
        })
    }

    /// An interval as a constrained type or an interval pattern writes it. In a type
    /// (`open_allowed`) no term at all is the interval with both ends open.
    pub(super) fn interval(&mut self, open_allowed: bool) -> ParseResult<IntervalSyntax> {
        let mut interval = IntervalSyntax {
            low: None,
            high: None,
            low_exclusive: false,
            high_exclusive: false,
        };
        if self.cur.eat("in ") {
            interval.low = Some(self.bound()?);
            interval.high_exclusive = if self.cur.eat("..=") {
                false
            } else {
                self.cur.expect("..")?;
                true
            };
            interval.high = Some(self.bound()?);
            return Ok(interval);
        }
        if let Some(exclusive) = self.comparison(">= ", "> ") {
            interval.low = Some(self.bound()?);
            interval.low_exclusive = exclusive;
            if !self.cur.eat(" && ") {
                return Ok(interval);
            }
        }
        if let Some(exclusive) = self.comparison("<= ", "< ") {
            interval.high = Some(self.bound()?);
            interval.high_exclusive = exclusive;
        } else if interval.low.is_some() || !open_allowed {
            return Err(self.cur.error("expected `in`, `>=`, `>`, `<=` or `<` and a bound"));
        }
        Ok(interval)
    }

    /// `Some(false)` after the inclusive operator, `Some(true)` after the exclusive one.
    fn comparison(&mut self, inclusive: &str, exclusive: &str) -> Option<bool> {
        if self.cur.eat(inclusive) {
            Some(false)
        } else if self.cur.eat(exclusive) {
            Some(true)
        } else {
            None
        }
    }

    fn bound(&mut self) -> ParseResult<NumberSyntax> {
        for (word, value) in [("-inf", f64::NEG_INFINITY), ("inf", f64::INFINITY), ("NaN", f64::NAN)] {
            if self.cur.eat(word) {
                return Ok(NumberSyntax::Float(value));
            }
        }
        let rest = self.cur.rest();
        let numeric = rest.strip_prefix('-').unwrap_or(rest).starts_with(|c: char| c.is_ascii_digit());
        if !numeric {
            return Err(self.cur.error("expected a number"));
        }
        Ok(match self.number()? {
            ExprKind::Float(value) => NumberSyntax::Float(value),
            ExprKind::Int(value) => NumberSyntax::Int(value),
            ExprKind::BigInt(digits) => NumberSyntax::BigInt(digits),
            _ => return Err(self.cur.error("expected a number")),
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
