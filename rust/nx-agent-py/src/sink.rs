//! Results written straight into Python objects, and the GIL released only for long
//! evaluations.
//!
//! A call holds the GIL while it reads its arguments, and keeps it while NX code runs until the
//! evaluation has charged [`LONG_RUN`] operations; then the GIL is released (other threads run,
//! and may share the program) and taken back before the result is written. A short call pays
//! for no GIL round trip. Names and string literals of the program are written as Python
//! strings made once per program and reused.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use nx_ir_core::error::{codes, IrError, IrResult};
use nx_ir_core::eval::{CompiledProgram, HostValueSink};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};

/// Operations an evaluation runs with the GIL held before it releases it (about 50–100 µs); the
/// hook that does it also polls for signals (see [`crate::interrupt`]).
pub const LONG_RUN: u64 = 10_000;

/// The GIL, released by the long-run hook and taken back before Python is touched again.
pub struct GilRelease {
    saved: Cell<*mut ffi::PyThreadState>,
}

impl GilRelease {
    /// For a thread that holds the GIL now.
    pub fn new(_py: Python<'_>) -> Self {
        GilRelease { saved: Cell::new(std::ptr::null_mut()) }
    }

    /// Releases the GIL (the evaluator's long-run hook). Nothing may touch Python until
    /// [`GilRelease::reacquire`].
    pub fn release(&self) {
        if self.saved.get().is_null() {
            // SAFETY: this thread holds the GIL (we were created under it and have not
            // released it); the evaluator touches no Python object until reacquire.
            self.saved.set(unsafe { ffi::PyEval_SaveThread() });
        }
    }

    /// Takes the GIL back if it was released.
    #[inline]
    pub fn reacquire(&self) {
        let saved = self.saved.replace(std::ptr::null_mut());
        if !saved.is_null() {
            // SAFETY: `saved` is this thread's state, saved by `release`.
            unsafe { ffi::PyEval_RestoreThread(saved) };
        }
    }
}

impl Drop for GilRelease {
    fn drop(&mut self) {
        self.reacquire();
    }
}

/// One slot of the cache: the text's address and length, and its Python string.
type Slot = (usize, usize, Option<Py<PyString>>);

/// Python strings for a program's shared texts, keyed by the address of the text.
pub struct TextCache {
    slots: Box<[Slot]>,
    shift: u32,
    type_key: Py<PyString>,
    /// For each record declaration (by module, then declaration), the template of its results.
    templates: Vec<Vec<Option<Template>>>,
}

/// The template of a record shape's results: a dict of its keys in the order written (`$type`
/// set), which a result copies and then sets its values in, rather than growing a dict key by
/// key. The first result written also leaves its small scalar values in the template (a text
/// of the program, a small int, a bool): a later result holding the very same object for a
/// field (the same pointer) finds it there already and does not set it again.
struct Template {
    dict: Py<PyDict>,
    /// For each field, by output position: null, or the object `dict` holds for it (set
    /// together with it, so a value with this pointer is that very object). `dict` is never
    /// changed again once `filled` is set.
    kept: Box<[AtomicPtr<ffi::PyObject>]>,
    filled: AtomicBool,
}

/// Texts of at most this many code points are kept in a template.
const KEPT_TEXT: ffi::Py_ssize_t = 64;

/// Whether a result's field value may stay in its shape's template: a small scalar object.
fn keepable(value: &Bound<'_, PyAny>) -> bool {
    let object = value.as_ptr();
    // SAFETY: the GIL is held and `object` is live; these checks read its type only.
    unsafe {
        ffi::PyLong_CheckExact(object) != 0
            || ffi::PyFloat_CheckExact(object) != 0
            || ffi::PyBool_Check(object) != 0
            || (ffi::PyUnicode_CheckExact(object) != 0 && ffi::PyUnicode_GetLength(object) <= KEPT_TEXT)
    }
}

