//! The engines the oracle runs: nx-ir-core ([`Ours`]) and each reference release
//! ([`Reference5`], [`Reference6`]), behind one trait so that a harness is written once and
//! parameterised by the release it checks against.
//!
//! Every engine is handed the same things: the image bytes, the same set of modules to link
//! against, and each argument either as the same JSON text, which each engine reads with its own
//! JSON reader ([`Engine::evaluate`], the corpus' calls), or as the same host value, which each
//! engine is given as its own host value type ([`Engine::call`], the differential fuzz target's
//! calls). Whatever it returns is converted to the [`outcome`](crate::outcome) form.

use crate::outcome::{Diag, Limit, Outcome, Span, Value};
use nx_ir_core::eval::{HostRecord, HostValue};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The limits one call runs under; what is `None` is each engine's default (call depth 100,
/// range length 1,000,000, 1 MiB of stack in both; no budget and no input limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallLimits {
    pub max_operations: Option<u64>,
    pub max_input_size: Option<u64>,
    pub max_call_depth: Option<u32>,
    pub max_range_length: Option<u64>,
    /// The native stack a call may use, in bytes. How much one level of nesting takes is each
    /// build's own, so a comparison at the nesting limit raises it for both engines (the thread
    /// must have that much stack).
    pub max_stack_bytes: Option<usize>,
}

/// A call given as host values, the same for every engine (see [`host_args`] for the values
/// both engines can be given alike).
#[derive(Debug, Clone)]
pub enum HostCall {
    /// `evaluate_function`: a function entrypoint of the entry module by name, arguments by
    /// position.
    Entrypoint { name: String, args: Vec<HostValue> },
    /// `call_function`: the function a `Function` record names, arguments by parameter name
    /// (at most one per name).
    Function { function: HostValue, args: Vec<(String, HostValue)> },
}

/// A host value as a reference runtime's host can give one: a record's fields have distinct
/// names, none of them `$type` (the reference's record is a map from names to values beside its
/// type name). A later field of a name replaces an earlier one, as a map insert does, and keeps
/// its place; a field named `$type` is dropped. Everything else is kept as it is, floats to the
/// bit, so that both engines are given the same value.
pub fn host_value(value: &HostValue) -> HostValue {
    match value {
        HostValue::List(items) => HostValue::List(items.iter().map(host_value).collect()),
        HostValue::Record(record) => HostValue::Record(HostRecord {
            type_name: record.type_name.clone(),
            fields: host_fields(&record.fields),
        }),
        other => other.clone(),
    }
}

/// Named values as a map holds them: the last of each name, in the order of those last ones;
/// `$type` left out.
pub fn host_fields(fields: &[(String, HostValue)]) -> Vec<(String, HostValue)> {
    fields
        .iter()
        .enumerate()
        .filter(|(at, (name, _))| name != "$type" && !fields[at + 1..].iter().any(|(later, _)| later == name))
        .map(|(_, (name, value))| (name.clone(), host_value(value)))
        .collect()
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
    fn link(entry: &Self::Module, modules: &[Self::Module]) -> Result<Self::Program, Vec<Diag>> {
        Self::link_with(entry, modules, false)
    }

    /// A program of one image that links to nothing but itself and the prelude: prepared, then
    /// linked as its own entry.
    fn program_of(bytes: &[u8]) -> Result<Self::Program, Vec<Diag>> {
        let module = Self::prepare(bytes)?;
        Self::link(&module, std::slice::from_ref(&module))
    }

    /// [`link`](Engine::link), linking a module whose version differs from the one recorded when
    /// `allow_version_mismatch` says so.
    fn link_with(entry: &Self::Module, modules: &[Self::Module], allow_version_mismatch: bool)
        -> Result<Self::Program, Vec<Diag>>;

    /// Evaluates the function entrypoint `function` of the program's entry module with
    /// positional arguments given as JSON texts.
    fn evaluate(program: &Self::Program, function: &str, args: &[&str], limits: CallLimits) -> Outcome;

    /// Makes a call given as host values ([`host_value`] form).
    fn call(program: &Self::Program, call: &HostCall, limits: CallLimits) -> Outcome;

    /// A component instance the engine hands out.
    type Instance: Clone;

    /// Initializes component `component` with props (a JSON object); the value compared is
    /// `{output, state}`.
    fn initialize(program: &Self::Program, component: &str, props: &str, limits: CallLimits) -> (Outcome, Option<Self::Instance>);

    /// Dispatches a batch (JSON entries); the value compared is `{effects, output, state}`.
    fn dispatch(program: &Self::Program, instance: &Self::Instance, batch: &[&str], limits: CallLimits) -> (Outcome, Option<Self::Instance>);

    /// The instance written out and restored (the engine's own stored form).
    fn stored_and_restored(program: &Self::Program, instance: &Self::Instance) -> Result<Self::Instance, Vec<Diag>>;

    /// Evaluates a component from props and an explicit state (JSON objects).
    fn evaluate_component(program: &Self::Program, component: &str, props: &str, state: &str, limits: CallLimits) -> Outcome;

    /// Normalizes a complete state (a JSON object).
    fn normalize_state(program: &Self::Program, component: &str, state: &str, limits: CallLimits) -> Outcome;

    /// Applies a patch (any JSON value) to a state (a JSON object).
    fn apply_patch(program: &Self::Program, component: &str, current: &str, patch: &str, limits: CallLimits) -> Outcome;

    /// Constructs a descriptor from props (a JSON object) and content (JSON values).
    fn descriptor(program: &Self::Program, component: &str, props: &str, content: &[&str], limits: CallLimits) -> Outcome;
}

