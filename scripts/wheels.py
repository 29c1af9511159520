"""Build and test the wheels for every supported Python, in one command:

    python3 scripts/wheels.py [--versions 3.10 3.11 3.12 3.13] [--out dist/wheels] [--abi3]

For each version: find its interpreter (pyenv's, or ``pythonX.Y`` on the PATH), build a release
wheel for it with maturin (``maturin build --release -i <python>``), make a fresh virtual
environment with that interpreter, install the wheel with its dependencies and pytest and
hypothesis, and run the test files below from the checkout against the installed wheel (not the
source tree). Prints one line per version and a summary; exits non-zero when any version fails.

``--abi3`` also builds the stable-ABI wheel (feature ``abi3`` of rust/nx-agent-py) for the first
version and runs ``benches/abi_compare.py`` between it and that version's full-API wheel.

The extension is built per version (not abi3): writing a result list in place needs the full C
API (see the README's "Wheels and Python versions" for the figures).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ("3.10", "3.11", "3.12", "3.13")
#: The files run against each wheel: the native layer (images, links, evaluation, hostile values
#: and host input read in place through the C API, work bounds, nesting, memory and interrupts,
#: the corpus) and the agent layer without optional extras (calls, pickling, process pools, bundles).
TESTS = (
    "tests/test_images.py",
    "tests/test_link.py",
    "tests/test_evaluate.py",
    "tests/test_call_function.py",
    "tests/test_hostile_values.py",
    "tests/test_host_input.py",
    "tests/test_evaluation_work.py",
    "tests/test_kept_values.py",
    "tests/test_string_results.py",
    "tests/test_nesting_limit.py",
    "tests/test_memory_limit.py",
    "tests/test_interrupt.py",
    "tests/test_fuzz_boundary_regressions.py",
    "tests/test_execute_runtime.py",
    "tests/test_corpus.py",
    "tests/test_execute_calls.py",
    "tests/test_travel.py",
    "tests/test_process_pools.py",
    "tests/test_bundle.py",
    "tests/test_allocator.py",
    "tests/test_arenas.py",
)


def interpreter(version: str) -> str | None:
    """The interpreter of ``version``: pyenv's newest X.Y.*, else ``pythonX.Y`` on the PATH."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if root.is_dir():
        found = sorted(
            (p for p in root.iterdir() if p.name.startswith(version + ".") and (p / "bin" / "python").exists()),
            key=lambda p: [int(x) for x in p.name.split(".") if x.isdigit()],
        )
        if found:
            return str(found[-1] / "bin" / "python")
    return shutil.which(f"python{version}")


def run(command: list[str], log: Path, **kwargs: object) -> bool:
    with log.open("a", encoding="utf-8") as out:
        out.write("$ " + " ".join(command) + "\n")
        out.flush()
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, **kwargs)  # type: ignore[call-overload]
    return done.returncode == 0


def build(python: str, out: Path, log: Path, *features: str) -> Path | None:
    before = set(out.glob("*.whl"))
    command = ["maturin", "build", "--release", "-i", python, "-o", str(out), *features]
    if not run(command, log, cwd=ROOT):
        return None
    made = set(out.glob("*.whl")) - before
    tag = "abi3" if features else f"cp{python_tag(python)}"
    matching = [w for w in (made or set(out.glob("*.whl"))) if tag in w.name]
    return max(matching, key=lambda w: w.stat().st_mtime) if matching else None


def python_tag(python: str) -> str:
    return subprocess.run([python, "-c", "import sys; print(f'{sys.version_info[0]}{sys.version_info[1]}')"],
                          capture_output=True, text=True, check=True).stdout.strip()


def venv_with(python: str, wheel: Path, where: Path, log: Path) -> Path | None:
    shutil.rmtree(where, ignore_errors=True)
    if not run([python, "-m", "venv", str(where)], log):
        return None
    venv_python = where / "bin" / "python"
    if not run([str(venv_python), "-m", "pip", "install", "-q", str(wheel), "pytest", "hypothesis"], log):
        return None
    return venv_python


def test(venv_python: Path, log: Path) -> tuple[bool, str]:
    """Run TESTS with the installed wheel; answers (passed, pytest's closing line)."""
    environment = dict(os.environ)
    environment.pop("PYTHONPATH", None)
    command = [str(venv_python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS]
    done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
    with log.open("a", encoding="utf-8") as out:
        out.write(done.stdout + done.stderr)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    # pytest's counts ("1432 passed in 15.21s"), not a line a plugin writes after them.
    counts = [line for line in lines if " in " in line and any(word in line for word in ("passed", "failed", "error"))]
    return done.returncode == 0, (counts or lines or ["no output"])[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--versions", nargs="+", default=list(VERSIONS))
    parser.add_argument("--out", type=Path, default=ROOT / "dist" / "wheels")
    parser.add_argument("--abi3", action="store_true")
    options = parser.parse_args(argv)
    options.out.mkdir(parents=True, exist_ok=True)
    work = ROOT / "dist" / "wheel-venvs"
    work.mkdir(parents=True, exist_ok=True)
    summary: list[tuple[str, bool, str]] = []
    full_wheels: dict[str, Path] = {}
    for version in options.versions:
        began = time.monotonic()
        log = work / f"{version}.log"
        log.write_text("", encoding="utf-8")
        python = interpreter(version)
        if python is None:
            summary.append((version, False, "no interpreter found"))
            continue
        wheel = build(python, options.out, log)
        if wheel is None:
            summary.append((version, False, f"build failed (see {log})"))
            continue
        full_wheels[version] = wheel
        venv_python = venv_with(python, wheel, work / f"venv-{version}", log)
        if venv_python is None:
            summary.append((version, False, f"install failed (see {log})"))
            continue
        passed, closing = test(venv_python, log)
        summary.append((version, passed, f"{wheel.name}: {closing} ({time.monotonic() - began:.0f} s)"))
        print(f"Python {version}: {'ok' if passed else 'FAILED'}: {summary[-1][2]}", flush=True)
    if options.abi3 and options.versions:
        version = options.versions[0]
        python = interpreter(version)
        log = work / "abi3.log"
        log.write_text("", encoding="utf-8")
        abi3 = None if python is None else build(python, options.out, log, "--features", "abi3")
        if python is None or abi3 is None or version not in full_wheels:
            summary.append(("abi3", False, f"build failed (see {log})"))
        else:
            abi3_python = venv_with(python, abi3, work / "venv-abi3", log)
            full_python = work / f"venv-{version}" / "bin" / "python"
            if abi3_python is None:
                summary.append(("abi3", False, f"install failed (see {log})"))
            else:
                passed, closing = test(abi3_python, log)
                summary.append(("abi3", passed, f"{abi3.name}: {closing}"))
                print(f"abi3 on Python {version}: {'ok' if passed else 'FAILED'}: {closing}", flush=True)
                subprocess.run([sys.executable, str(ROOT / "benches" / "abi_compare.py"), str(full_python), str(abi3_python)],
                               check=False)
    print("\nwheels:")
    for version, passed, what in summary:
        print(f"  {version}: {'ok' if passed else 'FAILED'}  {what}")
    return 0 if all(passed for _, passed, _ in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
