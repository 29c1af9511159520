"""Workload 4, cold start of a serverless function: a fresh interpreter that imports the engine,
loads the bundled example (plans filtered by seats), makes the first call and prints the result
as JSON. Each script takes a folder of prebuilt artifacts as its first argument."""

from __future__ import annotations

import json
from pathlib import Path

from nx_agent import examples, ir
from nx_agent.bundle import bundle_bytes

from . import workloads

#: The example for wasm: the seat counts in a data segment, `find_plans` returns a bit mask of
#: the plans that fit; the host holds the names and prices and builds the records.
EXAMPLE_WAT = r"""
(module
  (memory 1)
  (data (i32.const 0) "\03\00\00\00\0a\00\00\00\32\00\00\00")
  (func (export "find_plans") (param $team i32) (result i32)
    (local $i i32) (local $mask i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (i32.const 3)))
        (if (i32.ge_s (i32.load (i32.shl (local.get $i) (i32.const 2))) (local.get $team))
          (then (local.set $mask
            (i32.or (local.get $mask) (i32.shl (i32.const 1) (local.get $i))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $mask))
)
"""

#: The example's `plans/main.nx` as an agent: the same `findPlans`, and a `root` whose Agent has it
#: as its one function tool (`find_plans`), for the agent path's cold start.
PLANS_AGENT = """module plans/main.nx fingerprint 371057546313887145
links plans/catalog.nx version "1" fingerprint 1644848368025960627
links @nx/agent/agent.nx version "b06c00c30be50ada" fingerprint 11527925250760699671
requires function-values-v1
entrypoints functions [findPlans root] components []

function findPlans(teamSize: int) =
  for plan in plans/catalog.nx:plans yield
    if (plan.seats ge teamSize) then
      plan

function root(): @nx/agent/agent.nx:Agent =
  <@nx/agent/agent.nx:Agent name="plans" tools=<@nx/agent/agent.nx:FunctionTool function=findPlans />>
    "Finds the plans that fit a team."
  </@nx/agent/agent.nx:Agent>
"""
PLANS_DESCRIPTIONS = {
    "modules": {
        "plans/main.nx": {
            "functions": {
                "findPlans": {
                    "description": "The plans with at least as many seats as the team has people.",
                    "parameters": {"teamSize": "How many people the team has."},
                }
            }
        }
    }
}

_CATALOG = json.dumps(workloads.CATALOG)
_PRINT = "import json, sys; print(json.dumps(result))"

_WASM_HOST = f"""
config = wasmtime.Config()
config.consume_fuel = True
engine = wasmtime.Engine(config)
{{load}}
store = wasmtime.Store(engine)
find_plans = wasmtime.Instance(store, module, []).exports(store)["find_plans"]
store.set_fuel({workloads.SMALL_BUDGET})
mask = find_plans(store, 5)
catalog = {_CATALOG}
result = [plan for i, plan in enumerate(catalog) if mask >> i & 1]
"""

