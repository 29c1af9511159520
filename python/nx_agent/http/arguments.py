"""Reading an evaluated ``HttpArguments`` value into its structured form (§6.3)."""

from __future__ import annotations

from typing import TypedDict, Union


class HttpParam(TypedDict):
    """One named value of a request, not encoded."""

    name: str
    value: str


class _HttpArgumentsLists(TypedDict):
    pathParams: list[HttpParam]
    query: list[HttpParam]


class HttpArgumentsData(_HttpArgumentsLists, total=False):
    """The variable parts of one call: ``pathParams``, ``query`` and, when there is one, ``body``.

    This is what a request function receives as ``arguments``; ``body`` is as evaluated (it keeps
    its ``$type`` keys). JSON-ready, so it can be forwarded to another process and rebuilt there.
    """

    body: object


def _param_list(value: dict[str, object], key: str) -> list[HttpParam] | str:
    # Dicts and lists, subclasses too, are read from their storage: none of their own methods runs.
    if not dict.__contains__(value, key):
        return []
    held = dict.__getitem__(value, key)
    if not isinstance(held, list):
        return f"'{key}' is not a list"
    params: list[HttpParam] = []
    for index, item in enumerate(list.__iter__(held)):
        if not isinstance(item, dict):
            return f"'{key}[{index}]' is not a record with a string 'name' and a string 'value'"
        name = dict.get(item, "name")
        param_value = dict.get(item, "value")
        if not isinstance(name, str) or not isinstance(param_value, str):
            return f"'{key}[{index}]' is not a record with a string 'name' and a string 'value'"
        params.append({"name": str.__str__(name), "value": str.__str__(param_value)})
    return params


def read_http_arguments(value: object) -> Union[HttpArgumentsData, str]:
    """The structured form of an ``HttpArguments`` value, or the sentence saying what is wrong.

    Accepts the canonical record an arguments function returns (``$type`` not checked) and the
    structured form itself. Absent lists are empty; a ``body`` member that is present counts, even
    ``None``. Problems: ``the arguments are not a record``, ``'<key>' is not a list``,
    ``'<key>[<i>]' is not a record with a string 'name' and a string 'value'``.
    """
    if not isinstance(value, dict):
        return "the arguments are not a record"
    path_params = _param_list(value, "pathParams")
    if isinstance(path_params, str):
        return path_params
    query = _param_list(value, "query")
    if isinstance(query, str):
        return query
    data: HttpArgumentsData = {"pathParams": path_params, "query": query}
    if dict.__contains__(value, "body"):
        data["body"] = dict.__getitem__(value, "body")
    return data
