"""Structure-aware mutations of real plans, one table row per class of bad input (issue 35, section 1).

Each mutator takes a plan's tree (a copy of an example plan, loaded with
PyYAML) and a ``random.Random``, and changes it where that class of input
lives: a regex field, an aria template, a URL, a ``parametrize`` block, a
step's kind or target, or the file's bytes. The values are the classes'
own examples and their neighbours. A mutant is a file of a suite folder:
``mutant(...)`` gives its name, its bytes and the extra files it reads (a CSV,
a step group).
"""

from __future__ import annotations

import copy
import functools
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "example_plans"

BAD_REGEXES = ["a{4294967296}", "(" * 1000 + "a" + ")" * 1000, "a" * 5000, "(?P<", "[z-a]", "x{2,1}", "\\",
               "(?<=a+)b", "a{1,4294967296}", "(?i" + "(?:" * 300 + "x"]
ODD_REGEXES = ["(?i)^/x$", "a{0,65535}", "[(]", "\\(" * 60, "(?#" + "(" * 100 + ")"]
BAD_SNAPSHOTS = ["[" * 1500 + "]" * 1500, "- " * 200 + "x", "a: [", "- *nope", "- !!python/object:os.system x",
                 "", "heading", "- a\n---\n- b"]
ODD_SNAPSHOTS = ["- 2024-02-30", "- " + "9" * 5000, "- heading 1e99999", "- 0x" + "f" * 300, "- 12:30:00"]
BAD_URLS = ["http://outs]ide.example/", "http://[::1/", "http://127.0.0.1:99999/", "http://h:-1/",
            "http://h:port/", "javascript:alert(1)", "//evil.example/", "http://[fe80::1%eth0/"]
CONTROL = ["\n", "\x00", "\x1b[31m", "\u2028", "\r", "\x7f", "\t"]
TYPOS = {"kind": ["clik", "element_text_contain", "url_iss", "dropdown", "Navigate"],
         "type": ["dropdown", "button", "csss", "Role", "select"]}
CSV_FILES = [
    b"v\n" + b"x" * 131_073 + b"\n",             # a field over the csv module's limit
    b"v\na\x00b\n",                                # a NUL byte
    b"v\n\xff\xfe\n",                              # not UTF-8
    b"v,w\na\nb,c,d\n",                            # ragged rows
    b"v\n" + b"a\n" * 1001,                        # too many rows
    b'v\n"unclosed\n',                             # an unclosed quote
    b"\xef\xbb\xbf",                               # a BOM and nothing else
    b"not a var!\n1\n",                            # a header that names no var
]


@dataclass
class Mutant:
    """One fuzzed plan file: its name, its bytes, the files it reads, and the class it stands for."""

    name: str
    data: bytes
    cls: str
    extra: dict[str, bytes] = field(default_factory=dict)


@functools.lru_cache(maxsize=1)
def base_trees() -> tuple[tuple[str, Any], ...]:
    """(folder relative to example_plans, tree) of every document of every example plan: parsed once per
    process (callers deep-copy a tree before they change it)."""
    found = []
    for path in sorted(EXAMPLES.rglob("*.actions.yaml")):
        try:
            docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except yaml.YAMLError:  # YAML 1.2 that PyYAML's 1.1 parser does not take ("?" in a flow URL)
            continue
        for doc in docs:
            if isinstance(doc, dict) and isinstance(doc.get("steps"), list):
                found.append((path.parent.relative_to(EXAMPLES).as_posix(), doc))
    return tuple(found)


def _steps(tree: dict) -> list[dict]:
    return [s for s in tree.get("steps", []) if isinstance(s, dict) and "use" not in s]


def _a_step(tree: dict, rng: random.Random) -> dict:
    steps = _steps(tree)
    if not steps:
        tree["steps"].append({"id": "added", "kind": "assert"})
        steps = _steps(tree)
    return rng.choice(steps)


def _add_post(tree: dict, rng: random.Random, condition: dict) -> None:
    step = _a_step(tree, rng)
    step["postconditions"] = list(step.get("postconditions") or [{"kind": "host_in_allowlist"}]) + [condition]


def regex(tree: dict, rng: random.Random) -> dict:
    pattern = rng.choice(BAD_REGEXES + ODD_REGEXES)
    where = rng.randrange(3)
    if where == 0:
        _add_post(tree, rng, {"kind": "url_matches", "args": {"pattern": pattern}})
    elif where == 1:
        _add_post(tree, rng, {"kind": "download_started", "args": {"filename": pattern}})
    else:
        tree["auth_signals"] = {"url_pattern": pattern}
    return {}


def snapshot(tree: dict, rng: random.Random) -> dict:
    _add_post(tree, rng, {"kind": "aria_snapshot_matches", "args": {"snapshot": rng.choice(BAD_SNAPSHOTS + ODD_SNAPSHOTS)}})
    return {}


def url(tree: dict, rng: random.Random) -> dict:
    bad = rng.choice(BAD_URLS)
    where = rng.randrange(3)
    if where == 0:
        tree["steps"].insert(0, {"id": "bad_url", "kind": "navigate", "target": {"type": "url", "url": bad}})
    elif where == 1:
        tree["base_url"] = bad
    else:
        _add_post(tree, rng, {"kind": "url_is", "args": {"url": bad}})
    return {}


