//! Components from Python: descriptors, initialize, evaluate, dispatch, state, stored
//! instances, and the update helpers. Every rule is the core's (`nx_ir_core::eval::component`);
//! this converts Python values to host values (as `evaluate_function` does), runs the call with
//! the GIL held until it runs long, and writes results straight into Python objects.

use nx_ir_core::error::{codes, IrError};
use nx_ir_core::eval::component::{self as core, stored, update, ComponentInit};
use nx_ir_core::eval::{HostCall, HostValue, LongRun, Usage};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::errors::{to_py_err, IntoPyResult};
use crate::eval::{call_limits, read_value, usage_dict, Compiled, Evaluation, Limits};
use crate::interrupt::{interrupted, LongRunHook};
use crate::program::Program;
use crate::room::with_room;
use crate::sink::{GilRelease, PySink, LONG_RUN};

/// A component instance: what `dispatch_component_actions` runs a batch against. Never
/// changed (a dispatch returns the next one); shareable between threads. `to_bytes()` and
/// `to_json()` write it for a store; `restore_component_instance` reads it back in any process.
#[pyclass(frozen, module = "nx_agent.ir")]
pub struct ComponentInstance {
    inner: core::ComponentInstance,
    program: Py<Program>,
}

#[pymethods]
impl ComponentInstance {
    /// The component's name.
    #[getter]
    fn component(&self) -> &str {
        self.inner.component()
    }

    /// The render generation the handler tokens belong to (`h<generation>-<n>`).
    #[getter]
    fn generation(&self) -> u64 {
        self.inner.generation()
    }

    /// The handler tokens of the latest rendered output, in order.
    #[getter]
    fn tokens(&self) -> Vec<String> {
        self.inner.tokens()
    }

    /// The program the instance belongs to.
    #[getter]
    fn program(&self, py: Python<'_>) -> Py<Program> {
        self.program.clone_ref(py)
    }

    /// The instance as bytes (compact), for `restore_component_instance`.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let program = self.program.get();
        let compiled = program.compiled(py)?;
        let bytes = py.detach(|| with_room(|| self.inner.to_bytes(compiled))).or_raise(py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The instance as JSON text, for `restore_component_instance`.
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        let program = self.program.get();
        let compiled = program.compiled(py)?;
        py.detach(|| with_room(|| self.inner.to_json(compiled))).or_raise(py)
    }

    /// Pickled as its program and stored bytes; unpickling is `restore_component_instance`, with
    /// every check it makes.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let bytes = self.to_bytes(py)?;
        let function = py.import("nx_agent._native")?.getattr("restore_component_instance")?;
        let args = pyo3::types::PyTuple::new(py, [self.program.clone_ref(py).into_bound(py).into_any(), bytes.into_any()])?;
        pyo3::types::PyTuple::new(py, [function.into_any(), args.into_any()])
    }

    fn __repr__(&self) -> String {
        format!("ComponentInstance(component={:?}, generation={})", self.inner.component(), self.inner.generation())
    }
}

/// What `initialize_component` returns.
#[pyclass(frozen, module = "nx_agent.ir")]
pub struct Initialized {
    /// The rendered output; each handler carries its token (`h1-n`).
    #[pyo3(get)]
    output: Py<PyAny>,
    /// The state, a dict of the state's fields.
    #[pyo3(get)]
    state: Py<PyAny>,
    #[pyo3(get)]
    instance: Py<ComponentInstance>,
    usage: Usage,
}

/// What `dispatch_component_actions` returns.
#[pyclass(frozen, module = "nx_agent.ir")]
pub struct Dispatched {
    /// The body rendered against the next state, with the next generation's tokens.
    #[pyo3(get)]
    output: Py<PyAny>,
    /// What the handlers returned for the host, in order (a list).
    #[pyo3(get)]
    effects: Py<PyAny>,
    #[pyo3(get)]
    state: Py<PyAny>,
    /// The next instance (the one dispatched against is unchanged).
    #[pyo3(get)]
    instance: Py<ComponentInstance>,
    usage: Usage,
}

macro_rules! usage_getters {
    ($class:ident) => {
        #[pymethods]
        impl $class {
            /// `{"operations": n}` when a budget was set, `{"input_size": n}` when an input limit was.
            #[getter]
            fn usage<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
                usage_dict(py, &self.usage)
            }

            #[getter]
            fn operations(&self) -> Option<u64> {
                self.usage.operations
            }

            #[getter]
            fn input_size(&self) -> Option<u64> {
                self.usage.input_size
            }

            fn __repr__(&self, py: Python<'_>) -> String {
                format!(concat!(stringify!($class), "(output={}, usage={:?})"), self.output.bind(py), self.usage)
            }
        }
    };
}

