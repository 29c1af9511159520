//! What the assembler knows of a module's declarations: their kinds, which tell a construction
//! `<X ...>` as a record, component, union case or call by name, and the nominal types of
//! results, values and fields, which tell a `for` over a `Range` (a `forRange` node) from one over
//! a list. The explain text spells both the same way; only the declarations say which.

use super::syntax::{DeclKind, FieldSyntax, ModuleSyntax, TypeSyntax};
use crate::model::kinds::declaration as kind;
use std::collections::HashMap;

/// A nominal type, by module identity and declaration name.
pub(super) type TypeRef = (String, String);

pub(super) struct DeclFacts {
    pub kind: u32,
    /// A function's declared result or a value's declared type, when nominal.
    pub ty: Option<TypeRef>,
    /// Field name → its nominal type (records and component props and state).
    pub fields: HashMap<String, Option<TypeRef>>,
}

#[derive(Default)]
pub(super) struct ModuleFacts {
    pub declarations: HashMap<String, DeclFacts>,
}

impl ModuleFacts {
    pub fn of(module: &ModuleSyntax) -> ModuleFacts {
        let declared: Vec<&str> = module
            .declarations
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        let nominal = |ty: &TypeSyntax| nominal_type(ty, &module.identity, &declared);
        let fields = |fields: &[FieldSyntax]| {
            fields
                .iter()
                .map(|field| (field.name.clone(), nominal(&field.ty)))
                .collect()
        };
        let declarations = module
            .declarations
            .iter()
            .map(|declaration| {
                let (kind, ty, fields) = match &declaration.kind {
                    DeclKind::Function { result, .. } => (
                        kind::FUNCTION,
                        result.as_ref().and_then(nominal),
                        HashMap::new(),
                    ),
                    DeclKind::Value { ty, .. } => {
                        (kind::VALUE, ty.as_ref().and_then(nominal), HashMap::new())
                    }
                    DeclKind::Record { fields: own, .. } => (kind::RECORD, None, fields(own)),
                    DeclKind::Component { props, state, .. } => {
                        let mut all = fields(props);
                        all.extend(fields(state));
                        (kind::COMPONENT, None, all)
                    }
                    DeclKind::Union { .. } => (kind::UNION, None, HashMap::new()),
                    DeclKind::Alias => (kind::TYPE_ALIAS, None, HashMap::new()),
                };
                (declaration.name.clone(), DeclFacts { kind, ty, fields })
            })
            .collect();
        ModuleFacts { declarations }
    }

    /// The longest leading run of `path`'s segments that names a declaration, with how many
    /// segments it took.
    pub fn declaration_in(&self, path: &[String]) -> Option<(usize, &DeclFacts)> {
        (1..=path.len()).rev().find_map(|taken| {
            self.declarations
                .get(&path[..taken].join("."))
                .map(|d| (taken, d))
        })
    }
}

/// The nominal type a written type names, in the module `identity` declaring `declared`; `None`
/// for primitives, sequences and function types.
pub(super) fn nominal_type(ty: &TypeSyntax, identity: &str, declared: &[&str]) -> Option<TypeRef> {
    let TypeSyntax::Named(name) = ty else {
        return None;
    };
    let joined = name.joined();
    match &name.module {
        Some(module) => Some((module.clone(), joined)),
        None if declared.contains(&joined.as_str()) => Some((identity.to_string(), joined)),
        None => None,
    }
}
