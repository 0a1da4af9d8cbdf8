"""benchmarks/unfenced.py, the price of tracing's kind of picture, without a browser: inside it every picture
the executor asks for is the newest frame of one screencast a page, started once and acknowledged frame by
frame; outside it the fenced picture is back."""

from __future__ import annotations

import base64

import pytest

from benchmarks import flow_calls, unfenced
from pytest_cometlocal.executor.page import observation, screenshots


class _Session:
    """A DevTools session that logs what it is sent and delivers the frames a test pushes."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []
        self.handlers: dict[str, list] = {}

    def on(self, event: str, handler) -> None:
        self.handlers.setdefault(event, []).append(handler)

    def send(self, method: str, params: dict) -> dict:
        self.sent.append((method, params))
        return {}

    def push(self, data: bytes, number: int) -> None:
        for handler in self.handlers.get("Page.screencastFrame", []):
            handler({"data": base64.b64encode(data).decode(), "sessionId": number, "metadata": {"timestamp": 1.5}})


class _Page:
    def __init__(self, session: _Session, frames: list[bytes]) -> None:
        self.session, self.frames, self.waits = session, frames, 0

    def wait_for_timeout(self, ms: float) -> None:  # a frame arrives while the executor waits
        self.waits += 1
        if self.frames:
            self.session.push(self.frames.pop(0), 99)


def test_every_picture_is_the_newest_frame_of_one_running_screencast_and_the_fence_is_back_after(monkeypatch):
    session = _Session()
    page = _Page(session, [b"first"])
    monkeypatch.setattr(unfenced, "cdp_session", lambda p: session if p is page else None)
    fenced = observation.grab_frame, observation.PendingFrame
    with unfenced.unfenced_pictures():
        assert (observation.grab_frame, observation.PendingFrame) != fenced
        record: dict = {}
        assert observation.grab_frame(page, True, record) == b"first"  # the page's first frame is waited for
        assert page.waits == 1 and record["method"] == "screencast-newest-unfenced" and record["waited_ms"] == 0
        session.push(b"second", 7)
        pending = observation.PendingFrame.request(page, True)
        assert pending.session is session and pending.result() == b"second" and pending.record["frame_ts"] == 1.5
        assert page.waits == 1  # the newest frame is taken as it is: nothing waits for a fresh one
        methods = [m for m, _ in session.sent]
        assert methods.count("Page.startScreencast") == 1  # started once for the page, never stopped
        assert ("Page.screencastFrameAck", {"sessionId": 7}) in session.sent  # acknowledged on arrival
        assert "Runtime.evaluate" not in methods  # no fence
        assert observation.grab_frame(object()) is None  # no DevTools session: no frame, as the plugin's
    assert (observation.grab_frame, observation.PendingFrame) == fenced
    assert observation.grab_frame is screenshots.grab_frame and observation.PendingFrame is screenshots.PendingFrame


@pytest.mark.parametrize("variant", ["fast-unfenced", "forensic-unfenced", "hand-unfenced"])
def test_only_balanced_variants_take_unfenced_pictures(variant, capsys):
    with pytest.raises(SystemExit) as exc:
        flow_calls.main(["--variants", f"hand,{variant}"])
    assert exc.value.code == 2 and variant in capsys.readouterr().err
