//! Python's object arenas kept for reuse (the host's choice: [`keep_python_arenas`]).
//!
//! CPython's small-object allocator takes memory from the OS in arenas (1 MiB since 3.10) and
//! gives an arena back as soon as every object in it is freed. A tool call that returns a
//! large result (a hundred thousand strings, ten thousand records) fills a few fresh arenas,
//! and when the host drops the result they are unmapped; the next call maps them again and
//! pays a page fault for every 4 KiB it touches (a quarter of a float-text call's time in
//! `perf`, on this kind of VM). Kept, freed arenas are handed back out as they are: their pages
//! stay backed, up to a limit of bytes the host chooses; past it, arenas go back to the OS as
//! before. This changes the whole interpreter's allocator (every object, not only the
//! extension's), which is why it is the host's choice and off by default.

#[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy)))]
mod kept {
    use std::ffi::c_void;
    use std::sync::Mutex;

    use pyo3::ffi;

    /// The interpreter's own arena allocator and the arenas kept from it.
    struct Kept {
        original: ffi::PyObjectArenaAllocator,
        /// Freed arenas (address, size) ready to be handed out again.
        free: Vec<(usize, usize)>,
        bytes: usize,
        limit: usize,
    }

    // SAFETY: the original allocator's context pointer is only passed back to its own
    // functions, which CPython calls from any thread holding the GIL.
    unsafe impl Send for Kept {}

    static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

    extern "C" fn alloc(_ctx: *mut c_void, size: usize) -> *mut c_void {
        let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let Some(kept) = kept.as_mut() else { return std::ptr::null_mut() };
        if let Some(at) = kept.free.iter().rposition(|(_, kept_size)| *kept_size == size) {
            let (address, size) = kept.free.swap_remove(at);
            kept.bytes -= size;
            return address as *mut c_void;
        }
        // The interpreter's own arena allocator, called as it would call it.
        match kept.original.alloc {
            Some(alloc) => alloc(kept.original.ctx, size),
            None => std::ptr::null_mut(),
        }
    }

    extern "C" fn free(_ctx: *mut c_void, address: *mut c_void, size: usize) {
        let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let Some(kept) = kept.as_mut() else { return };
        if kept.bytes + size <= kept.limit && kept.free.try_reserve(1).is_ok() {
            kept.free.push((address as usize, size));
            kept.bytes += size;
            return;
        }
        // An arena the interpreter's allocator made (a kept one is handed out again, never
        // freed twice), given back as the interpreter would give it.
        if let Some(free) = kept.original.free {
            free(kept.original.ctx, address, size);
        }
    }

    /// Installs the keeping allocator (once) and sets the limit; arenas over a lower limit go
    /// back to the OS at once. Returns the previous limit.
    pub fn keep(limit: usize) -> usize {
        let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let previous = match kept.as_mut() {
            Some(kept) => std::mem::replace(&mut kept.limit, limit),
            None => {
                let mut original = ffi::PyObjectArenaAllocator { ctx: std::ptr::null_mut(), alloc: None, free: None };
                // SAFETY: the GIL is held (a Python call), so no arena is being made or freed;
                // both calls copy the struct. Ours is in place only once `KEPT` holds the
                // interpreter's own, which it calls.
                unsafe { ffi::PyObject_GetArenaAllocator(&mut original) };
                *kept = Some(Kept { original, free: Vec::new(), bytes: 0, limit });
                let mut ours = ffi::PyObjectArenaAllocator { ctx: std::ptr::null_mut(), alloc: Some(alloc), free: Some(free) };
                unsafe { ffi::PyObject_SetArenaAllocator(&mut ours) };
                0
            }
        };
        let kept = kept.as_mut().expect("set above");
        while kept.bytes > kept.limit {
            let Some((address, size)) = kept.free.pop() else { break };
            kept.bytes -= size;
            if let Some(free) = kept.original.free {
                free(kept.original.ctx, address as *mut c_void, size);
            }
        }
        previous
    }

    /// Bytes of freed arenas kept now.
    pub fn kept_bytes() -> usize {
        KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).as_ref().map_or(0, |kept| kept.bytes)
    }
}

use pyo3::prelude::*;

/// Keeps up to `limit` bytes of the interpreter's freed object arenas for reuse (0 gives the
/// kept ones back and keeps no more); returns the previous limit.
#[pyfunction]
pub fn keep_python_arenas(limit: usize) -> PyResult<usize> {
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy)))]
    return Ok(kept::keep(limit));
    #[cfg(any(Py_LIMITED_API, PyPy, GraalPy))]
    {
        let _ = limit;
        Err(crate::errors::NxError::new_err(
            "keeping Python's arenas needs CPython's full C API: the stable-ABI (abi3) build cannot",
        ))
    }
}

/// Bytes of freed arenas kept now (for the tests).
#[pyfunction]
pub fn _kept_arena_bytes() -> usize {
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy)))]
    return kept::kept_bytes();
    #[cfg(any(Py_LIMITED_API, PyPy, GraalPy))]
    0
}
