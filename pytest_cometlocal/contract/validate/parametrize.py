"""``parametrize``: one plan, many rows of vars, one pytest item per row.

Three ways to write the rows: a list of mappings (each may name its ``id``),
a mapping of var name to values (every combination, in order), or the name
of a CSV file next to the plan (its header names the vars; an ``id`` column
names the rows). Anything wrong with them is one PARAMETRIZE problem (or
PATH_CONFINEMENT for a CSV outside the plan's folder), and the plan gets no
row at all: a half-read table would silently run fewer cases.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
from pathlib import Path
from typing import Any, Mapping

from pydantic import TypeAdapter, ValidationError

from pytest_cometlocal.contract.validate.collector import ProblemCollector
from pytest_cometlocal.contract.load.safe_yaml import YDict
from pytest_cometlocal.contract.load.paths import confine
from pytest_cometlocal.contract.errors import ConfinementError
from pytest_cometlocal.contract.model.plan import VAR_NAME, Plan
from pytest_cometlocal.contract.validate.validated import UNSAFE_NAME, Row

MAX_ROWS = 1000
# A CSV file is read whole: as large as a plan file may be. A field stays within the
# csv module's own field limit (csv.field_size_limit(), 131,072 characters by default).
MAX_CSV_BYTES = 2 * 1024 * 1024
_SPEC = TypeAdapter(Plan.model_fields["parametrize"].annotation)
LOC = ("parametrize",)


def _row_id(values: Mapping[str, Any]) -> str:
    return "-".join(str(v) for v in values.values()) or "row"


def parametrize_rows(raw: YDict, col: ProblemCollector, plan_dir: Path) -> list[Row]:
    """The rows of ``raw["parametrize"]``; [] (with a problem in ``col``) when anything is wrong."""
    spec = raw["parametrize"]
    try:
        _SPEC.validate_python(spec, strict=True)
    except ValidationError as exc:
        col.add_pydantic(exc, LOC)
        return []
    if isinstance(spec, str):
        table = _csv_table(spec, col, plan_dir)
        if table is None:
            return []
    elif isinstance(spec, dict):
        names = list(spec)
        count = math.prod(len(spec[n]) for n in names)  # counted before a single row is built
        if count > MAX_ROWS:
            sizes = " x ".join(str(len(spec[n])) for n in names)
            col.add(LOC, f"{count} rows ({sizes} combinations); at most {MAX_ROWS}", "PARAMETRIZE")
            return []
        table = [dict(zip(names, combo)) for combo in itertools.product(*(spec[n] for n in names))]
    else:
        if len(spec) > MAX_ROWS:
            col.add(LOC, f"{len(spec)} rows; at most {MAX_ROWS}", "PARAMETRIZE")
            return []
        table = [dict(r) for r in spec]
        if len({frozenset(k for k in r if k != "id") for r in table}) > 1:
            col.add(LOC, "every row must set the same vars", "PARAMETRIZE")
            return []
    if len(table) > MAX_ROWS:
        col.add(LOC, f"{len(table)} rows; at most {MAX_ROWS}", "PARAMETRIZE")
        return []
    return _rows(table, isinstance(spec, list), col)


def _csv_table(spec: str, col: ProblemCollector, plan_dir: Path) -> list[dict[str, Any]] | None:
    """The CSV file's rows; None (with a problem naming the file and its line) when it cannot be used.

    Read with bounds: the file's size first, then at most MAX_ROWS rows; a
    field over the csv module's field limit, a NUL byte, a ragged row or a
    bad encoding is a PARAMETRIZE problem of this plan, never a csv.Error.
    """
    try:
        path = confine(spec, plan_dir)
        size = path.stat().st_size
        if size > MAX_CSV_BYTES:
            col.add(LOC, f"{spec} is {size} bytes; at most {MAX_CSV_BYTES}", "PARAMETRIZE")
            return None
        text = path.read_bytes().decode("utf-8-sig")
    except ConfinementError as exc:
        col.add(LOC, f"{exc} (the CSV file must be next to the plan)", "PATH_CONFINEMENT")
        return None
    except UnicodeDecodeError as exc:
        col.add(LOC, f"cannot read {spec}: it is not UTF-8 (byte {exc.start})", "PARAMETRIZE")
        return None
    except OSError as exc:
        col.add(LOC, f"cannot read {spec}: {getattr(exc, 'strerror', None) or exc}", "PARAMETRIZE")
        return None
    if "\0" in text:
        line = text[: text.index("\0")].count("\n") + 1
        col.add(LOC, f"{spec}, line {line}: a NUL character", "PARAMETRIZE")
        return None
    reader = csv.DictReader(io.StringIO(text))
    table: list[dict[str, Any]] = []
    try:
        for name in reader.fieldnames or []:
            if not VAR_NAME.fullmatch(name or ""):
                col.add(LOC, f"{spec}: column {name!r} is not a var name", "PARAMETRIZE")
                return None
        for row in reader:
            if len(table) == MAX_ROWS:
                col.add(LOC, f"{spec} has more than {MAX_ROWS} rows", "PARAMETRIZE")
                return None
            table.append(dict(row))
    except csv.Error as exc:  # a field over csv.field_size_limit(), a bad quote...
        col.add(LOC, f"{spec}, line {reader.line_num + 1}: {exc}", "PARAMETRIZE")  # the line it was reading
        return None
    if not table:
        col.add(LOC, f"{spec} has no data rows", "PARAMETRIZE")
        return None
    if any(None in r or any(v is None for v in r.values()) for r in table):
        col.add(LOC, f"{spec}: every row needs a value in every column", "PARAMETRIZE")
        return None
    return table


def _rows(table: list[dict[str, Any]], listed: bool, col: ProblemCollector) -> list[Row]:
    """Rows with their ids: given ones must be unique; made-up ones get ``-N`` when they repeat."""
    rows: list[Row] = []
    seen: set[str] = set()
    for i, values in enumerate(table):
        given = values.pop("id", None)
        row_id = str(given) if given is not None else _row_id(values)
        if UNSAFE_NAME.search(row_id) or not row_id.strip():
            col.add(LOC + ((i,) if listed else ()),
                    f"row id {row_id!r} cannot contain '::', brackets or control characters", "PARAMETRIZE")
            return []
        if row_id in seen:
            if given is not None:
                col.add(LOC, f"row id {row_id!r} is used twice", "PARAMETRIZE")
                return []
            row_id = f"{row_id}-{i + 1}"
        seen.add(row_id)
        rows.append(Row(row_id, values))
    return rows
