//! `prepare_module` and `PreparedModule`: a validated image, holding the caller's `bytes` object
//! without a copy.

use std::sync::Arc;

use nx_ir_core::image::{ImageOwner, PreparedModule as CoreModule};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView, PyTuple};

use crate::errors::IntoPyResult;
use crate::room::with_room;

/// An immutable `bytes` object borrowed in place: CPython never moves or changes its contents,
/// and the held reference keeps it alive for as long as the prepared module lives.
struct BytesOwner {
    _object: Py<PyBytes>,
    data: *const u8,
    len: usize,
}

// SAFETY: the pointed-to bytes belong to an immutable `bytes` object kept alive by `_object`;
// reading them needs no interpreter state, so any thread may do it.
unsafe impl Send for BytesOwner {}
unsafe impl Sync for BytesOwner {}

impl AsRef<[u8]> for BytesOwner {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: see the `Send`/`Sync` note: the buffer is alive and never written.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }
}

/// The image behind `data`: `bytes` in place, any other byte buffer copied once into a new
/// `bytes` (a mutable buffer could change after validation). The stable ABI of Python 3.10 has no
/// buffer API, so the copy goes through `memoryview`.
pub fn image_owner(data: &Bound<'_, PyAny>) -> PyResult<ImageOwner> {
    let bytes = match data.cast::<PyBytes>() {
        Ok(bytes) => bytes.clone(),
        Err(_) => {
            let view = PyMemoryView::from(data).map_err(|_| {
                let kind = data.get_type().name().map(|n| n.to_string()).unwrap_or_default();
                PyTypeError::new_err(format!(
                    "an NX IR image is bytes, bytearray or another byte buffer, not {kind}"
                ))
            })?;
            view.call_method0("tobytes")?.cast_into::<PyBytes>()?
        }
    };
    let slice = bytes.as_bytes();
    Ok(Arc::new(BytesOwner { data: slice.as_ptr(), len: slice.len(), _object: bytes.unbind() }))
}

/// Validates a whole NX IR image and returns it prepared; raises `NxIrError` on any defect.
#[pyfunction]
pub fn prepare_module(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<PreparedModule> {
    let owner = image_owner(data)?;
    let module = py.detach(|| with_room(|| CoreModule::prepare(owner))).or_raise(py)?;
    Ok(PreparedModule { inner: Arc::new(module) })
}

/// A module another module's table names: its identity, the version recorded for it and its
/// fingerprint.
#[pyclass(frozen, eq, module = "nx_agent.ir")]
#[derive(Clone, PartialEq)]
pub struct ModuleLink {
    #[pyo3(get)]
    pub(crate) identity: String,
    #[pyo3(get)]
    pub(crate) version: String,
    #[pyo3(get)]
    pub(crate) fingerprint: u64,
}

#[pymethods]
impl ModuleLink {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        crate::travel::reduce_module_link(py, self)
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    fn __repr__(&self) -> String {
        format!(
            "ModuleLink(identity={:?}, version={:?}, fingerprint={})",
            self.identity, self.version, self.fingerprint
        )
    }
}

/// A validated NX IR image. Immutable and shareable across threads and programs.
#[pyclass(frozen, module = "nx_agent.ir")]
pub struct PreparedModule {
    pub inner: Arc<CoreModule>,
}

#[pymethods]
impl PreparedModule {
    /// The schema the image is written in: 5 (NX 0.7) or 6 (NX 0.8 to 0.10).
    #[getter]
    fn schema(&self) -> u32 {
        self.inner.schema()
    }

    #[getter]
    fn identity(&self) -> &str {
        self.inner.identity()
    }

    #[getter]
    fn version(&self) -> &str {
        self.inner.version()
    }

    #[getter]
    fn fingerprint(&self) -> u64 {
        self.inner.fingerprint()
    }

    /// The module table after slot 0: the modules this image names directly.
    #[getter]
    fn links<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let links = self.inner.links().into_iter().map(|link| ModuleLink {
            identity: link.identity.to_string(),
            version: link.version.to_string(),
            fingerprint: link.fingerprint,
        });
        PyTuple::new(py, links.map(|l| Py::new(py, l)).collect::<PyResult<Vec<_>>>()?)
    }

    /// Names of the function entrypoints, in declaration order.
    #[getter]
    fn functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.function_entrypoints())
    }

    /// Names of the component entrypoints, in declaration order.
    #[getter]
    fn components<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.component_entrypoints())
    }

    /// Every declaration as plain data (dicts in declaration order; see `nx_agent.schema`).
    /// The core reads them once per prepared module.
    fn declarations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        crate::declarations::to_python(py, &self.inner.declarations())
    }

    /// The module's source text, where the image carries its debug section.
    #[getter]
    fn source(&self) -> Option<&str> {
        self.inner.source()
    }

    #[getter]
    fn has_debug_info(&self) -> bool {
        self.inner.has_debug_info()
    }

    /// The image's size in bytes.
    #[getter]
    fn size(&self) -> usize {
        self.inner.bytes().len()
    }

    /// The image bytes (a copy).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.bytes())
    }

    /// The image as `nxlang ir explain` renders it.
    fn explain(&self, py: Python<'_>) -> PyResult<String> {
        let inner = &self.inner;
        py.detach(|| with_room(|| nx_ir_core::explain::explain_module(&inner.to_model()))).or_raise(py)
    }

    /// Pickled as its travel form (`nx_ir_core::travel`); unpickling prepares the image again.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        crate::travel::reduce_module(py, self)
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    fn __repr__(&self) -> String {
        format!(
            "PreparedModule(identity={:?}, version={:?}, size={})",
            self.inner.identity(),
            self.inner.version(),
            self.inner.bytes().len()
        )
    }
}
