//! The stored-instance fuzz case (`fuzz/fuzz_targets/stored_instance.rs`): arbitrary bytes or
//! JSON restored as a component instance of one of a few programs must be refused with
//! `nx-ir-component`, or restore to an instance that writes out and restores again to the same
//! bytes, and that dispatches (every token it holds, with each action the program declares,
//! under a small budget) to a result or a coded refusal, never a panic, and with work within the
//! bound (`testing::fuzz::work_bound`, the instance's held values counted as input).

use crate::assemble::{assemble_image_with_links, AssembleOptions};
use crate::error::codes;
use crate::eval::component::stored::{restore_component_instance, restore_component_instance_json};
use crate::eval::component::{dispatch_component_actions, initialize_component, ComponentInit, ComponentInstance};
use crate::error::IrResult;
use crate::eval::component::{dispatch_component_actions_with, initialize_component_with, Dispatched, Initialized};
use crate::eval::{
    last_call_free_copies, last_call_work, measure_input_size, CompiledProgram, HostCall, HostRecord, HostValue, HostValueBuilder, Limits, Usage,
};
use crate::testing::fuzz::{work_bound, Paid};
use crate::image::PreparedModule;
use crate::link::{LinkOptions, Program};

/// A program of the case: compiled, with the components to start instances of and the action
/// records its handlers accept.
pub struct InstanceProgram {
    pub program: CompiledProgram,
    pub components: Vec<String>,
    pub actions: Vec<HostValue>,
}

/// A program assembled from explain texts (the entry first), with the action records to
/// dispatch (each as `{"$type": name}` plus a `text` field, which a record that declares none
/// refuses).
pub fn instance_program(texts: &[&str], schema: u32, components: &[&str], actions: &[&str]) -> Option<InstanceProgram> {
    let mut modules = Vec::new();
    for text in texts {
        let options = AssembleOptions { source: None, version: version_of(text, texts), schema };
        let bytes = assemble_image_with_links(text, &options, texts).ok()?;
        modules.push(std::sync::Arc::new(PreparedModule::from_vec(bytes).ok()?));
    }
    let entry = std::sync::Arc::clone(modules.first()?);
    let all = modules.clone();
    let program =
        Program::link(entry, &mut |identity| Ok(all.iter().find(|m| m.identity() == identity).cloned()), LinkOptions::default()).ok()?;
    let program = CompiledProgram::compile(&program).ok()?;
    let mut dispatched = Vec::new();
    for action in actions {
        dispatched.push(HostValue::Record(HostRecord::new(Some(action))));
        dispatched.push(HostValue::Record(HostRecord::new(Some(action)).with("text", HostValue::str("fuzz"))));
    }
    Some(InstanceProgram { program, components: components.iter().map(|c| c.to_string()).collect(), actions: dispatched })
}

/// The version another text's `links` line gives `text`'s module ("" when none does).
fn version_of(text: &str, texts: &[&str]) -> String {
    let identity = text.lines().next().and_then(|l| l.strip_prefix("module ")).and_then(|l| l.split(' ').next()).unwrap_or("");
    for other in texts {
        for line in other.lines() {
            if let Some(rest) = line.strip_prefix(&format!("links {identity} version \"")) {
                return rest.split('"').next().unwrap_or("").to_string();
            }
        }
    }
    String::new()
}

/// Seeds: every component of every program initialized and dispatched a few times, each
/// instance written as bytes and as JSON, prefixed with its program's number.
pub fn instance_seeds(programs: &[InstanceProgram]) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (number, case) in programs.iter().enumerate() {
        for component in &case.components {
            let Ok((init, _)) = initialize_component(&case.program, component, &[], ComponentInit::default(), &Limits::with_budget(100_000))
            else {
                continue;
            };
            let mut instance = init.instance;
            for _ in 0..4 {
                for stored in [instance.to_bytes(&case.program), instance.to_json(&case.program).map(String::into_bytes)].into_iter().flatten() {
                    let mut seed = vec![number as u8];
                    seed.extend(stored);
                    seeds.push(seed);
                }
                match step(case, &instance) {
                    Some(next) => instance = next,
                    None => break,
                }
            }
        }
    }
    seeds
}

