"""NX IR images: prepare, link, explain and assemble.

- :func:`prepare_module` validates a whole schema 5 image (``bytes`` are held in place, other
  buffers copied once) and returns an immutable :class:`PreparedModule`.
- :func:`link_program` links an entry module against the modules a resolver supplies; the
  prelude ``@nx/prelude.nx`` is built in. :func:`prepare_program` does both for an image that
  names only itself.
- :func:`evaluate_function` and :func:`call_function` evaluate NX code under :class:`Limits`,
  with the operation counts of the reference runtimes; the GIL is released while NX code runs.
- :func:`explain` renders an image as ``nxlang ir explain`` does; :func:`assemble` builds an
  image back from that text.

Every refusal raises :class:`NxIrError` with ``code`` and ``diagnostics``.
"""

from ._native import (
    Diagnostic,
    Evaluation,
    Limits,
    ModuleLink,
    NxIrError,
    PreparedModule,
    Program,
    assemble,
    builtin_prelude,
    call_function,
    evaluate_function,
    explain,
    link_program,
    measure_input_size,
    prepare_module,
    prepare_program,
)

__all__ = [
    "Diagnostic",
    "Evaluation",
    "Limits",
    "ModuleLink",
    "NxIrError",
    "PreparedModule",
    "Program",
    "assemble",
    "builtin_prelude",
    "call_function",
    "evaluate_function",
    "explain",
    "link_program",
    "measure_input_size",
    "prepare_module",
    "prepare_program",
]
