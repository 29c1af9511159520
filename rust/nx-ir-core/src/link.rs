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

use crate::error::{codes, IrError, IrResult, Report};
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

/// A string of an image, by its place: two slots naming one string of the image name the same.
type TextKey = (usize, usize);

fn text_key(text: &str) -> TextKey {
    (text.as_ptr() as usize, text.len())
}

/// What a module-table entry's identity resolved to: the module (or why the built-in prelude
/// could not be made), whether its identity is another, and its place in the program once given.
#[derive(Clone)]
struct Resolved {
    module: Result<Arc<PreparedModule>, Arc<Vec<crate::error::Diagnostic>>>,
    differs: bool,
    index: Option<usize>,
}

impl Program {
    /// Links `entry` against the modules `resolve` supplies, at any depth.
    pub fn link(entry: Arc<PreparedModule>, resolve: &mut Resolver<'_>, options: LinkOptions) -> IrResult<Program> {
        let mut by_identity = HashMap::new();
        by_identity.insert(Box::from(entry.identity()), 0);
        let mut modules = vec![entry];
        let mut slots = Vec::new();
        let mut report = Report::new();
        let schema = modules[0].schema();

        let mut next = 0;
        while let Some(module) = modules.get(next).cloned() {
            let mut table = Vec::with_capacity(module.module_count());
            table.push(next);
            // What each identity this module names resolved to (with its place in the program),
            // and whether each version it names is the resolved module's, by the string's place
            // in the image: a module table could name one long identity in every slot, and
            // hashing, resolving and comparing it for each would take their number times its
            // length.
            let own = module.identity();
            let mut by_string: HashMap<TextKey, Option<Resolved>> = HashMap::new();
            let mut versions: HashMap<(TextKey, TextKey), bool> = HashMap::new();
            for (slot, wanted) in module.module_table().into_iter().enumerate().skip(1) {
                let key = text_key(wanted.identity);
                let resolved = match by_string.get(&key) {
                    Some(resolved) => resolved.clone(),
                    None => {
                        let found = match by_identity.get(wanted.identity) {
                            Some(&index) => modules.get(index).cloned(),
                            None => resolve(wanted.identity)?,
                        };
                        let resolved = match found {
                            Some(found) => Some(Ok(found)),
                            None if wanted.identity == PRELUDE_IDENTITY => {
                                Some(prelude::builtin(schema).map_err(|error| Arc::new(error.into_diagnostics())))
                            }
                            None => None,
                        };
                        let resolved = resolved.map(|resolved| Resolved {
                            differs: resolved.as_ref().is_ok_and(|found| found.identity() != wanted.identity),
                            module: resolved,
                            index: None,
                        });
                        by_string.insert(key, resolved.clone());
                        resolved
                    }
                };
                let Some(Resolved { module: resolved, differs, index: known }) = resolved else {
                    report.add(codes::LINK_MISSING_MODULE, &[own, wanted.identity], || {
                        format!(
                            "Module '{}' links against '{}', which the resolver did not supply.",
                            own,
                            wanted.identity
                        )
                    });
                    continue;
                };
                let resolved = match resolved {
                    Ok(resolved) => resolved,
                    Err(diagnostics) => {
                        if !report.is_full() {
                            report.extend(diagnostics.iter().cloned());
                        }
                        continue;
                    }
                };
                // Once the report is full every later diagnostic is left out: their texts
                // need not be read.
                if differs && !report.is_full() {
                    report.add(codes::LINK_IDENTITY, &[own, wanted.identity, resolved.identity()], || {
                        format!(
                            "Module '{}' links against '{}', but the resolver supplied a module whose identity is '{}'.",
                            own,
                            wanted.identity,
                            resolved.identity()
                        )
                    });
                }
                let version_differs = *versions
                    .entry((key, text_key(wanted.version)))
                    .or_insert_with(|| resolved.version() != wanted.version);
                if version_differs && !options.allow_version_mismatch && !report.is_full() {
                    let texts = [own, wanted.identity, wanted.version, resolved.version()];
                    report.add(codes::LINK_VERSION, &texts, || {
                        format!(
                            "Module '{}' was built against '{}' version '{}', but the resolved module is version '{}'.",
                            own,
                            wanted.identity,
                            wanted.version,
                            resolved.version()
                        )
                    });
                }
                for name in module.referenced_names(slot) {
                    if report.is_full() {
                        break; // every later diagnostic is left out
                    }
                    if resolved.declaration_index(name).is_none() {
                        report.add(codes::LINK_MISSING_DECLARATION, &[own, name, wanted.identity], || {
                            format!(
                                "Module '{}' references '{name}' in '{}', which does not declare it.",
                                own,
                                wanted.identity
                            )
                        });
                    }
                }
                let index = match known.or_else(|| by_identity.get(resolved.identity()).copied()) {
                    Some(index) => index,
                    None => {
                        if resolved.schema() != schema {
                            report.add(codes::LINK_SCHEMA, &[modules[0].identity(), resolved.identity()], || {
                                format!(
                                    "Module '{}' is schema {schema}, but '{}' is schema {}: every module of a program must be one schema.",
                                    modules[0].identity(),
                                    resolved.identity(),
                                    resolved.schema()
                                )
                            });
                        }
                        by_identity.insert(Box::from(resolved.identity()), modules.len());
                        modules.push(resolved);
                        modules.len() - 1
                    }
                };
                if let Some(Some(entry)) = by_string.get_mut(&key) {
                    entry.index = Some(index);
                }
                table.push(index);
            }
            slots.push(table.into_boxed_slice());
            next += 1;
        }

        if !report.is_empty() {
            return Err(IrError::from_diagnostics(report.into_diagnostics()));
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
