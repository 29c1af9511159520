//! The evaluator against the conformance corpus: every module's image is assembled from its
//! explain text (stripped, and full with the module's source), the program is linked, and each
//! entrypoint of `program.json` is evaluated and compared with `results.json` (value),
//! `operations.json` (exact count, recorded budget failures, input sizes) and
//! `diagnostics.json` (failing cases).
//!
//! Node spans are not in the explain text, so an assembled full image has no node spans: span
//! checks of recorded failures cannot be made and are counted and reported, not faked.

mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nx_ir_core::codes;
use nx_ir_core::eval::json::{canonical_eq, from_json, to_json};
use nx_ir_core::eval::component::{dispatch_component_actions, initialize_component, ComponentInit};
use nx_ir_core::eval::{
    evaluate_function_with, CompiledProgram, HostValue, HostValueBuilder, Limits, Usage,
};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::{LinkOptions, Program};
use nx_ir_core::IrResult;
use support::corpus;


fn read_json(path: &Path) -> Option<HostValue> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn field<'a>(value: &'a HostValue, name: &str) -> Option<&'a HostValue> {
    match value {
        HostValue::Record(r) => r.get(name),
        _ => None,
    }
}

fn text(value: Option<&HostValue>) -> Option<&str> {
    match value {
        Some(HostValue::Str(s)) => Some(s),
        _ => None,
    }
}

fn int(value: Option<&HostValue>) -> Option<u64> {
    match value {
        Some(HostValue::Int(i)) => Some(*i as u64),
        _ => None,
    }
}

struct Entry {
    module: String,
    function: String,
    key: String,
    args: Vec<HostValue>,
    fails: bool,
}

#[derive(Default)]
struct Tally {
    matched: usize,
    total: usize,
    span_checks: usize,
    spans_impossible: usize,
    failures: Vec<String>,
    lifecycles: usize,
    lifecycles_matched: usize,
    lifecycle_calls: usize,
}

fn entries(dir: &Path, results: &HostValue) -> Vec<Entry> {
    let mut out = Vec::new();
    match read_json(&dir.join("program.json")) {
        Some(program) => {
            if let Some(HostValue::List(eps)) = field(&program, "entrypoints") {
                for ep in eps {
                    let module = text(field(ep, "module")).unwrap_or("").to_string();
                    let function = text(field(ep, "function")).unwrap_or("").to_string();
                    let mut key = format!("{module}::{function}");
                    if let Some(case) = text(field(ep, "case")) {
                        key = format!("{key}#{case}");
                    }
                    let args = match field(ep, "arguments") {
                        Some(HostValue::List(args)) => args.clone(),
                        _ => Vec::new(),
                    };
                    let fails = matches!(field(ep, "fails"), Some(HostValue::Bool(true)));
                    out.push(Entry { module, function, key, args, fails });
                }
            }
        }
        None => {
            // A program without program.json (snippet): its results name the entrypoints.
            if let HostValue::Record(r) = results {
                for (key, _) in &r.fields {
                    if let Some((module, function)) = key.split_once("::") {
                        out.push(Entry {
                            module: module.into(),
                            function: function.into(),
                            key: key.clone(),
                            args: Vec::new(),
                            fails: false,
                        });
                    }
                }
            }
        }
    }
    out
}

/// A lifecycle of `program.json`: the module, the component, its props and its batches.
struct Lifecycle {
    module: String,
    key: String,
    component: String,
    props: Vec<(String, HostValue)>,
    batches: Vec<Vec<HostValue>>,
}

