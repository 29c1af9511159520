//! The extension's allocator: the system's `malloc` until an evaluation runs long, then
//! mimalloc.
//!
//! Evaluated values (texts, lists, records) are small blocks made and freed by the hundred
//! thousand, where mimalloc's per-size pages cost a fraction of glibc's `malloc` and `free`
//! (5 to 17% of a work tool's whole call). But mimalloc's first use touches a fresh page per
//! size class, about 0.5 ms of page faults, which a serverless cold start (one short call)
//! would pay for nothing; and a short call's few blocks are as cheap from glibc's per-thread
//! cache, where the check below would cost it 1 to 2%. So blocks come from the system allocator
//! until [`note_long_run`]: the first evaluation of the process that runs past the long-run
//! point (10,000 operations, where the GIL is released), and from mimalloc after. A block is
//! freed by the allocator whose heap holds it (`mi_is_in_heap_region`, a page-map lookup), so
//! blocks of both kinds live side by side. The switch is one way, process-wide.
//!
//! Blocks of [`LARGE`] bytes or more always come from the system allocator: glibc maps them
//! whole and grows them with `mremap`, without copying, where mimalloc copies a huge block to
//! grow it (a list of tens of millions of values growing by doubling would stall for its copy,
//! and a signal wait behind it).

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use libmimalloc_sys as mi;

/// Blocks of this many bytes or more come from the system allocator.
pub const LARGE: usize = 64 * 1024;

/// The alignment of every mimalloc block of at least this many bytes (its `MI_MAX_ALIGN_SIZE`:
/// size classes are whole double words and a page's first block is 16-aligned), so
/// `mi_malloc` serves a layout of at most this alignment and at least that size, as `System`
/// serves it from glibc's `malloc`, without the aligned entry's extra checks (about 5% of a
/// call that reads a thousand records, in `perf`).
const MI_MIN_ALIGN: usize = 16;

/// Whether plain `mi_malloc` (or `mi_zalloc`, `mi_realloc`) gives `layout` its alignment.
#[inline(always)]
fn natural(align: usize, size: usize) -> bool {
    align <= MI_MIN_ALIGN && align <= size
}

static WARM: AtomicBool = AtomicBool::new(false);

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

// SAFETY: each block is freed or resized by the allocator that made it: mimalloc's blocks are
// exactly those in its heap region, and no system block lies there (mimalloc reserves its
// address ranges from the OS). Before the switch no mimalloc block exists, so no lookup is made.
// A block moved on growth is copied whole (its old size, at most the new one) before mimalloc
// frees it, and on failure the old block is left as it was (null returned), as `realloc` must.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if WARM.load(Relaxed) && layout.size() < LARGE {
            if natural(layout.align(), layout.size()) {
                return mi::mi_malloc(layout.size()).cast();
            }
            mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
        } else {
            System.alloc(layout)
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if WARM.load(Relaxed) && layout.size() < LARGE {
            if natural(layout.align(), layout.size()) {
                return mi::mi_zalloc(layout.size()).cast();
            }
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
        if !(WARM.load(Relaxed) && mi::mi_is_in_heap_region(ptr as *const c_void)) {
            // A system block stays with the system allocator.
            return System.realloc(ptr, layout, new_size);
        }
        if new_size < LARGE {
            if natural(layout.align(), new_size) {
                return mi::mi_realloc(ptr.cast(), new_size).cast();
            }
            return mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast();
        }
        // Growing past LARGE: moved to the system allocator (one copy), which grows it after.
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        let moved = System.alloc(new_layout);
        if !moved.is_null() {
            std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
            mi::mi_free(ptr.cast());
        }
        moved
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

/// Tests only: grows a block across [`LARGE`] and back through the global allocator, checking
/// its bytes at each step, and a zeroed block of each kind; `true` when all held. After the
/// switch this takes a mimalloc block to the system allocator and a system block through
/// `realloc`.
#[pyo3::pyfunction]
pub fn _allocator_check() -> bool {
    let mut block: Vec<u8> = Vec::with_capacity(1024);
    block.extend((0..1024u32).map(|i| (i % 251) as u8));
    let small_in_mimalloc = is_warm() && unsafe { mi::mi_is_in_heap_region(block.as_ptr().cast()) };
    for size in [LARGE / 2, LARGE - 1, LARGE, 4 * LARGE, 64 * LARGE] {
        block.reserve_exact(size - block.len());
        let start = block.len() as u32;
        block.extend((start..size as u32).map(|i| (i % 251) as u8));
        if !block.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8) {
            return false;
        }
    }
    let large_in_system = !unsafe { mi::mi_is_in_heap_region(block.as_ptr().cast()) };
    block.truncate(100);
    block.shrink_to_fit();
    let zeroed_ok = [16usize, LARGE + 16].iter().all(|size| vec![0u8; *size].iter().all(|b| *b == 0));
    block.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8)
        && large_in_system
        && zeroed_ok
        && (small_in_mimalloc || !is_warm())
}
