//! `evaluate_function`, `call_function`, `measure_input_size`, `Limits` and `Evaluation`.
//!
//! A call reads its Python arguments with the GIL held, runs the NX code (releasing the GIL once
//! it runs long, see [`crate::sink`]), and writes the result straight into Python objects. An
//! entrypoint's arguments, and those of a plain `Function` record, are read by the evaluator
//! where they lie ([`PyIn`]), in one pass into its own values; anything else, and any value
//! that pass refuses, is converted into canonical host values by the [`Reader`] first, which
//! refuses what has no canonical form (`nx-ir-boundary-type`, with the value's path). Neither
//! recurses deeper than the value nesting limit, so no host value can overflow the stack.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::mem::MaybeUninit;
use std::sync::Arc;

use nx_ir_core::error::{codes, IrError, LimitInfo};
use nx_ir_core::eval::{
    self, Around, CallArguments, Callee, EntrypointRef, HostCall, HostRead, HostRecord, HostValue, HostValueSource, Member, Limits as CoreLimits, LongRun,
    Usage,
    MAX_VALUE_NESTING,
};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::list::BoundListIterator;
use pyo3::types::tuple::BoundTupleIterator;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::{to_py_err, IntoPyResult};
use crate::program::Program;
use crate::interrupt::{interrupted, LongRunHook};
use crate::sink::{Discard, GilRelease, PySink, LONG_RUN};

/// Limits a call runs under; build once and pass to any number of calls.
#[pyclass(frozen, module = "nx_agent.ir")]
#[derive(Clone)]
pub struct Limits {
    pub(crate) inner: CoreLimits,
}

/// A limit argument: None, or a non-negative int (not a bool); anything else is `nx-ir-options`.
fn limit_value(name: &str, value: Option<&Bound<'_, PyAny>>) -> Result<Option<u64>, IrError> {
    let Some(value) = value.filter(|v| !v.is_none()) else { return Ok(None) };
    let refuse = || IrError::new(codes::OPTIONS, format!("{name} must be a non-negative integer, got {}.", shown(value)));
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(refuse());
    }
    value.extract::<u64>().map(Some).map_err(|_| refuse())
}

/// A value as an error message shows it, without running any of its methods: an integer (up to
/// 128 bits) by its digits, anything else by its type.
fn shown(value: &Bound<'_, PyAny>) -> String {
    if value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>() {
        return match value.extract::<i128>() {
            Ok(number) => number.to_string(),
            Err(_) => "an integer of more than 128 bits".to_string(),
        };
    }
    format!("a {}", type_name(value))
}

/// The name of a value's type (read from the type object; no method of the value runs).
fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
}

/// The items of a list or tuple, subclasses included, read from its storage: no method of a
/// subclass (`__iter__`, `__len__`, `__getitem__`) runs, so a host value cannot raise, run
/// forever or change itself (or a dict being read) while it is converted or measured.
enum Items<'py> {
    List(BoundListIterator<'py>),
    Tuple(BoundTupleIterator<'py>),
}

impl<'py> Iterator for Items<'py> {
    type Item = Bound<'py, PyAny>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Items::List(items) => items.next(),
            Items::Tuple(items) => items.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Items::List(items) => items.size_hint(),
            Items::Tuple(items) => items.size_hint(),
        }
    }
}

/// The items of `value` if it is a list or a tuple ([`Items`]).
fn sequence_items<'py>(value: &Bound<'py, PyAny>) -> Option<Items<'py>> {
    if let Ok(list) = value.cast::<PyList>() {
        return Some(Items::List(list.iter()));
    }
    value.cast::<PyTuple>().ok().map(|tuple| Items::Tuple(tuple.iter()))
}

fn required_limit(name: &str, value: Option<&Bound<'_, PyAny>>, default: u64) -> Result<u64, IrError> {
    Ok(limit_value(name, value)?.unwrap_or(default))
}

impl Limits {
    pub(crate) fn build(
        max_operations: Option<&Bound<'_, PyAny>>,
        max_input_size: Option<&Bound<'_, PyAny>>,
        max_call_depth: Option<&Bound<'_, PyAny>>,
        max_range_length: Option<&Bound<'_, PyAny>>,
        max_memory: Option<&Bound<'_, PyAny>>,
    ) -> Result<CoreLimits, IrError> {
        let depth = required_limit("max_call_depth", max_call_depth, eval::DEFAULT_MAX_CALL_DEPTH.into())?;
        Ok(CoreLimits {
            max_operations: limit_value("max_operations", max_operations)?,
            max_input_size: limit_value("max_input_size", max_input_size)?,
            max_call_depth: u32::try_from(depth)
                .map_err(|_| IrError::new(codes::OPTIONS, "max_call_depth is too large."))?,
            max_range_length: required_limit("max_range_length", max_range_length, eval::DEFAULT_MAX_RANGE_LENGTH)?,
            max_memory: required_limit("max_memory", max_memory, eval::DEFAULT_MAX_MEMORY)?,
            ..CoreLimits::default()
        })
    }
}

#[pymethods]
impl Limits {
    #[new]
    #[pyo3(signature = (*, max_operations=None, max_input_size=None, max_call_depth=None, max_range_length=None, max_memory=None))]
    fn new(
        py: Python<'_>,
        max_operations: Option<Bound<'_, PyAny>>,
        max_input_size: Option<Bound<'_, PyAny>>,
        max_call_depth: Option<Bound<'_, PyAny>>,
        max_range_length: Option<Bound<'_, PyAny>>,
        max_memory: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let inner = Limits::build(
            max_operations.as_ref(),
            max_input_size.as_ref(),
            max_call_depth.as_ref(),
            max_range_length.as_ref(),
            max_memory.as_ref(),
        )
        .or_raise(py)?;
        Ok(Limits { inner })
    }

    #[getter]
    fn max_operations(&self) -> Option<u64> {
        self.inner.max_operations
    }
    #[getter]
    fn max_input_size(&self) -> Option<u64> {
        self.inner.max_input_size
    }
    #[getter]
    fn max_call_depth(&self) -> u32 {
        self.inner.max_call_depth
    }
    #[getter]
    fn max_range_length(&self) -> u64 {
        self.inner.max_range_length
    }
    #[getter]
    fn max_memory(&self) -> u64 {
        self.inner.max_memory
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        crate::travel::reduce_limits(py, self)
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    fn __repr__(&self) -> String {
        format!(
            "Limits(max_operations={:?}, max_input_size={:?}, max_call_depth={}, max_range_length={}, max_memory={})",
            self.inner.max_operations,
            self.inner.max_input_size,
            self.inner.max_call_depth,
            self.inner.max_range_length,
            self.inner.max_memory
        )
    }
}

/// The result of a call: the canonical value and what the call used. Kept objects are reused
/// (a free list), so a small call allocates no result object.
#[pyclass(frozen, freelist = 64, module = "nx_agent.ir")]
pub struct Evaluation {
    #[pyo3(get)]
    pub(crate) value: Py<PyAny>,
    pub(crate) usage: Usage,
}

impl Evaluation {
    pub(crate) fn new(value: Py<PyAny>, usage: Usage) -> Self {
        Evaluation { value, usage }
    }
}

#[pymethods]
impl Evaluation {
    /// `{"operations": n}` when a budget was set, `{"input_size": n}` when an input limit was.
    #[getter]
    fn usage<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        usage_dict(py, &self.usage)
    }

    /// The operations the call used, when a budget was set (the ``usage`` member, without a dict).
    #[getter]
    fn operations(&self) -> Option<u64> {
        self.usage.operations
    }

    /// The call's input size, when an input limit was set (the ``usage`` member, without a dict).
    #[getter]
    fn input_size(&self) -> Option<u64> {
        self.usage.input_size
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        crate::travel::reduce_evaluation(py, self)
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// The value deep-copied (it is a plain Python value the caller may change), the usage kept.
    fn __deepcopy__(&self, py: Python<'_>, memo: &Bound<'_, PyAny>) -> PyResult<Evaluation> {
        crate::travel::deepcopy_evaluation(py, self, memo)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Evaluation(value={}, usage={:?})", self.value.bind(py), self.usage)
    }
}

pub(crate) fn usage_dict<'py>(py: Python<'py>, usage: &Usage) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    if let Some(operations) = usage.operations {
        d.set_item("operations", operations)?;
    }
    if let Some(input_size) = usage.input_size {
        d.set_item("input_size", input_size)?;
    }
    Ok(d)
}