usage_getters!(Initialized);
usage_getters!(Dispatched);

/// A map argument (props, a state): a dict, read as a host record whose `$type` (when a
/// string) is put back as the member it was; `None` is the empty map.
fn read_map(value: Option<&Bound<'_, PyAny>>, what: &str) -> Result<Vec<(String, HostValue)>, IrError> {
    let Some(value) = value.filter(|v| !v.is_none()) else { return Ok(Vec::new()) };
    if !value.is_instance_of::<PyDict>() {
        return Err(IrError::new(codes::BOUNDARY_TYPE, format!("{what} must be a dict.")));
    }
    match read_value(value, || what.to_string())? {
        HostValue::Record(record) => {
            let mut fields = record.fields;
            if let Some(type_name) = record.type_name {
                fields.push(("$type".to_string(), HostValue::Str(type_name)));
            }
            Ok(fields)
        }
        _ => Err(IrError::new(codes::BOUNDARY_TYPE, format!("{what} must be a dict."))),
    }
}

/// A list argument (content, a batch): a list or tuple of host values.
fn read_list(value: Option<&Bound<'_, PyAny>>, what: &str) -> Result<Vec<HostValue>, IrError> {
    let Some(value) = value.filter(|v| !v.is_none()) else { return Ok(Vec::new()) };
    match read_value(value, || what.to_string())? {
        HostValue::List(items) if value.is_instance_of::<PyList>() || value.is_instance_of::<pyo3::types::PyTuple>() => Ok(items),
        _ => Err(IrError::new(codes::BOUNDARY_TYPE, format!("{what} must be a list."))),
    }
}

fn pairs(map: &[(String, HostValue)]) -> Vec<(&str, &HostValue)> {
    map.iter().map(|(k, v)| (k.as_str(), v)).collect()
}

/// Runs one core call writing into Python objects: the GIL held until the call runs long
/// (then released, and taken back before anything is written), failures raised with the
/// call's usage attached.
fn run<'py, R>(
    py: Python<'py>,
    program: &Program,
    compiled: &Compiled,
    call: impl FnOnce(&mut PySink<'_, 'py>, HostCall<'_>, &mut Usage) -> Result<R, IrError>,
) -> PyResult<(R, Usage)> {
    let texts = program.texts(py, compiled);
    let gil = GilRelease::new(py);
    let long_run = LongRunHook::new(py, &gil);
    let hook = || long_run.run();
    let host = HostCall { long_run: Some(LongRun { after: LONG_RUN, hook: &hook }), args_size: None };
    let mut sink = PySink::new(py, &gil, texts);
    let mut usage = Usage::default();
    let result = call(&mut sink, host, &mut usage);
    gil.reacquire();
    if let Some(raised) = sink.raised.take() {
        return Err(raised);
    }
    let signal = long_run.take_raised();
    match result {
        Ok(value) => Ok((value, usage)),
        Err(error) => {
            let raised = to_py_err(py, &error);
            raised.value(py).setattr("usage", usage_dict(py, &usage)?)?;
            match signal {
                Some(signal) => Err(interrupted(py, signal, Some(raised))),
                None => Err(raised),
            }
        }
    }
}

type LimitArgs<'a, 'py> = (
    Option<PyRef<'a, Limits>>,
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyAny>>,
);

/// A call's limits from `limits=` or the keywords, as `evaluate_function` reads them.
fn limits_of(py: Python<'_>, (limits, ops, size, depth, range, memory): LimitArgs<'_, '_>) -> PyResult<nx_ir_core::eval::Limits> {
    call_limits(limits.as_deref(), ops.as_ref(), size.as_ref(), depth.as_ref(), range.as_ref(), memory.as_ref()).or_raise(py)
}

fn instance_of(py: Python<'_>, program: &Bound<'_, Program>, inner: core::ComponentInstance) -> PyResult<Py<ComponentInstance>> {
    Py::new(py, ComponentInstance { inner, program: program.clone().unbind() })
}