/// `{name: value, ...}` in the order given, as the compared form of a lifecycle call's parts.
fn parts(fields: Vec<(&str, Value)>) -> Value {
    Value::Record { type_name: None, fields: fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect() }
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

    fn link_with(entry: &Self::Module, modules: &[Self::Module], allow_version_mismatch: bool)
        -> Result<Self::Program, Vec<Diag>> {
        use nx_ir_core::link::{LinkOptions, Program};
        let by_identity: HashMap<&str, &Self::Module> = modules.iter().map(|m| (m.identity(), m)).collect();
        let mut resolve = |identity: &str| Ok(by_identity.get(identity).map(|m| Arc::clone(m)));
        let options = LinkOptions { allow_version_mismatch };
        let program = Program::link(Arc::clone(entry), &mut resolve, options).map_err(ours::diags)?;
        nx_ir_core::eval::CompiledProgram::compile(&program).map_err(ours::diags)
    }

    fn evaluate(program: &Self::Program, function: &str, args: &[&str], limits: CallLimits) -> Outcome {
        use nx_ir_core::eval::{evaluate_function_with, json::from_json, HostValueBuilder, Usage};
        let args: Vec<_> = args
            .iter()
            .map(|text| from_json(text).unwrap_or_else(|e| panic!("nx-ir-core cannot read the argument {text}: {e}")))
            .collect();
        let args: Vec<Option<&_>> = args.iter().map(Some).collect();
        let limits = ours::limits(limits);
        let mut usage = Usage::default();
        let result = evaluate_function_with(program, function, &args, &limits, &mut HostValueBuilder, &mut usage);
        ours::outcome(result, usage)
    }

    type Instance = nx_ir_core::eval::component::ComponentInstance;

    fn initialize(program: &Self::Program, component: &str, props: &str, limits: CallLimits) -> (Outcome, Option<Self::Instance>) {
        use nx_ir_core::eval::component::{initialize_component_with, ComponentInit};
        use nx_ir_core::eval::{HostCall, HostValueBuilder, Usage};
        let props = ours::map(props);
        let pairs = ours::pairs(&props);
        let mut usage = Usage::default();
        let result = initialize_component_with(
            program,
            component,
            &pairs,
            ComponentInit::default(),
            &ours::limits(limits),
            &mut HostValueBuilder,
            &mut usage,
            HostCall::default(),
        );
        match result {
            Ok(init) => (
                Outcome {
                    result: Ok(parts(vec![("output", ours::value(&init.output)), ("state", ours::value(&init.state))])),
                    operations: usage.operations,
                    input_size: usage.input_size,
                },
                Some(init.instance),
            ),
            Err(error) => (Outcome { result: Err(ours::diags(error)), operations: usage.operations, input_size: usage.input_size }, None),
        }
    }

    fn dispatch(program: &Self::Program, instance: &Self::Instance, batch: &[&str], limits: CallLimits) -> (Outcome, Option<Self::Instance>) {
        use nx_ir_core::eval::component::dispatch_component_actions_with;
        use nx_ir_core::eval::{HostCall, HostValueBuilder, Usage};
        let entries: Vec<_> = batch.iter().map(|text| ours::json(text)).collect();
        let refs: Vec<&_> = entries.iter().collect();
        let mut usage = Usage::default();
        let result = dispatch_component_actions_with(program, instance, &refs, &ours::limits(limits), &mut HostValueBuilder, &mut usage, HostCall::default());
        match result {
            Ok(next) => (
                Outcome {
                    result: Ok(parts(vec![
                        ("effects", Value::List(next.effects.iter().map(ours::value).collect())),
                        ("output", ours::value(&next.output)),
                        ("state", ours::value(&next.state)),
                    ])),
                    operations: usage.operations,
                    input_size: usage.input_size,
                },
                Some(next.instance),
            ),
            Err(error) => (Outcome { result: Err(ours::diags(error)), operations: usage.operations, input_size: usage.input_size }, None),
        }
    }

    fn stored_and_restored(program: &Self::Program, instance: &Self::Instance) -> Result<Self::Instance, Vec<Diag>> {
        use nx_ir_core::eval::component::stored::{restore_component_instance, restore_component_instance_json};
        let bytes = instance.to_bytes(program).map_err(ours::diags)?;
        let restored = restore_component_instance(program, &bytes).map_err(ours::diags)?;
        let text = restored.to_json(program).map_err(ours::diags)?;
        restore_component_instance_json(program, &text).map_err(ours::diags)
    }

    fn evaluate_component(program: &Self::Program, component: &str, props: &str, state: &str, limits: CallLimits) -> Outcome {
        use nx_ir_core::eval::component::evaluate_component_with;
        let (props, state) = (ours::map(props), ours::map(state));
        ours::run(|sink, usage| {
            evaluate_component_with(program, component, &ours::pairs(&props), &ours::pairs(&state), &ours::limits(limits), sink, usage, Default::default())
        })
    }

    fn normalize_state(program: &Self::Program, component: &str, state: &str, limits: CallLimits) -> Outcome {
        use nx_ir_core::eval::component::normalize_component_state_with;
        let state = ours::map(state);
        ours::run(|sink, usage| normalize_component_state_with(program, component, &ours::pairs(&state), &ours::limits(limits), sink, usage, Default::default()))
    }

    fn apply_patch(program: &Self::Program, component: &str, current: &str, patch: &str, limits: CallLimits) -> Outcome {
        use nx_ir_core::eval::component::apply_component_state_patch_with;
        let current = ours::map(current);
        let patch = ours::json(patch);
        ours::run(|sink, usage| {
            apply_component_state_patch_with(program, component, &ours::pairs(&current), &patch, &ours::limits(limits), sink, usage, Default::default())
        })
    }

    fn descriptor(program: &Self::Program, component: &str, props: &str, content: &[&str], limits: CallLimits) -> Outcome {
        use nx_ir_core::eval::component::construct_component_descriptor_with;
        let props = ours::map(props);
        let content: Vec<_> = content.iter().map(|text| ours::json(text)).collect();
        let refs: Vec<&_> = content.iter().collect();
        ours::run(|sink, usage| {
            construct_component_descriptor_with(program, component, &ours::pairs(&props), &refs, &ours::limits(limits), sink, usage, Default::default())
        })
    }

    fn call(program: &Self::Program, call: &HostCall, limits: CallLimits) -> Outcome {
        use nx_ir_core::eval::{call_function_with, evaluate_function_with, CallArguments, HostValueBuilder, Usage};
        let limits = ours::limits(limits);
        let mut usage = Usage::default();
        let result = match call {
            HostCall::Entrypoint { name, args } => {
                let args: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
                evaluate_function_with(program, name, &args, &limits, &mut HostValueBuilder, &mut usage)
            }
            HostCall::Function { function, args } => {
                let pairs: Vec<(&str, &HostValue)> = args.iter().map(|(name, value)| (name.as_str(), value)).collect();
                let args = CallArguments::Named(&pairs);
                call_function_with(program, &function, args, &limits, &mut HostValueBuilder, &mut usage)
            }
        };
        ours::outcome(result, usage)
    }
}