/// One step of a path into a host value: a list index or a dict key.
enum Segment {
    Index(usize),
    Key(String),
}

/// Why a Python value was refused. The path is collected as the reader unwinds (innermost
/// step first), so a value that converts costs no path at all.
enum Refusal {
    Type { what: String, path: Vec<Segment> },
    Nesting,
    /// The calling thread's stack is too short for another level ([`eval::walk_stack_at`]'s refusal).
    Stack(IrError),
    /// The input measured so far is over `max_input_size` (its value).
    OverLimit(u64),
}

impl Refusal {
    fn new(what: impl Into<String>) -> Self {
        Refusal::Type { what: what.into(), path: Vec::new() }
    }

    fn at(mut self, segment: Segment) -> Self {
        if let Refusal::Type { path, .. } = &mut self {
            path.push(segment);
        }
        self
    }

    /// The coded error, its message naming the path from `root`.
    fn into_error(self, root: &str) -> IrError {
        match self {
            Refusal::Type { what, path } => {
                let mut message = root.to_string();
                for segment in path.iter().rev() {
                    match segment {
                        Segment::Index(index) => message.push_str(&format!("[{index}]")),
                        Segment::Key(key) => message.push_str(&format!("[{key:?}]")),
                    }
                }
                IrError::new(codes::BOUNDARY_TYPE, format!("{message} {what}"))
            }
            Refusal::Nesting => {
                let mut error = IrError::new(
                    codes::RESOURCE_LIMIT,
                    format!("A host value nests more than {MAX_VALUE_NESTING} levels deep."),
                );
                error.diagnostics[0].limit =
                    Some(LimitInfo { name: "maxValueNesting", value: MAX_VALUE_NESTING.into() });
                error
            }
            Refusal::OverLimit(limit) => eval::input_limit_error(limit),
            Refusal::Stack(error) => error,
        }
    }
}

/// Converts a Python value to its canonical host value; `root` names it in an error.
pub(crate) fn read_value(value: &Bound<'_, PyAny>, root: impl FnOnce() -> String) -> Result<HostValue, IrError> {
    Reader::new(None, 0).read(value).map_err(|refusal| refusal.into_error(&root()))
}

/// Containers a [`Reader`] keeps on the stack before it needs a vector.
const SHALLOW: usize = 8;

/// Python → canonical host value, measuring the input size (ir-format §6.2) as it goes.
struct Reader {
    /// Containers on the path from the root, to tell a cycle from depth: the first
    /// [`SHALLOW`] in place, any deeper in `deep`.
    shallow: [usize; SHALLOW],
    depth: usize,
    deep: Vec<usize>,
    /// The input size read so far (with what the reader started from).
    size: u64,
    /// Reading stops, refused, once `size` passes this: `max_input_size`, less what the call's
    /// input holds besides what this reader reads (the `Function` record).
    allowance: Option<u64>,
    /// The call's `max_input_size`, named in the refusal.
    limit: u64,
}

impl Reader {
    /// A reader for a call with `limit` as its `max_input_size`, `already` of which the call's
    /// input has used before what this reader reads.
    fn new(limit: Option<u64>, already: u64) -> Self {
        Reader {
            shallow: [0; SHALLOW],
            depth: 0,
            deep: Vec::new(),
            size: 0,
            allowance: limit.map(|limit| limit.saturating_sub(already)),
            limit: limit.unwrap_or(0),
        }
    }

    /// Adds `amount` to the size read, refusing once it passes the allowance.
    #[inline]
    fn add(&mut self, amount: u64) -> Result<(), Refusal> {
        self.size = self.size.saturating_add(amount);
        match self.allowance {
            Some(allowance) if self.size > allowance => Err(Refusal::OverLimit(self.limit)),
            _ => Ok(()),
        }
    }

    /// Adds a string's text (⌊UTF-16 length / 64⌋, before it is copied).
    #[inline]
    fn add_text(&mut self, text: &str) -> Result<(), Refusal> {
        if text.len() < 64 {
            return Ok(());
        }
        let units = if text.is_ascii() { text.len() } else { text.chars().map(char::len_utf16).sum() };
        self.add(units as u64 / 64)
    }

    fn enter(&mut self, object: &Bound<'_, PyAny>) -> Result<(), Refusal> {
        let id = object.as_ptr() as usize;
        if self.shallow[..self.depth.min(SHALLOW)].contains(&id) || self.deep.contains(&id) {
            return Err(Refusal::new("contains itself; a canonical value has no cycles"));
        }
        if self.depth >= MAX_VALUE_NESTING as usize {
            return Err(Refusal::Nesting);
        }
        eval::walk_stack_at(self.depth as u32).map_err(Refusal::Stack)?;
        match self.shallow.get_mut(self.depth) {
            Some(place) => *place = id,
            None => self.deep.push(id),
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
        if self.depth >= SHALLOW {
            self.deep.pop();
        }
    }

    fn read(&mut self, value: &Bound<'_, PyAny>) -> Result<HostValue, Refusal> {
        self.add(1)?;
        if value.is_none() {
            return Ok(HostValue::Null);
        }
        if let Ok(b) = value.cast::<PyBool>() {
            return Ok(HostValue::Bool(b.is_true()));
        }
        if value.is_instance_of::<PyInt>() {
            return value
                .extract::<i64>()
                .map(HostValue::Int)
                .map_err(|_| match value.extract::<i128>() {
                    Ok(number) => Refusal::new(format!("is the integer {number}, outside the 64-bit range")),
                    Err(_) => Refusal::new("is an integer of more than 128 bits, outside the 64-bit range"),
                });
        }
        if let Ok(f) = value.cast::<PyFloat>() {
            return Ok(HostValue::Float(f.value()));
        }
        if let Ok(s) = value.cast::<PyString>() {
            let text = s.to_str().map_err(|_| Refusal::new("is a string that is not valid Unicode"))?;
            self.add_text(text)?;
            return Ok(HostValue::Str(text.to_owned()));
        }
        if let Some(sequence) = sequence_items(value) {
            self.enter(value)?;
            let mut items = Vec::with_capacity(sequence.size_hint().0);
            for (index, item) in sequence.enumerate() {
                items.push(self.read(&item).map_err(|r| r.at(Segment::Index(index)))?);
            }
            self.leave();
            return Ok(HostValue::List(items));
        }
        if let Ok(dict) = value.cast::<PyDict>() {
            self.enter(value)?;
            let mut record = HostRecord::default();
            for (key, item) in dict.iter() {
                let Ok(key) = key.cast::<PyString>() else {
                    return Err(Refusal::new(format!("has a key of type {}, which is not a string", type_name(&key))));
                };
                let key = key.to_str().map_err(|_| Refusal::new("has a key that is not valid Unicode"))?;
                if key == "$type" {
                    if let Ok(name) = item.cast::<PyString>() {
                        let name = name.to_str().map_err(|e| Refusal::new(e.to_string()).at(Segment::Key(key.into())))?;
                        self.add_text(name)?;
                        record.type_name = Some(name.to_owned());
                        continue;
                    }
                }
                self.add_text(key)?;
                let read = self.read(&item).map_err(|r| r.at(Segment::Key(key.to_owned())))?;
                record.fields.push((key.to_owned(), read));
            }
            self.leave();
            return Ok(HostValue::Record(record));
        }
        Err(Refusal::new(format!("is a {}, which has no canonical NX form", type_name(value))))
    }
}

/// The limits of a call: a `Limits` object, or the keywords.
#[allow(clippy::too_many_arguments)]
pub(crate) fn call_limits(
    limits: Option<&Limits>,
    max_operations: Option<&Bound<'_, PyAny>>,
    max_input_size: Option<&Bound<'_, PyAny>>,
    max_call_depth: Option<&Bound<'_, PyAny>>,
    max_range_length: Option<&Bound<'_, PyAny>>,
    max_memory: Option<&Bound<'_, PyAny>>,
) -> Result<CoreLimits, IrError> {
    match limits {
        Some(limits) => Ok(limits.inner.clone()),
        None => Limits::build(max_operations, max_input_size, max_call_depth, max_range_length, max_memory),
    }
}

/// What a call runs: a function entrypoint (by name, or found before), or a function value
/// (its record as read, or resolved at once from a plain `Function` record).
enum Target<'a> {
    Entrypoint(EntrypointRef<'a>),
    Function(Callee<'a, &'a HostValue>),
}

/// The arguments of a call, converted from Python.
enum Args<'a, 'py> {
    /// Held where they were converted (the few on the stack are not moved).
    Positional(&'a Positional),
    Named(&'a Named<'py>),
}

/// Converted arguments: on the stack when they are few, so a small call allocates nothing
/// for them.
struct Few<T> {
    few: [MaybeUninit<T>; STACK_ARGUMENTS],
    len: usize,
    /// Every item, once there are more than `few` holds.
    many: Vec<T>,
}

/// Positional arguments.
type Positional = Few<HostValue>;

/// Arguments by name: each name's string (valid UTF-8, checked as it was read) and its value.
type Named<'py> = Few<(Bound<'py, PyString>, HostValue)>;

impl<T> Few<T> {
    fn new() -> Self {
        Few { few: std::array::from_fn(|_| MaybeUninit::uninit()), len: 0, many: Vec::new() }
    }

