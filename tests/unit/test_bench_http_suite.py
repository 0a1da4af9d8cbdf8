"""The http benchmark's generated suite (benchmarks/bench_http.py) must hold: its plans valid under
``cometlocal validate``, its hand-written test the same calls, or the section measures nothing."""

from __future__ import annotations

from benchmarks.bench_http import instrument_http, suite_files
from benchmarks.bench_profile import NestedTimer


def test_the_generated_plans_pass_cometlocal_validate(tmp_path, monkeypatch):
    from pytest_cometlocal.cli import main

    files = suite_files(steps=6, rounds=1)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "plans"]) == 0
    request_plan = files["plans/request_01.actions.yaml"]
    assert request_plan.count("kind: request") == 6 and request_plan.count("${saved.item_") == 3
    # a plan naming a value nothing saved is refused (rule SAVED): the check above can fail
    (tmp_path / "plans" / "request_01.actions.yaml").write_text(request_plan.replace("${saved.item_2}", "${saved.nope}"))
    assert main(["validate", "plans"]) == 1


def test_the_hand_written_test_makes_the_same_calls():
    source = suite_files(steps=6, rounds=1)["test_hand.py"]
    compile(source, "test_hand.py", "exec")
    assert source.count("api.post(") == 3 and source.count("api.get(") == 3
    assert source.count("assert r.status == ") == 6 and "range(2)" in source


def test_every_function_the_http_profile_times_is_found_and_put_back():
    from playwright.sync_api._generated import APIRequestContext

    original = APIRequestContext.fetch
    timer = NestedTimer()
    instrument_http(timer)  # raises AttributeError for a name that moved
    try:
        assert APIRequestContext.fetch is not original
    finally:
        timer.undo()
    assert APIRequestContext.fetch is original
