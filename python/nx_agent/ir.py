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