    fn push(&mut self, item: T) {
        if self.len < STACK_ARGUMENTS {
            self.few[self.len].write(item);
        } else {
            if self.len == STACK_ARGUMENTS {
                // SAFETY: the first `len` places are initialized; each is read out once, and
                // `len` passes STACK_ARGUMENTS below, after which they are never read again.
                self.many.extend(self.few.iter().map(|place| unsafe { place.assume_init_read() }));
            }
            self.many.push(item);
        }
        self.len += 1;
    }

    fn as_slice(&self) -> &[T] {
        if self.len <= STACK_ARGUMENTS {
            // SAFETY: the first `len` places are initialized, and `MaybeUninit<T>` has the
            // layout of `T`.
            unsafe { &*(&self.few[..self.len] as *const [MaybeUninit<T>] as *const [T]) }
        } else {
            &self.many
        }
    }
}

impl<T> Drop for Few<T> {
    fn drop(&mut self) {
        if self.len <= STACK_ARGUMENTS {
            for place in &mut self.few[..self.len] {
                // SAFETY: each of the first `len` places holds an item written once and not
                // yet moved out (they move to `many` only once `len` passes STACK_ARGUMENTS).
                unsafe { place.assume_init_drop() };
            }
        }
    }
}

/// Arguments up to this many are handed to the evaluator from the stack, without a vector.
const STACK_ARGUMENTS: usize = 8;

/// A placeholder filling the unused room of a stack array of arguments.
static NO_VALUE: HostValue = HostValue::Null;

/// Runs `f` over references to `values` (each given), from the stack when they are few.
fn with_positional<R>(values: &Positional, f: impl FnOnce(&[Option<&HostValue>]) -> R) -> R {
    let values = values.as_slice();
    if values.len() <= STACK_ARGUMENTS {
        let mut items: [Option<&HostValue>; STACK_ARGUMENTS] = [None; STACK_ARGUMENTS];
        for (item, value) in items.iter_mut().zip(values) {
            *item = Some(value);
        }
        return f(&items[..values.len()]);
    }
    let items: Vec<Option<&HostValue>> = values.iter().map(Some).collect();
    f(&items)
}

/// Runs `f` over `(name, value)` references to `named`, from the stack when they are few.
fn with_named<R>(named: &Named<'_>, f: impl FnOnce(&[(&str, &HostValue)]) -> R) -> R {
    // Each name was read as valid UTF-8 (its text is cached in the string): reading it again
    // cannot fail.
    fn text<'a>(key: &'a Bound<'_, PyString>) -> &'a str {
        key.to_str().unwrap_or_default()
    }
    let named = named.as_slice();
    if named.len() <= STACK_ARGUMENTS {
        let mut pairs: [(&str, &HostValue); STACK_ARGUMENTS] = [("", &NO_VALUE); STACK_ARGUMENTS];
        for (pair, (key, value)) in pairs.iter_mut().zip(named) {
            *pair = (text(key), value);
        }
        return f(&pairs[..named.len()]);
    }
    let pairs: Vec<(&str, &HostValue)> = named.iter().map(|(k, v)| (text(k), v)).collect();
    f(&pairs)
}

/// Runs one call (see [`in_sink`]). `args_size` is the arguments' input size when the reader
/// measured it.
fn run_call(
    py: Python<'_>,
    program: &Program,
    compiled: &Compiled,
    target: Target<'_>,
    args: &Args<'_, '_>,
    args_size: Option<u64>,
    limits: &CoreLimits,
) -> PyResult<Evaluation> {
    let outcome = in_sink(py, program, compiled, args_size, |sink, usage, host| match (target, args) {
        (Target::Entrypoint(name), Args::Positional(values)) => with_positional(values, |items| {
            eval::evaluate_function_hooked(compiled, name, items, limits, sink, usage, host)
        }),
        (Target::Entrypoint(_), Args::Named(_)) => Err(IrError::new(codes::ARGUMENTS, "Entrypoints take positional arguments.")),
        (Target::Function(function), Args::Positional(values)) => with_positional(values, |items| {
            let args = CallArguments::Positional(items);
            eval::call_function_hooked(compiled, function, args, limits, sink, usage, host)
        }),
        (Target::Function(function), Args::Named(named)) => with_named(named, |pairs| {
            let args = CallArguments::Named(pairs);
            eval::call_function_hooked(compiled, function, args, limits, sink, usage, host)
        }),
    });
    finish(py, outcome)
}

/// What one call into a [`PySink`] left: its result, its usage, the exception the sink raised
/// and the one a signal handler raised while the GIL was released, if any.
struct Outcome<'py> {
    result: Result<Bound<'py, PyAny>, IrError>,
    usage: Usage,
    raised: Option<PyErr>,
    signal: Option<PyErr>,
}

/// Runs `call` with the GIL held, releasing it only once the evaluation runs long (see
/// [`crate::sink`]), its result written straight into Python objects. `args_size` is the
/// arguments' input size when the reader measured it.
fn in_sink<'py>(
    py: Python<'py>,
    program: &Program,
    compiled: &Compiled,
    args_size: Option<u64>,
    call: impl FnOnce(&mut PySink<'_, 'py>, &mut Usage, HostCall<'_>) -> Result<Bound<'py, PyAny>, IrError>,
) -> Outcome<'py> {
    let texts = program.texts(py, compiled);
    let gil = GilRelease::new(py);
    let long_run = LongRunHook::new(py, &gil);
    let hook = || long_run.run();
    let host = HostCall { long_run: Some(LongRun { after: LONG_RUN, hook: &hook }), args_size };
    let mut sink = PySink::new(py, &gil, texts);
    let mut usage = Usage::default();
    let result = call(&mut sink, &mut usage, host);
    gil.reacquire();
    Outcome { result, usage, raised: sink.raised.take(), signal: long_run.take_raised() }
}

