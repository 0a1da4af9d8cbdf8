"""Every relative link of README.md and docs/*.md leads somewhere: the file exists, and its #anchor is a
heading of that file (GitHub's anchors), so a newcomer following the docs never lands on nothing."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"\s*(`{3,})")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(path: Path):
    """``(line number, line)`` outside fenced blocks, with inline code removed: links in examples are text."""
    fence = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        ticks = FENCE.match(line)
        if ticks and (not fence or ticks.group(1) == fence):
            fence = "" if fence else ticks.group(1)
            continue
        if not fence:
            yield number, re.sub(r"`[^`]*`", "", line)


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown file (lower case, punctuation dropped, spaces as
    hyphens, a repeated heading numbered ``-1``, ``-2``), and those written as ``<a id="...">``."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fence = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        ticks = FENCE.match(line)
        if ticks and (not fence or ticks.group(1) == fence):
            fence = "" if fence else ticks.group(1)
            continue
        if not fence:
            found.update(re.findall(r'<a (?:id|name)="([^"]+)"', line))
        heading = None if fence else re.match(r"#{1,6}\s+(.+?)\s*#*\s*$", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(files: list[Path], root: Path = ROOT) -> list[str]:
    """``file:line: link (why)`` for each relative link whose file or anchor does not exist."""
    broken = []
    for path in files:
        for number, line in _prose(path):
            for link in LINK.findall(line):
                if re.match(r"[a-z][a-z0-9+.-]*:", link):  # https:, mailto: ... are not checked here
                    continue
                target, _, anchor = link.partition("#")
                dest = (path.parent / target) if target else path
                where = f"{path.relative_to(root).as_posix()}:{number}: {link}"
                if not dest.exists():
                    broken.append(f"{where} (no such file)")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    broken.append(f"{where} (no such heading)")
    return broken


def test_every_relative_link_and_anchor_of_the_docs_exists() -> None:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert len(files) > 10
    assert broken_links(files) == []


def test_a_missing_file_or_heading_is_reported(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("# Who owns `--base-url`\n## Set up\n## Set up\n", encoding="utf-8")
    (tmp_path / "a.md").write_text(
        "[ok](b.md#who-owns---base-url) [ok](b.md#set-up-1) [ok](#top) [web](https://x.example/#nope)\n"
        '# Top\n<a id="here"></a>[ok](#here)\n'
        "[gone](c.md) and [no heading](b.md#set-up-2)\n"
        "`[in code](c.md)`\n"
        "```\n[in a block](c.md)\n```\n",
        encoding="utf-8")
    assert broken_links([tmp_path / "a.md"], root=tmp_path) == [
        "a.md:4: c.md (no such file)",
        "a.md:4: b.md#set-up-2 (no such heading)",
    ]
