"""String results written to Python (see `sink.rs`): a text the evaluator knows to be ASCII (an
integer's or a float's text, a concat of ASCII texts) is built as a Python string without
decoding, any other text is decoded. Either way the result is the very string it should be: equal
to the expected text, of the same length, as hashable as any other, and ASCII exactly when its
characters are."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nx_agent import ir

TEXTS = """module main.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [items joined labelled floats literal accented] components []

function items(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("item " concat text<int>(i))

function joined(a: string, b: string): string =
  (a concat b)

function labelled(prefix: string, i: int): string =
  (prefix concat text<int>(i))

function floats(values: float64*) =
  for v in values yield
    ("x=" concat text<float64>(v))

function literal(): string =
  "plain"

function accented(): string =
  "caf\u00e9"
"""

PROGRAM = ir.link_program(ir.prepare_module(ir.assemble(TEXTS)))


def value(name: str, *args: object) -> object:
    return ir.evaluate_function(PROGRAM, name, list(args), max_operations=10**7).value


def assert_same_text(got: object, want: str) -> None:
    assert type(got) is str
    assert got == want
    assert len(got) == len(want)
    assert got.isascii() == want.isascii()
    assert hash(got) == hash(want)
    assert {want: 1}[got] == 1
    assert got.encode("utf-8") == want.encode("utf-8")


def test_an_integer_loop_writes_each_item_text() -> None:
    n = 2_000
    got = value("items", n)
    assert isinstance(got, list)
    assert len(got) == n
    for i, item in enumerate(got):
        assert_same_text(item, f"item {i}")


def test_integer_text_at_the_extremes() -> None:
    for i in (0, 9, 10, 99, 100, -1, -10, -99, -100, 2**63 - 1, -(2**63), 10**18, -(10**18) + 1):
        assert_same_text(value("labelled", "n=", i), f"n={i}")


def test_a_non_ascii_prefix_keeps_its_characters() -> None:
    for prefix in ("é", "日本 ", "\U0001f600", "a\u0000b", "\u007f", "\u0080"):
        assert_same_text(value("labelled", prefix, 42), f"{prefix}42")


# ECMAScript's Number::toString forms (ir-format §4.4).
FLOAT_FORMS = {
    0.1: "0.1",
    0.30000000000000004: "0.30000000000000004",
    123.0: "123",
    -2.5: "-2.5",
    1e21: "1e+21",
    1e-7: "1e-7",
    123456.7: "123456.7",
}


def test_float_texts_are_their_number_forms() -> None:
    got = value("floats", list(FLOAT_FORMS))
    assert isinstance(got, list)
    for item, form in zip(got, FLOAT_FORMS.values(), strict=True):
        assert_same_text(item, f"x={form}")


def test_program_literals_are_written_as_their_text() -> None:
    assert_same_text(value("literal"), "plain")
    assert_same_text(value("accented"), "caf\u00e9")
    # A literal is written as the one string the program keeps for it.
    assert value("literal") is value("literal")
    assert value("accented") is value("accented")


@given(st.text(max_size=80), st.text(max_size=80))
def test_a_concat_of_any_two_texts_is_their_concatenation(a: str, b: str) -> None:
    assert_same_text(value("joined", a, b), a + b)


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200), st.integers(-(2**63), 2**63 - 1))
def test_an_ascii_prefix_and_an_integer_are_one_ascii_text(prefix: str, i: int) -> None:
    got = value("labelled", prefix, i)
    assert_same_text(got, f"{prefix}{i}")
    assert isinstance(got, str) and got.isascii()
