//! `link_program`, `prepare_program` and `Program`: prepared modules linked by name.

use std::sync::{Arc, Mutex, OnceLock};

use nx_ir_core::error::{codes, IrError};
use nx_ir_core::image::PreparedModule as CoreModule;
use nx_ir_core::eval::{CompiledProgram, Entrypoint, FunctionHandle};
use nx_ir_core::link::{LinkOptions, Program as CoreProgram};
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyMapping, PyString, PyTuple};

use crate::errors::IntoPyResult;
use crate::room::with_room;
use crate::eval::Compiled;
use crate::image::{image_owner, PreparedModule};
use crate::sink::TextCache;

/// Prepared modules linked into one program, entry first. Immutable and shareable across
/// threads.
#[pyclass(frozen, module = "nx_agent.ir")]
pub struct Program {
    pub inner: Arc<CoreProgram>,
    /// The options it was linked with: a pickle links it again with the same ones.
    pub options: LinkOptions,
    /// The evaluator's compiled form, built on the first call and shared by every later one.
    compiled: OnceLock<Result<Compiled, IrError>>,
    /// Python strings for the compiled program's names and literals, made on the first call.
    texts: PyOnceLock<TextCache>,
    /// The function of the last plain `Function` record called, by its module and name strings.
    last_function: LastResolved<2, FunctionHandle>,
    /// The last entrypoint called, by its name string.
    last_entrypoint: LastResolved<1, Entrypoint>,
}

/// What the last strings given resolved to, kept by the strings' identity: they are held here,
/// so a string at the same address is the very same (unchanging) string.
struct LastResolved<const N: usize, V> {
    last: Mutex<Option<([Py<PyString>; N], V)>>,
}

impl<const N: usize, V: Copy> LastResolved<N, V> {
    fn new() -> Self {
        LastResolved { last: Mutex::new(None) }
    }

    /// The value kept for `keys`, or `resolve`'s, kept in its place when there is one. A call
    /// that finds the cache in use (another thread's) resolves on its own.
    fn get_or(&self, keys: [&Bound<'_, PyString>; N], resolve: impl FnOnce() -> Option<V>) -> Option<V> {
        let mut last = self.last.try_lock().ok();
        if let Some(Some((held, value))) = last.as_deref() {
            if held.iter().zip(keys).all(|(held, key)| held.as_ptr() == key.as_ptr()) {
                return Some(*value);
            }
        }
        let value = resolve()?;
        if let Some(last) = last.as_deref_mut() {
            *last = Some((keys.map(|key| key.clone().unbind()), value));
        }
        Some(value)
    }
}

impl Program {
    pub fn new(inner: CoreProgram, options: LinkOptions) -> Self {
        Program { inner: Arc::new(inner), options, compiled: OnceLock::new(), texts: PyOnceLock::new(),
            last_function: LastResolved::new(),
            last_entrypoint: LastResolved::new(),
        }
    }

    /// The compiled form: compiled on the first call (with the GIL released), then shared.
    pub fn compiled(&self, py: Python<'_>) -> PyResult<&Compiled> {
        let compiled = match self.compiled.get() {
            Some(compiled) => compiled,
            None => py.detach(|| self.compiled.get_or_init(|| CompiledProgram::compile(&*self.inner).map(Arc::new))),
        };
        compiled.as_ref().map_err(|error| crate::errors::to_py_err(py, error))
    }

    /// The function named by the strings `module` and `name`, resolved in `compiled` (this
    /// program's compiled form), or by the last call that gave these very strings.
    pub fn function_handle(
        &self,
        compiled: &Compiled,
        module: &Bound<'_, PyString>,
        name: &Bound<'_, PyString>,
    ) -> Option<FunctionHandle> {
        self.last_function.get_or([module, name], || {
            compiled.function_handle(module.to_str().ok()?, name.to_str().ok()?).ok()
        })
    }

    /// The function entrypoint named by the string `name` (of text `text`), found in `compiled`
    /// (this program's compiled form), or by the last call that gave this very string; `None`
    /// when there is none of that name.
    pub fn entrypoint(&self, compiled: &Compiled, name: &Bound<'_, PyString>, text: &str) -> Option<Entrypoint> {
        self.last_entrypoint.get_or([name], || compiled.entrypoint(text).ok())
    }

    /// The Python strings of `compiled` (this program's compiled form).
    pub fn texts(&self, py: Python<'_>, compiled: &Compiled) -> &TextCache {
        self.texts.get_or_init(py, || TextCache::new(py, compiled))
    }
}

pub fn wrap(module: &Arc<CoreModule>) -> PreparedModule {
    PreparedModule { inner: Arc::clone(module) }
}

#[pymethods]
impl Program {
    /// The entry module.
    #[getter]
    fn entry(&self) -> PreparedModule {
        wrap(self.inner.entry())
    }

