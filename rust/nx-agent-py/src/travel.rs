//! Pickling and copying of the native objects. A pickle carries plain data, never a pointer:
//! a prepared module or a program its travel form (`nx_ir_core::travel`: the image bytes, each
//! module's identity and version, the link options, a checksum), `Limits` its four numbers, an
//! `Evaluation` its value and usage, a `Diagnostic` its fields. Unpickling prepares and links
//! again, checking the bytes as any untrusted image; whatever it cannot use (changed bytes, a
//! value of the wrong type) is refused with `NxIrError` (`nx-ir-pickle`, or the reader's, the
//! linker's or the limits' own code), never with another exception.
//!
//! These objects are immutable, so `copy.copy` and `copy.deepcopy` answer the object itself,
//! except an `Evaluation`, whose value is a plain Python value that `deepcopy` copies.

use std::borrow::Cow;

use nx_ir_core::error::{codes, IrError};
use nx_ir_core::eval::Usage;
use nx_ir_core::travel;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::errors::{Diagnostic, IntoPyResult};
use crate::eval::{Evaluation, Limits};
use crate::image::{ModuleLink, PreparedModule};
use crate::program::Program;

fn refused(what: &str, detail: impl std::fmt::Display) -> PyErr {
    Python::attach(|py| {
        crate::errors::to_py_err(py, &IrError::new(codes::PICKLE, format!("The pickled {what} cannot be used: {detail}.")))
    })
}

/// `(restore, (args...))` with `restore` a function of this module.
fn reduce<'py>(py: Python<'py>, restore: &str, args: Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyTuple>> {
    let function = py.import("nx_agent._native")?.getattr(restore)?;
    PyTuple::new(py, [function.into_any(), args.into_any()])
}

fn state_bytes<'a, 'py>(what: &str, state: &'a Bound<'py, PyAny>) -> PyResult<&'a [u8]> {
    state
        .cast::<PyBytes>()
        .map(|bytes| bytes.as_bytes())
        .map_err(|_| refused(what, format_args!("its state is a {}, not bytes", type_name(state))))
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
}

fn extract<'py, T: FromPyObjectOwned<'py>>(what: &str, field: &str, value: &Bound<'py, PyAny>) -> PyResult<T> {
    value
        .extract::<T>()
        .map_err(|_| refused(what, format_args!("its {field} is a {} of the wrong kind", type_name(value))))
}

pub fn reduce_module<'py>(py: Python<'py>, module: &PreparedModule) -> PyResult<Bound<'py, PyTuple>> {
    let state = PyBytes::new(py, &travel::encode_module(&module.inner));
    reduce(py, "_restore_module", PyTuple::new(py, [state])?)
}

/// A prepared module from its pickled state.
#[pyfunction]
pub fn _restore_module(py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<PreparedModule> {
    let bytes = state_bytes("module", state)?;
    let module = py.detach(|| travel::decode_module(bytes)).or_raise(py)?;
    Ok(PreparedModule { inner: module })
}

pub fn reduce_program<'py>(py: Python<'py>, program: &Program) -> PyResult<Bound<'py, PyTuple>> {
    let state = PyBytes::new(py, &travel::encode_program(&program.inner, program.options));
    reduce(py, "_restore_program", PyTuple::new(py, [state])?)
}

/// A program from its pickled state: every image prepared and the program linked again.
#[pyfunction]
pub fn _restore_program(py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<Program> {
    let bytes = state_bytes("program", state)?;
    let (program, options) = py.detach(|| travel::decode_program(bytes)).or_raise(py)?;
    Ok(Program::new(program, options))
}

pub fn reduce_limits<'py>(py: Python<'py>, limits: &Limits) -> PyResult<Bound<'py, PyTuple>> {
    let l = &limits.inner;
    let args = (l.max_operations, l.max_input_size, l.max_call_depth, l.max_range_length, l.max_memory).into_pyobject(py)?;
    reduce(py, "_restore_limits", args)
}

