//! Evaluated value declarations, kept per thread and replayed by later evaluations.
//!
//! A value declaration reads no argument and no frame: evaluated again in a state at least as
//! roomy, it builds the same value and charges the same operations. So once one evaluates, its
//! value is kept with its charge and the room it had (expression nesting, call depth, range
//! length, native stack) and whether a budget was set (text costs are charged only then). A
//! later reference whose state is at least as roomy, and whose budget covers the whole charge
//! without reaching a slow path, charges it at once and takes the value; any other evaluates the
//! declaration node by node, failing where it always would. A value whose evaluation made a name
//! the program does not hold is never kept (names compare by pointer within one evaluation).
//!
//! Values are `Rc`-based and stay on the thread that built them: the compiled program shared by
//! threads holds only each declaration's slot number.

use std::cell::RefCell;

use super::value::Value;

/// Operations a value may charge and still be kept, and all a program may keep per thread:
/// bounds the memory cached values hold.
const MAX_KEPT_OPERATIONS: u64 = 1 << 16;
const MAX_PROGRAM_OPERATIONS: u64 = 1 << 18;
/// Programs whose values one thread keeps (the most recently used).
const PROGRAMS: usize = 4;

/// The state a value was first evaluated in: a later one needs at least this much room.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Room {
    pub nesting: u32,
    pub depth: i64,
    pub range: u64,
    pub stack: usize,
    pub budgeted: bool,
}

impl Room {
    /// Whether `self` (now) is at least as roomy as `then`.
    fn covers(&self, then: &Room) -> bool {
        self.budgeted == then.budgeted
            && self.nesting <= then.nesting
            && self.depth >= then.depth
            && self.range >= then.range
            && self.stack >= then.stack
    }
}

struct Kept {
    value: Value,
    operations: u64,
    room: Room,
}

struct ProgramValues {
    program: u64,
    kept: Vec<Option<Kept>>,
    operations: u64,
}

thread_local! {
    static KEPT: RefCell<Vec<ProgramValues>> = const { RefCell::new(Vec::new()) };
}

/// The kept value of slot `slot` of `program` and its charge, if `room` covers its first one.
#[inline]
pub(crate) fn lookup(program: u64, slot: u32, room: impl FnOnce() -> Room) -> Option<(Value, u64)> {
    KEPT.with(|kept| {
        let kept = kept.borrow();
        let values = kept.iter().find(|p| p.program == program)?;
        let entry = values.kept.get(slot as usize)?.as_ref()?;
        room().covers(&entry.room).then(|| (entry.value.clone(), entry.operations))
    })
}

/// Keeps a value evaluated in `room` for `operations`.
pub(crate) fn keep(program: u64, slots: u32, slot: u32, value: &Value, operations: u64, room: Room) {
    if operations > MAX_KEPT_OPERATIONS {
        return;
    }
    KEPT.with(|kept| {
        let Ok(mut kept) = kept.try_borrow_mut() else { return };
        let at = match kept.iter().position(|p| p.program == program) {
            Some(at) => at,
            None => {
                if kept.len() >= PROGRAMS {
                    kept.pop();
                }
                kept.insert(0, ProgramValues { program, kept: Vec::new(), operations: 0 });
                0
            }
        };
        let values = &mut kept[at];
        if values.operations + operations > MAX_PROGRAM_OPERATIONS {
            return;
        }
        if values.kept.len() < slots as usize {
            values.kept.resize_with(slots as usize, || None);
        }
        if let Some(entry) = values.kept.get_mut(slot as usize) {
            if let Some(old) = entry.take() {
                values.operations -= old.operations;
            }
            values.operations += operations;
            *entry = Some(Kept { value: value.clone(), operations, room });
        }
    });
}
