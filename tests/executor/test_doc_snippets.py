"""Every Python snippet in docs/ marked ``<!-- runnable -->`` runs, so the docs cannot drift from the code.

Each runs as a script in its own process under a hard timeout, in an empty
folder with a link to example_plans/ and ``COMETLOCAL_BASE_URL`` pointing at
the demo portal (docs/README.md). A snippet that raises or exits with another
status than 0 fails its test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MARK = "<!-- runnable -->"


def runnable_snippets(folder: Path = DOCS) -> dict[str, str]:
    """``{"<file>:<line>": code}`` of each marked snippet; a mark not right before a ```python fence is an error.

    A mark inside a fenced block (an example of the mark itself) is text, not a mark.
    """
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        fence = ""  # the backticks that opened the block we are in
        for number, line in enumerate(lines, 1):
            ticks = re.match(r"\s*(`{3,})", line)
            if ticks and (not fence or ticks.group(1) == fence):
                fence = "" if fence else ticks.group(1)
                continue
            if fence or line.strip() != MARK:
                continue
            where = f"{path.relative_to(folder).as_posix()}:{number + 1}"
            if number >= len(lines) or lines[number].strip() != "```python":
                raise AssertionError(f"{where}: {MARK} is not followed by a ```python fence")
            end = next((i for i in range(number + 1, len(lines)) if lines[i].strip() == "```"), None)
            if end is None:
                raise AssertionError(f"{where}: the snippet's fence is never closed")
            found[where] = "\n".join(lines[number + 1:end]) + "\n"
    return found


SNIPPETS = runnable_snippets()


def test_the_library_example_is_among_the_runnable_snippets() -> None:
    assert any(where.startswith("executor.md:") and "run_plan(" in code for where, code in SNIPPETS.items())


def test_a_mark_without_a_python_fence_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(f"text\n{MARK}\n```sh\nls\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=re.escape(f"a.md:3: {MARK} is not followed by a ```python fence")):
        runnable_snippets(tmp_path)
    (tmp_path / "a.md").write_text(f"{MARK}\n```python\nprint(1)\n```\n````md\n{MARK}\n```python\n...\n```\n````\n",
                                   encoding="utf-8")
    assert runnable_snippets(tmp_path) == {"a.md:2": "print(1)\n"}  # the mark inside the ```` block is an example


@pytest.mark.browser
@pytest.mark.parametrize("where", sorted(SNIPPETS))
def test_runnable_snippet_runs(where: str, tmp_path: Path, portal) -> None:
    (tmp_path / "example_plans").symlink_to(ROOT / "example_plans", target_is_directory=True)
    script = tmp_path / "snippet.py"
    script.write_text(SNIPPETS[where], encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), COMETLOCAL_BASE_URL=portal.url)
    try:
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=180)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"docs/{where}: still running after {exc.timeout} s") from None
    assert done.returncode == 0, f"docs/{where} exited with {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
