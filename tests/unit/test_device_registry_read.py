"""(v1.2) The device registry is read in a child Python; a child that fails is asked once more.

Why: on a loaded machine Playwright's driver can lose its connection while it starts, and a plan
naming a real device must not be called invalid for it (seen as a flaky INVALID_ACTIONSPEC in CI).
"""

from __future__ import annotations

import subprocess
from types import SimpleNamespace

import pytest

from pytest_cometlocal.contract import devices


@pytest.fixture(autouse=True)
def fresh_cache():
    devices.device_registry.cache_clear()
    yield
    devices.device_registry.cache_clear()


def children(monkeypatch, answers):
    calls = []

    def run(*args, **kwargs):
        calls.append(args)
        return answers[len(calls) - 1]
    monkeypatch.setattr(subprocess, "run", run)
    return calls


def test_a_child_that_failed_once_is_asked_again(monkeypatch):
    calls = children(monkeypatch, [SimpleNamespace(returncode=1, stdout="", stderr="Exception: Connection closed"),
                                   SimpleNamespace(returncode=0, stdout='{"Pixel 7": {"is_mobile": true}}', stderr="")])
    assert devices.device_registry() == {"Pixel 7": {"is_mobile": True}}
    assert len(calls) == 2


def test_two_failures_are_one_typed_error_with_the_childs_last_line(monkeypatch):
    failed = SimpleNamespace(returncode=1, stdout="", stderr="Traceback ...\nException: Connection closed")
    calls = children(monkeypatch, [failed, failed])
    with pytest.raises(devices.DeviceRegistryUnavailable, match="could not be read: Exception: Connection closed"):
        devices.device_registry()
    assert len(calls) == 2