/// A call's outcome for Python: its evaluation, or its error (with the usage of a call that
/// failed once it began, and the exception a signal handler raised, if one did).
fn finish(py: Python<'_>, outcome: Outcome<'_>) -> PyResult<Evaluation> {
    let Outcome { result, usage, raised, signal } = outcome;
    if let Some(raised) = raised {
        return Err(raised);
    }
    match result {
        Ok(value) => Ok(Evaluation { value: value.unbind(), usage }),
        // A call that failed once it began reports what it used, as a successful one does.
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

/// Settles a refused conversion: where an input limit is set and the whole input (`pieces`,
/// measured in place) is over it, the limit is what the call fails on, as the runtime measures
/// before it converts; otherwise the refusal itself.
fn refused<'py>(
    refusal: Refusal,
    root: impl FnOnce() -> String,
    limits: &CoreLimits,
    extra: u64,
    pieces: impl Iterator<Item = Bound<'py, PyAny>>,
) -> IrError {
    if !matches!(refusal, Refusal::OverLimit(_)) {
        if let Err(over) = check_input(limits, extra, pieces) {
            return over;
        }
    }
    refusal.into_error(&root())
}

/// Evaluates the function entrypoint `name` of the program's entry module with positional
/// arguments. Raises `NxIrError` with the reference codes on any failure.
#[pyfunction]
#[pyo3(signature = (program, name, args=None, *, limits=None, max_operations=None, max_input_size=None, max_call_depth=None, max_range_length=None, max_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate_function(
    py: Python<'_>,
    program: &Program,
    name: Bound<'_, PyString>,
    args: Option<Bound<'_, PyAny>>,
    limits: Option<PyRef<'_, Limits>>,
    max_operations: Option<Bound<'_, PyAny>>,
    max_input_size: Option<Bound<'_, PyAny>>,
    max_call_depth: Option<Bound<'_, PyAny>>,
    max_range_length: Option<Bound<'_, PyAny>>,
    max_memory: Option<Bound<'_, PyAny>>,
) -> PyResult<Evaluation> {
    let limits = call_limits(
        limits.as_deref(),
        max_operations.as_ref(),
        max_input_size.as_ref(),
        max_call_depth.as_ref(),
        max_range_length.as_ref(),
        max_memory.as_ref(),
    )
    .or_raise(py)?;
    // A name that is not valid Unicode (lone surrogates) names no entrypoint.
    let Ok(text) = name.to_str() else {
        let message = format!("Function entrypoint '{}' was not found.", name.to_string_lossy());
        return Err(to_py_err(py, &IrError::new(codes::MISSING_ENTRYPOINT, message)));
    };
    let args = args.filter(|a| !a.is_none());
    if let Some(evaluation) = entrypoint_in_one_pass(py, program, &name, text, args.as_ref(), &limits) {
        return evaluation;
    }
    let mut values = Positional::new();
    let mut reader = Reader::new(limits.max_input_size, 0);
    if let Some(args) = args {
        let Some(items) = sequence_items(&args) else {
            return Err(to_py_err(py, &IrError::new(codes::ARGUMENTS, "args is a list or tuple of positional arguments.")));
        };
        for (index, arg) in items.enumerate() {
            match reader.read(&arg) {
                Ok(value) => values.push(value),
                Err(refusal) => {
                    let pieces = sequence_items(&args).into_iter().flatten();
                    return Err(to_py_err(py, &refused(refusal, || format!("args[{index}]"), &limits, 0, pieces)));
                }
            }
        }
    }
    let compiled = program.compiled(py)?;
    // A name that names no entrypoint fails as the runtime fails it (after the input check).
    let entrypoint = program.entrypoint(compiled, &name, text).map_or(EntrypointRef::Name(text), EntrypointRef::Found);
    let target = Target::Entrypoint(entrypoint);
    run_call(py, program, compiled, target, &Args::Positional(&values), Some(reader.size), &limits)
}

/// The function of a plain `Function` record (an exact dict of `$type` "Function", a string
/// `module` and a string `name`, nothing else) resolved at once; `None` for anything else, which
/// is read as a host value and checked as the runtime checks it.
fn plain_function<'py>(py: Python<'py>, program: &Program, compiled: &Compiled, function: &Bound<'py, PyAny>) -> Option<eval::FunctionHandle> {
    let record = function.cast_exact::<PyDict>().ok()?;
    if record.len() != 3 {
        return None;
    }
    let (kind, module, name) = match record_members(py, record) {
        Some(members) => members,
        None => {
            let string = |key: &Bound<'py, PyString>| -> Option<Bound<'py, PyString>> {
                record.get_item(key).ok()??.cast_exact::<PyString>().ok().cloned()
            };
            let kind = string(pyo3::intern!(py, "$type"))?;
            (kind, string(pyo3::intern!(py, "module"))?, string(pyo3::intern!(py, "name"))?)
        }
    };
    if !kind.is(pyo3::intern!(py, "Function")) && kind.to_str().ok()? != "Function" {
        return None;
    }
    program.function_handle(compiled, &module, &name)
}