#: Row label → (script, note). `folder` holds what `prepare_artifacts` wrote.
SCRIPTS: dict[str, tuple[str, str]] = {
    "python -c pass": ("pass", "interpreter start alone: the floor every row pays"),
    "nx-agent (image bytes)": (
        f"""
import sys
from nx_agent import ir
def image(name):
    with open(sys.argv[1] + "/" + name, "rb") as file:
        return file.read()
main = ir.prepare_module(image("main.nxir"))
catalog = ir.prepare_module(image("catalog.nxir"))
program = ir.link_program(main, {{"plans/main.nx": main, "plans/catalog.nx": catalog}})
result = ir.evaluate_function(program, "findPlans", (5,), max_operations={workloads.SMALL_BUDGET}).value
{_PRINT}
""",
        "import nx_agent.ir, prepare_module of the two prebuilt images, link_program, first call",
    ),
    "nx-agent (agent bundle)": (
        """
import sys
from nx_agent import load_bundle
agent = load_bundle(sys.argv[1] + "/plans.bundle.json")
result = agent["find_plans"].execute({"teamSize": 5}, call_id="c1")["output"]
"""
        + _PRINT,
        "import nx_agent, load_bundle (one file: definition and two images; tools created, definition "
        "checked), first execute of the function tool",
    ),
    "nx-agent (examples.link_example)": (
        f"""
from nx_agent import examples, ir
from nx_agent.bundle import bundle_bytes
result = ir.evaluate_function(examples.link_example(), "findPlans", (5,), max_operations={workloads.SMALL_BUDGET}).value
{_PRINT}
""",
        "as above, but assembling the images from the bundled explain text first",
    ),
    "Python (unsandboxed)": (
        f"""
catalog = {_CATALOG}
def find_plans(team_size):
    return [plan for plan in catalog if plan["seats"] >= team_size]
result = find_plans(5)
{_PRINT}
""",
        "a plain function",
    ),
    "CEL (common-expression-language)": (
        f"""
import cel
program = cel.compile({json.dumps(_CATALOG + ".filter(p, p.seats >= teamSize)")})
result = program.execute({{"teamSize": 5}})
{_PRINT}
""",
        "compile the expression (catalog as a literal), first execute",
    ),
    "Starlark (starlark-pyo3)": (
        f"""
import starlark
source = '''
catalog = {_CATALOG}
def find_plans(team_size):
    return [plan for plan in catalog if plan["seats"] >= team_size]
'''
module = starlark.Module()
starlark.eval(module, starlark.parse("plans.star", source), starlark.Globals.standard())
result = module.freeze().call("find_plans", 5)
{_PRINT}
""",
        "parse, evaluate and freeze the module, first call",
    ),
    "Lua (lupa)": (
        f"""
from lupa import LuaRuntime
lua = LuaRuntime()
metered = lua.eval('''
function(budget, f, ...)
  debug.sethook(function() error("budget exhausted", 0) end, "", budget)
  local ok, result = pcall(f, ...)
  debug.sethook()
  if not ok then error(result, 0) end
  return result
end''')
find_plans = lua.eval('''
function(team_size)
  local catalog = {{
    {{["$type"] = "Plan", monthlyPrice = 8, name = "Starter", seats = 3}},
    {{["$type"] = "Plan", monthlyPrice = 20, name = "Team", seats = 10}},
    {{["$type"] = "Plan", monthlyPrice = 45, name = "Business", seats = 50}},
  }}
  local found = {{}}
  for _, plan in ipairs(catalog) do
    if plan.seats >= team_size then found[#found + 1] = plan end
  end
  return found
end''')
plans = metered({workloads.SMALL_BUDGET}, find_plans, 5)
result = [dict(plan.items()) for plan in plans.values()]
{_PRINT}
""",
        "new LuaRuntime, load the function, first metered call, table → dicts",
    ),
    "wasm (wasmtime, fuel; compile WAT)": (
        "import sys, wasmtime\n"
        + _WASM_HOST.replace("{load}", f"module = wasmtime.Module(engine, {EXAMPLE_WAT!r})")
        + _PRINT,
        "compile the WAT text with Cranelift, instantiate, first call; host builds the records",
    ),
    "wasm (wasmtime, fuel; precompiled)": (
        "import sys, wasmtime\n"
        + _WASM_HOST.replace(
            "{load}", "module = wasmtime.Module.deserialize_file(engine, sys.argv[1] + '/plans.cwasm')"
        )
        + _PRINT,
        "deserialize a module compiled ahead of time, instantiate, first call; host builds the records",
    ),
    "simpleeval": (
        f"""
import simpleeval
evaluator = simpleeval.EvalWithCompoundTypes(names={{"plans": {_CATALOG}, "teamSize": 5}})
result = evaluator.eval('[p for p in plans if p["seats"] >= teamSize]')
{_PRINT}
""",
        "the host passes the catalog in as a name; one expression evaluated",
    ),
}


def prepare_artifacts(folder: Path) -> None:
    """Write the example's prebuilt images and the precompiled wasm module into `folder`."""
    import wasmtime

    names = {"plans/main.nx": "main.nxir", "plans/catalog.nx": "catalog.nxir"}
    for identity, (_, version) in examples.MODULES.items():
        links = [examples.text(other) for other in examples.MODULES if other != identity]
        image = ir.assemble(examples.text(identity), version=version, links=links)
        (folder / names[identity]).write_bytes(image)
    from nx_agent.agent import compile_agent

    library = examples.library_text()
    agent_images = {
        "plans/main.nx": ir.assemble(PLANS_AGENT, links=[examples.text("plans/catalog.nx"), library]),
        "plans/catalog.nx": ir.assemble(examples.text("plans/catalog.nx"), version="1", links=[PLANS_AGENT]),
        "@nx/agent/agent.nx": ir.assemble(library, version="b06c00c30be50ada", links=[PLANS_AGENT]),
    }
    compiled = compile_agent(agent_images, entry="plans/main.nx", descriptions=PLANS_DESCRIPTIONS)
    (folder / "plans.bundle.json").write_bytes(bundle_bytes(compiled))
    config = wasmtime.Config()
    config.consume_fuel = True
    module = wasmtime.Module(wasmtime.Engine(config), EXAMPLE_WAT)
    (folder / "plans.cwasm").write_bytes(module.serialize())
