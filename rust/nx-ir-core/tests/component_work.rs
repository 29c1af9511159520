//! Component dispatches held to the work bound (`nx_ir_core::eval::work`): the work counter
//! sees the thaw of what an instance holds and the freeze of the next one, and every dispatch
//! of the fuzz programs' lifecycles, under large and small budgets, stays within
//! `WORK_PER_UNIT` × (operations + input + free copies + 1), the instance's held values counted
//! as input (a dispatch is handed them as it is handed its batch).

use nx_ir_core::error::codes;
use nx_ir_core::eval::component::{apply_component_state_patch, initialize_component, ComponentInit, ComponentInstance};
use nx_ir_core::eval::{last_call_free_copies, last_call_work, HostRecord, HostValue, Limits};
use nx_ir_core::testing::fuzz::{work_bound, Paid};
use nx_ir_core::testing::instances::{
    dispatch_paid, dispatch_within_bound, fuzz_programs, initialize_paid, instance_program, invocation, InstanceProgram,
};

fn budget(operations: u64) -> Limits {
    Limits { max_operations: Some(operations), ..Limits::default() }
}

/// Every token of `instance` with every action, under each budget, within the bound; the
/// instances the largest budget's dispatches gave.
fn dispatch_all(case: &InstanceProgram, instance: &ComponentInstance, checked: &mut u64) -> Vec<ComponentInstance> {
    let mut next = Vec::new();
    for token in instance.tokens().into_iter().take(6) {
        for action in &case.actions {
            let entry = invocation(&token, action);
            for operations in [100_000, 40, 3, 1] {
                let result = dispatch_within_bound(&case.program, instance, &[&entry], &budget(operations));
                *checked += 1;
                if let (Ok((done, _)), 100_000) = (result, operations) {
                    next.push(done.instance);
                }
            }
        }
    }
    next
}

#[test]
fn every_dispatch_of_the_fuzz_programs_lifecycles_keeps_work_within_the_bound() {
    let programs = fuzz_programs();
    assert!(programs.len() >= 2, "the bundled flow and Box did not assemble");
    let mut checked = 0;
    for case in &programs {
        for component in &case.components {
            let (initialized, paid) = initialize_paid(&case.program, component, &[], None, &budget(100_000));
            work_bound(paid).unwrap_or_else(|message| panic!("initializing {component}: {message}"));
            let Ok(init) = initialized else { continue };
            let mut level = vec![init.instance];
            for _ in 0..3 {
                let mut following = Vec::new();
                for instance in &level {
                    following.extend(dispatch_all(case, instance, &mut checked));
                }
                following.truncate(8);
                level = following;
            }
        }
    }
    println!("component dispatches within the work bound: {checked}");
    assert!(checked >= 200, "only {checked} dispatches checked");
}

#[test]
fn a_dispatch_counts_the_thaw_of_the_values_its_instance_holds() {
    // Box's state grows a level a tap (`s = <Wrap next=s />`), and its handler captures it.
    let case = instance_program(&[include_str!("components/box.nxir.txt")], 5, &["Box"], &["Button.Tapped"]).expect("Box assembles");
    let (init, _) = initialize_component(&case.program, "Box", &[], ComponentInit::default(), &budget(100_000)).expect("Box starts");
    let tap = HostValue::Record(HostRecord::new(Some("Button.Tapped")));
    let mut instance = init.instance;
    for _ in 0..250 {
        let entry = invocation(&instance.tokens()[0], &tap);
        let (done, _) = dispatch_within_bound(&case.program, &instance, &[&entry], &budget(100_000)).expect("a tap");
        instance = done.instance;
    }
    // One operation: the dispatch stops at its budget, after thawing 250 levels of state.
    let entry = invocation(&instance.tokens()[0], &tap);
    let (result, paid) = dispatch_paid(&case.program, &instance, &[&entry], &budget(1));
    let error = result.expect_err("one operation is not enough for a tap");
    assert_eq!(error.code(), codes::RESOURCE_LIMIT, "{error}");
    assert!(paid.operations <= 1, "{paid:?}");
    // Each level is a record (a unit) with a field (a unit), thawed once (250 taps: a value may
    // nest 256 levels).
    assert!(paid.work >= 500, "the thaw of 250 levels went uncounted: {paid:?}");
    assert!(paid.input >= 500, "the instance's held values measured {}", paid.input);
    work_bound(paid).expect("within the bound");
}

/// A component of `fields` integer state fields (`s0`, `s1`, ...), whose one handler sets `s0`.
fn wide_component(fields: usize) -> InstanceProgram {
    let mut text = String::from(
        "module wide.nx fingerprint 1\nrequires update-records-v1 property-unions-v1 action-handlers-v1\n\
         entrypoints functions [] components [Button Wide]\n\ncomponent Button external\n  props\n    label: string required\n\
         \x20 emits\n    Tapped = Button.Tapped\n\nrecord Button.Tapped\n\ncomponent Wide\n  state\n",
    );
    for at in 0..fields {
        text.push_str(&format!("    s{at}: int = 0\n"));
    }
    text.push_str(
        "  body =\n    <Button label=\"Set\"\n      onTapped=handler Button.Tapped action@1:Button.Tapped owner Wide =>\n\
         \x20       <Wide.Update s0=1 />\n    >\n    </Button>\n\nrecord Wide.Update update of Wide\n",
    );
    for at in 0..fields {
        text.push_str(&format!("  s{at}: int\n"));
    }
    instance_program(&[&text], 5, &["Wide"], &["Button.Tapped"]).expect("the wide component assembles")
}