/// The `$type`, `module` and `name` strings of a three-member dict, read in one pass without
/// hashing (a key is compared by address with the interned name first, then by its text);
/// `None` when the dict is not such a record.
fn record_members<'py>(py: Python<'py>, record: &Bound<'py, PyDict>) -> Option<(Bound<'py, PyString>, Bound<'py, PyString>, Bound<'py, PyString>)> {
    let keys = [pyo3::intern!(py, "$type").as_ptr(), pyo3::intern!(py, "module").as_ptr(), pyo3::intern!(py, "name").as_ptr()];
    let mut members: [Option<Bound<'py, PyString>>; 3] = [None, None, None];
    let (mut at, mut key, mut value): (ffi::Py_ssize_t, *mut ffi::PyObject, *mut ffi::PyObject) =
        (0, std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: the GIL is held and `record` is a live dict; PyDict_Next gives borrowed
    // references, taken as new ones (`from_borrowed_ptr`) before anything else runs.
    while unsafe { ffi::PyDict_Next(record.as_ptr(), &mut at, &mut key, &mut value) } != 0 {
        let slot = match keys.iter().position(|k| *k == key) {
            Some(slot) => slot,
            None => {
                // A key that is not the interned string (`$type` is not an identifier, so a
                // literal's is not interned): found by its text.
                // SAFETY: `key` is a live borrowed reference from the dict (see above).
                let key = unsafe { Bound::from_borrowed_ptr(py, key) };
                let text = key.cast_exact::<PyString>().ok()?.to_str().ok()?;
                ["$type", "module", "name"].iter().position(|k| *k == text)?
            }
        };
        // SAFETY: `value` is a live borrowed reference from the dict (see above).
        let value = unsafe { Bound::from_borrowed_ptr(py, value) };
        members[slot] = Some(value.cast_into_exact::<PyString>().ok()?);
    }
    let [kind, module, name] = members;
    Some((kind?, module?, name?))
}

/// Calls a function value (`{"$type": "Function", "module": ..., "name": ...}`, as an evaluated
/// `Agent` holds it) with arguments by parameter name (a dict) or by position (a list or tuple).
/// A call that fails once it has begun raises `NxIrError` with `usage` set as a result's would be.
#[pyfunction]
#[pyo3(signature = (program, function, args=None, *, limits=None, max_operations=None, max_input_size=None, max_call_depth=None, max_range_length=None, max_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn call_function(
    py: Python<'_>,
    program: &Program,
    function: Bound<'_, PyAny>,
    args: Option<Bound<'_, PyAny>>,
    limits: Option<PyRef<'_, Limits>>,
    max_operations: Option<Bound<'_, PyAny>>,
    max_input_size: Option<Bound<'_, PyAny>>,
    max_call_depth: Option<Bound<'_, PyAny>>,
    max_range_length: Option<Bound<'_, PyAny>>,
    max_memory: Option<Bound<'_, PyAny>>,
) -> PyResult<Evaluation> {
    let limits = call_limits(
        limits.as_deref(),
        max_operations.as_ref(),
        max_input_size.as_ref(),
        max_call_depth.as_ref(),
        max_range_length.as_ref(),
        max_memory.as_ref(),
    )
    .or_raise(py)?;
    let compiled = program.compiled(py)?;
    let handle = plain_function(py, program, compiled, &function);
    if let Some(handle) = handle {
        if let Some(evaluation) = call_in_one_pass(py, program, compiled, handle, args.as_ref(), &limits) {
            return evaluation;
        }
    }
    // The reader stops once the arguments alone are over what the limit leaves beside the
    // Function record (when its size is known here); the runtime checks the exact total.
    let mut reader = Reader::new(limits.max_input_size, handle.map_or(0, |h| h.record_size()));
    let pieces = || std::iter::once(function.clone());
    let mut values = Positional::new();
    let mut named = Named::new();
    let args = match args.filter(|a| !a.is_none()) {
        None => {
            reader.size = 1;
            Args::Named(&named)
        }
        Some(args) => {
            if let Ok(dict) = args.cast::<PyDict>() {
                // The arguments are one record: 1, then each name's text and value.
                reader.add(1).map_err(|r| to_py_err(py, &r.into_error("args")))?;
                for (key, value) in dict.iter() {
                    let name = key.cast_exact::<PyString>().ok().or_else(|| key.cast::<PyString>().ok());
                    let Some((name, text)) = name.and_then(|k| Some((k, k.to_str().ok()?))) else {
                        let what = match key.cast::<PyString>() {
                            Ok(_) => "a key that is not valid Unicode".to_string(),
                            Err(_) => format!("a key of type {}, which is not a string", type_name(&key)),
                        };
                        let error = IrError::new(codes::BOUNDARY_TYPE, format!("args has {what}"));
                        let error = check_input(&limits, 1, pieces().chain(dict.values())).err().unwrap_or(error);
                        return Err(to_py_err(py, &error));
                    };
                    let read = reader.add_text(text).and_then(|()| reader.read(&value));
                    match read {
                        Ok(read) => named.push((name.clone(), read)),
                        Err(refusal) => {
                            let root = || format!("args[{text:?}]");
                            let mut error = refused(refusal, root, &limits, 1, pieces().chain(dict.values()));
                            // A value with no canonical form is refused as the runtime refuses an
                            // argument that does not fit: naming the parameter it was passed for.
                            if error.code() == codes::BOUNDARY_TYPE {
                                error.diagnostics[0].argument = Some(text.to_owned());
                            }
                            return Err(to_py_err(py, &error));
                        }
                    }
                }
                Args::Named(&named)
            } else if let Some(items) = sequence_items(&args) {
                // The arguments are one list: 1, then each value.
                reader.add(1).map_err(|r| to_py_err(py, &r.into_error("args")))?;
                for (index, arg) in items.enumerate() {
                    match reader.read(&arg) {
                        Ok(value) => values.push(value),
                        Err(refusal) => {
                            let rest = sequence_items(&args).into_iter().flatten();
                            let error = refused(refusal, || format!("args[{index}]"), &limits, 1, pieces().chain(rest));
                            return Err(to_py_err(py, &error));
                        }
                    }
                }
                Args::Positional(&values)
            } else {
                let error = IrError::new(codes::ARGUMENTS, "args is a dict of arguments by name, or a list or tuple by position.");
                return Err(to_py_err(py, &error));
            }
        }
    };
    let args_size = Some(reader.size);
    if let Some(handle) = handle {
        return run_call(py, program, compiled, Target::Function(Callee::Handle(handle)), &args, args_size, &limits);
    }
    let function = read_value(&function, || "function".into()).or_raise(py)?;
    let function = &function;
    run_call(py, program, compiled, Target::Function(Callee::Record(&function)), &args, args_size, &limits)
}

/// Benchmarks only: evaluates the entrypoint `name` as `evaluate_function` does, charging the
/// writes of its result but building no Python objects, and returns the usage.
#[pyfunction]
#[pyo3(signature = (program, name, args=None, *, limits=None))]
pub fn _evaluate_discarding<'py>(
    py: Python<'py>,
    program: &Program,
    name: &str,
    args: Option<Bound<'py, PyAny>>,
    limits: Option<PyRef<'_, Limits>>,
) -> PyResult<Bound<'py, PyDict>> {
    let limits = limits.map(|l| l.inner.clone()).unwrap_or_default();
    let mut values = Positional::new();
    for (index, arg) in args.iter().flat_map(sequence_items).flatten().enumerate() {
        values.push(read_value(&arg, || format!("args[{index}]")).or_raise(py)?);
    }
    let compiled = program.compiled(py)?;
    let gil = GilRelease::new(py);
    let long_run = LongRunHook::new(py, &gil);
    let hook = || long_run.run();
    let host = HostCall { long_run: Some(LongRun { after: LONG_RUN, hook: &hook }), args_size: None };
    let mut usage = Usage::default();
    let result = with_positional(&values, |items| {
        eval::evaluate_function_hooked(compiled, name, items, &limits, &mut Discard { gil: &gil }, &mut usage, host)
    });
    gil.reacquire();
    if let Some(signal) = long_run.take_raised() {
        return Err(interrupted(py, signal, result.err().map(|error| to_py_err(py, &error))));
    }
    result.or_raise(py)?;
    usage_dict(py, &usage)
}

/// Tests only: the evaluator's work units in the last call on this thread (values read,
/// copied, built, compared or written, fields scanned, 64-byte units of text).
#[pyfunction]
pub fn _last_call_work() -> u64 {
    eval::last_call_work()
}

/// The input size of a host value (ir-format §6.2). With `limit`, the Python value is measured
/// where it lies and measuring stops once the size passes the limit (some number greater than it
/// is returned), so a value that nests deep or is huge costs no more than the limit; a value
/// that holds itself has no finite size, so it is over any limit, found where its cycle closes
/// (and refused under the largest limit, 2^64 − 1). A value with no canonical form (an object of
/// another class) counts one and is not entered, as the reference runtime counts a non-plain
/// object. Without a limit the value is converted first, and one with no canonical form, or
/// one that holds itself, is refused.
#[pyfunction]
#[pyo3(signature = (value, limit=None))]
pub fn measure_input_size(py: Python<'_>, value: Bound<'_, PyAny>, limit: Option<Bound<'_, PyAny>>) -> PyResult<u64> {
    let limit = limit_value("limit", limit.as_ref()).or_raise(py)?;
    match limit {
        Some(limit) => measure_in_place(&value, limit),
        None => {
            let value = read_value(&value, || "value".into()).or_raise(py)?;
            eval::measure_input_size(&&value, None).or_raise(py)
        }
    }
}

/// Measures a Python value where it lies, stopping once the size passes `limit` (some number
/// greater than it is then returned): see [`measure_where_it_lies`]. A value that contains
/// itself has no finite size, so it is over any limit short of the largest, where it is refused.
fn measure_in_place(value: &Bound<'_, PyAny>, limit: u64) -> PyResult<u64> {
    match measure_where_it_lies::<true>(value.as_ptr(), 0, limit) {
        Some(total) => Ok(total),
        // Over the limit, or a cycle (the only way to stop under the largest limit).
        None => eval::size_over_a_cycle(Some(limit)).or_raise(value.py()),
    }
}

thread_local! {
    /// The values the last in-place measure on this thread read (tests only).
    static MEASURE_READ: Cell<u64> = const { Cell::new(0) };
}

/// Tests only: the values read by the last in-place input measure on this thread (of
/// `measure_input_size` with a limit, or of the check that a refused call's input is over
/// `max_input_size`), so a test can bound the work measuring does.
#[pyfunction]
pub fn _last_measure_work() -> u64 {
    MEASURE_READ.with(Cell::get)
}

/// A Python value measured in place (ir-format §6.2), so an input over its limit is refused
/// before it is converted: a value shared many times, or cyclic, is never walked whole.
struct PySource<'py>(Bound<'py, PyAny>);

impl<'py> HostValueSource for PySource<'py> {
    type Child = PySource<'py>;

    fn identity(&self) -> Option<usize> {
        Some(self.0.as_ptr() as usize)
    }

