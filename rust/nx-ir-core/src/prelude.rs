//! The built-in prelude, `@nx/prelude.nx` at contract version `"1"`: the module the linker
//! supplies when a host's resolver does not. There is one per schema, and a program gets the one
//! of its entry module's schema.
//!
//! It declares the record `Range` (fields `start: object`, `end: object` and
//! `endInclusive: boolean`, all required), its derived update record `Range.Update` and its
//! derived property union `Range.Property`. We keep it as explain text and build the image with
//! the assembler; the emitter's rules make each the same 604 bytes a reference runtime
//! publishes, which tests pin by size and SHA-256:
//!
//! * schema 5 ([`PRELUDE_TEXT`], written from §1.8 of the format): fingerprint
//!   16429037828798365428, the prelude the format notes decode by hand;
//! * schema 6 ([`PRELUDE_TEXT_6`]): fingerprint 3805895034114390176, the prelude of
//!   `nx-ir-runtime` 0.8 to 0.10. Its text differs from schema 5's only in that fingerprint.

use crate::assemble::{assemble, AssembleOptions};
use crate::error::{codes, IrError, IrResult};
use crate::image::PreparedModule;
use crate::model::{kinds, Module};
use std::sync::{Arc, OnceLock};

/// The prelude's reserved identity.
pub const PRELUDE_IDENTITY: &str = "@nx/prelude.nx";
/// The prelude contract version compiled images record for it.
pub const PRELUDE_VERSION: &str = "1";
/// The schema 5 prelude as explain text.
pub const PRELUDE_TEXT: &str = include_str!("prelude.nxir.txt");
/// The schema 6 prelude as explain text.
pub const PRELUDE_TEXT_6: &str = include_str!("prelude6.nxir.txt");

/// The prelude text of `schema`, if it is one the reader accepts.
pub fn prelude_text(schema: u32) -> Option<&'static str> {
    match schema {
        kinds::SCHEMA_5 => Some(PRELUDE_TEXT),
        kinds::SCHEMA_6 => Some(PRELUDE_TEXT_6),
        _ => None,
    }
}

/// The prelude of `schema` as a model, assembled from its text.
pub fn prelude_model(schema: u32) -> IrResult<Module> {
    let text = prelude_text(schema).ok_or_else(|| {
        IrError::new(codes::PRELUDE_IMAGE, format!("There is no built-in prelude for schema {schema}."))
    })?;
    let options = AssembleOptions { source: None, version: PRELUDE_VERSION.to_string(), schema };
    assemble(text, &options)
}

/// The built-in prelude of `schema`, prepared once per process and shared. A failure to build
/// or prepare it is `nx-ir-prelude-image`.
pub fn builtin(schema: u32) -> IrResult<Arc<PreparedModule>> {
    static PRELUDES: [OnceLock<IrResult<Arc<PreparedModule>>>; 2] = [OnceLock::new(), OnceLock::new()];
    let Some(slot) = kinds::SCHEMAS.iter().position(|known| *known == schema) else {
        return Err(IrError::new(
            codes::PRELUDE_IMAGE,
            format!("There is no built-in prelude for schema {schema}."),
        ));
    };
    PRELUDES[slot]
        .get_or_init(|| {
            prelude_model(schema)
                .and_then(|model| PreparedModule::from_vec(crate::writer::encode(&model)))
                .map(Arc::new)
                .map_err(|error| {
                    IrError::new(
                        codes::PRELUDE_IMAGE,
                        format!("The built-in prelude could not be prepared: {error}"),
                    )
                })
        })
        .clone()
}
