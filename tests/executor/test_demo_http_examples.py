"""(v1.2) The worked example of docs/http-steps.md runs in a real Chromium against the demo portal.

The plans are example_plans/v12/http_documents.actions.yaml and http_stubs.actions.yaml, as the docs print them.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.test_http_examples import example_path

pytestmark = pytest.mark.browser


def example(name: str) -> str:
    return example_path(name).read_text(encoding="utf-8")


def events(r: Any, kind: str) -> list[dict[str, Any]]:
    return [e for e in r.events if e["event_type"] == kind]


def test_the_documents_example_creates_edits_checks_and_deletes_through_the_api(run, portal):
    before = {d["id"] for d in portal.docs.all()}
    r = run(example("http_documents"))
    assert r.error is None, r.error
    created = [m for m, p in portal.hits if m == "POST" and p == "/api/docs"]
    assert created, portal.hits[-20:]
    assert {d["id"] for d in portal.docs.all()} == before  # the document it made is deleted again
    assert "PUT" in {m for m, p in portal.hits if p.startswith("/api/docs/")}  # the page saved through the API
    assert any(p.startswith("evidence/http/step_") for p in r.files())


def test_the_stubs_example_never_reaches_the_slow_endpoint(run, portal):
    slow_before = sum(1 for _m, p in portal.hits if p.startswith("/api/slow/recommendations"))
    r = run(example("http_stubs"))
    assert r.error is None, r.error
    assert sum(1 for _m, p in portal.hits if p.startswith("/api/slow/recommendations")) == slow_before
    stubbed = events(r, "request_stubbed")
    assert len(stubbed) == 2  # the recommendations and the feed, each answered by its route
    assert r.events[-1]["event_type"] == "run_finished"
    assert r.events[-1]["metadata"]["routes_unused"] == []  # both routes were used