    /// Every linked module, entry first, in link order.
    #[getter]
    fn modules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let modules = self.inner.modules().iter().map(|m| Py::new(py, wrap(m)));
        PyTuple::new(py, modules.collect::<PyResult<Vec<_>>>()?)
    }

    /// The linked module with this identity, or None.
    fn module(&self, identity: &str) -> Option<PreparedModule> {
        self.inner.module(identity).map(wrap)
    }

    /// The options it was linked with.
    #[getter]
    fn allow_version_mismatch(&self) -> bool {
        self.options.allow_version_mismatch
    }

    /// Pickled as its travel form (`nx_ir_core::travel`); unpickling prepares and links again.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        crate::travel::reduce_program(py, self)
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    fn __repr__(&self) -> String {
        let names: Vec<&str> = self.inner.modules().iter().map(|m| m.identity()).collect();
        format!("Program(modules={names:?})")
    }
}

/// What `resolve` is: nothing, a mapping from identity to module, or a callable.
enum Resolver<'py> {
    Nothing,
    Mapping(Bound<'py, PyMapping>),
    Callable(Bound<'py, PyAny>),
}

impl<'py> Resolver<'py> {
    fn new(resolve: Option<Bound<'py, PyAny>>) -> PyResult<Self> {
        match resolve {
            None => Ok(Resolver::Nothing),
            Some(r) if r.is_none() => Ok(Resolver::Nothing),
            Some(r) => match r.cast_into::<PyMapping>() {
                Ok(mapping) => Ok(Resolver::Mapping(mapping)),
                Err(e) => {
                    let r = e.into_inner();
                    if r.is_callable() {
                        Ok(Resolver::Callable(r))
                    } else {
                        Err(PyTypeError::new_err(
                            "resolve is a mapping from identity to PreparedModule, or a callable",
                        ))
                    }
                }
            },
        }
    }

    fn resolve(&self, identity: &str) -> PyResult<Option<Arc<CoreModule>>> {
        let found = match self {
            Resolver::Nothing => return Ok(None),
            Resolver::Mapping(mapping) => match mapping.get_item(identity) {
                Ok(value) => value,
                Err(e) if e.is_instance_of::<PyKeyError>(mapping.py()) => return Ok(None),
                Err(e) => return Err(e),
            },
            Resolver::Callable(function) => function.call1((identity,))?,
        };
        if found.is_none() {
            return Ok(None);
        }
        let module = found.cast::<PreparedModule>().map_err(|_| {
            PyTypeError::new_err(format!(
                "the resolver gave {} for '{identity}', not a PreparedModule or None",
                found.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            ))
        })?;
        Ok(Some(Arc::clone(&module.get().inner)))
    }
}

/// Links `entry` against the modules `resolve` supplies (a mapping from identity to
/// `PreparedModule`, or a callable returning one or None), at any depth. The prelude is built in.
#[pyfunction]
#[pyo3(signature = (entry, resolve=None, *, allow_version_mismatch=false))]
pub fn link_program(
    py: Python<'_>,
    entry: &PreparedModule,
    resolve: Option<Bound<'_, PyAny>>,
    allow_version_mismatch: bool,
) -> PyResult<Program> {
    let resolver = Resolver::new(resolve)?;
    let mut raised: Option<PyErr> = None;
    let mut resolve = |identity: &str| match resolver.resolve(identity) {
        Ok(found) => Ok(found),
        Err(e) => {
            raised = Some(e);
            Err(IrError::new(codes::LINK_MISSING_MODULE, "the resolver raised"))
        }
    };
    let options = LinkOptions { allow_version_mismatch };
    let linked = CoreProgram::link(Arc::clone(&entry.inner), &mut resolve, options);
    if let Some(e) = raised {
        return Err(e);
    }
    Ok(Program::new(linked.or_raise(py)?, options))
}

/// Prepares an image that names only itself (and the prelude) and links it.
#[pyfunction]
pub fn prepare_program(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Program> {
    let owner = image_owner(data)?;
    let program = py
        .detach(|| {
            with_room(|| CoreModule::prepare(owner).and_then(|m| CoreProgram::prepare_self_contained(Arc::new(m))))
        })
        .or_raise(py)?;
    Ok(Program::new(program, LinkOptions::default()))
}

/// The built-in `@nx/prelude.nx` image of `schema` (5 or 6), prepared once per process. A
/// program gets the one of its entry module's schema.
#[pyfunction]
#[pyo3(signature = (*, schema=nx_ir_core::model::kinds::LATEST_SCHEMA))]
pub fn builtin_prelude(py: Python<'_>, schema: u32) -> PyResult<PreparedModule> {
    Ok(wrap(&nx_ir_core::prelude::builtin(schema).or_raise(py)?))
}