/// nx-ir-core's host value in the [`outcome`](crate::outcome) form.
pub fn value_of_host(host: &HostValue) -> Value {
    ours::value(host)
}

mod ours {
    use super::*;
    use nx_ir_core::eval::{Limits, Usage};

    pub fn limits(limits: CallLimits) -> Limits {
        let defaults = Limits::default();
        Limits {
            max_operations: limits.max_operations,
            max_input_size: limits.max_input_size,
            max_call_depth: limits.max_call_depth.unwrap_or(defaults.max_call_depth),
            max_range_length: limits.max_range_length.unwrap_or(defaults.max_range_length),
            max_stack_bytes: limits.max_stack_bytes.unwrap_or(defaults.max_stack_bytes),
            ..defaults
        }
    }

    pub fn outcome(result: nx_ir_core::IrResult<HostValue>, usage: Usage) -> Outcome {
        Outcome {
            result: result.map(|v| value(&v)).map_err(diags),
            operations: usage.operations,
            input_size: usage.input_size,
        }
    }

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

    pub fn json(text: &str) -> HostValue {
        nx_ir_core::eval::json::from_json(text).unwrap_or_else(|e| panic!("nx-ir-core cannot read {text}: {e}"))
    }

    /// A JSON object as a host map: its members, and `$type` as a member when it has one.
    pub fn map(text: &str) -> Vec<(String, HostValue)> {
        match json(text) {
            HostValue::Record(record) => {
                let mut fields = record.fields;
                if let Some(type_name) = record.type_name {
                    fields.push(("$type".to_string(), HostValue::Str(type_name)));
                }
                fields
            }
            other => panic!("not a JSON object: {other:?}"),
        }
    }

