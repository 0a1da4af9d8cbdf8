"""(v1.2) The pages of a recorded script, as ``cometlocal import`` follows them.

codegen names each page it records on: the first (``page``), and a popup it
waited for (``with page.expect_popup() as page1_info:`` around a click, then
``page1 = page1_info.value``). The plan has one active page at a time; here
the reader keeps the same books the executor keeps (executor/pages/pages.py):
the open pages in the order they were opened, the active one, and each
popup's opener, so that a call on another page than the active one becomes a
``switch_page`` step (by index) and ``page1.close()`` a ``close_page`` step
after which the opener is active again.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PageBooks:
    open: list[str] = field(default_factory=list)  # names of the open pages, in the order they were opened
    active: str | None = None
    openers: dict[str, str | None] = field(default_factory=dict)

    def first(self, name: str) -> None:
        """The script's first page (codegen's ``page``, or the test's fixture)."""
        if not self.open:
            self.open.append(name)
            self.active = name

    def popup(self, name: str) -> None:
        """``name = <info>.value`` after an ``expect_popup`` block: the new page, active from now on."""
        self.openers[name] = self.active
        self.open.append(name)
        self.active = name

    def switch(self, name: str) -> int | None:
        """A call on ``name``: the index a switch_page step needs first, or None when it is the active page."""
        if name == self.active or name not in self.open:
            return None
        self.active = name
        return self.open.index(name)

    def close(self, name: str) -> bool:
        """``name.close()``: True when it is a page the plan closes (not the last one left)."""
        if name not in self.open or len(self.open) == 1:
            return False
        self.open.remove(name)
        opener = self.openers.get(name)
        self.active = opener if opener in self.open else self.open[0]
        return True
