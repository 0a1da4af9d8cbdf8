"""Text read as Playwright reads it, and uploads held to their requests, in a real Chromium.

Pages served here reproduce what a Gradio file widget does: a file name drawn in
two spans (also as flex children, blocks, nested inline elements, with extra
whitespace and ``&nbsp;``); a transient ``Uploading 1 file... po-1234.txt`` row
shown while the upload request is in flight, then replaced by the final row; an
upload whose request fails; a widget that removes its file input once the file
is sent. Each text condition reads an element's text as ``toContainText`` does
(docs/executor.md, "Text"), a failure shows the text it read, and
``upload_completed`` holds only once the page's requests for the file ended.
"""

from __future__ import annotations

import http.server
import json
import socketserver
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cometlocal.executor.page.texts import SEEN_LIMIT, element_text, normalize
from tests.support import opened

pytestmark = pytest.mark.browser

TEXTS = """<title>Texts</title>
<div id="inline"><span>po-1234</span><span>.txt</span></div>
<div id="flex" style="display: flex; gap: 8px"><span>po-1234</span><span>.txt</span></div>
<div id="blocks"><span style="display: block">po-1234</span><span style="display: block">.txt</span></div>
<div id="nested"><b>po-<i>1234</i></b><span>.<u>txt</u></span></div>
<div id="spaced">
    Invoice
       <span>po-1234.txt</span>
</div>
<div id="nbsp">Total:&nbsp;42</div>
<div id="hidden">Total <span style="display: none">(draft)</span>42</div>
<div id="br">line one<br>line two</div>
<div id="upper" style="text-transform: uppercase">Saved</div>
<div id="script">Ready<script>var notText = "not text";</script><style>.x { color: red }</style></div>
<input id="go" type="submit" value="Send now">
<div id="soft">po&shy;1234&#8203;.txt</div>
<div role="status" id="toast" style="display: flex"><span>po-1234</span><span>.txt</span>&nbsp;uploaded</div>
<table id="row"><tr><td>po-1234.txt</td><td>1 KB</td></tr></table>
<div id="shadow"></div>
<script>document.getElementById("shadow").attachShadow({mode: "open"}).innerHTML = "<b>po-1234</b>.txt";</script>
"""

SECRET = "Zebra-7731-qx"
LONG = f"<title>Long</title><div id='long'>{('po-1234 ' + SECRET + ' ') * 200}</div>"

# A file widget as Gradio draws one: the name in two spans, a transient row while the file is sent.
# ``?mode=`` is passed on to the upload endpoint (hold, delay, fail); ``remove`` drops the input once sent.
WIDGET = """<title>Upload</title>
<label for="file">Upload file</label> <input id="file" type="file">
<div id="files"></div>
<script>
const mode = new URLSearchParams(location.search).get("mode") || "delay";
const input = document.getElementById("file"), files = document.getElementById("files");
const name = (f) => { const dot = f.name.lastIndexOf(".");
  return `<span class="stem">${f.name.slice(0, dot)}</span><span class="ext">${f.name.slice(dot)}</span>`; };
input.addEventListener("change", async () => {
  const f = input.files[0];
  files.innerHTML = `<div class="row" style="display: flex">Uploading 1 file... ${name(f)}</div>`;
  const body = new FormData(); body.append("files", f);
  if (mode === "remove") input.remove();
  if (mode === "late") await new Promise((go) => setTimeout(go, 100));  // inside upload_completed's quiet window
  const response = await fetch("/upload?mode=" + mode, {method: "POST", body});
  files.innerHTML = response.ok
    ? `<table><tr><td class="name" style="display: flex">${name(f)}</td><td>1 KB</td></tr></table><p id="done">Uploaded</p>`
    : `<p id="done">Upload error</p>`;
});
</script>
"""