#[test]
fn a_dispatch_looks_up_thousands_of_state_fields_in_linear_work() {
    // Each of 8 taps binds the 3,000 state fields in the handler's frame, patches one and
    // normalizes the state; the body's frame takes them again. Found one by one in a scan, the
    // look-ups alone would be 8 × 3,000² = 72,000,000 comparisons, 31 times the bound.
    let case = wide_component(3_000);
    let (init, _) = initialize_component(&case.program, "Wide", &[], ComponentInit::default(), &budget(1_000_000)).expect("Wide starts");
    let tap = HostValue::Record(HostRecord::new(Some("Button.Tapped")));
    let entry = invocation(&init.instance.tokens()[0], &tap);
    let batch: Vec<&HostValue> = (0..8).map(|_| &entry).collect();
    let (result, paid) = dispatch_paid(&case.program, &init.instance, &batch, &budget(1_000_000));
    let (done, _) = result.expect("eight taps");
    assert_eq!(done.instance.tokens().len(), 1);
    work_bound(paid).expect("within the bound");
    // The work is a few units a field for each of the 8 patches, not thousands.
    assert!(paid.work < 8 * 3_000 * 20, "{paid:?}");
}

#[test]
fn a_host_patch_of_thousands_of_state_fields_is_merged_in_linear_work() {
    let case = wide_component(3_000);
    let names: Vec<String> = (0..3_000).map(|at| format!("s{at}")).collect();
    let zero = HostValue::Int(0);
    let current: Vec<(&str, &HostValue)> = names.iter().map(|name| (name.as_str(), &zero)).collect();
    let mut patch = HostRecord::new(Some("Wide.Update"));
    for name in names.iter().rev() {
        patch = patch.with(name, HostValue::Int(1));
    }
    let (state, usage) =
        apply_component_state_patch(&case.program, "Wide", &current, &HostValue::Record(patch), &budget(1_000_000)).expect("patched");
    let HostValue::Record(state) = state else { panic!("a state record") };
    assert_eq!(state.fields.len(), 3_000);
    assert!(state.fields.iter().all(|(_, value)| *value == HostValue::Int(1)));
    // Input: 3,000 fields of current state and 3,000 of patch, each a name and a value.
    let paid = Paid { work: last_call_work(), operations: usage.operations.unwrap_or(0), input: 12_002, free_copies: last_call_free_copies() };
    work_bound(paid).expect("within the bound");
    assert!(paid.work < 6_000 * 20, "{paid:?}");
}

#[test]
fn props_are_told_from_handler_props_among_thousands_of_emits_in_linear_work() {
    // Each `on…` prop is looked up among the component's emits; 3,000 of them against 3,000
    // emits, scanned one by one, would be 9,000,000 comparisons for one call.
    let mut text = String::from(
        "module emits.nx fingerprint 1\nrequires update-records-v1 property-unions-v1 action-handlers-v1\n\
         entrypoints functions [] components [Loud]\n\ncomponent Loud\n  emits\n",
    );
    for at in 0..3_000 {
        text.push_str(&format!("    E{at} = Loud.E{at}\n"));
    }
    text.push_str("  body =\n    1\n");
    for at in 0..3_000 {
        text.push_str(&format!("\nrecord Loud.E{at}\n"));
    }
    let case = instance_program(&[&text], 5, &["Loud"], &[]).expect("the component of 3,000 emits assembles");
    let names: Vec<String> = (0..3_000).map(|at| format!("onX{at}")).collect();
    let one = HostValue::Int(1);
    let props: Vec<(&str, &HostValue)> = names.iter().map(|name| (name.as_str(), &one)).collect();
    let error = initialize_component(&case.program, "Loud", &props, ComponentInit::default(), &budget(1_000_000))
        .expect_err("no emit answers onX0, so it is an unknown prop");
    assert_eq!(error.code(), codes::BOUNDARY_FIELD, "{error}");
    // Input: 3,000 props, each a name and a value.
    let paid = Paid { work: last_call_work(), operations: 0, input: 6_001, free_copies: last_call_free_copies() };
    work_bound(paid).expect("within the bound");
    assert!(paid.work < 3_000 * 20, "{paid:?}");
}

/// The values of every `field` member of the records in `value`, in order.
fn members<'v>(value: &'v HostValue, field: &str, found: &mut Vec<&'v HostValue>) {
    match value {
        HostValue::List(items) => items.iter().for_each(|item| members(item, field, found)),
        HostValue::Record(record) => {
            for (name, member) in &record.fields {
                if name == field {
                    found.push(member);
                } else {
                    members(member, field, found);
                }
            }
        }
        _ => {}
    }
}

#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn a_child_initialized_with_its_parents_handlers_keeps_work_within_the_bound() {
    // The corpus `handlers` program: `Page` renders two `SearchBox`es, each given a handler.
    let programs = fuzz_programs();
    let case = programs.iter().find(|case| case.components.iter().any(|c| c == "Page")).expect("the corpus handlers program");
    let (page, _) = initialize_paid(&case.program, "Page", &[], None, &budget(100_000));
    let page = page.expect("Page starts");
    let mut handlers = Vec::new();
    members(&page.output, "onSearchSubmitted", &mut handlers);
    assert_eq!(handlers.len(), 2, "Page's output: {:?}", page.output);
    for handler in handlers {
        let props = [("onSearchSubmitted", handler)];
        for operations in [100_000, 40, 3, 1] {
            let (result, paid) = initialize_paid(&case.program, "SearchBox", &props, Some(&page.instance), &budget(operations));
            work_bound(paid).unwrap_or_else(|message| panic!("SearchBox under {operations} operations: {message}"));
            assert!(paid.input > 3, "the parent's held values were not counted: {paid:?}");
            if operations == 100_000 {
                result.expect("SearchBox starts with Page's handler");
            }
        }
    }
}