fn lifecycles(dir: &Path) -> Vec<Lifecycle> {
    let Some(program) = read_json(&dir.join("program.json")) else { return Vec::new() };
    let Some(HostValue::List(items)) = field(&program, "lifecycles") else { return Vec::new() };
    items
        .iter()
        .map(|l| {
            let module = text(field(l, "module")).unwrap_or("").to_string();
            let component = text(field(l, "component")).unwrap_or("").to_string();
            let props = match field(l, "props") {
                Some(HostValue::Record(r)) => {
                    let mut props: Vec<(String, HostValue)> = r.fields.clone();
                    if let Some(type_name) = &r.type_name {
                        props.push(("$type".into(), HostValue::Str(type_name.clone())));
                    }
                    props
                }
                _ => Vec::new(),
            };
            let batches = match field(l, "batches") {
                Some(HostValue::List(batches)) => batches
                    .iter()
                    .map(|b| match b {
                        HostValue::List(entries) => entries.clone(),
                        _ => Vec::new(),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            Lifecycle { key: format!("{module}::{component}"), module, component, props, batches }
        })
        .collect()
}

/// What one run of a lifecycle gave: per call (initialize, then each batch) its outcome, as
/// `(output, effects)` or the error, and its usage.
type LifecycleRun = Vec<(Result<(HostValue, Vec<HostValue>), nx_ir_core::IrError>, Usage)>;

/// Runs a lifecycle with `limits` on every call; stops at the first failure.
fn run_lifecycle(program: &CompiledProgram, lifecycle: &Lifecycle, limits: &Limits) -> LifecycleRun {
    let props: Vec<(&str, &HostValue)> = lifecycle.props.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut calls = Vec::new();
    let mut instance = match initialize_component(program, &lifecycle.component, &props, ComponentInit::default(), limits) {
        Ok((init, usage)) => {
            calls.push((Ok((init.output, Vec::new())), usage));
            init.instance
        }
        Err(error) => {
            calls.push((Err(error), Usage::default()));
            return calls;
        }
    };
    for batch in &lifecycle.batches {
        let entries: Vec<&HostValue> = batch.iter().collect();
        match dispatch_component_actions(program, &instance, &entries, limits) {
            Ok((next, usage)) => {
                calls.push((Ok((next.output, next.effects)), usage));
                instance = next.instance;
            }
            Err(error) => {
                calls.push((Err(error), Usage::default()));
                return calls;
            }
        }
    }
    calls
}

/// Checks one lifecycle: outputs and effects against `results.json`, each call's count and
/// input size against `operations.json`, and each call under a budget of its count (succeeds)
/// and one less (fails with `maxOperations`).
fn check_lifecycle(program: &CompiledProgram, lifecycle: &Lifecycle, results: &HostValue, operations: Option<&HostValue>, tally: &mut Tally) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(expected) = field(results, &lifecycle.key) else {
        return vec!["no recorded lifecycle".into()];
    };
    let mut expected_calls: Vec<(&HostValue, Vec<HostValue>)> = Vec::new();
    if let Some(initial) = field(expected, "initial") {
        expected_calls.push((initial, Vec::new()));
    }
    if let Some(HostValue::List(batches)) = field(expected, "batches") {
        for batch in batches {
            let effects = match field(batch, "effects") {
                Some(HostValue::List(effects)) => effects.clone(),
                _ => Vec::new(),
            };
            if let Some(rendered) = field(batch, "rendered") {
                expected_calls.push((rendered, effects));
            }
        }
    }
    let run = run_lifecycle(program, lifecycle, &Limits { max_operations: Some(1 << 40), max_input_size: Some(1 << 40), ..Limits::default() });
    tally.lifecycle_calls += run.len();
    if run.len() != expected_calls.len() {
        problems.push(format!("{} calls run, {} recorded", run.len(), expected_calls.len()));
    }
    let counts = operations.and_then(|o| field(o, "counts")).and_then(|c| field(c, &lifecycle.key));
    let sizes = operations.and_then(|o| field(o, "inputSizes")).and_then(|c| field(c, &lifecycle.key));
    let recorded = |record: Option<&HostValue>, call: usize| -> Option<u64> {
        if call == 0 {
            int(record.and_then(|r| field(r, "initial")))
        } else {
            match record.and_then(|r| field(r, "batches")) {
                Some(HostValue::List(items)) => int(items.get(call - 1)),
                _ => None,
            }
        }
    };
    let mut budgets = Vec::new();
    for (call, ((outcome, usage), (rendered, effects))) in run.iter().zip(&expected_calls).enumerate() {
        let what = if call == 0 { "initialize".to_string() } else { format!("batch {call}") };
        match outcome {
            Ok((output, got_effects)) => {
                if !canonical_eq(output, rendered) {
                    problems.push(format!("{what}: output {} (expected {})", to_json(output), to_json(rendered)));
                }
                let effects_equal = got_effects.len() == effects.len() && got_effects.iter().zip(effects).all(|(a, b)| canonical_eq(a, b));
                if !effects_equal {
                    problems.push(format!("{what}: effects {:?} (expected {:?})", got_effects.iter().map(to_json).collect::<Vec<_>>(), effects.iter().map(to_json).collect::<Vec<_>>()));
                }
            }
            Err(error) => problems.push(format!("{what}: failed {error}")),
        }
        if let Some(count) = recorded(counts, call) {
            if usage.operations != Some(count) {
                problems.push(format!("{what}: count {:?} (expected {count})", usage.operations));
            }
            budgets.push(count);
        }
        if let Some(size) = recorded(sizes, call) {
            if usage.input_size != Some(size) {
                problems.push(format!("{what}: input size {:?} (expected {size})", usage.input_size));
            }
        }
    }
    // Each call at its exact count succeeds, and one operation less fails it (the calls before
    // it run at their own counts).
    if budgets.len() == expected_calls.len() {
        for failing in 0..budgets.len() {
            for (cut, expect_ok) in [(0u64, true), (1u64, false)] {
                let mut at_budget = budgets.clone();
                at_budget[failing] = at_budget[failing].saturating_sub(cut);
                let outcome = run_with_budgets(program, lifecycle, &at_budget);
                let last = outcome.get(failing);
                let ok = matches!(last, Some(Ok(())));
                if ok != expect_ok {
                    problems.push(format!("call {failing} at budget {} did not {}", at_budget[failing], if expect_ok { "succeed" } else { "fail" }));
                }
                if !expect_ok {
                    if let Some(Err(error)) = last {
                        if error.diagnostics[0].limit.as_ref().map(|l| l.name) != Some("maxOperations") {
                            problems.push(format!("call {failing} below its count failed with {error}"));
                        }
                    }
                }
            }
        }
    } else if counts.is_some() {
        problems.push("the recorded counts do not cover every call".into());
    }
    problems
}

/// Runs a lifecycle with the given budget for each call, in order; stops at the first failure.
fn run_with_budgets(program: &CompiledProgram, lifecycle: &Lifecycle, budgets: &[u64]) -> Vec<Result<(), nx_ir_core::IrError>> {
    let props: Vec<(&str, &HostValue)> = lifecycle.props.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut out = Vec::new();
    let mut instance = match initialize_component(program, &lifecycle.component, &props, ComponentInit::default(), &Limits::with_budget(budgets[0])) {
        Ok((init, _)) => {
            out.push(Ok(()));
            init.instance
        }
        Err(error) => {
            out.push(Err(error));
            return out;
        }
    };
    for (batch, budget) in lifecycle.batches.iter().zip(&budgets[1..]) {
        let entries: Vec<&HostValue> = batch.iter().collect();
        match dispatch_component_actions(program, &instance, &entries, &Limits::with_budget(*budget)) {
            Ok((next, _)) => {
                out.push(Ok(()));
                instance = next.instance;
            }
            Err(error) => {
                out.push(Err(error));
                return out;
            }
        }
    }
    out
}

fn run(program: &CompiledProgram, entry: &Entry, limits: &Limits) -> (IrResult<HostValue>, Usage) {
    let args: Vec<Option<&HostValue>> = entry.args.iter().map(Some).collect();
    let mut usage = Usage::default();
    let result = evaluate_function_with(program, &entry.function, &args, limits, &mut HostValueBuilder, &mut usage);
    (result, usage)
}

/// Checks one entrypoint against one variant of the images; returns the problems found.
fn check_entry(
    program: &CompiledProgram,
    entry: &Entry,
    full: bool,
    results: &HostValue,
    operations: Option<&HostValue>,
    diagnostics: Option<&HostValue>,
    tally: &mut Tally,
) -> Vec<String> {
    let mut problems = Vec::new();
    let (result, _) = run(program, entry, &Limits::default());
    if entry.fails {
        let expected = diagnostics.and_then(|d| field(d, &entry.key));
        match (result, expected) {
            (Err(error), Some(expected)) => {
                let d = &error.diagnostics[0];
                if Some(d.code) != text(field(expected, "code")) {
                    problems.push(format!("code {} (expected {:?})", d.code, text(field(expected, "code"))));
                }
                if d.argument.as_deref() != text(field(expected, "argument")) {
                    problems.push(format!("argument {:?} (expected {:?})", d.argument, text(field(expected, "argument"))));
                }
            }
            (Ok(value), _) => problems.push(format!("succeeded with {} but should fail", to_json(&value))),
            (Err(error), None) => problems.push(format!("no recorded diagnostic; got {error}")),
        }
    } else {
        match (&result, field(results, &entry.key)) {
            (Ok(value), Some(expected)) => {
                if !canonical_eq(value, expected) {
                    problems.push(format!("value {} (expected {})", to_json(value), to_json(expected)));
                }
            }
            (Err(error), _) => problems.push(format!("failed: {error} {:?}", error.diagnostics.first())),
            (Ok(value), None) => problems.push(format!("no recorded result; got {}", to_json(value))),
        }
    }
    let Some(operations) = operations else { return problems };
    if let Some(count) = int(field(operations, "counts").and_then(|c| field(c, &entry.key))) {
        let (_, usage) = run(program, entry, &Limits { max_operations: Some(1 << 40), max_input_size: Some(1 << 40), ..Limits::default() });
        if usage.operations != Some(count) {
            problems.push(format!("count {:?} (expected {count})", usage.operations));
        }
        if let Some(size) = int(field(operations, "inputSizes").and_then(|c| field(c, &entry.key))) {
            if usage.input_size != Some(size) {
                problems.push(format!("input size {:?} (expected {size})", usage.input_size));
            }
            let (below, _) = run(program, entry, &Limits { max_input_size: Some(size.saturating_sub(1)), ..Limits::default() });
            if size > 0 && !matches!(&below, Err(e) if e.diagnostics[0].limit.as_ref().map(|l| l.name) == Some("maxInputSize")) {
                problems.push("input size - 1 did not fail with maxInputSize".into());
            }
        }
        let (at, _) = run(program, entry, &Limits::with_budget(count));
        if at.is_err() != entry.fails {
            problems.push(format!("budget {count} did not behave as unlimited: {:?}", at.err()));
        }
        if count > 0 && !entry.fails {
            let (below, _) = run(program, entry, &Limits::with_budget(count - 1));
            match below {
                Err(e) if e.code() == codes::RESOURCE_LIMIT
                    && e.diagnostics[0].limit.as_ref().map(|l| l.name) == Some("maxOperations")
                    && e.diagnostics[0].argument.is_none() => {}
                other => problems.push(format!("budget {} did not fail with maxOperations: {:?}", count - 1, other.err())),
            }
        }
    }
    if let Some(HostValue::List(failures)) = field(operations, "failures").and_then(|f| field(f, &entry.key)) {
        for failure in failures {
            let Some(budget) = int(field(failure, "budget")) else { continue };
            let (result, usage) = run(program, entry, &Limits::with_budget(budget));
            let Err(error) = result else {
                problems.push(format!("budget {budget} succeeded"));
                continue;
            };
            let d = &error.diagnostics[0];
            if d.code != codes::RESOURCE_LIMIT {
                problems.push(format!("budget {budget}: code {}", d.code));
            }
            if d.declaration.as_deref() != text(field(failure, "declaration")) {
                problems.push(format!("budget {budget}: declaration {:?} (expected {:?})", d.declaration, text(field(failure, "declaration"))));
            }
            if usage.operations.is_none_or(|used| used > budget) {
                problems.push(format!("budget {budget}: usage {:?}", usage.operations));
            }
            if full {
                if let Some(source) = field(failure, "source") {
                    tally.span_checks += 1;
                    match &d.source {
                        None => tally.spans_impossible += 1,
                        Some(span) => {
                            let expected = (int(field(source, "start")), int(field(source, "end")));
                            if (Some(span.start as u64), Some(span.end as u64)) != expected {
                                problems.push(format!("budget {budget}: span {span:?} (expected {expected:?})"));
                            }
                        }
                    }
                } else if d.source.is_some() {
                    problems.push(format!("budget {budget}: a span where none is recorded"));
                }
            }
        }
    }
    problems
}

fn check_program(dir: &Path, tally: &mut Tally) {
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let Some(results) = read_json(&dir.join("expected/results.json")) else { return };
    let operations = read_json(&dir.join("expected/operations.json"));
    let diagnostics = read_json(&dir.join("expected/diagnostics.json"));
    let texts = corpus::program_texts(dir);
    let linked = corpus::linked(&texts);
    let lifecycles = lifecycles(dir);
    let mut lifecycle_problems: HashMap<String, Vec<String>> = HashMap::new();
    let entries = entries(dir, &results);
    let mut outcome: HashMap<String, Vec<String>> = HashMap::new();
    for full in [false, true] {
        let mut prepared: HashMap<String, Arc<PreparedModule>> = HashMap::new();
        let mut problems = Vec::new();
        for input in corpus::variant(dir, &texts, full) {
            match input.image(&linked).and_then(PreparedModule::from_vec) {
                Ok(module) => {
                    prepared.insert(input.identity.clone(), Arc::new(module));
                }
                Err(error) => problems.push(format!("{} does not assemble: {error}", input.identity)),
            }
        }
        for entry in &entries {
            let mut found = problems.clone();
            let compiled = prepared.get(&entry.module).cloned().map(|module| {
                let resolver = prepared.clone();
                Program::link(module, &mut |id| Ok(resolver.get(id).cloned()), LinkOptions::default())
                    .and_then(|program| CompiledProgram::compile(&program))
            });
            match compiled {
                Some(Ok(program)) => found.extend(check_entry(
                    &program,
                    entry,
                    full,
                    &results,
                    operations.as_ref(),
                    diagnostics.as_ref(),
                    tally,
                )),
                Some(Err(error)) => found.push(format!("does not link: {error}")),
                None => found.push("module not assembled".into()),
            }
            let variant = if full { "full" } else { "stripped" };
            outcome.entry(entry.key.clone()).or_default().extend(found.into_iter().map(|p| format!("[{variant}] {p}")));
        }
        for lifecycle in &lifecycles {
            let variant = if full { "full" } else { "stripped" };
            let found = match prepared.get(&lifecycle.module).cloned() {
                Some(module) => {
                    let resolver = prepared.clone();
                    match Program::link(module, &mut |id| Ok(resolver.get(id).cloned()), LinkOptions::default())
                        .and_then(|program| CompiledProgram::compile(&program))
                    {
                        Ok(program) => check_lifecycle(&program, lifecycle, &results, operations.as_ref(), tally),
                        Err(error) => vec![format!("does not link: {error}")],
                    }
                }
                None => vec!["module not assembled".into()],
            };
            lifecycle_problems.entry(lifecycle.key.clone()).or_default().extend(found.into_iter().map(|p| format!("[{variant}] {p}")));
        }
    }
    // The lifecycles again as NX 0.10 writes the programs (schema 6, state records named).
    if !lifecycles.is_empty() {
        let texts6: Vec<corpus::Text> = corpus::program_texts(dir)
            .into_iter()
            .map(|mut text| {
                text.text = corpus::with_state_records(&text.text);
                text
            })
            .collect();
        let linked6 = corpus::linked(&texts6);
        let mut prepared: HashMap<String, Arc<PreparedModule>> = HashMap::new();
        for mut input in corpus::variant(dir, &texts6, false) {
            input.options.schema = 6;
            if let Ok(module) = input.image(&linked6).and_then(PreparedModule::from_vec) {
                prepared.insert(input.identity.clone(), Arc::new(module));
            }
        }
        for lifecycle in &lifecycles {
            let found = match prepared.get(&lifecycle.module).cloned() {
                Some(module) => {
                    let resolver = prepared.clone();
                    match Program::link(module, &mut |id| Ok(resolver.get(id).cloned()), LinkOptions::default())
                        .and_then(|program| CompiledProgram::compile(&program))
                    {
                        Ok(program) => check_lifecycle(&program, lifecycle, &results, operations.as_ref(), tally),
                        Err(error) => vec![format!("does not link: {error}")],
                    }
                }
                None => vec!["module not assembled as schema 6".into()],
            };
            lifecycle_problems.entry(lifecycle.key.clone()).or_default().extend(found.into_iter().map(|p| format!("[schema 6] {p}")));
        }
    }
    for lifecycle in &lifecycles {
        tally.lifecycles += 1;
        let problems = &lifecycle_problems[&lifecycle.key];
        if problems.is_empty() {
            tally.lifecycles_matched += 1;
        } else {
            tally.failures.push(format!("{name}/{} (lifecycle): {}", lifecycle.key, problems.join("; ")));
        }
    }
    for entry in &entries {
        tally.total += 1;
        let problems = &outcome[&entry.key];
        if problems.is_empty() {
            tally.matched += 1;
        } else {
            tally.failures.push(format!("{name}/{}: {}", entry.key, problems.join("; ")));
        }
    }
}

#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn corpus_entrypoints_match() {
    let Some(corpus) = corpus::dir_or_skip("conformance") else {
        return;
    };
    let dirs: Vec<PathBuf> =
        corpus::programs(&corpus).into_iter().filter(|p| p.join("expected/results.json").is_file()).collect();
    let mut tally = Tally::default();
    for dir in &dirs {
        check_program(dir, &mut tally);
    }
    for failure in &tally.failures {
        println!("MISMATCH {failure}");
    }
    println!(
        "lifecycles: {}/{} match, as schema 5 (stripped and full) and as schema 6 ({} calls, each also at its count and one below)",
        tally.lifecycles_matched, tally.lifecycles, tally.lifecycle_calls
    );
    println!(
        "span checks: {} recorded, {} impossible (assembled full images carry no node spans)",
        tally.span_checks, tally.spans_impossible
    );
    println!("conformance: {}/{} entrypoints match", tally.matched, tally.total);
    assert!(tally.total > 0, "the corpus holds no entrypoints");
    assert!(tally.lifecycles > 0, "the corpus holds no lifecycles");
    assert!(
        tally.failures.is_empty(),
        "{} of {} entrypoints do not match:\n{}",
        tally.failures.len(),
        tally.total,
        tally.failures.join("\n")
    );
}