class UploadSite:
    """The pages above and ``POST /upload``: ``hold`` answers only when released, ``delay`` after
    0.8 s, ``late`` (sent 100 ms after the file was set) after 0.5 s, ``fail`` with a 500, anything else
    at once. Each answered upload is counted."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.answered: list[str] = []
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _send(self, status: int, body: str, kind: str = "text/html; charset=utf-8") -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                page = {"/texts": TEXTS, "/widget": WIDGET, "/long": LONG}.get(self.path.split("?")[0])
                self._send(200 if page else 404, page or "<title>Not found</title>")

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                mode = self.path.partition("mode=")[2]
                if mode == "hold":
                    site.release.wait(20)
                elif mode == "delay":
                    site.release.wait(0.8)
                elif mode == "late":
                    site.release.wait(0.5)
                site.answered.append(mode)
                self._send(500 if mode == "fail" else 200, '{"ok": true}', "application/json")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@contextmanager
def upload_site() -> Iterator[UploadSite]:
    site = UploadSite()
    try:
        yield site
    finally:
        site.release.set()
        site.server.shutdown()
        site.server.server_close()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[UploadSite]:
    (tmp_path / "plans").mkdir(parents=True, exist_ok=True)
    (tmp_path / "plans" / "po-1234.txt").write_text("purchase order 1234\n")
    with upload_site() as s:
        yield s


def failed(r, kind: str) -> list[dict]:
    return [c.model_dump(mode="json") for c in r.error.failed_conditions if c.kind == kind]


def text_condition(selector: str, text: str) -> str:
    return f"{{kind: element_text_contains, args: {{target: {{type: css, selector: '{selector}'}}, text: {json.dumps(text)}}}}}"


def assert_step(conditions: list[str], timeout_ms: int = 3000) -> str:
    """An ``assert`` step named ``read`` with these postconditions, as plan text."""
    return (f"- id: read\n  kind: assert\n  timeout_ms: {timeout_ms}\n  postconditions:\n"
            + "".join(f"    - {c}\n" for c in conditions))


# -- reading text ----------------------------------------------------------------

# Each (element, text) holds: a name split over inline elements, flex children, blocks or nested
# elements reads as one word; whitespace (newlines, runs, &nbsp;) is one space on both sides; hidden
# text is read (textContent), <script>/<style> are not; a submit input reads as its value; soft
# hyphens and zero-width spaces are dropped; CSS text-transform is not applied.
HOLDS = [
    ("#inline", "po-1234.txt"), ("#flex", "po-1234.txt"), ("#blocks", "po-1234.txt"), ("#nested", "po-1234.txt"),
    ("#spaced", "Invoice po-1234.txt"), ("#spaced", "Invoice\n   po-1234.txt"), ("#nbsp", "Total: 42"),
    ("#hidden", "(draft)"), ("#br", "line oneline two"), ("#upper", "Saved"), ("#script", "Ready"),
    ("#go", "Send now"), ("#soft", "po1234.txt"), ("#row", "po-1234.txt1 KB"), ("#shadow", "po-1234.txt"),
]
ELEMENTS = sorted({sel for sel, _ in HOLDS} | {"#toast"})


def test_the_reading_is_playwrights_own(chromium, site):
    """Playwright's to_have_text is the oracle: it accepts, for each element, exactly the text read."""
    from playwright.sync_api import expect

    context = chromium.browser().new_context()
    try:
        page = context.new_page()
        page.goto(site.url + "/texts")
        for selector in ELEMENTS:
            locator = page.locator(selector)
            count, read = element_text(locator)
            assert count == 1
            expect(locator).to_have_text(read, timeout=1000)
            assert read == normalize(locator.evaluate("(e) => e.textContent")) or selector in ("#go", "#script", "#shadow")
    finally:
        context.close()


def test_text_conditions_read_text_as_playwrights_to_contain_text(run, site):
    conditions = [text_condition(sel, text) for sel, text in HOLDS]
    r = run(opened(site.url + "/texts", assert_step([*conditions, "{kind: toast_contains, args: {text: po-1234.txt uploaded}}"])))
    assert r.result.status == "passed", r.error and r.error.message


