//! Work that recurses as deep as its input nests (assembling a text, preparing and explaining an
//! image, writing and restoring a stored instance) run where there is stack for it: on the calling thread
//! when it has room, else on a thread of its own. A host thread with a small stack
//! (`threading.stack_size(256 * 1024)`) would otherwise overflow it on a deeply nested input.

use nx_ir_core::{codes, IrError, IrResult};

/// The stack such work may need at most, with the nesting limits the core keeps (300 levels
/// of text, 1,000 of nodes, 10,000 of a stored instance's JSON, which takes the most: between
/// 2.25 and 3 MiB): below this much room the work moves to a thread of its own.
const ROOM_NEEDED: usize = 4 << 20;

/// The stack of that thread.
const WORKER_STACK: usize = 16 << 20;

/// Runs `work` on this thread when it has [`ROOM_NEEDED`] of stack (or the platform does not
/// say), else on a scoped thread with [`WORKER_STACK`], or here after all if none can start.
pub(crate) fn with_room<T: Send>(work: impl FnOnce() -> IrResult<T> + Send) -> IrResult<T> {
    match nx_ir_core::eval::thread_stack_room() {
        Some(room) if room < ROOM_NEEDED => {}
        _ => return work(),
    }
    let mut work = Some(work);
    let mut done = None;
    std::thread::scope(|scope| {
        let (work, done) = (&mut work, &mut done);
        let worker = std::thread::Builder::new().stack_size(WORKER_STACK).spawn_scoped(scope, move || {
            *done = work.take().map(|work| work());
        });
        if let Ok(worker) = worker {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    match (work, done) {
        // No thread could start: the work was not taken.
        (Some(work), _) => work(),
        (None, Some(result)) => result,
        (None, None) => Err(IrError::new(codes::RESOURCE_LIMIT, "a worker thread took the work and gave no result")),
    }
}
