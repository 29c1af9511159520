//! The long-run hook of every evaluation: it releases the GIL once a call runs long (see
//! [`crate::sink`]) and, on the main thread, polls for signals while NX code runs, so that
//! Ctrl-C stops a long evaluation within a few milliseconds of work.
//!
//! The hook first runs after [`LONG_RUN`] operations, with the GIL still held: it runs Python's
//! signal handlers there (`PyErr_CheckSignals`, an atomic read when nothing is pending), then
//! releases the GIL. On the main thread, the only one Python delivers signals to, it asks to run
//! again every [`POLL_OPERATIONS`] operations; each of those runs reads the clock, and once
//! [`POLL_INTERVAL`] has passed since the last check it takes the GIL back, runs the handlers and
//! releases it again. A handler that raises (`KeyboardInterrupt`) stops the evaluation: the core
//! fails with `nx-ir-interrupted`, and the call raises the handler's exception with that
//! `NxIrError` (and the call's usage) as its `__context__`. Short calls never run the hook.

use std::cell::Cell;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nx_ir_core::eval::LongRunNext;
use pyo3::ffi;
use pyo3::prelude::*;

use crate::sink::GilRelease;
#[cfg(doc)]
use crate::sink::LONG_RUN;

/// Operations between two runs of the hook on the main thread once the GIL is released. Even the
/// costliest operations (a few hundred ns of work each, see the core's work bound) reach it
/// within tens of milliseconds; the fastest (a fused loop, a third of a nanosecond) pay one clock
/// read per 30 µs.
pub const POLL_OPERATIONS: u64 = 100_000;

/// The least time between two signal checks that take the GIL back.
pub const POLL_INTERVAL: Duration = Duration::from_millis(5);

/// The main thread's identifier (`PyThread_get_thread_ident`), read once from `threading`.
static MAIN_THREAD: OnceLock<Option<u64>> = OnceLock::new();

fn on_main_thread(py: Python<'_>) -> bool {
    let main = MAIN_THREAD.get_or_init(|| {
        let ident = py.import("threading").and_then(|threading| threading.call_method0("main_thread")?.getattr("ident"));
        ident.and_then(|ident| ident.extract::<u64>()).ok()
    });
    // SAFETY: a plain query of the calling thread's identifier.
    #[allow(clippy::useless_conversion)] // c_ulong is 32 bits on some targets
    let current = u64::from(unsafe { ffi::PyThread_get_thread_ident() });
    *main == Some(current)
}

/// The state of one call's hook; [`LongRunHook::run`] is what the core calls.
pub struct LongRunHook<'a, 'py> {
    py: Python<'py>,
    gil: &'a GilRelease,
    /// Whether the hook ran before (then the GIL is released between its runs).
    started: Cell<bool>,
    last_check: Cell<Option<Instant>>,
    /// The exception a signal handler raised, re-raised by the call.
    raised: Cell<Option<PyErr>>,
}

impl<'a, 'py> LongRunHook<'a, 'py> {
    pub fn new(py: Python<'py>, gil: &'a GilRelease) -> Self {
        LongRunHook { py, gil, started: Cell::new(false), last_check: Cell::new(None), raised: Cell::new(None) }
    }

    /// Runs the signal handlers; `false` when one raised (its exception is kept). The GIL must
    /// be held.
    fn signals_ok(&self) -> bool {
        // SAFETY: the caller holds the GIL on this thread.
        if unsafe { ffi::PyErr_CheckSignals() } == 0 {
            return true;
        }
        let raised = PyErr::take(self.py)
            .unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("a signal handler failed"));
        self.raised.set(Some(raised));
        false
    }

    /// The hook (see the module).
    pub fn run(&self) -> LongRunNext {
        if !self.started.replace(true) {
            // First run: the GIL is still held.
            crate::alloc::note_long_run();
            if !self.signals_ok() {
                return LongRunNext::Stop;
            }
            let main = on_main_thread(self.py);
            self.gil.release();
            if !main {
                return LongRunNext::Done;
            }
            self.last_check.set(Some(Instant::now()));
            return LongRunNext::Again(POLL_OPERATIONS);
        }
        let now = Instant::now();
        if self.last_check.get().is_some_and(|last| now.duration_since(last) < POLL_INTERVAL) {
            return LongRunNext::Again(POLL_OPERATIONS);
        }
        self.gil.reacquire();
        if !self.signals_ok() {
            // The GIL stays held: the call takes it back before it returns anyway.
            return LongRunNext::Stop;
        }
        self.gil.release();
        self.last_check.set(Some(now));
        LongRunNext::Again(POLL_OPERATIONS)
    }

    /// The exception a signal handler raised during the call, if one did.
    pub fn take_raised(&self) -> Option<PyErr> {
        self.raised.take()
    }
}

/// A call's failure when a signal handler stopped it: the handler's exception, with the call's
/// own error (`nx-ir-interrupted`, carrying the usage) as its `__context__`.
pub fn interrupted(py: Python<'_>, raised: PyErr, error: Option<PyErr>) -> PyErr {
    if let Some(error) = error {
        let context = error.into_value(py);
        // SAFETY: both are live exception objects; SetContext steals the reference it is given.
        unsafe { ffi::PyException_SetContext(raised.value(py).as_ptr(), context.into_ptr()) };
    }
    raised
}