# What a v1 plan read differently before (innerText): each does not hold now, and shows what it read.
CHANGED = [
    ("#hidden", "Total 42", "Total (draft)42"),  # hidden text is read
    ("#br", "line one line two", "line oneline two"),  # <br> is no text
    ("#upper", "SAVED", "Saved"),  # text-transform is not applied
    ("#script", "not text", "Ready"),  # a script's source is no text
]


def test_a_text_that_reads_otherwise_now_fails_and_shows_what_was_read(run, site):
    r = run(opened(site.url + "/texts", assert_step([text_condition(sel, text) for sel, text, _ in CHANGED], 400)))
    assert r.code == "POSTCONDITION_FAILED", r.error and r.error.message
    seen = [(c["args"]["target"]["selector"], c["observed"]) for c in failed(r, "element_text_contains")]
    assert seen == [(sel, {"count": 1, "text": read}) for sel, _, read in CHANGED]


def test_a_failed_text_condition_shows_the_text_masked_and_cut_at_2_kb(run, site):
    r = run(opened(site.url + "/long", """\
        - id: read
          kind: assert
          timeout_ms: 1500
          postconditions:
            - {kind: element_text_contains, args: {target: {type: css, selector: "#long"}, text: "${secrets.tok} absent"}}
        """, extra="secrets: {tok: {env: S_TOK}}\n"), env={"S_TOK": SECRET})
    assert r.code == "POSTCONDITION_FAILED"
    (cond,) = failed(r, "element_text_contains")
    text = cond["observed"]["text"]
    assert text.startswith("po-1234 *** po-1234") and text.endswith("\n... (truncated)") and SECRET not in text
    assert 1800 < len(text.encode("utf-8")) <= SEEN_LIMIT
    for name, data in r.files().items():
        assert SECRET.encode() not in data, name


# -- uploads ---------------------------------------------------------------------


def upload_step(postconditions: list[str], timeout_ms: int = 3000) -> str:
    return (f"- id: attach\n  kind: upload\n  timeout_ms: {timeout_ms}\n"
            "  target: {type: label, text: Upload file, exact: true}\n  file_ref: po-1234.txt\n  postconditions:\n"
            + "".join(f"    - {c}\n" for c in postconditions))


UPLOADED = "{kind: upload_completed, args: {text: po-1234.txt}}"
# Looked at once, right after the required conditions held: the final row must be there by then.
FINAL_ROW = "{kind: element_text_contains, severity: warning, args: {target: {type: css, selector: '#files'}, text: Uploaded}}"


def test_upload_completed_does_not_hold_while_the_upload_request_is_in_flight(run, site):
    # The server never answers within the step: the transient row shows the name the whole time.
    r = run(opened(site.url + "/widget?mode=hold", upload_step([UPLOADED], timeout_ms=1500)))
    assert r.code == "UPLOAD_FAILED", r.error and r.error.message
    (cond,) = failed(r, "upload_completed")
    observed = cond["observed"]
    assert observed["text"] == "Upload file Uploading 1 file... po-1234.txt"  # the name was there, split in two
    assert observed["requests"] == [{"method": "POST", "url": site.url + "/upload?mode=hold", "state": "pending"}]
    assert observed["problem"] == "1 of the upload's 1 request(s) still in flight"
    assert site.answered == []


def held_after_the_request(r, site, mode: str) -> None:
    """The upload step passed once its request (``mode``) was answered: the warning, looked at once when
    upload_completed held, found the final row, which replaces the transient one when the answer comes."""
    assert r.result.status == "passed", r.error and r.error.message
    assert site.answered == [mode]
    warned = [e["metadata"]["warnings"] for e in r.events if e["step_id"] == "attach" and "warnings" in e["metadata"]]
    assert warned == []


def test_upload_completed_holds_once_the_upload_request_finished(run, site):
    held_after_the_request(run(opened(site.url + "/widget?mode=delay", upload_step([UPLOADED, FINAL_ROW]))), site, "delay")