impl TextCache {
    pub fn new(py: Python<'_>, program: &CompiledProgram) -> Self {
        let texts: Vec<&str> = program.shared_texts().collect();
        let size = (texts.len() * 2).next_power_of_two().max(16);
        let mut slots: Vec<Slot> = (0..size).map(|_| (0, 0, None)).collect();
        let shift = 64 - size.trailing_zeros();
        for text in texts {
            let key = text.as_ptr() as usize;
            let mut at = Self::hash(key, shift);
            while slots[at].2.is_some() {
                at = (at + 1) & (size - 1);
            }
            slots[at] = (key, text.len(), Some(PyString::intern(py, text).unbind()));
        }
        let mut cache = TextCache {
            slots: slots.into_boxed_slice(),
            shift,
            type_key: PyString::intern(py, "$type").unbind(),
            templates: Vec::new(),
        };
        for ((module, decl), type_name, names) in program.record_shapes() {
            let Ok(dict) = cache.template_of(py, type_name, &names) else { continue };
            let kept = names.iter().map(|_| AtomicPtr::new(std::ptr::null_mut())).collect();
            let template = Template { dict, kept, filled: AtomicBool::new(false) };
            let (module, decl) = (module as usize, decl as usize);
            if cache.templates.len() <= module {
                cache.templates.resize_with(module + 1, Vec::new);
            }
            let row = &mut cache.templates[module];
            if row.len() <= decl {
                row.resize_with(decl + 1, || None);
            }
            row[decl] = Some(template);
        }
        cache
    }

    /// The template dict of a record shape (see [`TextCache::templates`]).
    fn template_of(&self, py: Python<'_>, type_name: &str, names: &[&str]) -> PyResult<Py<PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item(self.type_key.bind(py), self.string(py, type_name))?;
        for name in names {
            dict.set_item(self.string(py, name), py.None())?;
        }
        Ok(dict.unbind())
    }

    /// The template for the record declaration `shape`, when there is one.
    #[inline]
    fn template(&self, shape: (u32, u32)) -> Option<&Template> {
        self.templates.get(shape.0 as usize)?.get(shape.1 as usize)?.as_ref()
    }

    #[inline]
    fn hash(key: usize, shift: u32) -> usize {
        ((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
    }

    /// The cached string for `text` if it is one of the program's shared texts (found by the
    /// text's address and length).
    #[inline]
    fn slot(&self, text: &str) -> Option<&Py<PyString>> {
        let key = text.as_ptr() as usize;
        let mask = self.slots.len() - 1;
        let mut at = Self::hash(key, self.shift);
        loop {
            let (k, len, value) = &self.slots[at];
            let value = value.as_ref()?;
            if *k == key && *len == text.len() {
                return Some(value);
            }
            at = (at + 1) & mask;
        }
    }

    /// [`TextCache::slot`] as a new reference.
    #[inline]
    fn get<'py>(&self, py: Python<'py>, text: &str) -> Option<Bound<'py, PyString>> {
        self.slot(text).map(|value| value.bind(py).clone())
    }

    /// [`TextCache::slot`], borrowed (no reference count taken).
    #[inline]
    fn get_ptr(&self, text: &str) -> Option<*mut ffi::PyObject> {
        self.slot(text).map(|value| value.as_ptr())
    }

    fn string<'py>(&self, py: Python<'py>, text: &str) -> Bound<'py, PyString> {
        self.get(py, text).unwrap_or_else(|| PyString::new(py, text))
    }
}

/// Writes results as Python objects (`$type` first, then the fields in the order given).
pub struct PySink<'a, 'py> {
    pub py: Python<'py>,
    pub gil: &'a GilRelease,
    pub texts: &'a TextCache,
    /// A Python exception raised while writing (memory), re-raised by the caller.
    pub raised: Option<PyErr>,
    /// The lists and dicts written so far that the cyclic collector tracks, each taken out of
    /// its view once complete (see [`PySink::set_aside`]) and tracked again when the sink is
    /// dropped.
    untracked: Vec<Bound<'py, PyAny>>,
    /// How many containers [`PySink::set_aside`] has left in view, up to [`SET_ASIDE_AFTER`].
    containers: usize,
}

/// Lists and dicts a result holds before [`PySink::set_aside`] takes any out of the collector's
/// view. Fewer set off at most one young collection while they are written (CPython's threshold
/// is 700 allocations), so setting them aside saves nothing and costs a small call about 8%.
const SET_ASIDE_AFTER: usize = 128;

impl<'a, 'py> PySink<'a, 'py> {
    pub fn new(py: Python<'py>, gil: &'a GilRelease, texts: &'a TextCache) -> Self {
        PySink { py, gil, texts, raised: None, untracked: Vec::new(), containers: 0 }
    }

