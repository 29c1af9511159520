//! Limits, the operation budget and the usage report (ir-format §6.1, §6.3, §6.4).

use crate::error::{codes, IrError, IrResult, LimitInfo};

pub const DEFAULT_MAX_CALL_DEPTH: u32 = 100;
pub const DEFAULT_MAX_RANGE_LENGTH: u64 = 1_000_000;
/// Expressions nest at most this deep across all calls of one evaluation (fixed).
pub const MAX_EXPRESSION_NESTING: u32 = 1000;
/// Host values nest at most this deep (fixed).
pub const MAX_VALUE_NESTING: u32 = 256;
/// Native stack one evaluation may use, measured from where it began.
pub const DEFAULT_MAX_STACK_BYTES: usize = 1 << 20;
/// Bytes of values one evaluation may allocate (nx-agent's own guard, not a reference limit).
pub const DEFAULT_MAX_MEMORY: u64 = 256 << 20;

/// The limits one call runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The operation budget; `None` is unlimited (and nothing is counted).
    pub max_operations: Option<u64>,
    /// The largest input size; `None` is unlimited (and nothing is measured).
    pub max_input_size: Option<u64>,
    pub max_call_depth: u32,
    pub max_range_length: u64,
    /// Native stack bytes one call may use (a guard, not a reference limit on counts); less
    /// where the calling thread has less room (on Linux, where the C library says).
    pub max_stack_bytes: usize,
    /// Bytes of values (texts, lists, records) one call may allocate, counted as they are
    /// built and never given back within the call: nx-agent's own guard, off the operation
    /// count, against the copies the reference's charges leave free (`apply`, `merge`).
    pub max_memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_operations: None,
            max_input_size: None,
            max_call_depth: DEFAULT_MAX_CALL_DEPTH,
            max_range_length: DEFAULT_MAX_RANGE_LENGTH,
            max_stack_bytes: DEFAULT_MAX_STACK_BYTES,
            max_memory: DEFAULT_MAX_MEMORY,
        }
    }
}

impl Limits {
    pub fn with_budget(max_operations: u64) -> Self {
        Limits { max_operations: Some(max_operations), ..Limits::default() }
    }

    /// Refuses limits no evaluation can run under (`nx-ir-options`): a stack budget below
    /// 16 KiB or above 1 GiB, whose guard could not protect the native stack.
    pub fn validate(&self) -> IrResult<()> {
        if self.max_stack_bytes < (16 << 10) || self.max_stack_bytes > (1 << 30) {
            return Err(IrError::new(
                codes::OPTIONS,
                format!("maxStackBytes must be between 16384 and 1073741824, got {}.", self.max_stack_bytes),
            ));
        }
        Ok(())
    }
}

/// What a call used: `operations` only when a budget was set, `input_size` only when an input
/// limit was set and the input was within it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub operations: Option<u64>,
    pub input_size: Option<u64>,
}

/// Builds a resource-limit error.
pub(crate) fn limit_error(name: &'static str, value: u64, message: String) -> IrError {
    let mut error = IrError::new(codes::RESOURCE_LIMIT, message);
    error.diagnostics[0].limit = Some(LimitInfo { name, value });
    error
}

/// Roughly where the native stack is now.
#[inline(never)]
pub(crate) fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Stack kept free below an evaluation's allowance: for what runs between two of its checks (up
/// to 8 levels of nesting, one level of a value walk) and for failing (a diagnostic built).
const STACK_RESERVE: usize = 64 << 10;

/// The native stack an evaluation starting at `base` may use: `requested` (`maxStackBytes`), or
/// less when the calling thread's stack has less room below `base`, so that a host thread with a
/// small stack meets `maxStackBytes` instead of overflowing its stack.
pub(crate) fn stack_allowance(requested: usize, base: usize) -> usize {
    room_below(base).map_or(requested, |room| requested.min(room.saturating_sub(STACK_RESERVE)))
}

/// How many bytes of the calling thread's stack lie below the caller, where the platform says
/// (on Linux, macOS and Windows): for work that recurses as deep as its input nests, to run where there is room.
pub fn thread_stack_room() -> Option<usize> {
    room_below(stack_position())
}