def test_a_request_sent_inside_the_quiet_moment_is_still_waited_for(run, site):
    # The name shows at once and no request is in flight: upload_completed names the end of its quiet
    # moment and looks again then. By then the page has sent its request (100 ms after the file was
    # set); the condition holds only after that request ended, when the final row is there.
    held_after_the_request(run(opened(site.url + "/widget?mode=late", upload_step([UPLOADED, FINAL_ROW]))), site, "late")


def test_upload_completed_does_not_hold_when_the_upload_request_fails(run, site):
    r = run(opened(site.url + "/widget?mode=fail", upload_step([UPLOADED], timeout_ms=1500)))
    assert r.code == "UPLOAD_FAILED", r.error and r.error.message
    (cond,) = failed(r, "upload_completed")
    assert cond["observed"]["requests"] == [
        {"method": "POST", "url": site.url + "/upload?mode=fail", "state": "failed", "status": 500}]
    assert cond["observed"]["problem"] == "1 of the upload's 1 request(s) failed"


def test_a_failed_upload_text_shows_the_text_it_read(run, site):
    r = run(opened(site.url + "/widget?mode=now", upload_step(["{kind: upload_completed, args: {text: po-9999.txt}}"],
                                                               timeout_ms=1500)))
    assert r.code == "UPLOAD_FAILED"
    (cond,) = failed(r, "upload_completed")
    assert cond["observed"]["text"] == "Upload file po-1234.txt1 KBUploaded"  # table cells, <p>: no spaces added
    assert cond["observed"]["requests"][0]["state"] == "finished" and cond["observed"]["toasts"] == []


def test_upload_completed_without_text_after_the_input_was_removed_says_the_target_matches_nothing(run, site):
    r = run(opened(site.url + "/widget?mode=remove", upload_step(["{kind: upload_completed}"], timeout_ms=1500)))
    assert r.code == "UPLOAD_FAILED", r.error and r.error.message
    (cond,) = failed(r, "upload_completed")
    assert cond["observed"]["count"] == 0 and cond["observed"]["problem"] == "the target now matches nothing"
    assert "Timeout" not in str(r.error.model_dump(mode="json"))


# Element conditions on the step's own target, which its action removed: a count, not a timeout.
GONE = [
    "{kind: element_text_contains, args: {text: x}}", "{kind: element_enabled}", "{kind: element_visible}",
    "{kind: element_exists}", "{kind: element_attr_equals, args: {attr: id, value: file}}",
    "{kind: element_value_equals, args: {value: x}}", "{kind: element_focused}",
]


def test_element_conditions_on_a_removed_step_target_say_it_matches_nothing(run, site):
    r = run(opened(site.url + "/widget?mode=remove", upload_step(GONE, timeout_ms=1200)))
    assert r.code == "POSTCONDITION_FAILED", r.error and r.error.message
    observed = [c["observed"] for c in r.error.model_dump(mode="json")["failed_conditions"]]
    assert observed == [{"count": 0, "problem": "the target now matches nothing"}] * len(GONE)


# -- AUTH_FAILED names the signal that matched -------------------------------------


@pytest.mark.parametrize(("secret", "said"), [
    (None, "the page shows the text 'Upload error'"),
    ("Upload error", "the page shows the text '***'"),  # a signal that is a secret's value is masked
])
def test_auth_failed_names_the_text_that_matched(run, site, secret, said):
    extra = "auth_signals: {texts: [Upload error]}\n" + ("secrets: {tok: {env: S_TOK}}\n" if secret else "")
    r = run(opened(site.url + "/widget?mode=fail", upload_step([UPLOADED], timeout_ms=1500), extra=extra),
            env={"S_TOK": secret} if secret else None)
    assert r.code == "AUTH_FAILED", r.error and r.error.message
    assert r.error.message == f"authentication failed: {said}"