    /// Takes a complete list of the result, or a dict holding a list or dict (the dicts CPython
    /// tracks: the others hold only strings, numbers, booleans and `None`), out of the cyclic
    /// collector's view until the sink is dropped. Nothing can reach it but the result being
    /// written, and it holds only objects just made, so it is in no cycle; while it is out of
    /// view, the collections that the result's own allocations set off do not walk it again
    /// and again (a fifth of a result of many records' time). Tracked again on drop, it is as
    /// CPython would have it: a result dropped before the next collection is never walked.
    #[inline(always)]
    fn set_aside(&mut self, container: &Bound<'py, PyAny>) {
        if self.containers < SET_ASIDE_AFTER {
            self.containers += 1;
            return;
        }
        self.untrack(container);
    }

    /// [`PySink::set_aside`] past its first containers.
    #[inline(never)]
    fn untrack(&mut self, container: &Bound<'py, PyAny>) {
        // SAFETY: the GIL is held and `container` is live.
        unsafe {
            if ffi::PyObject_GC_IsTracked(container.as_ptr()) != 0 {
                ffi::PyObject_GC_UnTrack(container.as_ptr().cast());
                self.untracked.push(container.clone());
            }
        }
    }

    /// A new dict copied from a template.
    fn copy_of(&mut self, template: &Template) -> IrResult<Bound<'py, PyAny>> {
        // SAFETY: the GIL is held and the template's dict is live; PyDict_Copy returns a new
        // reference (NULL with an exception set on failure).
        let copy = unsafe { ffi::PyDict_Copy(template.dict.as_ptr()) };
        if copy.is_null() {
            return Err(self.failed(PyErr::fetch(self.py)));
        }
        // SAFETY: `copy` is a new reference we own.
        Ok(unsafe { Bound::from_owned_ptr(self.py, copy) })
    }

    /// Sets a record field in `dict`, whose key it already holds (its value is replaced).
    fn set_field(&mut self, dict: &Bound<'py, PyAny>, name: &str, value: &Bound<'py, PyAny>) -> IrResult<()> {
        // A shape's names are the program's own texts, so the key is the cached string
        // (borrowed: the dict takes its own reference); a fresh one only if it were not.
        let made;
        let key = match self.texts.get_ptr(name) {
            Some(key) => key,
            None => {
                made = PyString::new(self.py, name);
                made.as_ptr()
            }
        };
        // SAFETY: the GIL is held; `dict`, `key` and `value` are live (PyDict_SetItem takes its
        // own references).
        if unsafe { ffi::PyDict_SetItem(dict.as_ptr(), key, value.as_ptr()) } < 0 {
            return Err(self.failed(PyErr::fetch(self.py)));
        }
        Ok(())
    }

    /// Leaves the first result's small scalar values in its shape's template (see [`Template`]).
    fn fill(&mut self, template: &Template, fields: &[(&str, Bound<'py, PyAny>)]) -> IrResult<()> {
        let dict = template.dict.bind(self.py).clone().into_any();
        for (at, (name, value)) in fields.iter().enumerate() {
            if keepable(value) {
                self.set_field(&dict, name, value)?;
                // The template's dict owns the object from here on, and is never set again.
                template.kept[at].store(value.as_ptr(), Ordering::Relaxed);
            }
        }
        template.filled.store(true, Ordering::Release);
        Ok(())
    }

    /// A new Python string of ASCII `text`, its bytes copied in as they are (no decoding).
    #[cfg(not(feature = "abi3"))]
    fn new_ascii(&mut self, text: &str) -> IrResult<Bound<'py, PyAny>> {
        debug_assert!(text.is_ascii());
        let Ok(len) = ffi::Py_ssize_t::try_from(text.len()) else {
            return Err(self.failed(pyo3::exceptions::PyMemoryError::new_err("the string is too long")));
        };
        // SAFETY: the GIL is held. PyUnicode_New returns a new reference to a string of `len`
        // code points of at most 127 (one byte each, its data `len` bytes), or NULL with an
        // exception set; every byte of `text` is ASCII, so copying them in makes a valid string.
        unsafe {
            let object = ffi::PyUnicode_New(len, 127);
            if object.is_null() {
                return Err(self.failed(PyErr::fetch(self.py)));
            }
            nx_ir_core::eval::copy_short(text.as_bytes(), ffi::PyUnicode_1BYTE_DATA(object));
            Ok(Bound::from_owned_ptr(self.py, object))
        }
    }

    /// The stable ABI has no direct access to a string's bytes: decoded as any text.
    #[cfg(feature = "abi3")]
    fn new_ascii(&mut self, text: &str) -> IrResult<Bound<'py, PyAny>> {
        Ok(PyString::new(self.py, text).into_any())
    }

    fn failed(&mut self, error: PyErr) -> IrError {
        self.raised = Some(error);
        IrError::new(codes::BOUNDARY_TYPE, "Python raised while the result was written.")
    }
}