    fn read(&self) -> Result<HostRead<'_, PySource<'py>>, IrError> {
        MEASURE_READ.with(|last| last.set(last.get() + 1));
        let value = &self.0;
        let refuse = || IrError::new(codes::BOUNDARY_TYPE, "The value has no canonical NX form.");
        if value.is_none() {
            return Ok(HostRead::Null);
        }
        if let Ok(b) = value.cast::<PyBool>() {
            return Ok(HostRead::Bool(b.is_true()));
        }
        if value.is_instance_of::<PyInt>() {
            return value.extract::<i64>().map(HostRead::Int).map_err(|_| refuse());
        }
        if let Ok(f) = value.cast::<PyFloat>() {
            return Ok(HostRead::Float(f.value()));
        }
        if let Ok(s) = value.cast::<PyString>() {
            return s.to_cow().map(HostRead::Str).map_err(|_| refuse());
        }
        if let Some(items) = sequence_items(value) {
            return Ok(HostRead::List(items.map(PySource).collect()));
        }
        if let Ok(dict) = value.cast::<PyDict>() {
            let mut type_name = None;
            let mut fields = Vec::with_capacity(dict.len());
            for (key, item) in dict.iter() {
                let key: String = key.cast::<PyString>().map_err(|_| refuse())?.to_str().map_err(|_| refuse())?.to_owned();
                if key == "$type" {
                    if let Ok(name) = item.cast::<PyString>() {
                        type_name = Some(Cow::Owned(name.to_str().map_err(|_| refuse())?.to_owned()));
                        continue;
                    }
                }
                fields.push((Cow::Owned(key), PySource(item)));
            }
            return Ok(HostRead::Record { type_name, fields });
        }
        Err(refuse())
    }
}

/// Refuses a call whose input is over `max_input_size` before anything is converted. `pieces`
/// are measured in order: each `(value, extra)` adds the value's size and `extra` (a wrapping
/// record or list). A value with no canonical form stops the check; converting reports it.
fn check_input<'py>(limits: &CoreLimits, extra: u64, values: impl Iterator<Item = Bound<'py, PyAny>>) -> Result<(), IrError> {
    let Some(limit) = limits.max_input_size else { return Ok(()) };
    MEASURE_READ.with(|last| last.set(0));
    let mut total = extra;
    for value in values {
        if total > limit {
            break;
        }
        match eval::measure_input_size(&PySource(value), Some(limit - total)) {
            Ok(size) => total = total.saturating_add(size),
            Err(_) => return Ok(()),
        }
    }
    if total > limit {
        return Err(eval::input_limit_error(limit));
    }
    Ok(())
}

/// A Python value read where it lies by the evaluator itself ([`HostValueSource`]), so a call's
/// arguments become the evaluator's values in one pass, with no host value between them (see
/// [`entrypoint_in_one_pass`]). It accepts exactly the values [`Reader`] converts and reads them
/// as it would; on anything the reader would refuse (or report: a container whose items would
/// lie deeper than the value nesting limit), it fails and sets `refused`, and the call is made
/// again through the reader, which reports it as it always has.
///
/// The object is borrowed: the arguments are read while the GIL is held and before any Python
/// code can run (the evaluator reads every argument before it charges anything, and the
/// long-run hook runs only from a charge; reading runs no method of any object), so nothing
/// read can change or be freed while it is read.
#[derive(Clone, Copy)]
struct PyIn<'a> {
    object: *mut ffi::PyObject,
    /// Containers around it (an argument is at 0), as the evaluator counts nesting.
    depth: u32,
    reading: &'a OnePass,
}

/// What the [`PyIn`] sources of one call share: whether one refused a value, and the path to
/// the container being read.
struct OnePass {
    refused: Cell<bool>,
    around: RefCell<Around>,
}

impl OnePass {
    fn new() -> Self {
        OnePass { refused: Cell::new(false), around: RefCell::new(Around::default()) }
    }
}

impl<'a> PyIn<'a> {
    #[cold]
    fn refuse<T>(&self) -> Result<T, IrError> {
        self.reading.refused.set(true);
        Err(IrError::new(codes::BOUNDARY_TYPE, "The value is read again by the reader, which reports it."))
    }

    fn child(&self, object: *mut ffi::PyObject) -> Self {
        PyIn { object, depth: self.depth + 1, reading: self.reading }
    }

    /// A container's items may be read when they lie within the value nesting limit and the
    /// container is none of those around it. A value that contains itself is refused at once
    /// (the reader then reports it), not read round its cycle until the nesting limit stops
    /// it: up to 128 times the work of the objects it is made of.
    fn may_hold(&self, len: ffi::Py_ssize_t) -> bool {
        len == 0 || (self.depth + 1 < MAX_VALUE_NESTING && self.reading.around.borrow_mut().enter(self.depth, self.object as usize))
    }

    /// The members of a dict, handed to `visit` in its order as
    /// [`HostValueSource::visit_members`] hands them (a string `$type` as the type name) until
    /// `visit` returns `Ok(false)`; `None` when the object is not a dict. A key that is not a
    /// string, text that is not valid Unicode, or members past the nesting limit are refused.
    #[inline(always)]
    fn dict_members<'t>(&self, mut visit: impl FnMut(Member<'t, PyIn<'a>>) -> Result<bool, IrError>) -> Option<Result<(), IrError>> {
        let object = self.object;
        // SAFETY: as in `read`: the GIL is held and the dict is live and unchanged while it is
        // walked (`visit` runs evaluator code that reads the members handed to it and runs no
        // Python code); keys and values come back borrowed, kept alive by the dict.
        unsafe {
            if ffi::PyDict_Check(object) == 0 {
                return None;
            }
            if !self.may_hold(ffi::PyDict_Size(object)) {
                return Some(self.refuse());
            }
            let (mut at, mut key, mut value): (ffi::Py_ssize_t, *mut ffi::PyObject, *mut ffi::PyObject) =
                (0, std::ptr::null_mut(), std::ptr::null_mut());
            while ffi::PyDict_Next(object, &mut at, &mut key, &mut value) != 0 {
                if ffi::PyUnicode_Check(key) == 0 {
                    return Some(self.refuse());
                }
                let Some(name) = utf8(key) else { return Some(self.refuse()) };
                let member = if name == "$type" && ffi::PyUnicode_Check(value) != 0 {
                    let Some(text) = utf8(value) else { return Some(self.refuse()) };
                    Member::TypeName(text)
                } else {
                    Member::Field(Cow::Borrowed(name), self.child(value))
                };
                match visit(member) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(error) => return Some(Err(error)),
                }
            }
            Some(Ok(()))
        }
    }
}

/// The UTF-8 text of a `str` (subclasses included), cached in the object; `None` (no exception
/// left set) when it is not valid Unicode.
///
/// # Safety
/// The GIL is held and `object` is a live `str` that lives, unchanged, as long as the text is used.
unsafe fn utf8<'t>(object: *mut ffi::PyObject) -> Option<&'t str> {
    // A compact ASCII string (most keys and texts) is its own UTF-8, stored after its header:
    // read in place, without the call.
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy, Py_3_14)))]
    if ffi::PyUnicode_IS_COMPACT_ASCII(object) != 0 {
        let len = ffi::PyUnicode_GET_LENGTH(object) as usize;
        let data = ffi::PyUnicode_DATA(object).cast::<u8>();
        // SAFETY: a compact ASCII string's `len` bytes of ASCII follow its header.
        return Some(std::str::from_utf8_unchecked(std::slice::from_raw_parts(data, len)));
    }
    let mut len: ffi::Py_ssize_t = 0;
    let data = ffi::PyUnicode_AsUTF8AndSize(object, &mut len);
    if data.is_null() {
        ffi::PyErr_Clear();
        return None;
    }
    // SAFETY: CPython hands back `len` bytes of valid UTF-8, kept with the string object.
    Some(std::str::from_utf8_unchecked(std::slice::from_raw_parts(data.cast::<u8>(), len as usize)))
}

/// The size and borrowed items of a list or a tuple: the full C API's unchecked macros, or
/// under the stable ABI (feature `abi3`, which has no macros) its checked calls.
mod seq {
    #[cfg(feature = "abi3")]
    pub(super) use pyo3::ffi::{PyList_GetItem as list_item, PyList_Size as list_len, PyTuple_GetItem as tuple_item, PyTuple_Size as tuple_len};
    #[cfg(not(feature = "abi3"))]
    pub(super) use pyo3::ffi::{PyList_GET_ITEM as list_item, PyList_GET_SIZE as list_len, PyTuple_GET_ITEM as tuple_item, PyTuple_GET_SIZE as tuple_len};
}

impl<'a> HostValueSource for PyIn<'a> {
    type Child = PyIn<'a>;

