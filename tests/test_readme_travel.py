"""The README's "Past one process" section: its pickling and process-pool example run as a script
(as a reader would save and run it), and its Ray lines name what nx_agent.ray holds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import readme


def test_the_pickling_and_process_pool_example_runs_as_a_script(tmp_path: Path) -> None:
    block = readme.code_blocks("Past one process")[0]
    script = tmp_path / "travel_example.py"
    script.write_text(block, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_ray_lines_name_what_nx_agent_ray_holds() -> None:
    block = readme.code_blocks("Past one process")[1]
    imported = re.search(r"from nx_agent\.ray import (.+)", block)
    assert imported is not None
    names = [name.strip() for name in imported.group(1).split(",")]
    assert names == ["ToolTasks", "actor_pool", "deployment", "map_calls"]
    source = (Path(__file__).resolve().parent.parent / "python" / "nx_agent" / "ray.py").read_text(encoding="utf-8")
    for name in names:
        assert re.search(rf"^(def|class) {name}\b", source, re.M), name


def test_the_serve_flags_exist() -> None:
    from nx_agent.cli import build_parser

    text = readme.section("Past one process")
    assert "--http --stateless --workers 2" in text
    help_text = build_parser().format_help()
    assert "serve" in help_text
