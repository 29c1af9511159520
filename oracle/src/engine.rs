//! The engines the oracle runs: nx-ir-core ([`Ours`]) and each reference release
//! ([`Reference5`], [`Reference6`]), behind one trait so that a harness is written once and
//! parameterised by the release it checks against.
//!
//! Every engine is handed the same things: the image bytes, the same set of modules to link
//! against, and each argument as the same JSON text, which each engine reads with its own JSON
//! reader. Whatever it returns is converted to the [`outcome`](crate::outcome) form.

use crate::outcome::{Diag, Limit, Outcome, Span, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The limits one call runs under; everything else is each engine's default (call depth 100,
/// range length 1,000,000, 1 MiB of stack in both).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallLimits {
    pub max_operations: Option<u64>,
    pub max_input_size: Option<u64>,
}

/// What a prepared module says about itself: compared when both engines accept an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleFacts {
    pub identity: String,
    pub version: String,
    pub fingerprint: u64,
    pub function_entrypoints: Vec<String>,
    pub component_entrypoints: Vec<String>,
}

/// An evaluator of NX IR images.
pub trait Engine {
    /// How reports name the engine.
    const NAME: &'static str;
    type Module: Clone;
    type Program;

    /// Validates and indexes an image.
    fn prepare(bytes: &[u8]) -> Result<Self::Module, Vec<Diag>>;

    fn facts(module: &Self::Module) -> ModuleFacts;

    /// Links `entry` against `modules` (by identity); the built-in prelude answers for
    /// `@nx/prelude.nx` when `modules` has none.
    fn link(entry: &Self::Module, modules: &[Self::Module]) -> Result<Self::Program, Vec<Diag>>;

    /// Evaluates the function entrypoint `function` of the program's entry module with
    /// positional arguments given as JSON texts.
    fn evaluate(program: &Self::Program, function: &str, args: &[&str], limits: CallLimits) -> Outcome;
}

/// nx-ir-core: prepare, link, compile, evaluate.
pub struct Ours;

impl Engine for Ours {
    const NAME: &'static str = "nx-ir-core";
    type Module = Arc<nx_ir_core::image::PreparedModule>;
    type Program = nx_ir_core::eval::CompiledProgram;

    fn prepare(bytes: &[u8]) -> Result<Self::Module, Vec<Diag>> {
        nx_ir_core::image::PreparedModule::from_slice(bytes).map(Arc::new).map_err(ours::diags)
    }

    fn facts(module: &Self::Module) -> ModuleFacts {
        ModuleFacts {
            identity: module.identity().to_string(),
            version: module.version().to_string(),
            fingerprint: module.fingerprint(),
            function_entrypoints: module.function_entrypoints().into_iter().map(str::to_string).collect(),
            component_entrypoints: module.component_entrypoints().into_iter().map(str::to_string).collect(),
        }
    }

    fn link(entry: &Self::Module, modules: &[Self::Module]) -> Result<Self::Program, Vec<Diag>> {
        use nx_ir_core::link::{LinkOptions, Program};
        let by_identity: HashMap<&str, &Self::Module> = modules.iter().map(|m| (m.identity(), m)).collect();
        let mut resolve = |identity: &str| Ok(by_identity.get(identity).map(|m| Arc::clone(m)));
        let program = Program::link(Arc::clone(entry), &mut resolve, LinkOptions::default()).map_err(ours::diags)?;
        nx_ir_core::eval::CompiledProgram::compile(&program).map_err(ours::diags)
    }

    fn evaluate(program: &Self::Program, function: &str, args: &[&str], limits: CallLimits) -> Outcome {
        use nx_ir_core::eval::{evaluate_function_with, json::from_json, HostValueBuilder, Limits, Usage};
        let args: Vec<_> = args
            .iter()
            .map(|text| from_json(text).unwrap_or_else(|e| panic!("nx-ir-core cannot read the argument {text}: {e}")))
            .collect();
        let args: Vec<Option<&_>> = args.iter().map(Some).collect();
        let limits = Limits {
            max_operations: limits.max_operations,
            max_input_size: limits.max_input_size,
            ..Limits::default()
        };
        let mut usage = Usage::default();
        let result = evaluate_function_with(program, function, &args, &limits, &mut HostValueBuilder, &mut usage);
        Outcome {
            result: result.map(|value| ours::value(&value)).map_err(ours::diags),
            operations: usage.operations,
            input_size: usage.input_size,
        }
    }
}

mod ours {
    use super::*;
    use nx_ir_core::eval::HostValue;

    pub fn diags(error: nx_ir_core::IrError) -> Vec<Diag> {
        error
            .diagnostics
            .into_iter()
            .map(|d| Diag {
                code: d.code.to_string(),
                declaration: d.declaration,
                argument: d.argument,
                limit: d.limit.map(|l| Limit { name: l.name.to_string(), value: Some(l.value) }),
                source: d.source.map(|s| Span { identity: s.identity, start: s.start, end: s.end }),
                message: d.message,
            })
            .collect()
    }

