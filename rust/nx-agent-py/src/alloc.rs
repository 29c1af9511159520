//! The extension's allocator: the system's `malloc` until an evaluation runs long, then
//! mimalloc.
//!
//! Evaluated values (texts, lists, records) are small blocks made and freed by the hundred
//! thousand, where mimalloc's per-size pages cost a fraction of glibc's `malloc` and `free`
//! (5 to 17% of a work tool's whole call). But mimalloc's first use touches a fresh page per
//! size class, about 0.5 ms of page faults, which a serverless cold start (one short call)
//! would pay for nothing; and a short call's few blocks are as cheap from glibc's per-thread
//! cache. So blocks come from the system allocator until [`note_long_run`]: the first
//! evaluation of the process that runs past the long-run point (10,000 operations, where the
//! GIL is released), and from mimalloc after. The switch is one way, process-wide.
//!
//! At the switch mimalloc is given one arena of [`ARENA`] bytes of address space (reserved, not
//! used: pages are backed as blocks are made, as in mimalloc's own arenas) and is told to take
//! no other memory from the OS. Every mimalloc block then lies in that one range and no system
//! block does, so a block is freed by the allocator that made it after a range test of two
//! loads, where asking mimalloc's page map (`mi_is_in_heap_region`) cost 2 to 3% of a call
//! that frees many blocks. When the arena is full (or could not be reserved), blocks come from
//! the system allocator again, and the range test still tells them apart.
//!
//! Blocks of [`LARGE`] bytes or more always come from the system allocator: glibc maps them
//! whole and grows them with `mremap`, without copying, where mimalloc copies a huge block to
//! grow it (a list of tens of millions of values growing by doubling would stall for its copy,
//! and a signal wait behind it).

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release};
use std::sync::Once;

use libmimalloc_sys as mi;

/// Blocks of this many bytes or more come from the system allocator.
pub const LARGE: usize = 64 * 1024;

/// The address space mimalloc's one arena reserves: 8 GiB (mimalloc refuses one of 16, whose
/// own bookkeeping would outgrow its largest object). Only blocks under [`LARGE`] live there,
/// so it holds over a hundred thousand of the largest and hundreds of millions of small ones.
pub const ARENA: usize = 8 << 30;

// mimalloc's arena entries (in the library `libmimalloc-sys` builds; its bindings declare them
// only under a feature that would also build mimalloc differently).
extern "C" {
    fn mi_reserve_os_memory_ex(size: usize, commit: bool, allow_large: bool, exclusive: bool, arena_id: *mut *mut c_void) -> c_int;
    fn mi_arena_area(arena_id: *mut c_void, size: *mut usize) -> *mut c_void;
}

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

/// The arena's size at the switch: [`ARENA`], or what a test set before it.
static ARENA_SIZE: AtomicUsize = AtomicUsize::new(ARENA);

/// Blocks made by the system allocator after the switch because the arena was full.
static SPILLED: AtomicUsize = AtomicUsize::new(0);

/// Whether new blocks come from mimalloc (set once, after [`START`] and [`SPAN`]).
static WARM: AtomicBool = AtomicBool::new(false);
/// mimalloc's arena: `SPAN` bytes from `START` (both zero until the switch; `SPAN` stored last).
static START: AtomicUsize = AtomicUsize::new(0);
static SPAN: AtomicUsize = AtomicUsize::new(0);

/// An evaluation ran long: switch now (once; without an arena, never).
#[inline]
pub fn note_long_run() {
    if WARM.load(Relaxed) {
        return;
    }
    static SWITCH: Once = Once::new();
    SWITCH.call_once(|| {
        if let Some((start, span)) = reserve_arena() {
            START.store(start, Relaxed);
            SPAN.store(span, Release);
            WARM.store(true, Release);
        }
    });
}

/// Reserves mimalloc's one arena and forbids it any other OS memory: its start and length.
fn reserve_arena() -> Option<(usize, usize)> {
    // Backed on first touch where the kernel overcommits (as mimalloc commits its own arenas
    // there); under strict accounting (`vm.overcommit_memory` 2) only reserved, each part
    // committed as mimalloc uses it, so the reservation is not charged whole.
    let commit = !cfg!(target_os = "linux")
        || std::fs::read("/proc/sys/vm/overcommit_memory").map_or(true, |mode| mode.first() != Some(&b'2'));
    let mut arena: *mut c_void = std::ptr::null_mut();
    // SAFETY: mimalloc's own entries, called once before any mimalloc block is made.
    unsafe {
        if mi_reserve_os_memory_ex(ARENA_SIZE.load(Relaxed), commit, false, false, &mut arena) != 0 {
            return None;
        }
        let mut span = 0usize;
        let start = mi_arena_area(arena, &mut span);
        if start.is_null() || span == 0 {
            return None;
        }
        mi::mi_option_set(mi::mi_option_limit_os_alloc, 1);
        Some((start as usize, span))
    }
}