    pub fn pairs(map: &[(String, HostValue)]) -> Vec<(&str, &HostValue)> {
        map.iter().map(|(k, v)| (k.as_str(), v)).collect()
    }

    /// A call into the host value builder, as an outcome.
    pub fn run(
        call: impl FnOnce(&mut nx_ir_core::eval::HostValueBuilder, &mut nx_ir_core::eval::Usage) -> nx_ir_core::IrResult<HostValue>,
    ) -> Outcome {
        let mut usage = nx_ir_core::eval::Usage::default();
        let result = call(&mut nx_ir_core::eval::HostValueBuilder, &mut usage);
        Outcome { result: result.map(|v| value(&v)).map_err(diags), operations: usage.operations, input_size: usage.input_size }
    }

    pub fn value(host: &HostValue) -> Value {
        match host {
            HostValue::Null => Value::Null,
            HostValue::Bool(b) => Value::Bool(*b),
            HostValue::Int(i) => Value::Int(*i),
            HostValue::Float(x) => Value::Float(crate::outcome::float_bits(*x)),
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
                        message: d.message.to_string(),
                    })
                    .collect()
            }

            fn json(text: &str) -> $value::NxValue {
                $value::NxValue::from_json_str(text).unwrap_or_else(|e| panic!("{} cannot read {text}: {e}", $name))
            }

            /// A JSON object as the map the runtime takes: its members, `$type` one of them.
            fn map(text: &str) -> std::collections::BTreeMap<String, $value::NxValue> {
                match Self::json(text) {
                    $value::NxValue::Record { type_name, mut properties } => {
                        if let Some(type_name) = type_name {
                            properties.insert("$type".to_string(), $value::NxValue::String(type_name));
                        }
                        properties
                    }
                    other => panic!("not a JSON object: {other:?}"),
                }
            }

            /// Options for `limits`, and the usage record they report into.
            fn options_and_usage(limits: CallLimits) -> ($runtime::RuntimeOptions, Arc<$runtime::Usage>) {
                let usage = Arc::new($runtime::Usage::new());
                (Self::options(limits, &usage), usage)
            }

            /// An outcome from a value already in the compared form.
            fn outcome_of(result: Result<Value, &$runtime::NxIrRuntimeError>, usage: &$runtime::Usage) -> Outcome {
                Outcome { result: result.map_err(|e| Self::diags(e.clone())), operations: usage.operations(), input_size: usage.input_size() }
            }

            /// A state map as the compared form: a record with no type name.
            fn state(state: &std::collections::BTreeMap<String, $value::NxValue>) -> Value {
                Value::Record { type_name: None, fields: state.iter().map(|(k, v)| (k.clone(), Self::value(v))).collect() }
            }

            fn value(value: &$value::NxValue) -> Value {
                use $value::NxValue;
                match value {
                    NxValue::Null => Value::Null,
                    NxValue::Bool(b) => Value::Bool(*b),
                    NxValue::Int(i) => Value::Int(*i),
                    NxValue::Int32(i) => Value::Int32(*i),
                    NxValue::Float(x) => Value::Float(crate::outcome::float_bits(*x)),
                    NxValue::Float32(x) => Value::Float32(crate::outcome::float32_bits(*x)),
                    NxValue::String(s) => Value::Str(s.clone()),
                    NxValue::Array(items) => Value::List(items.iter().map(Self::value).collect()),
                    NxValue::Record { type_name, properties } => Value::Record {
                        type_name: type_name.clone(),
                        fields: properties.iter().map(|(name, v)| (name.clone(), Self::value(v))).collect(),
                    },
                }
            }

            /// A host value ([`host_value`] form) as this release's host value.
            fn host(value: &HostValue) -> $value::NxValue {
                use $value::NxValue;
                match value {
                    HostValue::Null => NxValue::Null,
                    HostValue::Bool(b) => NxValue::Bool(*b),
                    HostValue::Int(i) => NxValue::Int(*i),
                    HostValue::Float(x) => NxValue::Float(*x),
                    HostValue::Str(s) => NxValue::String(s.clone()),
                    HostValue::List(items) => NxValue::Array(items.iter().map(Self::host).collect()),
                    HostValue::Record(record) => NxValue::Record {
                        type_name: record.type_name.clone(),
                        properties: Self::host_map(&record.fields),
                    },
                }
            }

            fn host_map(fields: &[(String, HostValue)]) -> BTreeMap<String, $value::NxValue> {
                fields.iter().map(|(name, value)| (name.clone(), Self::host(value))).collect()
            }

            fn options(limits: CallLimits, usage: &Arc<$runtime::Usage>) -> $runtime::RuntimeOptions {
                let defaults = $runtime::RuntimeOptions::default();
                $runtime::RuntimeOptions {
                    max_operations: limits.max_operations,
                    max_input_size: limits.max_input_size,
                    max_call_depth: limits.max_call_depth.unwrap_or(defaults.max_call_depth),
                    max_range_length: limits.max_range_length.unwrap_or(defaults.max_range_length),
                    max_stack_bytes: limits.max_stack_bytes.unwrap_or(defaults.max_stack_bytes),
                    usage: Some(Arc::clone(usage)),
                    ..defaults
                }
            }

            fn outcome(result: $runtime::Result<$value::NxValue>, usage: &$runtime::Usage) -> Outcome {
                Outcome {
                    result: result.map(|value| Self::value(&value)).map_err(Self::diags),
                    operations: usage.operations(),
                    input_size: usage.input_size(),
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

            fn link_with(entry: &Self::Module, modules: &[Self::Module], allow_version_mismatch: bool)
                -> Result<Self::Program, Vec<Diag>> {
                let by_identity: HashMap<&str, &Self::Module> = modules.iter().map(|m| (m.identity(), m)).collect();
                $runtime::Program::link(
                    entry,
                    |identity| by_identity.get(identity).map(|m| (*m).clone()),
                    &$runtime::LinkOptions { allow_version_mismatch },
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
                let options = Self::options(limits, &usage);
                Self::outcome(program.evaluate_function(function, &args, &options), &usage)
            }

            fn call(program: &Self::Program, call: &HostCall, limits: CallLimits) -> Outcome {
                let usage = Arc::new($runtime::Usage::new());
                let options = Self::options(limits, &usage);
                let result = match call {
                    HostCall::Entrypoint { name, args } => {
                        let args: Vec<$value::NxValue> = args.iter().map(Self::host).collect();
                        program.evaluate_function(name, &args, &options)
                    }
                    HostCall::Function { function, args } => {
                        program.call_function(&Self::host(function), &Self::host_map(args), &options)
                    }
                };
                Self::outcome(result, &usage)
            }

            type Instance = $runtime::ComponentInstance;

            fn initialize(program: &Self::Program, component: &str, props: &str, limits: CallLimits) -> (Outcome, Option<Self::Instance>) {
                let props = Self::map(props);
                let (options, usage) = Self::options_and_usage(limits);
                let result = program.initialize_component(component, &props, &$runtime::ComponentInit::default(), &options);
                match result {
                    Ok(init) => (
                        Outcome {
                            result: Ok(parts(vec![("output", Self::value(&init.rendered)), ("state", Self::state(&init.state))])),
                            operations: usage.operations(),
                            input_size: usage.input_size(),
                        },
                        Some(init.instance),
                    ),
                    Err(error) => (Outcome { result: Err(Self::diags(error)), operations: usage.operations(), input_size: usage.input_size() }, None),
                }
            }

            fn dispatch(program: &Self::Program, instance: &Self::Instance, batch: &[&str], limits: CallLimits) -> (Outcome, Option<Self::Instance>) {
                let entries: Vec<$value::NxValue> = batch.iter().map(|text| Self::json(text)).collect();
                let (options, usage) = Self::options_and_usage(limits);
                match program.dispatch_component_actions(instance, &entries, &options) {
                    Ok(next) => (
                        Outcome {
                            result: Ok(parts(vec![
                                ("effects", Value::List(next.effects.iter().map(Self::value).collect())),
                                ("output", Self::value(&next.rendered)),
                                ("state", Self::state(&next.state)),
                            ])),
                            operations: usage.operations(),
                            input_size: usage.input_size(),
                        },
                        Some(next.instance),
                    ),
                    Err(error) => (Outcome { result: Err(Self::diags(error)), operations: usage.operations(), input_size: usage.input_size() }, None),
                }
            }

            fn stored_and_restored(program: &Self::Program, instance: &Self::Instance) -> Result<Self::Instance, Vec<Diag>> {
                let text = serde_json::to_string(instance).expect("an instance serializes");
                let mut deserializer = serde_json::Deserializer::from_str(&text);
                program.restore_component_instance(&mut deserializer).map_err(Self::diags)
            }

            fn evaluate_component(program: &Self::Program, component: &str, props: &str, state: &str, limits: CallLimits) -> Outcome {
                let (props, state) = (Self::map(props), Self::map(state));
                let (options, usage) = Self::options_and_usage(limits);
                let result = program.evaluate_component(component, &props, &state, &options);
                Self::outcome_of(result.as_ref().map(Self::value), &usage)
            }

            fn normalize_state(program: &Self::Program, component: &str, state: &str, limits: CallLimits) -> Outcome {
                let state = Self::map(state);
                let (options, usage) = Self::options_and_usage(limits);
                let result = program.normalize_component_state(component, &state, &options);
                Self::outcome_of(result.as_ref().map(Self::state), &usage)
            }

            fn apply_patch(program: &Self::Program, component: &str, current: &str, patch: &str, limits: CallLimits) -> Outcome {
                let (current, patch) = (Self::map(current), Self::json(patch));
                let (options, usage) = Self::options_and_usage(limits);
                let result = program.apply_component_state_patch(component, &current, &patch, &options);
                Self::outcome_of(result.as_ref().map(Self::state), &usage)
            }

            fn descriptor(program: &Self::Program, component: &str, props: &str, content: &[&str], limits: CallLimits) -> Outcome {
                let props = Self::map(props);
                let content: Vec<$value::NxValue> = content.iter().map(|text| Self::json(text)).collect();
                let (options, usage) = Self::options_and_usage(limits);
                let result = program.construct_component_descriptor(component, &props, &content, &options);
                Self::outcome_of(result.as_ref().map(Self::value), &usage)
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