/// Constructs a component's descriptor from props and content, as an element in a body would.
#[pyfunction]
#[pyo3(signature = (program, name, props=None, content=None, *, limits=None, max_operations=None, max_input_size=None, max_call_depth=None, max_range_length=None, max_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn construct_component_descriptor(
    py: Python<'_>,
    program: &Bound<'_, Program>,
    name: &str,
    props: Option<Bound<'_, PyAny>>,
    content: Option<Bound<'_, PyAny>>,
    limits: Option<PyRef<'_, Limits>>,
    max_operations: Option<Bound<'_, PyAny>>,
    max_input_size: Option<Bound<'_, PyAny>>,
    max_call_depth: Option<Bound<'_, PyAny>>,
    max_range_length: Option<Bound<'_, PyAny>>,
    max_memory: Option<Bound<'_, PyAny>>,
) -> PyResult<Evaluation> {
    let limits = limits_of(py, (limits, max_operations, max_input_size, max_call_depth, max_range_length, max_memory))?;
    let props = read_map(props.as_ref(), "props").or_raise(py)?;
    let content = read_list(content.as_ref(), "content").or_raise(py)?;
    let program = program.get();
    let compiled = program.compiled(py)?;
    let items: Vec<&HostValue> = content.iter().collect();
    let (value, usage) = run(py, program, compiled, |sink, host, usage| {
        core::construct_component_descriptor_with(compiled, name, &pairs(&props), &items, &limits, sink, usage, host)
    })?;
    Ok(Evaluation::new(value.unbind(), usage))
}

/// Initializes a component: renders its body against its initial state (or `state`) and
/// returns the output (handler tokens `h1-n`), the state and the instance.
#[pyfunction]
#[pyo3(signature = (program, name, props=None, *, state=None, parent=None, limits=None, max_operations=None, max_input_size=None, max_call_depth=None, max_range_length=None, max_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn initialize_component(
    py: Python<'_>,
    program: &Bound<'_, Program>,
    name: &str,
    props: Option<Bound<'_, PyAny>>,
    state: Option<Bound<'_, PyAny>>,
    parent: Option<PyRef<'_, ComponentInstance>>,
    limits: Option<PyRef<'_, Limits>>,
    max_operations: Option<Bound<'_, PyAny>>,
    max_input_size: Option<Bound<'_, PyAny>>,
    max_call_depth: Option<Bound<'_, PyAny>>,
    max_range_length: Option<Bound<'_, PyAny>>,
    max_memory: Option<Bound<'_, PyAny>>,
) -> PyResult<Initialized> {
    let limits = limits_of(py, (limits, max_operations, max_input_size, max_call_depth, max_range_length, max_memory))?;
    let props = read_map(props.as_ref(), "props").or_raise(py)?;
    let given = match state.as_ref().filter(|s| !s.is_none()) {
        Some(state) => Some(read_map(Some(state), "state").or_raise(py)?),
        None => None,
    };
    let bound = program;
    let program = bound.get();
    let compiled = program.compiled(py)?;
    let given_pairs = given.as_ref().map(|g| pairs(g));
    let init = ComponentInit { parent: parent.as_ref().map(|p| &p.inner), state: given_pairs.as_deref() };
    let (initialized, usage) = run(py, program, compiled, |sink, host, usage| {
        core::initialize_component_with(compiled, name, &pairs(&props), init, &limits, sink, usage, host)
    })?;
    Ok(Initialized {
        output: initialized.output.unbind(),
        state: initialized.state.unbind(),
        instance: instance_of(py, bound, initialized.instance)?,
        usage,
    })
}

/// Evaluates a component's body from props and an explicit state (`None`: empty); the
/// output's handlers carry no tokens.
#[pyfunction]
#[pyo3(signature = (program, name, props=None, state=None, *, limits=None, max_operations=None, max_input_size=None, max_call_depth=None, max_range_length=None, max_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate_component(
    py: Python<'_>,
    program: &Bound<'_, Program>,
    name: &str,
    props: Option<Bound<'_, PyAny>>,
    state: Option<Bound<'_, PyAny>>,
    limits: Option<PyRef<'_, Limits>>,
    max_operations: Option<Bound<'_, PyAny>>,
    max_input_size: Option<Bound<'_, PyAny>>,
    max_call_depth: Option<Bound<'_, PyAny>>,
    max_range_length: Option<Bound<'_, PyAny>>,
    max_memory: Option<Bound<'_, PyAny>>,
) -> PyResult<Evaluation> {
    let limits = limits_of(py, (limits, max_operations, max_input_size, max_call_depth, max_range_length, max_memory))?;
    let props = read_map(props.as_ref(), "props").or_raise(py)?;
    let state = read_map(state.as_ref(), "state").or_raise(py)?;
    let program = program.get();
    let compiled = program.compiled(py)?;
    let (value, usage) = run(py, program, compiled, |sink, host, usage| {
        core::evaluate_component_with(compiled, name, &pairs(&props), &pairs(&state), &limits, sink, usage, host)
    })?;
    Ok(Evaluation::new(value.unbind(), usage))
}

