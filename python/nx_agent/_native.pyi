"""Type stubs for the Rust extension module ``nx_agent._native``."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any, final

from typing_extensions import Buffer

__version__: str

class NxError(Exception):
    """Root of every error nx_agent raises."""

    code: str

class NxIrError(NxError):
    """An NX IR image, link or evaluation refused."""

    code: str
    diagnostics: tuple[Diagnostic, ...]
    #: What a ``call_function`` call used before it failed (``operations``, ``input_size``); set
    #: only on failures of a call that began.
    usage: dict[str, int]

@final
class Diagnostic:
    @property
    def severity(self) -> str: ...
    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def declaration(self) -> str | None: ...
    @property
    def span(self) -> dict[str, Any] | None: ...
    @property
    def limit(self) -> dict[str, Any] | None: ...
    @property
    def argument(self) -> str | None: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ModuleLink:
    @property
    def identity(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def fingerprint(self) -> int: ...

@final
class PreparedModule:
    @property
    def schema(self) -> int: ...
    @property
    def identity(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def fingerprint(self) -> int: ...
    @property
    def links(self) -> tuple[ModuleLink, ...]: ...
    @property
    def functions(self) -> tuple[str, ...]: ...
    @property
    def components(self) -> tuple[str, ...]: ...
    @property
    def has_debug_info(self) -> bool: ...
    @property
    def source(self) -> str | None: ...
    def declarations(self) -> tuple[dict[str, Any], ...]: ...
    @property
    def size(self) -> int: ...
    def to_bytes(self) -> bytes: ...
    def explain(self) -> str: ...

@final
class Program:
    @property
    def entry(self) -> PreparedModule: ...
    @property
    def modules(self) -> tuple[PreparedModule, ...]: ...
    def module(self, identity: str) -> PreparedModule | None: ...
    @property
    def allow_version_mismatch(self) -> bool:
        """The link option it was linked with (a pickle links it again with it)."""

# Pickling (rust/nx-agent-py/src/travel.rs): what a pickle's reduce names to rebuild each object.
def _restore_module(state: object) -> PreparedModule: ...
def _restore_program(state: object) -> Program: ...
def _restore_limits(
    max_operations: object, max_input_size: object, max_call_depth: object, max_range_length: object, max_memory: object = None
) -> Limits: ...
def _restore_evaluation(value: object, operations: object, input_size: object) -> Evaluation: ...
def _restore_diagnostic(
    severity: object, code: object, message: object, declaration: object, span: object, limit: object, argument: object
) -> Diagnostic: ...
def _restore_module_link(identity: object, version: object, fingerprint: object) -> ModuleLink: ...

@final
class Limits:
    def __init__(
        self,
        *,
        max_operations: int | None = None,
        max_input_size: int | None = None,
        max_call_depth: int | None = None,
        max_range_length: int | None = None,
        max_memory: int | None = None,
    ) -> None: ...
    @property
    def max_operations(self) -> int | None: ...
    @property
    def max_input_size(self) -> int | None: ...
    @property
    def max_call_depth(self) -> int: ...
    @property
    def max_range_length(self) -> int: ...
    @property
    def max_memory(self) -> int:
        """Bytes of values one call may allocate (default 256 MiB): nx-agent's own guard, off the
        operation count; past it the call fails `nx-ir-resource-limit` with limit `memory`."""

@final
class Evaluation:
    @property
    def value(self) -> Any: ...
    @property
    def usage(self) -> dict[str, int]: ...
    @property
    def operations(self) -> int | None: ...
    @property
    def input_size(self) -> int | None: ...

Resolver = Mapping[str, PreparedModule] | Callable[[str], PreparedModule | None]

def prepare_module(data: Buffer) -> PreparedModule: ...
def prepare_program(data: Buffer) -> Program: ...
def link_program(
    entry: PreparedModule,
    resolve: Resolver | None = None,
    *,
    allow_version_mismatch: bool = False,
) -> Program: ...
def builtin_prelude(*, schema: int = 6) -> PreparedModule: ...
def explain(module_or_bytes: PreparedModule | Buffer, *, max_output: int = 67108864) -> str: ...
def assemble(
    text: str,
    *,
    source: str | None = None,
    version: str = "",
    links: Sequence[str] = (),
    schema: int = 6,
) -> bytes: ...
def evaluate_function(
    program: Program,
    name: str,
    args: Sequence[Any] | None = None,
    *,
    limits: Limits | None = None,
    max_operations: int | None = None,
    max_input_size: int | None = None,
    max_call_depth: int | None = None,
    max_range_length: int | None = None,
    max_memory: int | None = None,
) -> Evaluation: ...
def call_function(
    program: Program,
    function: Mapping[str, Any],
    args: Mapping[str, Any] | list[Any] | tuple[Any, ...] | None = None,
    *,
    limits: Limits | None = None,
    max_operations: int | None = None,
    max_input_size: int | None = None,
    max_call_depth: int | None = None,
    max_range_length: int | None = None,
    max_memory: int | None = None,
) -> Evaluation: ...
def measure_input_size(value: Any, limit: int | None = None) -> int: ...
def keep_python_arenas(limit: int) -> int: ...
def _kept_arena_bytes() -> int: ...
@final
class ComponentInstance:
    @property
    def component(self) -> str: ...
    @property
    def generation(self) -> int: ...
    @property
    def tokens(self) -> list[str]: ...
    @property
    def program(self) -> Program: ...
    def to_bytes(self) -> bytes: ...
    def to_json(self) -> str: ...

@final
class Initialized:
    @property
    def output(self) -> Any: ...
    @property
    def state(self) -> dict[str, Any]: ...
    @property
    def instance(self) -> ComponentInstance: ...
    @property
    def usage(self) -> dict[str, int]: ...
    @property
    def operations(self) -> int | None: ...
    @property
    def input_size(self) -> int | None: ...

@final
class Dispatched:
    @property
    def output(self) -> Any: ...
    @property
    def effects(self) -> list[Any]: ...
    @property
    def state(self) -> dict[str, Any]: ...
    @property
    def instance(self) -> ComponentInstance: ...
    @property
    def usage(self) -> dict[str, int]: ...
    @property
    def operations(self) -> int | None: ...
    @property
    def input_size(self) -> int | None: ...

def construct_component_descriptor(
    program: Program,
    name: str,
    props: Mapping[str, Any] | None = None,
    content: Sequence[Any] | None = None,
    *,
    limits: Limits | None = None,
    max_operations: int | None = None,
    max_input_size: int | None = None,
    max_call_depth: int | None = None,
    max_range_length: int | None = None,
    max_memory: int | None = None,
) -> Evaluation: ...
def initialize_component(
    program: Program,
    name: str,
    props: Mapping[str, Any] | None = None,
    *,
    state: Mapping[str, Any] | None = None,
    parent: ComponentInstance | None = None,
    limits: Limits | None = None,
    max_operations: int | None = None,
    max_input_size: int | None = None,
    max_call_depth: int | None = None,
    max_range_length: int | None = None,
    max_memory: int | None = None,
) -> Initialized: ...
def evaluate_component(
    program: Program,
    name: str,
    props: Mapping[str, Any] | None = None,
    state: Mapping[str, Any] | None = None,
    *,
    limits: Limits | None = None,
    max_operations: int | None = None,
    max_input_size: int | None = None,
    max_call_depth: int | None = None,
    max_range_length: int | None = None,
    max_memory: int | None = None,
) -> Evaluation: ...
def dispatch_component_actions(
    program: Program,
    instance: ComponentInstance,
    batch: Sequence[Mapping[str, Any]],
    *,
    limits: Limits | None = None,
    max_operations: int | None = None,
    max_input_size: int | None = None,
    max_call_depth: int | None = None,
    max_range_length: int | None = None,
    max_memory: int | None = None,
) -> Dispatched: ...
def normalize_component_state(
    program: Program,
    name: str,
    state: Mapping[str, Any],
    *,
    limits: Limits | None = None,
    max_operations: int | None = None,
    max_input_size: int | None = None,
    max_call_depth: int | None = None,
    max_range_length: int | None = None,
    max_memory: int | None = None,
) -> Evaluation: ...
def apply_component_state_patch(
    program: Program,
    name: str,
    state: Mapping[str, Any],
    patch: Mapping[str, Any],
    *,
    limits: Limits | None = None,
    max_operations: int | None = None,
    max_input_size: int | None = None,
    max_call_depth: int | None = None,
    max_range_length: int | None = None,
    max_memory: int | None = None,
) -> Evaluation: ...
def restore_component_instance(program: Program, data: bytes | str) -> ComponentInstance: ...
def apply_update(record: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]: ...
def merge_updates(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]: ...
def diff_records(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]: ...
def changed_fields(program: Program, update: Mapping[str, Any]) -> list[str]: ...
def _evaluate_discarding(
    program: Program, name: str, args: Sequence[Any] | None = None, *, limits: Limits | None = None
) -> dict[str, int]: ...
def _last_call_work() -> int: ...
def _last_measure_work() -> int: ...
def _allocator() -> str: ...
def _allocator_check() -> bool: ...
def _allocator_arena(mib: int) -> int: ...
def _profile_next() -> None: ...
def _take_profile() -> dict[str, Any] | None: ...
