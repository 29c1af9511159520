//! `nx_agent._native`: thin PyO3 bindings over `nx-ir-core`. Every type and rule lives in the
//! core crate; this crate only converts between Python objects and core values, releases the GIL
//! around pure-Rust work, and turns core errors into `NxIrError`.

use pyo3::prelude::*;

mod alloc;
mod arenas;
mod component;
mod declarations;
mod errors;
mod eval;
mod image;
mod interrupt;
mod profile;
mod program;
mod room;
mod sink;
mod text;
mod travel;

#[global_allocator]
static ALLOCATOR: alloc::Allocator = alloc::Allocator;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("NxError", py.get_type::<errors::NxError>())?;
    m.add("NxIrError", py.get_type::<errors::NxIrError>())?;
    m.add_class::<errors::Diagnostic>()?;
    m.add_class::<image::PreparedModule>()?;
    m.add_class::<image::ModuleLink>()?;
    m.add_class::<program::Program>()?;
    m.add_class::<eval::Limits>()?;
    m.add_class::<eval::Evaluation>()?;
    m.add_function(wrap_pyfunction!(image::prepare_module, m)?)?;
    m.add_function(wrap_pyfunction!(program::link_program, m)?)?;
    m.add_function(wrap_pyfunction!(program::prepare_program, m)?)?;
    m.add_function(wrap_pyfunction!(program::builtin_prelude, m)?)?;
    m.add_function(wrap_pyfunction!(text::explain, m)?)?;
    m.add_function(wrap_pyfunction!(eval::evaluate_function, m)?)?;
    m.add_function(wrap_pyfunction!(eval::call_function, m)?)?;
    m.add_function(wrap_pyfunction!(eval::measure_input_size, m)?)?;
    m.add_function(wrap_pyfunction!(eval::_evaluate_discarding, m)?)?;
    m.add_function(wrap_pyfunction!(eval::_last_call_work, m)?)?;
    m.add_function(wrap_pyfunction!(eval::_last_measure_work, m)?)?;
    m.add_function(wrap_pyfunction!(alloc::_allocator, m)?)?;
    m.add_function(wrap_pyfunction!(alloc::_allocator_check, m)?)?;
    m.add_function(wrap_pyfunction!(alloc::_allocator_arena, m)?)?;
    m.add_function(wrap_pyfunction!(arenas::keep_python_arenas, m)?)?;
    m.add_function(wrap_pyfunction!(arenas::_kept_arena_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(profile::_profile_next, m)?)?;
    m.add_function(wrap_pyfunction!(profile::_take_profile, m)?)?;
    m.add_function(wrap_pyfunction!(text::assemble, m)?)?;
    m.add_function(wrap_pyfunction!(travel::_restore_module, m)?)?;
    m.add_function(wrap_pyfunction!(travel::_restore_program, m)?)?;
    m.add_function(wrap_pyfunction!(travel::_restore_limits, m)?)?;
    m.add_function(wrap_pyfunction!(travel::_restore_evaluation, m)?)?;
    m.add_function(wrap_pyfunction!(travel::_restore_diagnostic, m)?)?;
    m.add_function(wrap_pyfunction!(travel::_restore_module_link, m)?)?;
    m.add_class::<component::ComponentInstance>()?;
    m.add_class::<component::Initialized>()?;
    m.add_class::<component::Dispatched>()?;
    m.add_function(wrap_pyfunction!(component::construct_component_descriptor, m)?)?;
    m.add_function(wrap_pyfunction!(component::initialize_component, m)?)?;
    m.add_function(wrap_pyfunction!(component::evaluate_component, m)?)?;
    m.add_function(wrap_pyfunction!(component::dispatch_component_actions, m)?)?;
    m.add_function(wrap_pyfunction!(component::normalize_component_state, m)?)?;
    m.add_function(wrap_pyfunction!(component::apply_component_state_patch, m)?)?;
    m.add_function(wrap_pyfunction!(component::restore_component_instance, m)?)?;
    m.add_function(wrap_pyfunction!(component::apply_update, m)?)?;
    m.add_function(wrap_pyfunction!(component::merge_updates, m)?)?;
    m.add_function(wrap_pyfunction!(component::diff_records, m)?)?;
    m.add_function(wrap_pyfunction!(component::changed_fields, m)?)?;
    Ok(())
}
