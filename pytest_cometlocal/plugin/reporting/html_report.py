"""pytest-html without Allure: a plan item's row says its error code and failing step (two columns), and
its extras hold the failing step's screenshots (embedded) and links to its Playwright trace, its video,
its trace.jsonl and its run folder.

Active only when pytest-html writes a report (``--html=FILE``): its hooks exist only then, so
``register_html_report`` adds this plugin at configure time instead of the package declaring them.
The extras are made where the item runs (an xdist worker too: they travel with the report as plain
data) and the columns are filled where pytest-html writes the file. Links are relative to the report's
folder, so a report copied with its run folders still opens them. Only the pictures the executor kept
and the paths are added: no value, no secret (the row's log is the failure text, already masked).
"""

from __future__ import annotations

import base64
import os
from html import escape
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.contract.model.records import ExecutorError
from pytest_cometlocal.contract.run_folder import TRACE
from pytest_cometlocal.runs.errors import RunFolderError
from pytest_cometlocal.runs.reader import read_evidence

MAX_PICTURES = 4  # a failure's evidence has a few screenshots; more would drown the row
MAX_PICTURE_BYTES = 4 * 1024 * 1024
PICTURES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
# The columns added after "Test": (header, the user property that fills it).
COLUMNS = (("Error code", "cometlocal.error_code"), ("Failing step", "cometlocal.step_id"))


class HtmlReport:
    """The pytest-html hooks of plan items, for the report at ``report_path``."""

    def __init__(self, report_path: Path):
        self.folder = report_path.parent

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report = yield
        run_dir = getattr(item, "cometlocal_run_dir", None)
        if report.when == "call" and isinstance(run_dir, Path):
            report.extras = [*getattr(report, "extras", []), *self.extras(run_dir, getattr(item, "cometlocal_error", None))]
        return report

    def extras(self, run_dir: Path, error: ExecutorError | None) -> list[dict[str, Any]]:
        """The failing step's pictures (base64: pytest-html embeds them), then the links."""
        from pytest_html import extras

        found: list[dict[str, Any]] = []
        for ref in (error.evidence_refs if error is not None else [])[:MAX_PICTURES * 2]:
            path = run_dir / ref.uri
            mime = PICTURES.get(path.suffix.lower())
            if mime and path.is_file() and path.stat().st_size <= MAX_PICTURE_BYTES and len(found) < MAX_PICTURES:
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                found.append(extras.image(data, name=f"{ref.step_id or 'run'}: {path.name}", mime_type=mime,
                                          extension=path.suffix.lstrip(".").lower()))
        for name, path in links(run_dir):
            found.append(extras.url(self.href(path), name=name))
        return found

    def href(self, path: Path) -> str:
        """``path`` relative to the report's folder (as a URL path), or its file URL when on another drive."""
        try:
            relative = os.path.relpath(path, self.folder)
        except ValueError:
            return path.resolve().as_uri()
        return Path(relative).as_posix() + ("/" if path.is_dir() else "")

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        for offset, (title, _prop) in enumerate(COLUMNS):
            kind = title.lower().replace(" ", "-")
            cells.insert(2 + offset, f'<th class="sortable" data-column-type="cometlocal-{kind}">{title}</th>')

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report: pytest.TestReport, cells: list[str]) -> None:
        props = dict(getattr(report, "user_properties", []) or [])
        for offset, (title, prop) in enumerate(COLUMNS):
            kind = title.lower().replace(" ", "-")
            cells.insert(2 + offset, f'<td class="col-cometlocal-{kind}">{escape(str(props.get(prop) or ""))}</td>')


def links(run_dir: Path) -> list[tuple[str, Path]]:
    """(name, path) of what a reader opens next: Playwright's trace.zip, the video, the run's trace.jsonl
    and its folder. The evidence manifest lists the first two (a run without one has only the rest)."""
    found: list[tuple[str, Path]] = []
    try:
        entries = read_evidence(run_dir)
    except RunFolderError:
        entries = ()
    for entry in entries:
        if entry.uri is None:
            continue
        if entry.kind == "playwright_trace":
            found.append(("trace.zip (playwright show-trace)", run_dir / entry.uri))
        elif entry.kind == "video" or Path(entry.uri).suffix.lower() in (".webm", ".mp4"):
            found.append((f"video: {Path(entry.uri).name}", run_dir / entry.uri))
    if (run_dir / TRACE).is_file():
        found.append((TRACE, run_dir / TRACE))
    found.append(("run folder", run_dir))
    return found


def register_html_report(config: pytest.Config) -> None:
    """At configure: this plugin, when pytest-html is installed and asked for a report (``--html``)."""
    path = config.getoption("htmlpath", None) if config.pluginmanager.hasplugin("html") else None
    if path:
        report_path = Path.cwd() / Path(os.path.expandvars(str(path))).expanduser()  # as pytest-html places it
        config.pluginmanager.register(HtmlReport(report_path), "cometlocal-html")