    // Inlined into the evaluator's reader: what it reads is then taken from registers, not
    // stored by one function and loaded back by the other.
    #[inline(always)]
    fn read(&self) -> Result<HostRead<'_, PyIn<'a>>, IrError> {
        let object = self.object;
        // SAFETY (all of this function): the GIL is held and `object` is live and unchanged
        // while it is read (see [`PyIn`]); every call below only reads the object's type and
        // storage (no method of it runs), and items and members come back as borrowed
        // references that the container keeps alive.
        unsafe {
            if object == ffi::Py_None() {
                return Ok(HostRead::Null);
            }
            if ffi::PyBool_Check(object) != 0 {
                return Ok(HostRead::Bool(object == ffi::Py_True()));
            }
            if ffi::PyLong_Check(object) != 0 {
                let mut overflow = 0;
                let value = ffi::PyLong_AsLongLongAndOverflow(object, &mut overflow);
                if overflow != 0 || (value == -1 && !ffi::PyErr_Occurred().is_null()) {
                    ffi::PyErr_Clear();
                    return self.refuse();
                }
                return Ok(HostRead::Int(value));
            }
            // The float check (a subtype walk for any other type) comes last: no object is both
            // a float and a str, list, tuple or dict (their layouts conflict), so the order
            // changes nothing the Reader decides.
            if ffi::PyUnicode_Check(object) != 0 {
                return match utf8(object) {
                    Some(text) => Ok(HostRead::Str(Cow::Borrowed(text))),
                    None => self.refuse(),
                };
            }
            if ffi::PyList_Check(object) != 0 {
                let len = seq::list_len(object);
                if !self.may_hold(len) {
                    return self.refuse();
                }
                return Ok(HostRead::List((0..len).map(|at| self.child(seq::list_item(object, at))).collect()));
            }
            if ffi::PyTuple_Check(object) != 0 {
                let len = seq::tuple_len(object);
                if !self.may_hold(len) {
                    return self.refuse();
                }
                return Ok(HostRead::List((0..len).map(|at| self.child(seq::tuple_item(object, at))).collect()));
            }
            if ffi::PyDict_Check(object) != 0 {
                let mut type_name = None;
                let mut fields = Vec::with_capacity(ffi::PyDict_Size(object).max(0) as usize);
                let gathered = self.dict_members(|member| {
                    match member {
                        Member::TypeName(text) => type_name = Some(Cow::Borrowed(text)),
                        Member::Field(name, item) => fields.push((name, item)),
                    }
                    Ok(true)
                });
                return match gathered {
                    Some(Ok(())) => Ok(HostRead::Record { type_name, fields }),
                    Some(Err(error)) => Err(error),
                    None => self.refuse(),
                };
            }
            if ffi::PyFloat_Check(object) != 0 {
                return Ok(HostRead::Float(ffi::PyFloat_AsDouble(object)));
            }
        }
        self.refuse()
    }

    // Inlined into the evaluator's record reader, as `read` is.
    #[inline(always)]
    fn visit_members<F>(&self, visit: F) -> Option<Result<(), IrError>>
    where
        F: FnMut(Member<'_, PyIn<'a>>) -> Result<bool, IrError>,
    {
        self.dict_members(visit)
    }
}

/// [`evaluate_function`] with its arguments read by the evaluator where they lie ([`PyIn`]):
/// one pass from Python objects to the evaluator's values, each record built once in its
/// declared layout (see `Machine::read_host_as` in nx-ir-core). `None` when the call is to take
/// the reader's way instead, from the start or once reading refused something: a profiled call,
/// limits the runtime refuses, a program that does not compile, a name that names no
/// entrypoint, arguments that are not a list or tuple, an input over `max_input_size`
/// (measured first, where it lies), or a value the reader refuses or reports. The reader then
/// makes the same checks in the same order as ever, so every refusal keeps its code and
/// message; a call that ran gives what the reader's way gives (value, operations, input size).
fn entrypoint_in_one_pass(
    py: Python<'_>,
    program: &Program,
    name: &Bound<'_, PyString>,
    text: &str,
    args: Option<&Bound<'_, PyAny>>,
    limits: &CoreLimits,
) -> Option<PyResult<Evaluation>> {
    if eval::profile::is_requested() || limits.validate().is_err() {
        return None;
    }
    let compiled = program.compiled(py).ok()?;
    let entrypoint = program.entrypoint(compiled, name, text)?;
    let reading = OnePass::new();
    // The arguments, held for the call; each read where it lies.
    let (_held, sources) = positional_sources(args, &reading)?;
    let sources = sources.as_slice();
    // The input size, measured where it lies before anything is converted (as the reader
    // measures it: each argument, nothing for the list of them).
    let args_size = match limits.max_input_size {
        None => None,
        Some(limit) => Some(measure_sources(0, sources.iter().flatten().map(|source| (0, source)), limit)?),
    };
    run_in_one_pass(py, program, compiled, &reading, args_size, |sink, usage, host| {
        eval::evaluate_function_hooked(compiled, entrypoint, sources, limits, sink, usage, host)
    })
}

/// The items of a call's positional arguments (a list or tuple; none for `None`), held for the
/// call, and a source reading each where it lies. `None` when `args` is neither.
#[allow(clippy::type_complexity)]
fn positional_sources<'py, 'r>(
    args: Option<&Bound<'py, PyAny>>,
    reading: &'r OnePass,
) -> Option<(Few<Bound<'py, PyAny>>, Few<Option<PyIn<'r>>>)> {
    let mut held: Few<Bound<'py, PyAny>> = Few::new();
    if let Some(args) = args {
        for item in sequence_items(args)? {
            held.push(item);
        }
    }
    let mut sources: Few<Option<PyIn<'r>>> = Few::new();
    for item in held.as_slice() {
        sources.push(Some(PyIn { object: item.as_ptr(), depth: 0, reading }));
    }
    Some((held, sources))
}

/// The input size of `sources` measured where they lie, each with what it adds beside its value
/// (a name's text), after `start`: `None` once it passes `allowance` or a value is refused (the
/// reader's way then refuses the call as it always has).
fn measure_sources<'s, 'a: 's>(start: u64, sources: impl Iterator<Item = (u64, &'s PyIn<'a>)>, allowance: u64) -> Option<u64> {
    let mut total = start;
    for (extra, source) in sources {
        total = measure_where_it_lies::<false>(source.object, total.saturating_add(extra), allowance)?;
    }
    Some(total)
}