/// Dispatches a batch of entries against an instance: `{"$type": "ActionHandlerInvocation",
/// "token": ..., "action": {...}}` for a handler of the latest output, or an action record the
/// component emits. Returns the output, effects, state and the next instance.
#[pyfunction]
#[pyo3(signature = (program, instance, batch, *, limits=None, max_operations=None, max_input_size=None, max_call_depth=None, max_range_length=None, max_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn dispatch_component_actions(
    py: Python<'_>,
    program: &Bound<'_, Program>,
    instance: PyRef<'_, ComponentInstance>,
    batch: Bound<'_, PyAny>,
    limits: Option<PyRef<'_, Limits>>,
    max_operations: Option<Bound<'_, PyAny>>,
    max_input_size: Option<Bound<'_, PyAny>>,
    max_call_depth: Option<Bound<'_, PyAny>>,
    max_range_length: Option<Bound<'_, PyAny>>,
    max_memory: Option<Bound<'_, PyAny>>,
) -> PyResult<Dispatched> {
    let limits = limits_of(py, (limits, max_operations, max_input_size, max_call_depth, max_range_length, max_memory))?;
    let batch = read_list(Some(&batch), "batch").or_raise(py)?;
    let bound = program;
    let program = bound.get();
    let compiled = program.compiled(py)?;
    let entries: Vec<&HostValue> = batch.iter().collect();
    let (dispatched, usage) = run(py, program, compiled, |sink, host, usage| {
        core::dispatch_component_actions_with(compiled, &instance.inner, &entries, &limits, sink, usage, host)
    })?;
    let effects = PyList::new(py, dispatched.effects)?;
    Ok(Dispatched {
        output: dispatched.output.unbind(),
        effects: effects.into_any().unbind(),
        state: dispatched.state.unbind(),
        instance: instance_of(py, bound, dispatched.instance)?,
        usage,
    })
}

/// Checks a complete state for a component (nothing filled in) and returns it normalized.
#[pyfunction]
#[pyo3(signature = (program, name, state, *, limits=None, max_operations=None, max_input_size=None, max_call_depth=None, max_range_length=None, max_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn normalize_component_state(
    py: Python<'_>,
    program: &Bound<'_, Program>,
    name: &str,
    state: Bound<'_, PyAny>,
    limits: Option<PyRef<'_, Limits>>,
    max_operations: Option<Bound<'_, PyAny>>,
    max_input_size: Option<Bound<'_, PyAny>>,
    max_call_depth: Option<Bound<'_, PyAny>>,
    max_range_length: Option<Bound<'_, PyAny>>,
    max_memory: Option<Bound<'_, PyAny>>,
) -> PyResult<Evaluation> {
    let limits = limits_of(py, (limits, max_operations, max_input_size, max_call_depth, max_range_length, max_memory))?;
    let state = read_map(Some(&state), "state").or_raise(py)?;
    let program = program.get();
    let compiled = program.compiled(py)?;
    let (value, usage) = run(py, program, compiled, |sink, host, usage| {
        core::normalize_component_state_with(compiled, name, &pairs(&state), &limits, sink, usage, host)
    })?;
    Ok(Evaluation::new(value.unbind(), usage))
}