impl<'py> HostValueSink for PySink<'_, 'py> {
    type Out = Bound<'py, PyAny>;

    fn null(&mut self) -> IrResult<Self::Out> {
        self.gil.reacquire();
        Ok(self.py.None().into_bound(self.py))
    }

    fn bool(&mut self, value: bool) -> IrResult<Self::Out> {
        self.gil.reacquire();
        Ok(PyBool::new(self.py, value).to_owned().into_any())
    }

    fn int(&mut self, value: i64) -> IrResult<Self::Out> {
        self.gil.reacquire();
        Ok(value.into_pyobject(self.py).map_err(|e| match e {})?.into_any())
    }

    fn float(&mut self, value: f64) -> IrResult<Self::Out> {
        self.gil.reacquire();
        Ok(PyFloat::new(self.py, value).into_any())
    }

    fn str(&mut self, value: &str) -> IrResult<Self::Out> {
        self.gil.reacquire();
        Ok(self.texts.string(self.py, value).into_any())
    }

    fn ascii_str(&mut self, value: &str) -> IrResult<Self::Out> {
        self.gil.reacquire();
        // Never a shared text: nothing to look up in the cache.
        self.new_ascii(value)
    }

    fn list(&mut self, items: Vec<Self::Out>) -> IrResult<Self::Out> {
        self.gil.reacquire();
        match PyList::new(self.py, items) {
            Ok(list) => {
                let list = list.into_any();
                self.set_aside(&list);
                Ok(list)
            }
            Err(error) => Err(self.failed(error)),
        }
    }

    fn list_of<F>(&mut self, len: usize, mut item: F) -> IrResult<Self::Out>
    where
        F: FnMut(&mut Self, usize) -> IrResult<Self::Out>,
    {
        self.gil.reacquire();
        let py = self.py;
        let Ok(size) = ffi::Py_ssize_t::try_from(len) else {
            return Err(self.failed(pyo3::exceptions::PyMemoryError::new_err("the list is too long")));
        };
        // SAFETY: the GIL is held. A new list's slots are NULL until set; one dropped before
        // every slot is set (a failed item) is freed safely, as list_dealloc skips NULL slots.
        let list = unsafe { ffi::PyList_New(size) };
        if list.is_null() {
            return Err(self.failed(PyErr::fetch(py)));
        }
        // SAFETY: `list` is a new reference we own.
        let list = unsafe { Bound::from_owned_ptr(py, list) };
        for at in 0..len {
            let value = item(self, at)?;
            // SAFETY: `at` is within the new list's length and its slot is still NULL, so
            // nothing is overwritten; PyList_SET_ITEM takes the reference `into_ptr` gives up.
            #[cfg(not(feature = "abi3"))]
            unsafe { ffi::PyList_SET_ITEM(list.as_ptr(), at as ffi::Py_ssize_t, value.into_ptr()) };
            // SAFETY: as above; the stable ABI's PyList_SetItem cannot fail for an index in range.
            #[cfg(feature = "abi3")]
            unsafe { ffi::PyList_SetItem(list.as_ptr(), at as ffi::Py_ssize_t, value.into_ptr()) };
        }
        let list = list.into_any();
        self.set_aside(&list);
        Ok(list)
    }

    fn shaped_record<'n, F>(&mut self, shape: (u32, u32), type_name: &str, len: usize, mut field: F) -> IrResult<Self::Out>
    where
        F: FnMut(&mut Self, usize) -> IrResult<(&'n str, Self::Out)>,
    {
        self.gil.reacquire();
        let texts = self.texts;
        let Some(template) = texts.template(shape) else {
            let mut fields = Vec::with_capacity(len);
            for at in 0..len {
                fields.push(field(self, at)?);
            }
            return self.record(Some(type_name), fields);
        };
        if !template.filled.load(Ordering::Acquire) {
            let mut fields = Vec::with_capacity(len);
            for at in 0..len {
                fields.push(field(self, at)?);
            }
            self.fill(template, &fields)?;
            let dict = self.copy_of(template)?;
            for (at, (name, value)) in fields.iter().enumerate() {
                if value.as_ptr() != template.kept[at].load(Ordering::Relaxed) {
                    self.set_field(&dict, name, value)?;
                }
            }
            if fields.iter().any(|(_, value)| is_container(value)) {
                self.set_aside(&dict);
            }
            return Ok(dict);
        }
        let dict = self.copy_of(template)?;
        let mut nests = false;
        for at in 0..len {
            let (name, value) = field(self, at)?;
            nests |= is_container(&value);
            // A value the template holds already (the very same object) is in the copy.
            if value.as_ptr() != template.kept[at].load(Ordering::Relaxed) {
                self.set_field(&dict, name, &value)?;
            }
        }
        if nests {
            self.set_aside(&dict);
        }
        Ok(dict)
    }

    fn record(&mut self, type_name: Option<&str>, fields: Vec<(&str, Self::Out)>) -> IrResult<Self::Out> {
        self.gil.reacquire();
        let py = self.py;
        let dict = PyDict::new(py);
        // Keys and names the program holds are set from the cache without taking a reference
        // (the dict takes its own).
        let set = |key: *mut ffi::PyObject, value: *mut ffi::PyObject| -> PyResult<()> {
            // SAFETY: the GIL is held; `dict` is a new dict and `key` and `value` are live
            // strings and objects (borrowed for the call; PyDict_SetItem takes its own references).
            if unsafe { ffi::PyDict_SetItem(dict.as_ptr(), key, value) } < 0 {
                return Err(PyErr::fetch(py));
            }
            Ok(())
        };
        let mut nests = false;
        let fill = || -> PyResult<()> {
            if let Some(name) = type_name {
                match self.texts.get_ptr(name) {
                    Some(name) => set(self.texts.type_key.as_ptr(), name)?,
                    None => set(self.texts.type_key.as_ptr(), PyString::new(py, name).as_ptr())?,
                }
            }
            for (key, value) in fields {
                nests |= is_container(&value);
                match self.texts.get_ptr(key) {
                    Some(key) => set(key, value.as_ptr())?,
                    None => set(PyString::new(py, key).as_ptr(), value.as_ptr())?,
                }
            }
            Ok(())
        };
        match fill() {
            Ok(()) => {
                let dict = dict.into_any();
                if nests {
                    self.set_aside(&dict);
                }
                Ok(dict)
            }
            Err(error) => Err(self.failed(error)),
        }
    }
}

