"""(v1.2) A ``request`` step's call: the browser context's own request client, held to the allowlist.

``perform`` is the ``request`` row of executor/step/actions.py's ACTIONS. The
call goes through ``context.request`` (Playwright's APIRequestContext bound to
the run's browser context), so it carries the context's cookies (a sign-in the
plan made in the page) and the cookies it receives reach the page. Each URL
is checked against the allowlist before anything is sent to it: the first
one at stage precondition, then every redirect, which is followed here
(``max_redirects=0``) so that a hop leaving the allowlist is DOMAIN_BLOCKED
with nothing sent to it. A transport failure is NAVIGATION_TIMEOUT when the
step's time ran out, else NAVIGATION_FAILED with the cause in ``details``.
The exchange is written masked to ``evidence/http/step_<n>.json``; its last
response is what the step's response_* conditions and ``save`` read.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any
from urllib.parse import urlencode

from pytest_cometlocal.contract.allowlist import url_allowed
from pytest_cometlocal.contract.browser_url import join_url
from pytest_cometlocal.contract.load.interpolation import resolve_secrets
from pytest_cometlocal.contract.model.actionspec import READ_ONLY_METHODS
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.errors import first_line, is_crash, is_timeout
from pytest_cometlocal.executor.http.exchange import MAX_REDIRECTS, HttpResponse, evidence_document

# ``actions`` below is the step's executor/step/actions.py Actions, ``attempt`` its StepAttempt: not
# imported, as the step room imports this one.
Actions = StepAttempt = Any
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


def _resolved(value: Any, secrets: dict[str, str]) -> Any:
    """Every string in a JSON body with its secrets filled in (at the last moment, as fill does)."""
    if isinstance(value, str):
        return resolve_secrets(value, secrets)
    if isinstance(value, list):
        return [_resolved(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: _resolved(v, secrets) for k, v in value.items()}
    return value


def prepared(spec: Any, secrets: dict[str, str]) -> tuple[dict[str, str], dict[str, Any]]:
    """The headers and the body keyword of Playwright's ``fetch`` (``data`` or ``form``), secrets filled in."""
    headers = {name: resolve_secrets(value, secrets) for name, value in (spec.headers or {}).items()}
    if spec.json_body is not None:
        if not any(name.lower() == "content-type" for name in headers):
            headers["Content-Type"] = "application/json"
        return headers, {"data": json.dumps(_resolved(spec.json_body, secrets), ensure_ascii=False)}
    if spec.form is not None:
        return headers, {"form": {k: resolve_secrets(v, secrets) for k, v in spec.form.items()}}
    if spec.body is not None:
        return headers, {"data": resolve_secrets(spec.body, secrets)}
    return headers, {}


def request_key(spec: Any, base_url: str | None) -> str:
    """(v1.2) What a ``request`` step adds to the state it starts from (docs/executor.md, "Policy"): its
    method, its URL (made absolute, saved values filled in) and its body, hashed together.

    A request leaves the page as it was, so without it three different calls in a
    row would be one state three times. Secrets stay as their references
    (``${secrets.NAME}``): a secret has one value in a run, so the same references
    are the same call, and the hash of a secret's value (a short one can be
    guessed from it) is never written. Headers are not part of it.
    """
    url = join_url(base_url, spec.url) if base_url else spec.url
    body = spec.json_body if spec.json_body is not None else spec.form if spec.form is not None else spec.body
    text = json.dumps([spec.method or "GET", url, body], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def next_hop(method: str, status: int, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The method and body a redirect is followed with: a 303 (and a POST's 301 / 302) becomes a GET
    without its body, as browsers do; 307 and 308 keep both."""
    if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
        return "GET", {}
    return method, body


def perform(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """Send the step's request, following redirects within the allowlist; record the exchange."""
    ctx, spec = actions.ctx, attempt.spec
    settings, mask = ctx.settings, ctx.run.redactor.text
    url = attempt.requested_url or ""
    if not url_allowed(url, settings.allowlist):
        actions.safety.domain_blocked(attempt, url, before_request=True, stage="precondition")
    headers, body = prepared(spec, settings.secrets)
    method = spec.method or "GET"
    request = {"method": method, "url": url, "headers": headers,
               "body": body["data"] if "data" in body else urlencode(body["form"]) if "form" in body else None}
    deadline = time.monotonic() + spec.timeout_ms / 1000
    hops: list[dict[str, Any]] = []
    client = ctx.page.context.request
    while True:
        left = int((deadline - time.monotonic()) * 1000)
        try:
            if left <= 0:
                raise TimeoutError(f"Request timed out after {spec.timeout_ms}ms")
            raw = client.fetch(url, method=method, headers=headers, timeout=left, max_redirects=0,
                               fail_on_status_code=False, **body)
            response = HttpResponse(raw.url, raw.status, [(h["name"], h["value"]) for h in raw.headers_array],
                                    raw.body())
            raw.dispose()
        except Exception as exc:
            if is_crash(exc):
                raise
            _record(actions, attempt, request, None, hops)
            raise _transport_failure(actions, attempt, exc, url, method) from None
        location = response.header("location")
        if response.status not in REDIRECT_STATUSES or not location or len(hops) >= MAX_REDIRECTS:
            break
        hops.append({"status": response.status, "url": url, "location": location})
        url = join_url(url, location)  # as the browser would follow it
        if not url_allowed(url, settings.allowlist):
            _record(actions, attempt, request, response, hops)
            actions.safety.domain_blocked(attempt, url, before_request=True)
        method, body = next_hop(method, response.status, body)
    attempt.response = response
    ref = _record(actions, attempt, request, response, hops)
    return {"method": spec.method, "url": mask(url), "status": response.status,
            **({"redirects": len(hops)} if hops else {}), "exchange": ref.uri}


def _record(actions: Actions, attempt: StepAttempt, request: dict[str, Any], response: HttpResponse | None,
            hops: list[dict[str, Any]]) -> Any:
    """``evidence/http/<tag>.json`` (step_003.json; a retry's step_003_a2.json), masked, in the manifest."""
    run = actions.ctx.run
    document = evidence_document(request, response, hops, run.redactor.text)
    ref = run.evidence.add_json("http_exchange", f"http/{attempt.tag}.json", document, step_id=attempt.spec.id)
    attempt.evidence.append(ref)
    return ref


def _transport_failure(actions: Actions, attempt: StepAttempt, exc: Exception, url: str, method: str) -> Exception:
    """NAVIGATION_TIMEOUT when the step's time ran out, else NAVIGATION_FAILED; the cause in details.
    A side-effecting call is never sent again by a retry: the server may have acted on it."""
    spec, mask = attempt.spec, actions.ctx.run.redactor.text
    cause = mask(first_line(exc, 500))
    retryable = None if method in READ_ONLY_METHODS else False
    if is_timeout(exc) or isinstance(exc, TimeoutError):
        return actions.failures.fail(attempt, ErrorCode.NAVIGATION_TIMEOUT, "execution",
                                     f"request {method} did not finish within {spec.timeout_ms} ms",
                                     details={"timeout_ms": spec.timeout_ms, "url": url, "method": method,
                                              "cause": cause}, cause=cause, retryable=retryable)
    return actions.failures.fail(attempt, ErrorCode.NAVIGATION_FAILED, "execution", f"request {method} failed: {cause}",
                                 details={"url": url, "method": method, "cause": cause}, cause=cause,
                                 retryable=retryable)