def csv_rows(tree: dict, rng: random.Random) -> dict:
    tree.pop("parametrize", None)
    tree["parametrize"] = "rows.csv"
    tree.setdefault("vars", {})
    return {"rows.csv": rng.choice(CSV_FILES)}


def product(tree: dict, rng: random.Random) -> dict:
    lists, size = rng.choice([(4, 100), (3, 11), (10, 2), (2, 1000), (1, 1001)])
    tree["parametrize"] = {f"v{i}": list(range(size)) for i in range(lists)}
    return {}


def rows_list(tree: dict, rng: random.Random) -> dict:
    tree["parametrize"] = [{"v": i} for i in range(1001 + rng.randrange(50))]
    return {}


def groups(tree: dict, rng: random.Random) -> dict:
    """A step group that uses itself, or a wide group nested deep (100 uses of 100 uses...)."""
    if rng.random() < 0.5:
        tree["steps"].append({"use": "loop.steps.yaml"})
        return {"loop.steps.yaml": b"steps:\n  - {use: loop.steps.yaml}\n"}
    tree["steps"].append({"use": "w0.steps.yaml"})
    files = {}
    for level in range(4):
        if level == 3:
            item = "  - {{id: s{i}, kind: click, target: {{type: css, selector: '#a'}}}}\n"
        else:
            item = "  - {{use: w" + str(level + 1) + ".steps.yaml, id: u{i}}}\n"
        files[f"w{level}.steps.yaml"] = ("steps:\n" + "".join(item.format(i=i) for i in range(100))).encode()
    return files


def control(tree: dict, rng: random.Random) -> dict:
    step = _a_step(tree, rng)
    char = rng.choice(CONTROL)
    target = rng.choice(["kind", "id", "type", "key"])
    if target == "kind":
        step["kind"] = f"click{char}foo"
    elif target == "id":
        step["id"] = f"s{char}1"
    elif target == "type" and isinstance(step.get("target"), dict):
        step["target"] = {**step["target"], "type": f"css{char}"}
    else:
        step[f"bad{char}key"] = 1
    return {}


def typo(tree: dict, rng: random.Random) -> dict:
    """A typo in one step and a rule problem (U2) in another: both must be reported in one pass."""
    step = _a_step(tree, rng)
    if rng.random() < 0.5 or not isinstance(step.get("target"), dict):
        step["kind"] = rng.choice(TYPOS["kind"])
    else:
        step["target"] = {**step["target"], "type": rng.choice(TYPOS["type"])}
    tree["steps"].append({"id": "u2_neighbour", "kind": "click", "target": {"type": "label", "text": "Go"}})
    return {}


TREE_MUTATORS: dict[str, Callable[[dict, random.Random], dict]] = {
    "regex": regex, "snapshot": snapshot, "url": url, "csv": csv_rows, "product": product, "rows": rows_list,
    "groups": groups, "control": control, "typo": typo,
}


def raw_bytes(data: bytes, rng: random.Random) -> bytes:
    """A byte the YAML reader refuses, at a random line (it must be located there, not at 1:1)."""
    lines = data.split(b"\n")
    i = rng.randrange(1, max(2, len(lines) - 1))
    line = lines[i]
    col = rng.randrange(len(line) + 1)
    lines[i] = line[:col] + rng.choice([b"\x00", b"\x07", b"\x1b", b"\xff", b"\xef\xbb\xbf", b"\x85"]) + line[col:]
    return b"\n".join(lines)


def dump(tree: Any) -> bytes:
    return yaml.safe_dump(tree, sort_keys=False, allow_unicode=True, width=10_000).encode("utf-8")


def mutants(seed: int, count: int) -> list[tuple[str, Mutant]]:
    """``count`` mutants (folder, Mutant), deterministic for ``seed``: every class in turn, on plans
    drawn from the examples; some files hold two plans (a mutant and a second, differently broken one)."""
    rng = random.Random(seed)
    bases = base_trees()
    classes = [*TREE_MUTATORS, "bytes", "two_plans"]
    out: list[tuple[str, Mutant]] = []
    for n in range(count):
        cls = classes[n % len(classes)]
        folder, base = rng.choice(bases)
        tree = copy.deepcopy(base)
        tree["name"] = f"fuzz {n} {cls}"
        tree["base_url"] = "http://127.0.0.1:9"  # nothing listens there: a plan that stays valid fails fast
        tree.pop("expect", None)
        if cls == "bytes":
            out.append((folder, Mutant(f"fuzz{n:03d}.actions.yaml", raw_bytes(dump(tree), rng), cls)))
            continue
        if cls == "two_plans":
            extra = regex(tree, rng)
            other = copy.deepcopy(rng.choice(bases)[1])
            other.update(name=f"fuzz {n} neighbour", base_url="http://127.0.0.1:9")
            other.pop("expect", None)
            url(other, rng)
            data = dump(tree) + b"---\n" + dump(other)
            out.append((folder, Mutant(f"fuzz{n:03d}.actions.yaml", data, cls, extra)))
            continue
        extra = TREE_MUTATORS[cls](tree, rng)
        out.append((folder, Mutant(f"fuzz{n:03d}.actions.yaml", dump(tree), cls,
                                   {f"fuzz{n:03d}_{k}" if k == "rows.csv" else k: v for k, v in extra.items()})))
        if cls == "csv":  # the plan reads its own CSV file
            out[-1][1].data = out[-1][1].data.replace(b"rows.csv", f"fuzz{n:03d}_rows.csv".encode())
    return out