/// `Limits` from its pickled numbers, checked as the constructor checks them (`nx-ir-options`);
/// `max_memory` is absent from what an earlier version pickled (the default then).
#[pyfunction]
#[pyo3(signature = (max_operations, max_input_size, max_call_depth, max_range_length, max_memory=None))]
pub fn _restore_limits(
    py: Python<'_>,
    max_operations: &Bound<'_, PyAny>,
    max_input_size: &Bound<'_, PyAny>,
    max_call_depth: &Bound<'_, PyAny>,
    max_range_length: &Bound<'_, PyAny>,
    max_memory: Option<&Bound<'_, PyAny>>,
) -> PyResult<Limits> {
    let inner =
        Limits::build(Some(max_operations), Some(max_input_size), Some(max_call_depth), Some(max_range_length), max_memory)
            .or_raise(py)?;
    Ok(Limits { inner })
}

pub fn reduce_evaluation<'py>(py: Python<'py>, evaluation: &Evaluation) -> PyResult<Bound<'py, PyTuple>> {
    let usage = &evaluation.usage;
    let args = (evaluation.value.clone_ref(py), usage.operations, usage.input_size).into_pyobject(py)?;
    reduce(py, "_restore_evaluation", args)
}

/// An `Evaluation` from its pickled value and usage.
#[pyfunction]
pub fn _restore_evaluation(
    value: Bound<'_, PyAny>,
    operations: &Bound<'_, PyAny>,
    input_size: &Bound<'_, PyAny>,
) -> PyResult<Evaluation> {
    let usage = Usage {
        operations: extract("evaluation", "operation count", operations)?,
        input_size: extract("evaluation", "input size", input_size)?,
    };
    Ok(Evaluation { value: value.unbind(), usage })
}

/// `copy.deepcopy` of an `Evaluation`: the value copied, the usage kept.
pub fn deepcopy_evaluation(py: Python<'_>, evaluation: &Evaluation, memo: &Bound<'_, PyAny>) -> PyResult<Evaluation> {
    let value = py.import("copy")?.getattr("deepcopy")?.call1((evaluation.value.bind(py), memo))?;
    Ok(Evaluation { value: value.unbind(), usage: evaluation.usage })
}

pub fn reduce_diagnostic<'py>(py: Python<'py>, d: &Diagnostic) -> PyResult<Bound<'py, PyTuple>> {
    let limit = d.limit.as_ref().map(|(name, value)| (name.as_ref(), *value));
    let args = (d.severity, d.code.as_ref(), &d.message, &d.declaration, &d.span, limit, &d.argument).into_pyobject(py)?;
    reduce(py, "_restore_diagnostic", args)
}

/// A `Diagnostic` from its pickled fields.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _restore_diagnostic(
    severity: &Bound<'_, PyAny>,
    code: &Bound<'_, PyAny>,
    message: &Bound<'_, PyAny>,
    declaration: &Bound<'_, PyAny>,
    span: &Bound<'_, PyAny>,
    limit: &Bound<'_, PyAny>,
    argument: &Bound<'_, PyAny>,
) -> PyResult<Diagnostic> {
    const WHAT: &str = "diagnostic";
    let severity = match extract::<String>(WHAT, "severity", severity)?.as_str() {
        "error" => "error",
        "warning" => "warning",
        other => return Err(refused(WHAT, format_args!("its severity is '{other}'"))),
    };
    let limit: Option<(String, u64)> = extract(WHAT, "limit", limit)?;
    Ok(Diagnostic {
        severity,
        code: Cow::Owned(extract(WHAT, "code", code)?),
        message: extract(WHAT, "message", message)?,
        declaration: extract(WHAT, "declaration", declaration)?,
        span: extract(WHAT, "span", span)?,
        limit: limit.map(|(name, value)| (Cow::Owned(name), value)),
        argument: extract(WHAT, "argument", argument)?,
    })
}

pub fn reduce_module_link<'py>(py: Python<'py>, link: &ModuleLink) -> PyResult<Bound<'py, PyTuple>> {
    let args = (&link.identity, &link.version, link.fingerprint).into_pyobject(py)?;
    reduce(py, "_restore_module_link", args)
}

/// A `ModuleLink` from its pickled fields.
#[pyfunction]
pub fn _restore_module_link(
    identity: &Bound<'_, PyAny>,
    version: &Bound<'_, PyAny>,
    fingerprint: &Bound<'_, PyAny>,
) -> PyResult<ModuleLink> {
    const WHAT: &str = "module link";
    Ok(ModuleLink {
        identity: extract(WHAT, "identity", identity)?,
        version: extract(WHAT, "version", version)?,
        fingerprint: extract(WHAT, "fingerprint", fingerprint)?,
    })
}
