"""WebAssembly through `wasmtime` with fuel: a hand-written WAT module, compiled once."""

from __future__ import annotations

import sys
from array import array
from typing import Any

import wasmtime

from . import workloads
from .base import Peer

#: `find_plans` returns the record's numbers; `squares` writes i64 squares at address 0;
#: `items` writes `item <i>\n` at address 0. Each grows memory as it needs.
WAT = r"""
(module
  (memory (export "memory") 1)
  (func $reserve (param $bytes i32)
    (local $need i32)
    (local.set $need
      (i32.sub
        (i32.shr_u (i32.add (local.get $bytes) (i32.const 65535)) (i32.const 16))
        (memory.size)))
    (if (i32.gt_s (local.get $need) (i32.const 0))
      (then (if (i32.eq (memory.grow (local.get $need)) (i32.const -1))
        (then unreachable)))))
  (func (export "find_plans") (param $team i32) (result i32 i32)
    local.get $team
    i32.const 20)
  (func (export "squares") (param $n i32) (result i32)
    (local $i i32)
    (call $reserve (i32.shl (local.get $n) (i32.const 3)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i64.store (i32.shl (local.get $i) (i32.const 3))
          (i64.mul (i64.extend_i32_u (local.get $i)) (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $n))
  (func (export "items") (param $n i32) (result i32)
    (local $i i32) (local $p i32) (local $v i32) (local $lo i32) (local $hi i32) (local $t i32)
    (call $reserve (i32.shl (local.get $n) (i32.const 4)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (local.get $p) (i32.const 0x69))
        (i32.store8 offset=1 (local.get $p) (i32.const 0x74))
        (i32.store8 offset=2 (local.get $p) (i32.const 0x65))
        (i32.store8 offset=3 (local.get $p) (i32.const 0x6d))
        (i32.store8 offset=4 (local.get $p) (i32.const 0x20))
        (local.set $p (i32.add (local.get $p) (i32.const 5)))
        (local.set $lo (local.get $p))
        (local.set $v (local.get $i))
        (loop $digit
          (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
          (br_if $digit (i32.ne (local.get $v) (i32.const 0))))
        (local.set $hi (i32.sub (local.get $p) (i32.const 1)))
        (block $reversed
          (loop $swap
            (br_if $reversed (i32.ge_u (local.get $lo) (local.get $hi)))
            (local.set $t (i32.load8_u (local.get $lo)))
            (i32.store8 (local.get $lo) (i32.load8_u (local.get $hi)))
            (i32.store8 (local.get $hi) (local.get $t))
            (local.set $lo (i32.add (local.get $lo) (i32.const 1)))
            (local.set $hi (i32.sub (local.get $hi) (i32.const 1)))
            (br $swap)))
        (i32.store8 (local.get $p) (i32.const 10))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $p))
)
"""


class Wasm(Peer):
    name = "wasm (wasmtime, fuel)"
    budget = "fuel (about 1 unit per wasm instruction), set before each call"
    metered = True
    notes = {
        "find_plans": "wasm cannot return records: the function returns the record's numbers "
        "and the host builds the dict",
        "squares": "wasm writes i64 squares into linear memory; the host reads the bytes and "
        "makes the list (timed)",
        "items": "wasm writes `item <i>` lines into linear memory; the host decodes and splits "
        "them (timed)",
        "floats": "not written: shortest round-trip float text is a sizeable algorithm (Ryū or "
        "Grisu with tables) that plain wasm does not have",
        "catalog": "not written: wasm has no records or strings to return; a catalog would be "
        "a hand-made memory layout the host decodes",
        "nested": "not written: no records (as for catalog)",
        "summarize": "not written: the host would serialize the records into linear memory",
    }

    def __init__(self) -> None:
        config = wasmtime.Config()
        config.consume_fuel = True
        self.engine = wasmtime.Engine(config)
        self.store = wasmtime.Store(self.engine)
        instance = wasmtime.Instance(self.store, wasmtime.Module(self.engine, WAT), [])
        exports = instance.exports(self.store)
        self._find_plans: Any = exports["find_plans"]
        self._squares: Any = exports["squares"]
        self._items: Any = exports["items"]
        self._memory: Any = exports["memory"]

    def find_plans(self, team_size: int) -> list[dict[str, Any]]:
        self.store.set_fuel(workloads.SMALL_BUDGET)
        seats, price = self._find_plans(self.store, team_size)
        return [{"$type": "Plan", "name": "Team", "seats": seats, "monthlyPrice": price}]

    def squares(self, n: int, budget: int | None = None) -> list[int]:
        self.store.set_fuel(workloads.loop_budget(n) if budget is None else budget)
        count = self._squares(self.store, n)
        values = array("q", self._memory.read(self.store, 0, 8 * count))
        if sys.byteorder == "big":
            values.byteswap()
        return values.tolist()

    def items(self, n: int) -> list[str]:
        self.store.set_fuel(workloads.loop_budget(n))
        end = self._items(self.store, n)
        text: str = self._memory.read(self.store, 0, end).decode("ascii")
        return text.split("\n")[:-1]