    pub fn value(host: &HostValue) -> Value {
        match host {
            HostValue::Null => Value::Null,
            HostValue::Bool(b) => Value::Bool(*b),
            HostValue::Int(i) => Value::Int(*i),
            HostValue::Float(x) => Value::Float(x.to_bits()),
            HostValue::Str(s) => Value::Str(s.clone()),
            HostValue::List(items) => Value::List(items.iter().map(value).collect()),
            HostValue::Record(record) => Value::Record {
                type_name: record.type_name.clone(),
                fields: record.fields.iter().map(|(name, v)| (name.clone(), value(v))).collect(),
            },
        }
    }
}

/// An engine over one reference release: the API of `nx-ir-runtime` is the same in every
/// release the oracle uses, so one definition serves each of them.
macro_rules! reference_engine {
    ($(#[$doc:meta])* $engine:ident, $runtime:ident, $value:ident, $name:literal) => {
        $(#[$doc])*
        pub struct $engine;

        impl $engine {
            fn diags(error: $runtime::NxIrRuntimeError) -> Vec<Diag> {
                error
                    .diagnostics
                    .into_iter()
                    .map(|d| Diag {
                        code: d.code.to_string(),
                        declaration: d.declaration,
                        argument: d.argument,
                        limit: d.limit.map(|l| Limit { name: l.name.to_string(), value: l.value }),
                        source: d.source.map(|s| Span { identity: s.identity, start: s.start, end: s.end }),
                        message: d.message,
                    })
                    .collect()
            }

            fn value(value: &$value::NxValue) -> Value {
                use $value::NxValue;
                match value {
                    NxValue::Null => Value::Null,
                    NxValue::Bool(b) => Value::Bool(*b),
                    NxValue::Int(i) => Value::Int(*i),
                    NxValue::Int32(i) => Value::Int32(*i),
                    NxValue::Float(x) => Value::Float(x.to_bits()),
                    NxValue::Float32(x) => Value::Float32(x.to_bits()),
                    NxValue::String(s) => Value::Str(s.clone()),
                    NxValue::Array(items) => Value::List(items.iter().map(Self::value).collect()),
                    NxValue::Record { type_name, properties } => Value::Record {
                        type_name: type_name.clone(),
                        fields: properties.iter().map(|(name, v)| (name.clone(), Self::value(v))).collect(),
                    },
                }
            }
        }

        impl Engine for $engine {
            const NAME: &'static str = $name;
            type Module = $runtime::PreparedModule;
            type Program = $runtime::Program;

            fn prepare(bytes: &[u8]) -> Result<Self::Module, Vec<Diag>> {
                $runtime::PreparedModule::prepare(bytes.to_vec()).map_err(Self::diags)
            }

            fn facts(module: &Self::Module) -> ModuleFacts {
                ModuleFacts {
                    identity: module.identity().to_string(),
                    version: module.version().to_string(),
                    fingerprint: module.fingerprint(),
                    function_entrypoints: module.function_entrypoints().map(str::to_string).collect(),
                    component_entrypoints: module.component_entrypoints().map(str::to_string).collect(),
                }
            }

            fn link(entry: &Self::Module, modules: &[Self::Module]) -> Result<Self::Program, Vec<Diag>> {
                let by_identity: HashMap<&str, &Self::Module> = modules.iter().map(|m| (m.identity(), m)).collect();
                $runtime::Program::link(
                    entry,
                    |identity| by_identity.get(identity).map(|m| (*m).clone()),
                    &$runtime::LinkOptions::default(),
                )
                .map_err(Self::diags)
            }

            fn evaluate(program: &Self::Program, function: &str, args: &[&str], limits: CallLimits) -> Outcome {
                let args: Vec<$value::NxValue> = args
                    .iter()
                    .map(|text| {
                        $value::NxValue::from_json_str(text)
                            .unwrap_or_else(|e| panic!("{} cannot read the argument {text}: {e}", $name))
                    })
                    .collect();
                let usage = Arc::new($runtime::Usage::new());
                let options = $runtime::RuntimeOptions {
                    max_operations: limits.max_operations,
                    max_input_size: limits.max_input_size,
                    usage: Some(Arc::clone(&usage)),
                    ..$runtime::RuntimeOptions::default()
                };
                let result = program.evaluate_function(function, &args, &options);
                Outcome {
                    result: result.as_ref().map(Self::value).map_err(|e| Self::diags(e.clone())),
                    operations: usage.operations(),
                    input_size: usage.input_size(),
                }
            }
        }
    };
}

reference_engine!(
    /// `nx-ir-runtime` 0.7.0, the NX 0.7 release: schema 5.
    Reference5,
    ref5_runtime,
    ref5_value,
    "nx-ir-runtime 0.7.0"
);

reference_engine!(
    /// `nx-ir-runtime` 0.10.0, the NX 0.10 release: schema 6.
    Reference6,
    ref6_runtime,
    ref6_value,
    "nx-ir-runtime 0.10.0"
);