/// Whether a walk of a value outside an evaluation (a host value converted before a call, an
/// instance's values frozen or thawed) may take the level at nesting `depth`: refused where the
/// calling thread has less than the reserve an evaluation keeps free (64 KiB) left below the
/// caller, so that a small stack is not overflowed. Checked every 8 levels, which the reserve
/// holds; never refused where the platform does not say.
pub fn walk_stack_at(depth: u32) -> IrResult<()> {
    if depth & 7 == 0 && thread_stack_room().is_some_and(|room| room < STACK_RESERVE) {
        return Err(short_stack_error());
    }
    Ok(())
}

/// The refusal of a walk that stopped at [`walk_stack_at`].
#[cold]
fn short_stack_error() -> IrError {
    limit_error(
        "maxStackBytes",
        STACK_RESERVE as u64,
        format!("The calling thread has under {STACK_RESERVE} bytes of stack left: the value nests too deep to walk on it."),
    )
}

/// How many bytes of the calling thread's stack lie below `position`, where the platform says.
fn room_below(position: usize) -> Option<usize> {
    thread_stack_low().map(|low| position.saturating_sub(low))
}

/// The lowest address of the calling thread's stack that a call may use (above its guard
/// pages), asked of the system once per thread: on Linux, macOS and Windows; `None` elsewhere,
/// or where the system does not say.
#[cfg(any(target_os = "linux", target_os = "macos", windows))]
fn thread_stack_low() -> Option<usize> {
    thread_local! { static LOW: std::cell::OnceCell<Option<usize>> = const { std::cell::OnceCell::new() }; }
    LOW.try_with(|low| *low.get_or_init(ask_stack_low)).ok().flatten()
}

#[cfg(target_os = "linux")]
fn ask_stack_low() -> Option<usize> {
    // SAFETY: `attr` is initialized by `pthread_getattr_np` before it is read, and destroyed once.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let (mut address, mut size, mut guard) = (std::ptr::null_mut(), 0, 0);
        let stack = libc::pthread_attr_getstack(&attr, &mut address, &mut size);
        let guarded = libc::pthread_attr_getguardsize(&attr, &mut guard);
        libc::pthread_attr_destroy(&mut attr);
        (stack == 0 && guarded == 0 && size > 0).then(|| address as usize + guard)
    }
}

/// macOS gives the top of the thread's stack and its size, the guard page below both.
#[cfg(target_os = "macos")]
fn ask_stack_low() -> Option<usize> {
    // SAFETY: both read the calling thread's own stack bounds.
    let (top, size) = unsafe {
        let this = libc::pthread_self();
        (libc::pthread_get_stackaddr_np(this) as usize, libc::pthread_get_stacksize_np(this))
    };
    bounds_holding_caller(top.checked_sub(size)?, top)
}

/// Windows gives the thread's whole reservation; its lowest pages are the guard that raises
/// the overflow and the room the runtime keeps to report it (`SetThreadStackGuarantee`),
/// which [`WINDOWS_STACK_FLOOR`] stays above.
#[cfg(windows)]
fn ask_stack_low() -> Option<usize> {
    #[link(name = "kernel32")]
    extern "system" {
        fn GetCurrentThreadStackLimits(low: *mut usize, high: *mut usize);
    }
    let (mut low, mut high) = (0usize, 0usize);
    // SAFETY: the call writes the calling thread's stack bounds into the two locals (Windows 8
    // and later).
    unsafe { GetCurrentThreadStackLimits(&mut low, &mut high) };
    bounds_holding_caller(low.checked_add(WINDOWS_STACK_FLOOR)?, high)
}

/// `low`, when the caller's frame lies between `low` and `high`: bounds the system gave wrongly
/// (or for another stack) are not used, rather than refuse every call.
#[cfg(any(target_os = "macos", windows))]
fn bounds_holding_caller(low: usize, high: usize) -> Option<usize> {
    let here = stack_position();
    (low > 0 && low < here && here <= high).then_some(low)
}

/// What a Windows thread's reservation holds below the stack a call may use: guard pages and
/// the stack guarantee (Rust's main and spawned threads ask for 20 KiB), rounded up.
#[cfg(windows)]
const WINDOWS_STACK_FLOOR: usize = 64 << 10;

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
fn thread_stack_low() -> Option<usize> {
    None
}
