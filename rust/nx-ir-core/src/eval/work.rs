//! The work counter: how much the evaluator did beyond evaluating nodes, so tests can check that
//! work stays in proportion to the operations charged (and to the input size, for what the host
//! passed). A unit is one value copied, allocated, read from the host, written or compared, one
//! item scanned or hashed in a lookup, or 64 bytes of text built, copied, compared or hashed.
//! Counting is a plain add on the machine; the totals of the last call on this thread are kept
//! here.
//!
//! Some work no charge pays for: the reference's cost rules make the copies of the update
//! intrinsics free. A record of more than 64 fields shares its structure with its copies
//! (`wide`), so what `apply` and `merge` copy for free is the update's (second record's) own
//! fields, plus the first record when it is flat (at most 64 fields); `changed` lists an update's
//! names for free. (`diff` charges a comparison per name it lists: paid.) A handler copies the
//! frame it is made in, and a bind past a frame's end makes the slots it skips over, for the
//! cost of any node: free too, one unit a slot. Those units are
//! counted apart as well ([`last_call_free_copies`]); the memory ceiling (`Limits::max_memory`)
//! bounds them. The bound the tests and the `work_bound`
//! fuzz target hold every call to is work ≤ K × (operations + input size + free copies + 1).
//!
//! A component call also thaws what its instance holds and freezes the next instance (a unit a
//! value and a name or slot): for its bound, the instance's held values count as input, as the
//! host hands a dispatch its instance beside its batch (`testing::instances::dispatch_paid`).

use std::cell::Cell;

thread_local! {
    static LAST: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// The work units of the last `evaluate_function` / `call_function` on this thread, whether it
/// succeeded or failed.
pub fn last_call_work() -> u64 {
    LAST.with(Cell::get).0
}

/// Of [`last_call_work`], the units of the copies no charge pays for (fields copied by `apply`
/// and `merge` that no structure shares, names listed by `changed`).
pub fn last_call_free_copies() -> u64 {
    LAST.with(Cell::get).1
}

pub(crate) fn record(units: u64, free_copies: u64) {
    LAST.with(|last| last.set((units, free_copies)));
}
