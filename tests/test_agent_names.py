"""agent-package.md §8.1 (names), and the JavaScript readings the messages rely on (§0.2)."""

from __future__ import annotations

import json

import pytest

import nx_agent
from nx_agent import definition_text, is_tool_name, to_snake_case
from nx_agent._js import MISSING, describe_value, js_json, js_number_text, js_string, js_trim, json_text


# 1.
@pytest.mark.parametrize(
    ("name", "snake"),
    [
        ("findPlans", "find_plans"),
        ("HTTPStatusFor", "http_status_for"),
        ("PlanRow", "plan_row"),
        ("lookupOrder2", "lookup_order2"),
        ("lookupOrder2Fast", "lookup_order2_fast"),
        ("find", "find"),
        ("Find", "find"),
        ("ID", "id"),
        ("getHTTP", "get_http"),
        ("parseURLFor", "parse_url_for"),
        ("already_snake", "already_snake"),
        # 2.
        ("find-plans", "find_plans"),
        ("User.Update", "user_update"),
        ("find  plans!", "find_plans"),
        ("__find__plans__", "find_plans"),
        ("findPläne", "find_pl_ne"),
        # §3.5's further examples
        ("whoAmI", "who_am_i"),
        ("orderFor", "order_for"),
        ("callIdOf", "call_id_of"),
        ("whoAmIAliased", "who_am_i_aliased"),
    ],
)
def test_to_snake_case(name: str, snake: str) -> None:
    assert to_snake_case(name) == snake


# 3.
def test_a_converted_name_is_not_checked() -> None:
    assert to_snake_case("2fast") == "2fast"
    assert not is_tool_name("2fast")
    assert to_snake_case("—") == ""
    assert not is_tool_name("")


# 4.
@pytest.mark.parametrize("name", ["a", "find_plans", "lookup_order2", "shop__lookup_order", "a" + "b" * 63])
def test_valid_tool_names(name: str) -> None:
    assert is_tool_name(name)
    assert nx_agent.TOOL_NAME_PATTERN.fullmatch(name)


# 5.
@pytest.mark.parametrize(
    "name", ["", "Find Plans", "findPlans", "find-plans", "_find", "2find", "find.plans", "a" + "b" * 64, "find_plans\n"]
)
def test_invalid_tool_names(name: str) -> None:
    assert not is_tool_name(name)


# 6.
def test_pattern_source() -> None:
    assert nx_agent.agent.TOOL_NAME_PATTERN_SOURCE == "^[a-z][a-z0-9_]{0,63}$"
    assert nx_agent.TOOL_NAME_PATTERN.pattern == "^[a-z][a-z0-9_]{0,63}$"
    assert nx_agent.TOOL_NAME_PATTERN.fullmatch("find_plans\n") is None


@pytest.mark.parametrize(
    ("value", "phrase"),
    [
        (None, "null"),
        (MISSING, "undefined"),
        ([], "a list"),
        ({"$type": "Plan"}, "a 'Plan'"),
        ({"name": "x"}, "a record with no '$type'"),
        ({"$type": 7}, "a record with no '$type'"),
        ("support", 'the string "support"'),
        ('say "hi"\n', 'the string "say \\"hi\\"\\n"'),
        (7, "the number 7"),
        (7.0, "the number 7"),
        (1.5, "the number 1.5"),
        (True, "the boolean true"),
        (float("nan"), "the number NaN"),
    ],
)
def test_describe_value(value: object, phrase: str) -> None:
    assert describe_value(value) == phrase


def test_js_trim_uses_the_javascript_whitespace_set() -> None:
    # ECMAScript WhiteSpace + LineTerminator: U+FEFF and U+3000 are trimmed, U+0085 and U+200B are not.
    assert js_trim("\ufeff\u3000 \t\n\u2028x\u00a0") == "x"
    assert js_trim("\u0085") == "\u0085"
    assert js_trim("\u200b") == "\u200b"


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (2.0, "2"),
        (0.0, "0"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (123.456, "123.456"),
        (-2.5, "-2.5"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "5e-324"),
        (1.5e300, "1.5e+300"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (12, "12"),
    ],
)
def test_numbers_are_written_as_javascript_writes_them(number: float, text: str) -> None:
    assert js_number_text(number) == text


def test_json_text_is_json_stringify() -> None:
    # Array-index keys first in numeric order; lone surrogates escaped; a pair is one character;
    # non-finite numbers are null; no spaces; non-ASCII as itself; U+2028 unescaped.
    value = {"b": 1, "10": 2.0, "2": ["\ud800", "\ud83d\ude00", "é\u2028", float("nan")], "a": {"x": None, "y": True}}
    assert json_text(value) == '{"2":["\\ud800","😀","é\u2028",null],"10":2,"b":1,"a":{"x":null,"y":true}}'
    assert json_text("\u001f\b") == '"\\u001f\\b"'
    with pytest.raises(TypeError):
        json_text({"a": MISSING})


def test_js_json_is_json_stringify_in_a_message() -> None:
    # What a template literal shows of JSON.stringify(v): undefined for undefined, a member holding
    # undefined left out, an undefined list item null, keys in JavaScript's order.
    assert js_json(MISSING) == "undefined"
    assert js_json("GET") == '"GET"'
    assert js_json({"b": MISSING, "1": [MISSING, 2.0], "a": "x"}) == '{"1":[null,2],"a":"x"}'


def test_js_string_is_string_of_a_value() -> None:
    # String(v): undefined and null items of a list are empty, an object is [object Object].
    assert js_string(MISSING) == "undefined"
    assert js_string([1, None, 2.5, MISSING, [True, "x"]]) == "1,,2.5,,true,x"
    assert js_string({"a": 1}) == "[object Object]"
    assert js_string(1e21) == "1e+21"


def test_definition_text_round_trips() -> None:
    definition = {"formatVersion": 1, "name": "bare", "instructions": "Be brief.", "documents": [], "limits": {}, "tools": []}
    text = definition_text(definition)
    assert text == '{"formatVersion":1,"name":"bare","instructions":"Be brief.","documents":[],"limits":{},"tools":[]}'
    assert json.loads(text) == definition
