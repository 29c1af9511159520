//! The inverse of [`crate::explain`]: builds an image from its explain text.
//!
//! The text leaves some of the image out, and the assembler fills it in as the reference emitter
//! would (see `emit` for the rules): the module's own version comes from
//! [`AssembleOptions::version`]; node spans are unknown; slots, element ids and the order of
//! strings, types, constants and nodes follow the emitter's walk. Which kind of declaration a
//! name in a linked module is (a record or a component, say, both written `<m:Name ...>`) is
//! read from that module's explain text when the caller supplies it
//! ([`assemble_with_links`]); the prelude's is built in, and other modules' are guessed from
//! how their names are spelled.
//!
//! Every error is `nx-ir-assemble` naming a line and column. No text makes the assembler panic.

mod cursor;
mod emit;
mod expr;
mod facts;
mod parser;
mod syntax;
mod types;

use crate::error::{codes, IrError, IrResult};
use crate::model::{kinds, Module};
use facts::ModuleFacts;
use std::collections::HashMap;

pub use crate::prelude::PRELUDE_TEXT;

/// What the text does not carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembleOptions {
    /// The module's source. With it the image gets a debug section: the text's declaration
    /// spans (`@line:column-line:column`, columns in characters) become byte offsets into it.
    /// A text with spans needs it.
    pub source: Option<String>,
    /// The module's own version (module-table slot 0), which the text does not show.
    pub version: String,
    /// The schema to write, [`kinds::SCHEMA_5`] or [`kinds::SCHEMA_6`]: the text does not say
    /// (`nxlang ir explain` writes both the same way). Assembled as schema 5, a text that uses
    /// what schema 6 added (a constrained type, `check`, an interval pattern, `math.*` and
    /// `color.*` operations, a spread, a component's state record) is refused, naming it.
    ///
    /// The default is schema 6, what the current NX release (0.10) writes, so new text
    /// assembles to what that release would run. Text explained from an NX 0.7 image, and
    /// anything compared with the 0.7 runtime (the conformance corpus' counts), says
    /// `schema: 5`.
    pub schema: u32,
}

impl Default for AssembleOptions {
    fn default() -> Self {
        AssembleOptions {
            source: None,
            version: String::new(),
            schema: kinds::LATEST_SCHEMA,
        }
    }
}

/// Builds the model of the image `text` explains.
pub fn assemble(text: &str, options: &AssembleOptions) -> IrResult<Module> {
    assemble_with_links(text, options, &[])
}

/// Builds the image `text` explains.
pub fn assemble_image(text: &str, options: &AssembleOptions) -> IrResult<Vec<u8>> {
    Ok(crate::writer::encode(&assemble(text, options)?))
}

/// [`assemble`], told what the linked modules declare by their explain texts (`linked`, in any
/// order; texts of modules the image does not link are ignored).
pub fn assemble_with_links(
    text: &str,
    options: &AssembleOptions,
    linked: &[&str],
) -> IrResult<Module> {
    if !kinds::SCHEMAS.contains(&options.schema) {
        return Err(IrError::new(
            codes::ASSEMBLE,
            format!(
                "schema {} is not one the assembler writes (5 or 6)",
                options.schema
            ),
        ));
    }
    let module = parser::parse_module(text)?;
    if options.source.is_none() {
        if let Some(span) = module.declarations.iter().find_map(|d| d.span) {
            return Err(cursor::error_at(
                span.at,
                "the text carries source spans but no source was given; pass the module's source, \
                 or assemble its stripped text",
            ));
        }
    }
    let mut linked_facts = HashMap::new();
    for linked_text in linked.iter().copied().chain([PRELUDE_TEXT]) {
        let Some(identity) = declared_identity(linked_text) else {
            continue;
        };
        let wanted = module.links.iter().any(|link| link.identity == identity);
        if !wanted || linked_facts.contains_key(identity) {
            continue;
        }
        let linked_module = parser::parse_module(linked_text).map_err(|error| {
            IrError::new(
                codes::ASSEMBLE,
                format!("in the text of `{identity}`: {}", error.message()),
            )
        })?;
        linked_facts.insert(identity.to_string(), ModuleFacts::of(&linked_module));
    }
    let own = ModuleFacts::of(&module);
    emit::Emitter::new(options.schema, &module, &own, &linked_facts)
        .module(&options.version, options.source.as_deref())
}

/// [`assemble_image`], told what the linked modules declare (see [`assemble_with_links`]).
pub fn assemble_image_with_links(
    text: &str,
    options: &AssembleOptions,
    linked: &[&str],
) -> IrResult<Vec<u8>> {
    Ok(crate::writer::encode(&assemble_with_links(
        text, options, linked,
    )?))
}

/// The identity on a text's first line.
fn declared_identity(text: &str) -> Option<&str> {
    let first = text.lines().next()?.strip_prefix("module ")?;
    Some(first.rsplit_once(" fingerprint ")?.0)
}

#[cfg(test)]
mod tests;
