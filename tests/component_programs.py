"""Component programs of the tests' own, as explain texts."""

from __future__ import annotations

from pathlib import Path

#: `Box` (schema 5): a component whose handler captures its state `s`, which each tap wraps in
#: one more `Wrap` record. Kept in the core crate (`rust/nx-ir-core/tests/components/`), whose
#: stored-instance fuzz target and tests run it too.
BOX = (Path(__file__).resolve().parent.parent / "rust" / "nx-ir-core" / "tests" / "components" / "box.nxir.txt").read_text(
    encoding="utf-8"
)
