//! The work counter: how much the evaluator did beyond evaluating nodes, so tests can check that
//! work stays in proportion to the operations charged (and to the input size, for what the host
//! passed). A unit is one value copied, allocated, read from the host, written or compared, one
//! field scanned in a lookup, or 64 bytes of text built or copied. Counting is a plain add on the
//! machine; the total of the last call on this thread is kept here.

use std::cell::Cell;

thread_local! {
    static LAST: Cell<u64> = const { Cell::new(0) };
}

/// The work units of the last `evaluate_function` / `call_function` on this thread, whether it
/// succeeded or failed.
pub fn last_call_work() -> u64 {
    LAST.with(Cell::get)
}

pub(crate) fn record(units: u64) {
    LAST.with(|last| last.set(units));
}