/// Adds the input size of one Python value (ir-format §6.2) to `total`, walking it where it lies
/// with an explicit stack. Each value's own one is counted when it is reached, before anything
/// beneath it is looked at or held, so the walk stops as soon as the size passes `allowance`:
/// what it holds never grows past the allowance, however long a list is. A value that contains
/// itself is stopped where its cycle closes. `None` when the size passes the allowance, and:
/// - `ANY` false, as the [`Reader`] reads: at a value [`PyIn`] refuses (a cycle, nesting past
///   the limit, a key that is not a string, text that is not Unicode, an integer past 64
///   bits, an object of another class);
/// - `ANY` true, for any Python value, as the reference runtime measures one: at a cycle (its
///   size has no end); an object of another class counts one and is not entered, a key that is
///   not a string counts as an empty name, text that is not Unicode one unit a code point, and
///   any depth is measured.
fn measure_where_it_lies<const ANY: bool>(root: *mut ffi::PyObject, total: u64, allowance: u64) -> Option<u64> {
    let mut total = total.saturating_add(1);
    let mut pending: Vec<(*mut ffi::PyObject, u32)> = vec![(root, 0)];
    let mut around = Around::default();
    // The values read, kept for the tests however the walk ends (of `ANY` walks only).
    struct Reads<const ANY: bool>(u64);
    impl<const ANY: bool> Drop for Reads<ANY> {
        fn drop(&mut self) {
            if ANY {
                MEASURE_READ.with(|last| last.set(self.0));
            }
        }
    }
    let mut read = Reads::<ANY>(0);
    // Counts a value reached (its one), refusing once over the allowance.
    fn reach(total: &mut u64, allowance: u64) -> Option<()> {
        *total = total.saturating_add(1);
        (*total <= allowance).then_some(())
    }
    // A container may be entered: within the nesting limit (when reading) and none of those
    // around it.
    let enter = |around: &mut Around, depth: u32, object: *mut ffi::PyObject| {
        (ANY || depth + 1 < MAX_VALUE_NESTING) && around.enter(depth, object as usize)
    };
    // ⌊UTF-16 length / 64⌋ of a `str`.
    // SAFETY (of the calls): as below, `text` is a live `str`.
    let text = |text: *mut ffi::PyObject| unsafe {
        match utf8(text) {
            Some(text) => Some(text_units(text) / 64),
            None if ANY => Some(ffi::PyUnicode_GetLength(text).max(0) as u64 / 64),
            None => None,
        }
    };
    if total > allowance {
        return None;
    }
    while let Some((object, depth)) = pending.pop() {
        if ANY {
            read.0 += 1;
        }
        // SAFETY: the GIL is held and the value lies unchanged while it is measured (see
        // [`PyIn`]; nothing here runs Python code); only its type and storage are read, items
        // and members as borrowed references their container keeps alive.
        unsafe {
            if object == ffi::Py_None() || ffi::PyBool_Check(object) != 0 {
                continue;
            }
            if ffi::PyLong_Check(object) != 0 {
                if !ANY {
                    let mut overflow = 0;
                    let value = ffi::PyLong_AsLongLongAndOverflow(object, &mut overflow);
                    if overflow != 0 || (value == -1 && !ffi::PyErr_Occurred().is_null()) {
                        ffi::PyErr_Clear();
                        return None;
                    }
                }
                continue;
            }
            if ffi::PyUnicode_Check(object) != 0 {
                total = total.saturating_add(text(object)?);
            } else if ffi::PyList_Check(object) != 0 || ffi::PyTuple_Check(object) != 0 {
                let list = ffi::PyList_Check(object) != 0;
                let len = if list { seq::list_len(object) } else { seq::tuple_len(object) };
                if len > 0 && !enter(&mut around, depth, object) {
                    return None;
                }
                for at in 0..len {
                    reach(&mut total, allowance)?;
                    let item = if list { seq::list_item(object, at) } else { seq::tuple_item(object, at) };
                    pending.push((item, depth.saturating_add(1)));
                }
            } else if ffi::PyDict_Check(object) != 0 {
                if ffi::PyDict_Size(object) > 0 && !enter(&mut around, depth, object) {
                    return None;
                }
                let (mut at, mut key, mut value): (ffi::Py_ssize_t, *mut ffi::PyObject, *mut ffi::PyObject) =
                    (0, std::ptr::null_mut(), std::ptr::null_mut());
                while ffi::PyDict_Next(object, &mut at, &mut key, &mut value) != 0 {
                    let name = if ffi::PyUnicode_Check(key) != 0 {
                        utf8(key)
                    } else if ANY {
                        Some("")
                    } else {
                        return None;
                    };
                    if name == Some("$type") && ffi::PyUnicode_Check(value) != 0 {
                        // A `$type` string is the record's type name: its text alone.
                        total = total.saturating_add(text(value)?);
                    } else {
                        let name = match name {
                            Some(name) => text_units(name) / 64,
                            None => text(key)?,
                        };
                        total = total.saturating_add(name);
                        reach(&mut total, allowance)?;
                        pending.push((value, depth.saturating_add(1)));
                    }
                    if total > allowance {
                        return None;
                    }
                }
            } else if !ANY && ffi::PyFloat_Check(object) == 0 {
                return None;
            }
        }
        if total > allowance {
            return None;
        }
    }
    Some(total)
}

/// Runs a call whose arguments are [`PyIn`] sources (see [`entrypoint_in_one_pass`]): `call`
/// evaluates it into a [`PySink`]. `None` when reading an argument refused it (nothing ran and
/// nothing was written; the caller takes the reader's way).
fn run_in_one_pass<'py>(
    py: Python<'py>,
    program: &Program,
    compiled: &Compiled,
    reading: &OnePass,
    args_size: Option<u64>,
    call: impl FnOnce(&mut PySink<'_, 'py>, &mut Usage, HostCall<'_>) -> Result<Bound<'py, PyAny>, IrError>,
) -> Option<PyResult<Evaluation>> {
    if reading.refused.get() {
        return None;
    }
    let outcome = in_sink(py, program, compiled, args_size, call);
    if reading.refused.get() {
        // Refused while reading: nothing ran, nothing was written.
        return None;
    }
    Some(finish(py, outcome))
}

/// [`call_function`] of a plain `Function` record resolved before (`handle`), its arguments
/// (a dict by name, or a list or tuple by position) read by the evaluator where they lie, as
/// [`entrypoint_in_one_pass`] reads an entrypoint's. `None` when the call is to take the
/// reader's way: a profiled call, limits the runtime refuses, no arguments, arguments of
/// another kind, a name that is not a string of valid Unicode, an input over `max_input_size`
/// (measured first, the record's size included), or a value the reader refuses or reports.
fn call_in_one_pass(
    py: Python<'_>,
    program: &Program,
    compiled: &Compiled,
    handle: eval::FunctionHandle,
    args: Option<&Bound<'_, PyAny>>,
    limits: &CoreLimits,
) -> Option<PyResult<Evaluation>> {
    if eval::profile::is_requested() || limits.validate().is_err() {
        return None;
    }
    let args = args.filter(|a| !a.is_none())?;
    let reading = OnePass::new();
    // What the limit leaves beside the Function record; the arguments count 1 as a record or a
    // list, then each name's text and each value.
    let allowance = limits.max_input_size.map(|limit| limit.saturating_sub(handle.record_size()));
    if handle.record_size() > limits.max_input_size.unwrap_or(u64::MAX) {
        return None;
    }
    let callee = Callee::Handle(handle);
    if let Ok(dict) = args.cast::<PyDict>() {
        let mut named: Few<(&str, PyIn<'_>)> = Few::new();
        let (mut at, mut key, mut value): (ffi::Py_ssize_t, *mut ffi::PyObject, *mut ffi::PyObject) =
            (0, std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: the GIL is held and `dict` is live; PyDict_Next reads its storage (no method
        // runs) and hands out borrowed references the dict keeps alive, unchanged while the
        // call reads them (see [`PyIn`]); a key's text is cached in the key.
        while unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut at, &mut key, &mut value) } != 0 {
            if unsafe { ffi::PyUnicode_Check(key) } == 0 {
                return None;
            }
            let name = unsafe { utf8(key) }?;
            named.push((name, PyIn { object: value, depth: 0, reading: &reading }));
        }
        let named = named.as_slice();
        let args_size = match allowance {
            None => None,
            Some(allowance) => Some(measure_sources(1, named.iter().map(|(name, source)| (text_units(name) / 64, source)), allowance)?),
        };
        return run_in_one_pass(py, program, compiled, &reading, args_size, |sink, usage, host| {
            eval::call_function_hooked(compiled, callee, CallArguments::Named(named), limits, sink, usage, host)
        });
    }
    let (_held, sources) = positional_sources(Some(args), &reading)?;
    let sources = sources.as_slice();
    let args_size = match allowance {
        None => None,
        Some(allowance) => Some(measure_sources(1, sources.iter().flatten().map(|source| (0, source)), allowance)?),
    };
    run_in_one_pass(py, program, compiled, &reading, args_size, |sink, usage, host| {
        eval::call_function_hooked(compiled, callee, CallArguments::Positional(sources), limits, sink, usage, host)
    })
}

/// The UTF-16 length of a text, for its text cost (⌊length / 64⌋).
fn text_units(text: &str) -> u64 {
    if text.len() < 64 {
        // Fewer than 64 bytes cannot hold 64 units: its cost is 0 whatever its length.
        return text.len() as u64;
    }
    (if text.is_ascii() { text.len() } else { text.chars().map(char::len_utf16).sum() }) as u64
}

/// Keeps the compiled form of a program alive with it.
pub type Compiled = Arc<eval::CompiledProgram>;
