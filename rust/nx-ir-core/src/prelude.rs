//! The built-in prelude, `@nx/prelude.nx` at contract version `"1"`: the module the linker
//! supplies when a host's resolver does not.
//!
//! It declares the record `Range` (fields `start: object`, `end: object` and
//! `endInclusive: boolean`, all required), its derived update record `Range.Update` and its
//! derived property union `Range.Property`. [`prelude_model`] builds it in the order of the
//! reference runtimes' prelude image (§1.8 of the format), so that it encodes to the same 604
//! bytes.

use crate::error::{codes, IrError, IrResult};
use crate::image::PreparedModule;
use crate::model::{kinds, Decl, Field, Module, ModuleEntry, Ref, Type, UnionCaseDecl};
use std::sync::{Arc, OnceLock};

/// The prelude's reserved identity.
pub const PRELUDE_IDENTITY: &str = "@nx/prelude.nx";
/// The prelude contract version compiled images record for it.
pub const PRELUDE_VERSION: &str = "1";
/// The fingerprint the reference prelude image records for itself.
const PRELUDE_FINGERPRINT: u64 = 0xE3FF_AADC_4AFB_3EF4;

/// The prelude as a model.
pub fn prelude_model() -> Module {
    // String indices, in the image's order: declaration names and field names, type names,
    // derived names, then the module section's strings.
    const RANGE: u32 = 0;
    const START: u32 = 1;
    const OBJECT: u32 = 2;
    const END: u32 = 3;
    const END_INCLUSIVE: u32 = 4;
    const BOOLEAN: u32 = 5;
    const RANGE_UPDATE: u32 = 6;
    const RANGE_PROPERTY: u32 = 7;
    const IDENTITY: u32 = 8;
    const VERSION: u32 = 9;
    const ABI: u32 = 10;
    const UPDATE_RECORDS: u32 = 11;
    const PROPERTY_UNIONS: u32 = 12;
    // Type indices.
    const OBJECT_TYPE: u32 = 0;
    const BOOLEAN_TYPE: u32 = 1;

    let strings = [
        "Range",
        "start",
        "object",
        "end",
        "endInclusive",
        "boolean",
        "Range.Update",
        "Range.Property",
        PRELUDE_IDENTITY,
        PRELUDE_VERSION,
        kinds::RUNTIME_ABI,
        "update-records-v1",
        "property-unions-v1",
    ];
    let fields = |flags: u32| -> Vec<Field> {
        [(START, OBJECT_TYPE), (END, OBJECT_TYPE), (END_INCLUSIVE, BOOLEAN_TYPE)]
            .into_iter()
            .map(|(name, ty)| Field { name, ty, default: None, flags })
            .collect()
    };
    let range = Ref { slot: 0, name: RANGE };
    Module {
        strings: strings.iter().map(|s| s.to_string()).collect(),
        abi: ABI,
        features: vec![UPDATE_RECORDS, PROPERTY_UNIONS],
        modules: vec![ModuleEntry { identity: IDENTITY, version: VERSION, fingerprint: PRELUDE_FINGERPRINT }],
        function_entrypoints: vec![],
        component_entrypoints: vec![],
        types: vec![Type::Primitive { name: OBJECT }, Type::Primitive { name: BOOLEAN }],
        constants: vec![],
        nodes: vec![],
        declarations: vec![
            Decl::Record {
                name: RANGE,
                fields: fields(kinds::flags::FIELD_REQUIRED),
                bases: vec![],
                is_abstract: 0,
                update_target: None,
            },
            Decl::Record {
                name: RANGE_UPDATE,
                fields: fields(0),
                bases: vec![],
                is_abstract: 0,
                update_target: Some(range),
            },
            Decl::Union {
                name: RANGE_PROPERTY,
                cases: [START, END, END_INCLUSIVE]
                    .into_iter()
                    .map(|name| UnionCaseDecl { name, fields: vec![], is_constant: 1 })
                    .collect(),
                bases: vec![],
                property_target: Some(range),
            },
        ],
        debug: None,
    }
}

/// The built-in prelude, prepared once per process and shared. A failure to prepare it is
/// `nx-ir-prelude-image`.
pub fn builtin() -> IrResult<Arc<PreparedModule>> {
    static PRELUDE: OnceLock<IrResult<Arc<PreparedModule>>> = OnceLock::new();
    PRELUDE
        .get_or_init(|| {
            PreparedModule::from_vec(crate::writer::encode(&prelude_model())).map(Arc::new).map_err(|error| {
                IrError::new(codes::PRELUDE_IMAGE, format!("The built-in prelude could not be prepared: {error}"))
            })
        })
        .clone()
}
