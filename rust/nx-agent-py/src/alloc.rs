//! The extension's allocator: the system's `malloc` until the process does evaluation work,
//! then mimalloc.
//!
//! Evaluated values (texts, lists, records) are small blocks made and freed by the hundred
//! thousand, where mimalloc's per-size pages cost a fraction of glibc's `malloc` and `free`
//! (10 to 20% of a work tool's whole call). But mimalloc's first use touches a fresh page per
//! size class, about 0.5 ms of page faults, which a serverless cold start (one short call)
//! would pay for nothing. So blocks come from the system allocator until [`note_call`] has
//! seen [`WARM_CALLS`] calls or [`note_long_run`] one long evaluation, and from mimalloc after;
//! a block is freed by the allocator whose heap holds it (`mi_is_in_heap_region`, a page-map
//! lookup), so blocks of both kinds live side by side. The switch is one way, process-wide.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use libmimalloc_sys as mi;

/// Calls after which new blocks come from mimalloc.
pub const WARM_CALLS: u32 = 64;

static WARM: AtomicBool = AtomicBool::new(false);
static CALLS: AtomicU32 = AtomicU32::new(0);

/// Counts one call toward the switch.
#[inline]
pub fn note_call() {
    if !WARM.load(Relaxed) && CALLS.fetch_add(1, Relaxed) + 1 >= WARM_CALLS {
        WARM.store(true, Relaxed);
    }
}

/// An evaluation ran long: switch now.
#[inline]
pub fn note_long_run() {
    WARM.store(true, Relaxed);
}

/// Whether new blocks come from mimalloc.
pub fn is_warm() -> bool {
    WARM.load(Relaxed)
}

pub struct Allocator;

/// mimalloc's alignment guarantee without asking for one.
const MI_MIN_ALIGN: usize = 16;

// SAFETY: each block is freed or resized by the allocator that made it: mimalloc's blocks are
// exactly those in its heap region, and no system block lies there (mimalloc reserves its
// address ranges from the OS). Before the switch no mimalloc block exists, so no lookup is made.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if WARM.load(Relaxed) {
            if layout.align() <= MI_MIN_ALIGN {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        } else {
            System.alloc(layout)
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if WARM.load(Relaxed) {
            mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
        } else {
            System.alloc_zeroed(layout)
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if WARM.load(Relaxed) && mi::mi_is_in_heap_region(ptr as *const c_void) {
            mi::mi_free(ptr.cast());
        } else {
            System.dealloc(ptr, layout);
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if WARM.load(Relaxed) && mi::mi_is_in_heap_region(ptr as *const c_void) {
            mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
        } else {
            // A system block stays with the system allocator.
            System.realloc(ptr, layout, new_size)
        }
    }
}

/// Tests only: where new blocks come from: `"system"` until the switch, `"mimalloc"` after.
#[pyo3::pyfunction]
pub fn _allocator() -> &'static str {
    if is_warm() {
        "mimalloc"
    } else {
        "system"
    }
}
