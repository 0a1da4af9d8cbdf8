"""(v1.2) A secret in a request's header and JSON body reaches no file of the run, nor the Allure results.

The API echoes what it got (headers and body), so the secret comes back in the
response too; the plan also saves a value that holds it and checks it. Every
file under the run folder and the Allure results is scanned for each secret
raw and in every encoding the redactor knows (test_download_secrets.leaks).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_cometlocal.runs.verify import verify_run
from tests.reliability.test_download_secrets import REPO
from tests.browsers import BROWSERS, inner_browser_args
from tests.support import DEFAULTS, write

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("lean_inner_runs")]

TOK = "Rq-9c2e7a41"
SYM = 'rq:<"&é+/=7y'
ENV = {"RQ_TOK": TOK, "RQ_SYM": SYM}

PLAN = ("name: secret_request\nsecrets: {tok: {env: RQ_TOK}, sym: {env: RQ_SYM}}\n"
        "policy: {retries_per_action: 0}\n") + DEFAULTS + """\
steps:
  - id: echo
    kind: request
    method: POST
    url: /api/echo
    headers: {Authorization: "Bearer ${secrets.tok}", X-Key: "${secrets.sym}"}
    json: {user: ana, password: "${secrets.tok}", nested: {sym: "${secrets.sym}"}}
    save: {echoed: /body, key: /headers/X-Key}
    postconditions:
      - {kind: response_status, args: {status: 200}}
      - {kind: response_json, args: {pointer: /headers/Authorization, matches: "^Bearer "}}
  - {id: open, kind: navigate, target: {type: url, url: "/page?k=${saved.key}"}}
"""

INNER_CONFTEST = """
import pytest
from tests.executor.api_server import ApiServer

@pytest.fixture(scope="session")
def api():
    with ApiServer() as server:
        yield server

@pytest.fixture
def cometlocal_base_url(api):
    return api.url
"""


def leaks(*folders: Path) -> list[str]:
    from tests.reliability import test_download_secrets as downloads

    saved_env = downloads.ENV
    downloads.ENV = ENV  # the same scan, for this test's secrets
    try:
        return downloads.leaks(*folders)
    finally:
        downloads.ENV = saved_env


@pytest.mark.parametrize("browser", BROWSERS)
def test_a_secret_in_a_header_and_a_json_body_reaches_no_file(pytester: pytest.Pytester,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               request: pytest.FixtureRequest, browser: str) -> None:
    args = inner_browser_args(request, browser)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    pytester.makeconftest(INNER_CONFTEST)
    write(pytester, "secret.actions.yaml", PLAN)
    result = pytester.runpytest_subprocess("--alluredir", "allure-results", "-p", "no:randomly", *args, timeout=240)
    result.assert_outcomes(passed=1)
    (run_dir,) = (pytester.path / "cometlocal-runs").iterdir()
    assert verify_run(run_dir).ok
    (exchange,) = (run_dir / "evidence" / "http").iterdir()
    doc = json.loads(exchange.read_text(encoding="utf-8"))
    assert doc["request"]["headers"]["Authorization"] == "***" and doc["request"]["headers"]["X-Key"] == "***"
    assert json.loads(doc["request"]["body"])["password"] == "***"
    trace = (run_dir / "trace.jsonl").read_text(encoding="utf-8")
    assert '"saved":{"echoed":' in trace and '"key":"***"' in trace  # recorded, masked where a secret
    alluredir = pytester.path / "allure-results"
    assert list(alluredir.glob("*-result.json"))
    assert leaks(run_dir, alluredir) == []
    assert TOK not in result.stdout.str() and SYM not in result.stdout.str()