/// Whether `value` is a list or dict: what makes a dict holding it one the collector tracks.
#[inline(always)]
fn is_container(value: &Bound<'_, PyAny>) -> bool {
    value.is_exact_instance_of::<PyDict>() || value.is_exact_instance_of::<PyList>()
}

impl Drop for PySink<'_, '_> {
    /// Tracks again every list and dict [`PySink::set_aside`] took out of the collector's view.
    /// The GIL is held: containers are set aside only while a result is written, which takes
    /// the GIL back first and never releases it, and the sink's users drop it with the GIL.
    fn drop(&mut self) {
        if self.untracked.is_empty() {
            return;
        }
        for container in self.untracked.drain(..) {
            // SAFETY: the GIL is held, `container` is live (this vector holds a reference) and
            // not tracked (nothing writes into a complete container, so nothing tracked it).
            unsafe {
                if ffi::PyObject_GC_IsTracked(container.as_ptr()) == 0 {
                    ffi::PyObject_GC_Track(container.as_ptr().cast());
                }
            }
        }
    }
}

/// Takes a result and keeps nothing (the writes are still charged): benchmarks time the
/// evaluation apart from building the Python result with it.
pub struct Discard<'a> {
    pub gil: &'a GilRelease,
}

impl HostValueSink for Discard<'_> {
    type Out = ();
    fn null(&mut self) -> IrResult<()> {
        self.gil.reacquire();
        Ok(())
    }
    fn bool(&mut self, _: bool) -> IrResult<()> {
        self.gil.reacquire();
        Ok(())
    }
    fn int(&mut self, _: i64) -> IrResult<()> {
        self.gil.reacquire();
        Ok(())
    }
    fn float(&mut self, _: f64) -> IrResult<()> {
        self.gil.reacquire();
        Ok(())
    }
    fn str(&mut self, _: &str) -> IrResult<()> {
        self.gil.reacquire();
        Ok(())
    }
    fn list(&mut self, _: Vec<()>) -> IrResult<()> {
        self.gil.reacquire();
        Ok(())
    }
    fn record(&mut self, _: Option<&str>, _: Vec<(&str, ())>) -> IrResult<()> {
        self.gil.reacquire();
        Ok(())
    }
}
