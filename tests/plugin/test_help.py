"""``pytest --help`` with the plugin loaded: argparse %-formats every help text,
so a bare ``%`` in one of ours used to end the help in a TypeError traceback."""

from __future__ import annotations

import pytest

from pytest_cometlocal.plugin.reporting.pwtrace import TRACING_MODES


def test_help_lists_the_plugin_options_without_a_traceback(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--help")
    assert result.ret == 0, result.stderr.str()
    assert "Traceback" not in result.stderr.str()
    out = result.stdout.str()
    assert f"--cometlocal-tracing={{{','.join(TRACING_MODES)}}}" in out
    # The help text is the one written in options.py, with its % shown once.
    assert "uses URL N % count" in " ".join(out.split())
    assert "cometlocal_tracing (string):" in out
