"""JSON Schema (draft 2020-12) for the functions and types of a linked NX program.

A model or an MCP client speaks JSON Schema: every tool needs an input schema for its arguments
and an output schema for its result. :func:`function_schema` and :func:`type_schema` derive them
from the declarations the images hold, with the NX compiler's rules and answer shapes; what an
image does not carry (doc comments, inferred result types, alias targets) comes from
:func:`load_descriptions`. :class:`ProgramSchemaSource` and :class:`StoredSchemaSource` are the
two :class:`SchemaSource` implementations the agent layer consumes; :func:`validate_input` checks
arguments with ``jsonschema-rs``, one compiled validator per schema.
"""

from .answers import function_schema, type_schema
from .descriptions import Descriptions, DescriptionsError, load_descriptions
from .document import DIALECT
from .errors import (
    AMBIGUOUS_DISCRIMINATOR,
    INEXPRESSIBLE_TYPE,
    SCHEMA_TOO_LARGE,
    UNKNOWN_DECLARATION,
    SchemaError,
)
from .sources import TOOL_CONTEXT, ProgramSchemaSource, SchemaSource, StoredSchemaSource
from .validation import ValidationProblem, check_schema, validate_input, validator_for

__all__ = [
    "AMBIGUOUS_DISCRIMINATOR",
    "DIALECT",
    "INEXPRESSIBLE_TYPE",
    "SCHEMA_TOO_LARGE",
    "TOOL_CONTEXT",
    "UNKNOWN_DECLARATION",
    "Descriptions",
    "DescriptionsError",
    "ProgramSchemaSource",
    "SchemaError",
    "SchemaSource",
    "StoredSchemaSource",
    "ValidationProblem",
    "check_schema",
    "function_schema",
    "load_descriptions",
    "type_schema",
    "validate_input",
    "validator_for",
]
