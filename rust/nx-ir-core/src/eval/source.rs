//! What the evaluator needs from a linked program: its modules, decoded, and the link of each
//! module-table slot. [`ModelProgram`] is a plain implementation over owned [`model::Module`]s;
//! the linker's `Program` implements the same trait.

use crate::error::{codes, IrError, IrResult};
use crate::model;

/// A linked program as the evaluator compiles it.
pub trait ProgramSource {
    fn module_count(&self) -> usize;
    /// Module `index`, fully decoded. Index 0 is the entry module.
    fn decoded_module(&self, index: usize) -> IrResult<model::Module>;
    /// The program module a module-table slot of module `module` is linked to.
    fn resolve_slot(&self, module: usize, slot: u32) -> Option<usize>;
    /// The FNV-1a hash of module `index`'s image bytes, when the source holds them; otherwise
    /// the image is written again from the decoded module and that is hashed.
    fn image_hash(&self, index: usize) -> Option<u64> {
        let _ = index;
        None
    }
}

/// A program of owned modules linked by identity (the entry first). Missing modules are left
/// unresolved: a reference through them fails at evaluation with `nx-ir-reference`.
#[derive(Debug, Clone)]
pub struct ModelProgram {
    pub modules: Vec<model::Module>,
    links: Vec<Vec<Option<usize>>>,
}

impl ModelProgram {
    /// Links `modules` (entry first) by the identities in their module tables.
    pub fn link(modules: Vec<model::Module>) -> IrResult<Self> {
        if modules.is_empty() {
            return Err(IrError::new(codes::UNLINKED, "A program needs an entry module."));
        }
        let identity = |m: &model::Module| {
            m.modules.first().map(|e| m.string(e.identity).to_string()).unwrap_or_default()
        };
        let identities: Vec<String> = modules.iter().map(identity).collect();
        let links = modules
            .iter()
            .enumerate()
            .map(|(index, m)| {
                m.modules
                    .iter()
                    .enumerate()
                    .map(|(slot, entry)| {
                        if slot == 0 {
                            return Some(index);
                        }
                        let wanted = m.string(entry.identity);
                        identities.iter().position(|id| id == wanted)
                    })
                    .collect()
            })
            .collect();
        Ok(ModelProgram { modules, links })
    }
}

impl ProgramSource for ModelProgram {
    fn module_count(&self) -> usize {
        self.modules.len()
    }
    fn decoded_module(&self, index: usize) -> IrResult<model::Module> {
        self.modules.get(index).cloned().ok_or_else(|| IrError::malformed("no such module"))
    }
    fn resolve_slot(&self, module: usize, slot: u32) -> Option<usize> {
        self.links.get(module)?.get(slot as usize).copied().flatten()
    }
}

/// The linker's program: modules in link order (entry first), each decoded from its image.
impl ProgramSource for crate::link::Program {
    fn module_count(&self) -> usize {
        self.modules().len()
    }
    fn decoded_module(&self, index: usize) -> IrResult<model::Module> {
        self.modules().get(index).map(|m| m.to_model()).ok_or_else(|| IrError::malformed("no such module"))
    }
    fn resolve_slot(&self, module: usize, slot: u32) -> Option<usize> {
        crate::link::Program::resolve_slot(self, module, slot as usize)
    }
    fn image_hash(&self, index: usize) -> Option<u64> {
        self.modules().get(index).map(|m| super::compiled::image_hash(m.bytes()))
    }
}
