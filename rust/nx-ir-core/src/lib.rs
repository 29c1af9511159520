//! NX IR schemas 5 (NX 0.7) and 6 (NX 0.8 to 0.10) for Rust: a validating, zero-copy image
//! reader, a linker, the text form of an image (explain and assemble), and the metered evaluator.
//! No Python in here: the PyO3 bindings live in the `nx-agent-py` crate.

pub mod assemble;
pub mod declarations;
pub mod error;
pub mod eval;
pub mod explain;
pub mod image;
pub mod link;
pub mod model;
pub mod prelude;
mod spelling;
#[doc(hidden)]
pub mod testing;
pub mod travel;
pub mod writer;

pub use error::{codes, Diagnostic, IrError, IrResult, Severity};