/// Whether new blocks come from mimalloc.
pub fn is_warm() -> bool {
    WARM.load(Relaxed)
}

#[cold]
fn spilled() {
    SPILLED.fetch_add(1, Relaxed);
}

/// Whether `ptr` is a mimalloc block: in its arena. A thread frees a mimalloc block only after
/// the block was made, after that thread saw the switch, so it sees the arena; a system block
/// is outside it whatever is seen (an empty span, or the whole range).
#[inline(always)]
fn in_arena(ptr: *const u8) -> bool {
    let span = SPAN.load(Acquire);
    (ptr as usize).wrapping_sub(START.load(Relaxed)) < span
}

pub struct Allocator;

// SAFETY: each block is freed or resized by the allocator that made it: mimalloc's blocks are
// exactly those in its arena (it may take no other OS memory once the arena is set), and no
// system block lies there (the arena's addresses are mapped for mimalloc alone). Before the
// switch no mimalloc block exists and the arena is empty. A block moved on growth is copied
// whole (its old size, at most the new one) before mimalloc frees it, and on failure the old
// block is left as it was (null returned), as `realloc` must.
//
// `alloc` and `alloc_zeroed` are written out alike on purpose: the same code shared through a
// helper function or a macro (its success and fallback paths merged) made work tools 3 to 6%
// slower (catalog 1.05x to 1.06x, A/B in fresh processes).
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if WARM.load(Acquire) && layout.size() < LARGE {
            let block = if natural(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size())
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align())
            };
            if !block.is_null() {
                return block.cast();
            }
            spilled();
        }
        // Before the switch, large, or the arena full.
        System.alloc(layout)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if WARM.load(Acquire) && layout.size() < LARGE {
            let block = if natural(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size())
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align())
            };
            if !block.is_null() {
                return block.cast();
            }
            spilled();
        }
        System.alloc_zeroed(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if in_arena(ptr) {
            mi::mi_free(ptr.cast());
        } else {
            System.dealloc(ptr, layout);
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !in_arena(ptr) {
            // A system block stays with the system allocator.
            return System.realloc(ptr, layout, new_size);
        }
        if new_size < LARGE {
            let moved = if natural(layout.align(), new_size) {
                mi::mi_realloc(ptr.cast(), new_size)
            } else {
                mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align())
            };
            if !moved.is_null() {
                return moved.cast();
            }
            spilled();
        }
        // Growing past LARGE, or the arena full: moved to the system allocator (one copy),
        // which grows it after.
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

/// Tests only: sets the arena's size in MiB from the switch on (32 at least, mimalloc's
/// smallest arena), to fill it in a test, and returns how many blocks the system allocator
/// made so far because the arena was full.
#[pyo3::pyfunction]
pub fn _allocator_arena(mib: usize) -> usize {
    if !is_warm() {
        ARENA_SIZE.store(mib.clamp(32, ARENA >> 20) << 20, Relaxed);
    }
    SPILLED.load(Relaxed)
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
    let large_in_system = !unsafe { mi::mi_is_in_heap_region(block.as_ptr().cast()) } && !in_arena(block.as_ptr());
    block.truncate(100);
    block.shrink_to_fit();
    let zeroed_ok = [16usize, LARGE + 16].iter().all(|size| vec![0u8; *size].iter().all(|b| *b == 0));
    block.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8)
        && large_in_system
        && arena_agrees()
        && zeroed_ok
        && (small_in_mimalloc || !is_warm())
}

/// Whether the arena's range test and mimalloc's page map agree on blocks of every size class
/// under [`LARGE`] and of each alignment (mimalloc's blocks after the switch, system blocks
/// before it).
fn arena_agrees() -> bool {
    let mut blocks: Vec<(*mut u8, Layout)> = Vec::new();
    let mut agree = true;
    let mut size = 1;
    while size < LARGE {
        for align in [1, 8, 16, 64, 4096] {
            let Ok(layout) = Layout::from_size_align(size, align) else { continue };
            // SAFETY: a non-zero layout, freed below with the same layout.
            let block = unsafe { std::alloc::alloc(layout) };
            if block.is_null() {
                return false;
            }
            // SAFETY: a pointer to a live block.
            let mapped = unsafe { mi::mi_is_in_heap_region(block as *const c_void) };
            agree &= in_arena(block) == mapped && mapped == is_warm() && block as usize % align == 0;
            blocks.push((block, layout));
        }
        size = size * 3 / 2 + 1;
    }
    for (block, layout) in blocks {
        // SAFETY: made above with this layout.
        unsafe { std::alloc::dealloc(block, layout) };
    }
    agree
}