/// Applies a patch (a plain dict, or the component's state update record) to a state and
/// returns the checked next state; `None` in the patch clears an optional field.
#[pyfunction]
#[pyo3(signature = (program, name, state, patch, *, limits=None, max_operations=None, max_input_size=None, max_call_depth=None, max_range_length=None, max_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn apply_component_state_patch(
    py: Python<'_>,
    program: &Bound<'_, Program>,
    name: &str,
    state: Bound<'_, PyAny>,
    patch: Bound<'_, PyAny>,
    limits: Option<PyRef<'_, Limits>>,
    max_operations: Option<Bound<'_, PyAny>>,
    max_input_size: Option<Bound<'_, PyAny>>,
    max_call_depth: Option<Bound<'_, PyAny>>,
    max_range_length: Option<Bound<'_, PyAny>>,
    max_memory: Option<Bound<'_, PyAny>>,
) -> PyResult<Evaluation> {
    let limits = limits_of(py, (limits, max_operations, max_input_size, max_call_depth, max_range_length, max_memory))?;
    let state = read_map(Some(&state), "state").or_raise(py)?;
    let patch = read_value(&patch, || "patch".to_string()).or_raise(py)?;
    let program = program.get();
    let compiled = program.compiled(py)?;
    let (value, usage) = run(py, program, compiled, |sink, host, usage| {
        core::apply_component_state_patch_with(compiled, name, &pairs(&state), &patch, &limits, sink, usage, host)
    })?;
    Ok(Evaluation::new(value.unbind(), usage))
}

/// Restores an instance written by `ComponentInstance.to_bytes()` (bytes) or `.to_json()`
/// (str), for `program`: refused with `nx-ir-component` when it is not a stored instance, is
/// another program's, or is damaged.
#[pyfunction]
pub fn restore_component_instance(py: Python<'_>, program: &Bound<'_, Program>, data: Bound<'_, PyAny>) -> PyResult<Py<ComponentInstance>> {
    let compiled = program.get().compiled(py)?;
    let restored = if let Ok(text) = data.cast::<PyString>() {
        let text = text.to_str()?;
        py.detach(|| with_room(|| stored::restore_component_instance_json(compiled, text)))
    } else {
        let bytes: Vec<u8> = data.extract().map_err(|_| {
            to_py_err(py, &IrError::new(codes::COMPONENT, "A stored instance is bytes (to_bytes) or a str (to_json)."))
        })?;
        py.detach(|| with_room(|| stored::restore_component_instance(compiled, &bytes)))
    };
    instance_of(py, program, restored.or_raise(py)?)
}

fn helper_value(value: &Bound<'_, PyAny>, what: &str) -> PyResult<HostValue> {
    read_value(value, || what.to_string()).or_raise(value.py())
}

/// A helper's result as Python values; refused (not overflowed) where the calling thread's
/// stack is too short for another level.
fn to_python(py: Python<'_>, value: &HostValue) -> PyResult<Py<PyAny>> {
    if matches!(value, HostValue::List(_) | HostValue::Record(_)) {
        nx_ir_core::eval::walk_stack_at(0).or_raise(py)?;
    }
    Ok(match value {
        HostValue::Null => py.None(),
        HostValue::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        HostValue::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        HostValue::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        HostValue::Str(s) => PyString::new(py, s).into_any().unbind(),
        HostValue::List(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any().unbind()
        }
        HostValue::Record(record) => {
            let dict = PyDict::new(py);
            if let Some(type_name) = &record.type_name {
                dict.set_item("$type", type_name)?;
            }
            for (name, item) in &record.fields {
                dict.set_item(name, to_python(py, item)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// `apply(record, update)`: the record with each field the update holds replaced and each it
/// clears (`None`) left out; the update must be the record's `<Type>.Update`.
#[pyfunction]
pub fn apply_update(py: Python<'_>, record: Bound<'_, PyAny>, update: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let (record, update) = (helper_value(&record, "record")?, helper_value(&update, "update")?);
    to_python(py, &update::apply(&record, &update).or_raise(py)?)
}

/// `merge(first, second)`: every field either update holds, the second's winning.
#[pyfunction]
pub fn merge_updates(py: Python<'_>, first: Bound<'_, PyAny>, second: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let (first, second) = (helper_value(&first, "first")?, helper_value(&second, "second")?);
    to_python(py, &update::merge(&first, &second).or_raise(py)?)
}

/// `diff(before, after)`: the `<Type>.Update` holding each field whose values differ.
#[pyfunction]
pub fn diff_records(py: Python<'_>, before: Bound<'_, PyAny>, after: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let (before, after) = (helper_value(&before, "before")?, helper_value(&after, "after")?);
    to_python(py, &update::diff(&before, &after).or_raise(py)?)
}

/// `changed(update)`: the names of the fields an update holds, in its declaration's order in
/// `program`.
#[pyfunction]
pub fn changed_fields(py: Python<'_>, program: &Bound<'_, Program>, update: Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let update = helper_value(&update, "update")?;
    let compiled = program.get().compiled(py)?;
    update::changed(compiled, &update).or_raise(py)
}
