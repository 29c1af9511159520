//! Nestings that no call depth bounds (a record, union case or component whose default builds it
//! again, one through a loop) and a recursion past a raised call depth, in nx-ir-core and in the
//! reference release of each schema: both must stop at `maxExpressionNesting` (1,000 levels) with
//! the same diagnostics and operations, at every budget up to the count.
//!
//! How much native stack a level takes is each build's own: this test's build of the reference
//! (opt-level 2, no LTO) takes more than 1 MiB for 1,000 levels of a record default, so both
//! engines run with 64 MiB of stack allowed here. The wheel, and the reference built for
//! release, meet the nesting limit within the default 1 MiB (`tests/test_nesting_limit.py`,
//! `oracle/examples/stack_per_level.rs`; docs/runtime-differences.md).

use nx_agent_oracle::engine::{CallLimits, Engine, HostCall, Ours, Reference5, Reference6};
use nx_agent_oracle::outcome::Outcome;
use nx_ir_core::assemble::{assemble_image_with_links, AssembleOptions};

const TEXT: &str = include_str!("../../tests/fixtures/nesting/nesting.nxir.txt");
const STACK_BYTES: usize = 64 << 20;
/// `recursion` calls 5,000 deep: past the default call depth, so the nesting stops it.
const CALL_DEPTH: u32 = 100_000;

fn outcomes<R: Engine>(schema: u32) -> Vec<(String, Outcome, usize)> {
    let options = AssembleOptions { source: None, version: String::new(), schema };
    let image = assemble_image_with_links(TEXT, &options, &[TEXT]).expect("the nesting programs assemble");
    let ours = Ours::program_of(&image).expect("nx-ir-core prepares and links the image");
    let theirs = R::program_of(&image).expect("the reference prepares and links the image");
    let mut checked = Vec::new();
    for function in ["record", "loop", "unionCase", "component", "recursion"] {
        let call = HostCall::Entrypoint { name: function.to_string(), args: vec![] };
        let limits = |max_operations| CallLimits {
            max_operations,
            max_call_depth: Some(CALL_DEPTH),
            max_stack_bytes: Some(STACK_BYTES),
            ..CallLimits::default()
        };
        let ample = Ours::call(&ours, &call, limits(Some(1 << 40)));
        assert_eq!(ample, R::call(&theirs, &call, limits(Some(1 << 40))), "schema {schema} {function}");
        assert_eq!(Ours::call(&ours, &call, limits(None)), R::call(&theirs, &call, limits(None)), "schema {schema} {function}");
        let count = ample.operations.expect("a budgeted call reports its operations");
        for budget in 0..=count {
            let (a, b) = (Ours::call(&ours, &call, limits(Some(budget))), R::call(&theirs, &call, limits(Some(budget))));
            assert_eq!(a, b, "schema {schema} {function} at budget {budget}");
        }
        checked.push((function.to_string(), ample, count as usize + 3));
    }
    checked
}

/// Runs `f` on a thread with room for [`STACK_BYTES`] of evaluation.
fn on_a_large_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(4 * STACK_BYTES).spawn(f).expect("a thread").join().expect("no panic")
}

fn stops_at_the_nesting_limit(checked: &[(String, Outcome, usize)], schema: u32) {
    let mut calls = 0;
    for (function, outcome, made) in checked {
        let diags = outcome.result.as_ref().expect_err("the nesting fails");
        let limit = diags[0].limit.as_ref().expect("the failure names a limit");
        assert_eq!((diags[0].code.as_str(), limit.name.as_str(), limit.value), ("nx-ir-resource-limit", "maxExpressionNesting", Some(1000)), "{function}");
        calls += made;
    }
    println!("oracle nesting schema {schema}: {} programs, {calls} calls, both engines at maxExpressionNesting", checked.len());
}

#[test]
fn schema5_nestings_stop_alike_at_the_nesting_limit() {
    let checked = on_a_large_stack(|| outcomes::<Reference5>(5));
    stops_at_the_nesting_limit(&checked, 5);
}

#[test]
fn schema6_nestings_stop_alike_at_the_nesting_limit() {
    let checked = on_a_large_stack(|| outcomes::<Reference6>(6));
    stops_at_the_nesting_limit(&checked, 6);
}
