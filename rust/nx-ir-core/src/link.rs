//! Linking (§3.4 of the format): an entry module and every module its table reaches, each
//! module-table slot resolved to one module of the program.
//!
//! Modules are visited breadth-first from the entry, in the order they are first met. A module
//! already in the program is reused; otherwise the host's resolver is asked for it by identity,
//! and the built-in prelude of the entry's schema answers for `@nx/prelude.nx` when the resolver
//! does not. Each resolution is checked (identity, version, and that every name referenced
//! through the slot is declared) and every finding is collected before linking fails. Linking
//! never copies a [`PreparedModule`]: one prepared module can serve any number of programs and
//! threads.
//!
//! Every module of a program is of one schema: no reference release runs a program that mixes
//! schema 5 and schema 6 modules, so a module of another schema than the entry's is refused
//! (`nx-ir-link-schema`, which is ours, not a reference code).

use crate::error::{codes, Diagnostic, IrError, IrResult};
use crate::image::PreparedModule;
use crate::prelude::{self, PRELUDE_IDENTITY};
use std::collections::HashMap;
use std::sync::Arc;

/// How to link.
#[derive(Debug, Clone, Copy, Default)]
pub struct LinkOptions {
    /// Accept a module whose version is not the one the referring image recorded. Referenced
    /// declarations must still exist.
    pub allow_version_mismatch: bool,
}

/// A host's resolver: the prepared module for an identity, `None` if it has none, or an error
/// that aborts linking.
pub type Resolver<'a> = dyn FnMut(&str) -> IrResult<Option<Arc<PreparedModule>>> + 'a;

/// Linked modules, entry first. Immutable, `Send + Sync`.
#[derive(Debug)]
pub struct Program {
    modules: Vec<Arc<PreparedModule>>,
    /// Per module: module-table slot → index in `modules`. Slot 0 is the module itself.
    slots: Vec<Box<[usize]>>,
    by_identity: HashMap<Box<str>, usize>,
}

impl Program {
    /// Links `entry` against the modules `resolve` supplies, at any depth.
    pub fn link(entry: Arc<PreparedModule>, resolve: &mut Resolver<'_>, options: LinkOptions) -> IrResult<Program> {
        let mut by_identity = HashMap::new();
        by_identity.insert(Box::from(entry.identity()), 0);
        let mut modules = vec![entry];
        let mut slots = Vec::new();
        let mut diagnostics = Vec::new();
        let schema = modules[0].schema();

        let mut next = 0;
        while let Some(module) = modules.get(next).cloned() {
            let mut table = Vec::with_capacity(module.module_count());
            table.push(next);
            for (slot, wanted) in module.module_table().into_iter().enumerate().skip(1) {
                let resolved = match by_identity.get(wanted.identity) {
                    Some(&index) => modules.get(index).cloned(),
                    None => resolve(wanted.identity)?,
                };
                let resolved = match resolved {
                    Some(resolved) => resolved,
                    None if wanted.identity == PRELUDE_IDENTITY => match prelude::builtin(schema) {
                        Ok(prelude) => prelude,
                        Err(error) => {
                            diagnostics.extend(error.into_diagnostics());
                            continue;
                        }
                    },
                    None => {
                        diagnostics.push(Diagnostic::error(
                            codes::LINK_MISSING_MODULE,
                            format!(
                                "Module '{}' links against '{}', which the resolver did not supply.",
                                module.identity(),
                                wanted.identity
                            ),
                        ));
                        continue;
                    }
                };
                if resolved.identity() != wanted.identity {
                    diagnostics.push(Diagnostic::error(
                        codes::LINK_IDENTITY,
                        format!(
                            "Module '{}' links against '{}', but the resolver supplied a module whose identity is '{}'.",
                            module.identity(),
                            wanted.identity,
                            resolved.identity()
                        ),
                    ));
                }
                if resolved.version() != wanted.version && !options.allow_version_mismatch {
                    diagnostics.push(Diagnostic::error(
                        codes::LINK_VERSION,
                        format!(
                            "Module '{}' was built against '{}' version '{}', but the resolved module is version '{}'.",
                            module.identity(),
                            wanted.identity,
                            wanted.version,
                            resolved.version()
                        ),
                    ));
                }
                for name in module.referenced_names(slot) {
                    if resolved.declaration_index(name).is_none() {
                        diagnostics.push(Diagnostic::error(
                            codes::LINK_MISSING_DECLARATION,
                            format!(
                                "Module '{}' references '{name}' in '{}', which does not declare it.",
                                module.identity(),
                                wanted.identity
                            ),
                        ));
                    }
                }
                let index = match by_identity.get(resolved.identity()) {
                    Some(&index) => index,
                    None => {
                        if resolved.schema() != schema {
                            diagnostics.push(Diagnostic::error(
                                codes::LINK_SCHEMA,
                                format!(
                                    "Module '{}' is schema {schema}, but '{}' is schema {}: every module of a program must be one schema.",
                                    modules[0].identity(),
                                    resolved.identity(),
                                    resolved.schema()
                                ),
                            ));
                        }
                        by_identity.insert(Box::from(resolved.identity()), modules.len());
                        modules.push(resolved);
                        modules.len() - 1
                    }
                };
                table.push(index);
            }
            slots.push(table.into_boxed_slice());
            next += 1;
        }

        if !diagnostics.is_empty() {
            return Err(IrError::from_diagnostics(diagnostics));
        }
        Ok(Program { modules, slots, by_identity })
    }

    /// Links a module with a resolver that supplies nothing: it may name only itself and the
    /// prelude.
    pub fn prepare_self_contained(module: Arc<PreparedModule>) -> IrResult<Program> {
        Program::link(module, &mut |_| Ok(None), LinkOptions::default())
    }

    /// The entry module.
    pub fn entry(&self) -> &Arc<PreparedModule> {
        &self.modules[0]
    }

    /// Every module, entry first, in link order.
    pub fn modules(&self) -> &[Arc<PreparedModule>] {
        &self.modules
    }

    /// The module with this identity.
    pub fn module(&self, identity: &str) -> Option<&Arc<PreparedModule>> {
        self.modules.get(self.module_index(identity)?)
    }

    /// The position in [`Program::modules`] of the module with this identity.
    pub fn module_index(&self, identity: &str) -> Option<usize> {
        self.by_identity.get(identity).copied()
    }

    /// The program module that `slot` of module `module`'s table resolves to.
    pub fn resolve_slot(&self, module: usize, slot: usize) -> Option<usize> {
        self.slots.get(module)?.get(slot).copied()
    }
}