/// One dispatch of the first token with the first action the handler accepts.
fn step(case: &InstanceProgram, instance: &ComponentInstance) -> Option<ComponentInstance> {
    let token = instance.tokens().into_iter().next()?;
    for action in &case.actions {
        let entry = invocation(&token, action);
        if let Ok((done, _)) = dispatch_component_actions(&case.program, instance, &[&entry], &Limits::with_budget(100_000)) {
            return Some(done.instance);
        }
    }
    None
}

/// A dispatch of `batch` against `instance` under `limits`, with what it did and was paid: its
/// input is the batch's size (measured here in full) and the instance's, every value it holds
/// (`ComponentInstance::held_size`), which a dispatch thaws.
pub fn dispatch_paid(
    program: &CompiledProgram,
    instance: &ComponentInstance,
    batch: &[&HostValue],
    limits: &Limits,
) -> (IrResult<(Dispatched<HostValue>, Usage)>, Paid) {
    let mut usage = Usage::default();
    let result =
        dispatch_component_actions_with(program, instance, batch, limits, &mut HostValueBuilder, &mut usage, HostCall::default());
    let (work, free_copies) = (last_call_work(), last_call_free_copies());
    let input = batch.iter().map(|entry| measure_input_size(entry, None).unwrap_or(0)).sum::<u64>() + instance.held_size();
    (result.map(|done| (done, usage)), Paid { work, operations: usage.operations.unwrap_or(0), input, free_copies })
}

/// An initialization of component `name` from `props` (with `parent`'s handlers for its
/// `ActionHandler` records) under `limits`, with what it did and was paid: its input is the
/// props' size (measured here in full) and, with a parent, the parent's held values, which
/// resolving the props' handlers thaws.
pub fn initialize_paid(
    program: &CompiledProgram,
    name: &str,
    props: &[(&str, &HostValue)],
    parent: Option<&ComponentInstance>,
    limits: &Limits,
) -> (IrResult<Initialized<HostValue>>, Paid) {
    let mut usage = Usage::default();
    let init = ComponentInit { parent, state: None };
    let result = initialize_component_with(program, name, props, init, limits, &mut HostValueBuilder, &mut usage, HostCall::default());
    let (work, free_copies) = (last_call_work(), last_call_free_copies());
    let measured = props.iter().map(|(_, value)| 1 + measure_input_size(value, None).unwrap_or(0)).sum::<u64>();
    let input = 1 + measured + parent.map_or(0, ComponentInstance::held_size);
    (result, Paid { work, operations: usage.operations.unwrap_or(0), input, free_copies })
}

/// [`dispatch_paid`], asserting the work bound (`testing::fuzz::work_bound`).
pub fn dispatch_within_bound(
    program: &CompiledProgram,
    instance: &ComponentInstance,
    batch: &[&HostValue],
    limits: &Limits,
) -> IrResult<(Dispatched<HostValue>, Usage)> {
    let (result, paid) = dispatch_paid(program, instance, batch, limits);
    if let Err(message) = work_bound(paid) {
        panic!("a dispatch of {} entries against '{}': {message}", batch.len(), instance.component());
    }
    result
}

/// The dispatch of one handler: an `ActionHandlerInvocation` of `token` with `action`.
pub fn invocation(token: &str, action: &HostValue) -> HostValue {
    HostValue::Record(
        HostRecord::new(Some("ActionHandlerInvocation")).with("token", HostValue::str(token)).with("action", action.clone()),
    )
}

