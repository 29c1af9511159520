//! `explain` and `assemble`: the text form of an image.

use nx_ir_core::assemble::{assemble_image_with_links, AssembleOptions};
use nx_ir_core::explain::{explain_image_within, explain_module_within, DEFAULT_MAX_OUTPUT};
use nx_ir_core::model::kinds;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::IntoPyResult;
use crate::image::{image_owner, PreparedModule};
use crate::room::with_room;

/// Renders a prepared module or image bytes as `nxlang ir explain` does, in at most about
/// `max_output` bytes of text (default 64 MiB): an image whose nodes or types are shared (a DAG)
/// can describe far more, and fails `nx-ir-resource-limit` with limit `maxOutput` past it.
#[pyfunction]
#[pyo3(signature = (module_or_bytes, *, max_output=DEFAULT_MAX_OUTPUT))]
pub fn explain(py: Python<'_>, module_or_bytes: &Bound<'_, PyAny>, max_output: u64) -> PyResult<String> {
    if let Ok(module) = module_or_bytes.cast::<PreparedModule>() {
        let inner = &module.get().inner;
        return py.detach(|| with_room(|| explain_module_within(&inner.to_model(), max_output))).or_raise(py);
    }
    let owner = image_owner(module_or_bytes)?;
    py.detach(|| with_room(|| explain_image_within((*owner).as_ref(), max_output))).or_raise(py)
}

/// Builds an image of `schema` (5 or 6; the text does not say) from explain text; with `source`,
/// spans in the text become the debug section. `version` is the module's own version, which the
/// text does not show. `links` are the explain texts of the modules this one links to: the text
/// alone cannot tell a record from a component, a union case from a member, or a loop over a
/// `Range` from one over a list in another module, so without them those are guessed from their
/// spelling. See `AssembleOptions::schema` for the default.
#[pyfunction]
#[pyo3(signature = (text, *, source=None, version=String::new(), links=Vec::new(), schema=kinds::LATEST_SCHEMA))]
pub fn assemble<'py>(
    py: Python<'py>,
    text: &str,
    source: Option<String>,
    version: String,
    links: Vec<String>,
    schema: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let options = AssembleOptions { source, version, schema };
    let links: Vec<&str> = links.iter().map(String::as_str).collect();
    let image = py.detach(|| with_room(|| assemble_image_with_links(text, &options, &links))).or_raise(py)?;
    Ok(PyBytes::new(py, &image))
}
