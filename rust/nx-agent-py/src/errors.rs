//! The exception hierarchy (`NxError` ⊃ `NxIrError`) and `Diagnostic`, and the conversion of a
//! core `IrError` into a raised `NxIrError` carrying `code` and `diagnostics`.

use std::borrow::Cow;

use nx_ir_core::error::{Diagnostic as CoreDiagnostic, IrError};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

create_exception!(
    nx_agent,
    NxError,
    PyException,
    "Root of every error nx_agent raises; `code` names the failure."
);
create_exception!(
    nx_agent.ir,
    NxIrError,
    NxError,
    "An NX IR image, link or evaluation refused; `code` and `diagnostics` say why."
);

/// One coded finding, as the reference runtimes report it.
#[pyclass(frozen, module = "nx_agent.ir", eq)]
#[derive(Clone, PartialEq)]
pub struct Diagnostic {
    #[pyo3(get)]
    pub(crate) severity: &'static str,
    /// The core's static code, or the code an unpickled diagnostic carried.
    #[pyo3(get)]
    pub(crate) code: Cow<'static, str>,
    #[pyo3(get)]
    pub(crate) message: String,
    /// `identity::name`, where known.
    #[pyo3(get)]
    pub(crate) declaration: Option<String>,
    /// `(identity, start, end)` byte span in the module's source, where the image has one.
    pub(crate) span: Option<(String, u32, u32)>,
    /// `(name, value)` of the limit a resource failure hit.
    pub(crate) limit: Option<(Cow<'static, str>, u64)>,
    #[pyo3(get)]
    pub(crate) argument: Option<String>,
}

impl From<&CoreDiagnostic> for Diagnostic {
    fn from(d: &CoreDiagnostic) -> Self {
        Diagnostic {
            severity: d.severity.as_str(),
            code: Cow::Borrowed(d.code),
            message: d.message.clone(),
            declaration: d.declaration.clone(),
            span: d.source.as_ref().map(|s| (s.identity.clone(), s.start, s.end)),
            limit: d.limit.as_ref().map(|l| (Cow::Borrowed(l.name), l.value)),
            argument: d.argument.clone(),
        }
    }
}

#[pymethods]
impl Diagnostic {
    /// `{"identity", "start", "end"}` or None.
    #[getter]
    fn span<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.span
            .as_ref()
            .map(|(identity, start, end)| {
                let d = PyDict::new(py);
                d.set_item("identity", identity)?;
                d.set_item("start", start)?;
                d.set_item("end", end)?;
                Ok(d)
            })
            .transpose()
    }

    /// `{"name", "value"}` or None.
    #[getter]
    fn limit<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.limit
            .as_ref()
            .map(|(name, value)| {
                let d = PyDict::new(py);
                d.set_item("name", name)?;
                d.set_item("value", value)?;
                Ok(d)
            })
            .transpose()
    }

    /// The diagnostic as a JSON-ready dict, keys present only where known.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("severity", self.severity)?;
        d.set_item("code", &self.code)?;
        d.set_item("message", &self.message)?;
        if let Some(declaration) = &self.declaration {
            d.set_item("declaration", declaration)?;
        }
        if let Some(span) = self.span(py)? {
            d.set_item("source", span)?;
        }
        if let Some(limit) = self.limit(py)? {
            d.set_item("limit", limit)?;
        }
        if let Some(argument) = &self.argument {
            d.set_item("argument", argument)?;
        }
        Ok(d)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        crate::travel::reduce_diagnostic(py, self)
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    fn __repr__(&self) -> String {
        format!("Diagnostic(code={:?}, message={:?})", self.code, self.message)
    }
}

/// The raised form of a core error: `NxIrError(message)` with `code` and `diagnostics` set.
pub fn to_py_err(py: Python<'_>, error: &IrError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let exception = py.get_type::<NxIrError>().call1((error.message().to_owned(),))?;
        exception.setattr("code", error.code())?;
        let diagnostics = error
            .diagnostics
            .iter()
            .map(|d| Py::new(py, Diagnostic::from(d)))
            .collect::<PyResult<Vec<_>>>()?;
        exception.setattr("diagnostics", PyTuple::new(py, diagnostics)?)?;
        Ok(PyErr::from_value(exception))
    };
    build().unwrap_or_else(|e| e)
}

/// `Result<T, IrError>` → `PyResult<T>`.
pub trait IntoPyResult<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, IrError> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py_err(py, &e))
    }
}