/// The case: the first byte picks the program, the rest is a stored instance (JSON when it
/// starts with `{`).
pub fn stored_instance_case(programs: &[InstanceProgram], data: &[u8]) {
    let Some((pick, stored)) = data.split_first() else { return };
    let Some(case) = programs.get(usize::from(*pick) % programs.len().max(1)) else { return };
    let program = &case.program;
    let restored = if stored.first() == Some(&b'{') {
        match std::str::from_utf8(stored) {
            Ok(text) => restore_component_instance_json(program, text),
            Err(_) => return,
        }
    } else {
        restore_component_instance(program, stored)
    };
    let instance = match restored {
        Ok(instance) => instance,
        Err(error) => {
            assert_eq!(error.code(), codes::COMPONENT, "a stored instance refused with another code: {error}");
            return;
        }
    };
    // What restored writes out and restores to the same bytes.
    let bytes = instance.to_bytes(program).expect("a restored instance writes out");
    let again = restore_component_instance(program, &bytes).expect("what a restored instance writes restores");
    assert_eq!(again.to_bytes(program).expect("writes out"), bytes, "a restored instance does not write out the same twice");
    let text = instance.to_json(program).expect("writes out as JSON");
    let from_json = restore_component_instance_json(program, &text).expect("its JSON restores");
    assert_eq!(from_json.to_bytes(program).expect("writes out"), bytes, "JSON and bytes restore differently");
    // Every token, each action: a result or a coded refusal, the same twice.
    for token in instance.tokens().into_iter().take(8) {
        for action in &case.actions {
            let entry = invocation(&token, action);
            let limits = Limits { max_operations: Some(10_000), max_input_size: Some(10_000), ..Limits::default() };
            let first = dispatch_within_bound(program, &instance, &[&entry], &limits);
            let second = dispatch_component_actions(program, &instance, &[&entry], &limits);
            match (&first, &second) {
                (Ok((a, ua)), Ok((b, ub))) => {
                    assert_eq!((&a.output, &a.effects, &a.state, ua), (&b.output, &b.effects, &b.state, ub), "a dispatch is not repeatable");
                    assert!(ua.operations.is_some_and(|used| used <= 10_000));
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.code(), b.code());
                    assert!(a.code().starts_with("nx-") || a.code().starts_with("color-"), "an uncoded refusal: {a}");
                }
                _ => panic!("a dispatch succeeded once and failed once"),
            }
        }
    }
}

/// The programs the fuzz target and its regression test use: the bundled conversation flow
/// (schema 6), `Box` (`tests/components/box.nxir.txt`, whose handler captures its state) and,
/// where the conformance corpus is (`NX_IR_CONFORMANCE`, or beside the repository), its
/// `handlers` program as schema 5 and its `held-records` program.
pub fn fuzz_programs() -> Vec<InstanceProgram> {
    let flow = include_str!("../../../../python/nx_agent/examples/flow.nx.nxir.txt");
    let mut programs = Vec::new();
    programs.extend(instance_program(&[flow], 6, &["Flow"], &["Option.Picked", "TextAnswer.Submitted", "Restart.Pressed"]));
    // A component whose handler captures its state, a record that grows a level a tap.
    let boxed = include_str!("../../tests/components/box.nxir.txt");
    programs.extend(instance_program(&[boxed], 5, &["Box"], &["Button.Tapped"]));
    let corpus = std::env::var_os("NX_IR_CONFORMANCE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/nx-ir-conformance"));
    let read = |path: &str| std::fs::read_to_string(corpus.join(path)).ok();
    if let Some(handlers) = read("handlers/expected/main.nx.stripped.nxir.txt") {
        programs.extend(instance_program(&[&handlers], 5, &["Counter", "Tens", "Page", "SearchBox"], &["Button.Tapped", "SearchSubmitted"]));
    }
    if let Some(held) = read("held-records/expected/main.nx.stripped.nxir.txt") {
        programs.extend(instance_program(&[&held], 5, &["Holder", "Tool"], &["Button.Tapped", "Chooser.Chosen", "Picker.Picked"]));
    }
    programs
}
