//! The cost profiler's two calls (`nx_agent.profile` builds on them): ask for the next evaluation
//! on this thread to be profiled, and take its profile as plain Python data.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use nx_ir_core::eval::profile;

/// Profiles the next evaluation started on this thread (`_take_profile` hands it back).
#[pyfunction]
pub fn _profile_next() {
    profile::profile_next_call();
}

/// The profile of the evaluation `_profile_next` asked for, as a dict (`None` when none ran);
/// withdraws a request not yet used.
#[pyfunction]
pub fn _take_profile(py: Python<'_>) -> PyResult<Option<Bound<'_, PyDict>>> {
    let Some(found) = profile::take_profile() else { return Ok(None) };
    let out = PyDict::new(py);
    out.set_item("total", found.total)?;
    let totals = found.frame_totals();
    let frames = PyList::empty(py);
    for (frame, total) in found.frames.iter().zip(&totals) {
        let item = PyDict::new(py);
        item.set_item("parent", frame.parent)?;
        item.set_item("declaration", &frame.declaration)?;
        item.set_item("kind", frame.kind)?;
        item.set_item("self", frame.self_ops)?;
        item.set_item("total", *total)?;
        item.set_item("calls", frame.calls)?;
        frames.append(item)?;
    }
    out.set_item("frames", frames)?;
    let declarations = PyList::empty(py);
    for cost in found.declarations() {
        let item = PyDict::new(py);
        item.set_item("declaration", cost.declaration)?;
        item.set_item("kind", cost.kind)?;
        item.set_item("self", cost.self_ops)?;
        item.set_item("total", cost.total)?;
        item.set_item("calls", cost.calls)?;
        declarations.append(item)?;
    }
    out.set_item("declarations", declarations)?;
    let kinds = PyList::empty(py);
    for cost in &found.kinds {
        let item = PyDict::new(py);
        item.set_item("kind", cost.kind)?;
        item.set_item("count", cost.count)?;
        item.set_item("operations", cost.operations)?;
        kinds.append(item)?;
    }
    out.set_item("kinds", kinds)?;
    match &found.ran_out {
        Some(ran_out) => {
            let item = PyDict::new(py);
            item.set_item("frame", ran_out.frame)?;
            item.set_item("path", found.path(ran_out.frame))?;
            item.set_item("node_kind", ran_out.node_kind)?;
            item.set_item("requested", ran_out.requested)?;
            out.set_item("ran_out", item)?;
        }
        None => out.set_item("ran_out", py.None())?,
    }
    Ok(Some(out))
}
