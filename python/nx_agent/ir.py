"""NX IR images: prepare, link, explain and assemble.

- :func:`prepare_module` validates a whole image (``bytes`` are held in place, other buffers
  copied once) and returns an immutable :class:`PreparedModule`. Images of schema 5 (NX 0.7) and
  schema 6 (NX 0.8 to 0.10) are read, each by the rules of its release; ``module.schema`` says
  which.
- :func:`link_program` links an entry module against the modules a resolver supplies; the
  prelude ``@nx/prelude.nx`` of the entry's schema is built in (:func:`builtin_prelude`). A
  program's modules must all be one schema (``nx-ir-link-schema`` otherwise).
  :func:`prepare_program` does both for an image that names only itself.
- :func:`evaluate_function` and :func:`call_function` evaluate NX code under :class:`Limits`,
  with the operation counts of the reference runtimes; the GIL is released while NX code runs.
  Schema 6 is evaluated as ``nx-ir-runtime`` 0.10.0 does: a value outside a constrained type's
  interval is ``nx-ir-boundary-constraint`` (naming the argument), a failed ``check`` is
  ``nx-ir-constraint``, and ``math.*`` / ``color.*`` refusals keep their ``nx-math-*`` /
  ``color-*`` codes.
- :func:`explain` renders an image as ``nxlang ir explain`` does; :func:`assemble` builds an
  image back from that text. The text does not say its schema: ``assemble(..., schema=6)`` is
  the default, what the current NX release writes; pass ``schema=5`` for text explained from an
  NX 0.7 image. Schema 6 constructs in a text assembled as schema 5 are refused
  (``nx-ir-assemble``, naming the construct and its line).

Components (the lifecycle both reference runtimes have, schema 5 and 6):

- :func:`construct_component_descriptor` builds a component's descriptor from props and content.
- :func:`initialize_component` renders a component against its initial state (or ``state=``) and
  returns an :class:`Initialized`: ``.output`` (handlers carry tokens ``h1-1``, ``h1-2``, ...),
  ``.state``, ``.instance`` and ``.usage``. ``parent=`` resolves ``ActionHandler`` records in the
  props to the parent instance's handlers.
- :func:`dispatch_component_actions` runs a batch against an instance (entries are
  ``{"$type": "ActionHandlerInvocation", "token": ..., "action": {...}}`` or an action the
  component emits) and returns a :class:`Dispatched` with ``.output`` (next generation's
  tokens), ``.effects``, ``.state``, the next ``.instance`` and ``.usage``. A failed batch leaves
  the instance given as it was.
- :func:`evaluate_component`, :func:`normalize_component_state` and
  :func:`apply_component_state_patch` return an :class:`Evaluation`.
- A :class:`ComponentInstance` is written with ``.to_bytes()`` / ``.to_json()`` and read back, in
  any process, with :func:`restore_component_instance`; an instance of another program, a stale
  token or damaged data is refused with ``nx-ir-component`` / ``nx-ir-handler-token``.
- :func:`apply_update`, :func:`merge_updates`, :func:`diff_records` and :func:`changed_fields`
  are the update intrinsics for values a host holds.

Every call takes limits as :func:`evaluate_function` does (keywords or a :class:`Limits`).

:func:`profile_function` (from :mod:`nx_agent.profile`) runs a call as :func:`call_function` or
:func:`evaluate_function` would, on the evaluator's profiling path, and returns a :class:`Profile`
of where its operations went; its ``total`` is the call's ``usage["operations"]``.

:func:`keep_python_arenas` is a process-wide choice for a host that serves many calls: CPython
gives an arena of objects (1 MiB) back to the OS as soon as it is empty, so a call returning a
large result maps fresh memory, one page fault per 4 KiB, every time the host has dropped the
last one. ``keep_python_arenas(limit)`` keeps up to ``limit`` bytes of freed arenas mapped and
hands them out again (for every object of the interpreter, not only nx-agent's); it returns the
previous limit, and ``keep_python_arenas(0)`` gives the kept ones back. Off by default; the
stable-ABI (abi3) build cannot do it and raises :class:`NxError`.

Every refusal raises :class:`NxIrError` with ``code`` and ``diagnostics``.
"""

from ._native import (
    ComponentInstance,
    Diagnostic,
    Dispatched,
    Evaluation,
    Initialized,
    Limits,
    ModuleLink,
    NxIrError,
    PreparedModule,
    Program,
    apply_component_state_patch,
    apply_update,
    assemble,
    builtin_prelude,
    call_function,
    changed_fields,
    construct_component_descriptor,
    diff_records,
    dispatch_component_actions,
    evaluate_component,
    evaluate_function,
    explain,
    initialize_component,
    keep_python_arenas,
    link_program,
    measure_input_size,
    merge_updates,
    normalize_component_state,
    prepare_module,
    prepare_program,
    restore_component_instance,
)
from . import _lazy_names as lazy_names

TYPE_CHECKING = False  # not typing's: nx_agent.ir loads nothing it does not need
if TYPE_CHECKING:
    from .profile import Profile, profile_function

# The profiler's Python side loads when one of its names is first read (nx_agent._lazy_names), so that
# `import nx_agent.ir` stays the native module alone.
__getattr__, __dir__ = lazy_names(__name__, globals(), {"nx_agent.profile": ("Profile", "profile_function")})

__all__ = [
    "ComponentInstance",
    "Diagnostic",
    "Dispatched",
    "Evaluation",
    "Initialized",
    "Limits",
    "ModuleLink",
    "NxIrError",
    "PreparedModule",
    "Profile",
    "Program",
    "apply_component_state_patch",
    "apply_update",
    "assemble",
    "builtin_prelude",
    "call_function",
    "changed_fields",
    "construct_component_descriptor",
    "diff_records",
    "dispatch_component_actions",
    "evaluate_component",
    "evaluate_function",
    "explain",
    "initialize_component",
    "keep_python_arenas",
    "link_program",
    "measure_input_size",
    "merge_updates",
    "normalize_component_state",
    "prepare_module",
    "prepare_program",
    "profile_function",
    "restore_component_instance",
]
