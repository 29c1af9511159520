//! What the names of a text stand for: locals, declarations of the module or of a linked one
//! (whose kinds come from its text, or are guessed from spelling without it), and the nominal
//! types expressions have, as far as the declarations tell.

use super::{Construction, Emitter, Local, Target};
use crate::assemble::cursor::{error_at, ParseResult};
use crate::assemble::facts::{DeclFacts, ModuleFacts, TypeRef};
use crate::assemble::parser::is_name;
use crate::assemble::syntax::{Expr, ExprKind, Name};
use crate::model::kinds;

impl<'a> Emitter<'a> {
    pub(super) fn local(&self, name: &str) -> Option<&Local> {
        self.frame
            .locals
            .iter()
            .rev()
            .find(|local| local.name == name)
    }

    /// The facts of the module a name is written in, `None` for a linked module whose text was
    /// not supplied.
    pub(super) fn facts_for(&self, name: &Name) -> Option<&'a ModuleFacts> {
        match &name.module {
            None => Some(self.own),
            Some(identity) => self.linked.get(identity),
        }
    }

    pub(super) fn facts_of_identity(&self, identity: &str) -> Option<&'a ModuleFacts> {
        if identity == self.module.identity {
            Some(self.own)
        } else {
            self.linked.get(identity)
        }
    }

    pub(super) fn identity_of_slot(&self, slot: u32) -> &str {
        match slot.checked_sub(1) {
            None => &self.module.identity,
            Some(at) => &self.module.links[at as usize].identity,
        }
    }

    /// What a name in value position stands for, and how many of its segments that takes; the
    /// rest are members.
    pub(super) fn value_target(&self, name: &Name) -> ParseResult<(Target, usize)> {
        let path = &name.path;
        if name.module.is_none() {
            if let Some(local) = self.local(&path[0]) {
                return Ok((Target::Slot(local.slot), 1));
            }
        }
        let slot = self.module_slot(name);
        let Some(facts) = self.facts_for(name) else {
            // A linked module the caller gave no text for: a capitalized first segment followed
            // by another reads as a union case, anything else as a declaration.
            let capitalized = path[0].starts_with(char::is_uppercase);
            return Ok(if capitalized && path.len() > 1 {
                (Target::Case(slot, path[0].clone(), path[1].clone()), 2)
            } else {
                (Target::Reference(slot, path[0].clone()), 1)
            });
        };
        match facts.declaration_in(path) {
            Some((taken, declaration))
                if declaration.kind == kinds::declaration::UNION && taken < path.len() =>
            {
                Ok((
                    Target::Case(slot, path[..taken].join("."), path[taken].clone()),
                    taken + 1,
                ))
            }
            Some((taken, _)) => Ok((Target::Reference(slot, path[..taken].join(".")), taken)),
            None => Err(error_at(name.at, unknown_name(name))),
        }
    }

    /// What `<name ...>` builds. A tag that names something (all but an element, whose tag is
    /// free text) must be made of names: explain writes it back as a name (`Union.case`, a
    /// call), which is read again only so.
    pub(super) fn construction(&self, name: &Name) -> ParseResult<Construction> {
        let construction = self.construction_of(name)?;
        if !matches!(construction, Construction::Element) {
            if let Some(segment) = name.path.iter().find(|segment| !is_name(segment)) {
                return Err(error_at(
                    name.at,
                    format!("`{segment}` in `<{}>` is not a name", name.joined()),
                ));
            }
        }
        Ok(construction)
    }

    fn construction_of(&self, name: &Name) -> ParseResult<Construction> {
        use kinds::declaration as kind;
        let path = &name.path;
        if name.module.is_none() {
            if let Some(local) = self.local(&path[0]) {
                return Ok(Construction::Call(Target::Slot(local.slot), 1));
            }
        }
        let slot = self.module_slot(name);
        let Some(facts) = self.facts_for(name) else {
            // A linked module the caller gave no text for: `T.Update` (and in schema 6
            // `C.State` and `C.State.Update`) reads as a record, another
            // dotted name as a union case, a lower-case name as a function and any other as a
            // component.
            let joined = name.joined();
            let schema_6 = self.schema >= kinds::SCHEMA_6;
            return Ok(match path.as_slice() {
                [_, last] if last == "Update" => Construction::Record(slot, joined),
                // Schema 6 names a component's state record `C.State` and its update record
                // `C.State.Update`.
                [_, state] if schema_6 && state == "State" => Construction::Record(slot, joined),
                [_, state, last] if schema_6 && state == "State" && last == "Update" => {
                    Construction::Record(slot, joined)
                }
                [.., last] if path.len() > 1 => {
                    Construction::Case(slot, path[..path.len() - 1].join("."), last.clone())
                }
                [first] if first.starts_with(char::is_lowercase) => {
                    Construction::Call(Target::Reference(slot, joined), 1)
                }
                _ => Construction::Component(slot, joined),
            });
        };
        let Some((taken, declaration)) = facts.declaration_in(path) else {
            return match name.module {
                None => Ok(Construction::Element),
                Some(_) => Err(error_at(name.at, unknown_name(name))),
            };
        };
        let joined = path[..taken].join(".");
        Ok(match declaration.kind {
            kind::UNION if taken + 1 == path.len() => {
                Construction::Case(slot, joined, path[taken].clone())
            }
            kind::RECORD if taken == path.len() => Construction::Record(slot, joined),
            kind::COMPONENT if taken == path.len() => Construction::Component(slot, joined),
            kind::FUNCTION | kind::VALUE => {
                Construction::Call(Target::Reference(slot, joined), taken)
            }
            _ => {
                return Err(error_at(
                    name.at,
                    format!("`{}` cannot be constructed", name.joined()),
                ))
            }
        })
    }

    /// The nominal type an expression has, as far as the declarations tell: what a `for` needs to
    /// know whether it iterates a `Range`.
    pub(super) fn static_type(&self, expr: &Expr) -> Option<TypeRef> {
        match &expr.kind {
            ExprKind::Construct { name, .. } => match self.construction(name).ok()? {
                Construction::Record(slot, name) | Construction::Component(slot, name) => {
                    Some((self.identity_of_slot(slot).to_string(), name))
                }
                _ => None,
            },
            ExprKind::Name(name) => {
                let (target, taken) = self.value_target(name).ok()?;
                let ty = match target {
                    Target::Slot(slot) => self
                        .frame
                        .locals
                        .iter()
                        .rev()
                        .find(|l| l.slot == slot)?
                        .ty
                        .clone(),
                    Target::Reference(slot, declared) => {
                        let declaration = self.declaration_facts(slot, &declared)?;
                        (declaration.kind == kinds::declaration::VALUE)
                            .then(|| declaration.ty.clone())?
                    }
                    Target::Case(..) => None,
                }?;
                name.path[taken..]
                    .iter()
                    .try_fold(ty, |ty, member| self.field_type(&ty, member))
            }
            ExprKind::Call { callee, .. } => {
                let ExprKind::Name(name) = &callee.kind else {
                    return None;
                };
                match self.value_target(name).ok()? {
                    (Target::Reference(slot, declared), taken) if taken == name.path.len() => {
                        let declaration = self.declaration_facts(slot, &declared)?;
                        (declaration.kind == kinds::declaration::FUNCTION)
                            .then(|| declaration.ty.clone())?
                    }
                    _ => None,
                }
            }
            ExprKind::Member { base, name } => self.field_type(&self.static_type(base)?, name),
            _ => None,
        }
    }

    pub(super) fn declaration_facts(&self, slot: u32, name: &str) -> Option<&'a DeclFacts> {
        self.facts_of_identity(self.identity_of_slot(slot))?
            .declarations
            .get(name)
    }

    pub(super) fn field_type(&self, owner: &TypeRef, field: &str) -> Option<TypeRef> {
        self.facts_of_identity(&owner.0)?
            .declarations
            .get(&owner.1)?
            .fields
            .get(field)?
            .clone()
    }
}

fn unknown_name(name: &Name) -> String {
    match &name.module {
        None => format!("no local or declaration is named `{}`", name.path[0]),
        Some(identity) => format!("`{identity}` declares no `{}`", name.joined()),
    }
}
