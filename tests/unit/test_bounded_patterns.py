"""Issue 46: a plan's regex is matched with a bound (contract/patterns.py), in re's dialect.

Python's ``re`` spins for ever on ``(a+)+$`` against a long text, holding the GIL,
and nothing can stop it; the bounded matcher gives up with a typed PatternTimeout
that its caller locates at the pattern's field. Every other pattern matches as
``re`` matched it: the same spans and groups, search and fullmatch alike.
"""

from __future__ import annotations

import re
import time
import warnings

import pytest

from pytest_cometlocal.contract import patterns
from pytest_cometlocal.contract.errors import PatternTimeout
from pytest_cometlocal.contract.model.conditions import PatternArgs, StorageItemArgs, TextsArgs
from pytest_cometlocal.contract.model.plan import Route
from pytest_cometlocal.contract.patterns import compiled, gave_up, gave_up_in, matching_until, pattern_problem
from pytest_cometlocal.executor.browser.stubs import Stubs

CATASTROPHIC = r"(a+)+$"
LONG_TEXT = "a" * 100_000 + "!"  # 100 KB a page's text can be: (a+)+$ backtracks without end on it


@pytest.mark.parametrize("how", ["search", "fullmatch"])
def test_a_catastrophic_pattern_gives_up_typed(how: str) -> None:
    with pytest.raises(PatternTimeout) as caught:
        getattr(compiled(CATASTROPHIC), how)(LONG_TEXT, timeout=0.05)
    assert caught.value.pattern == CATASTROPHIC and caught.value.length == len(LONG_TEXT)
    assert "gave up after 0.05 s on a text of 100,001 characters" in str(caught.value)


def test_a_deadline_already_passed_leaves_a_match_its_least_bound() -> None:
    """Under ``matching_until`` no match runs past the condition's deadline (but a last look still matches)."""
    with matching_until(time.monotonic() - 10):
        assert patterns.match_seconds() == patterns.MIN_MATCH_SECONDS
        assert compiled(r"a+!").search(LONG_TEXT) is not None
        with pytest.raises(PatternTimeout) as caught:
            compiled(CATASTROPHIC).search(LONG_TEXT)
    assert caught.value.seconds == patterns.MIN_MATCH_SECONDS
    assert patterns.match_seconds() == patterns.MATCH_SECONDS  # outside, the bound is the whole one


# (pattern, texts): each is searched and fullmatched by re and by the bounded matcher, with the same result.
SAME_AS_RE = [
    (r"^https://shop\.example/cart(\?.*)?$", ["https://shop.example/cart", "https://shop.example/cart?x=1", "http://x/cart"]),
    (r"/orders/(?P<id>\d+)$", ["/orders/42", "/orders/x", "https://h/orders/7"]),
    (r"(?i)welcome,\s+(\w+)", ["WELCOME,  Ada", "welcome,Ada", "Welcome, Zoë"]),
    (r"(?s)a.b", ["a\nb", "axb"]),
    (r"(?m)^total: \d+$", ["items: 2\ntotal: 3\n", "total: x"]),
    (r"(?<=\$)\d+(?=\.\d\d)", ["$12.50", "12.50"]),
    (r"(\w)\1", ["hello", "abc"]),
    (r"report-\d{4}-\d{2}\.csv", ["report-2026-11.csv", "report-26-11.csv"]),
    (r"x{,3}y", ["xxy", "xxxxy", "y"]),
    (r"a{}b", ["a{}b", "ab"]),
    (r"\{\"id\":\d+\}", ['{"id":12}', '{"id":"12"}']),
    (r'{"done":true}', ['[{"done":true}]', '{"done":false}']),  # a { that starts no repeat is literal
    (r"a{e<=1}", ["a{e<=1}", "b", "a"]),  # the regex module would read a fuzzy match
    (r"[[:alpha:]]", ["x", "[", ":]", "a]"]),  # the regex module would read a POSIX class
    (r"[]a]+", ["]a]", "b"]),
    (r"[^]a]", ["]", "b"]),
    (r"\N{DIGIT ONE}{2}", ["x11", "1"]),
    (r"(?x) total \s* : \s* (\d+)  # a comment with [ and { in it", ["total : 5", "total:x"]),
    (r"(?#a comment with [ in it)[ab]{2}", ["ab", "a"]),
    (r"caf\u00e9|\w+\b", ["café", "tea"]),
    (r"^$", ["", "x"]),
    (r"(?:ab)+?", ["abab"]),
    (r"a*+b", ["aab"]),
    (r"(?>a+)b", ["aab"]),
]


@pytest.mark.parametrize(("pattern", "texts"), SAME_AS_RE)
def test_a_sane_pattern_matches_as_re_does(pattern: str, texts: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # re's "possible nested set" for [[
        expected = re.compile(pattern)
    bounded = compiled(pattern)
    for text in texts:
        for how in ("search", "fullmatch"):
            want, got = getattr(expected, how)(text), getattr(bounded, how)(text)
            assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups())), (how, text)


@pytest.mark.parametrize(("pattern", "says"), [
    (r"\w{4294967294}", "come to 4,294,967,294; at most 100,000"),  # re compiles it; regex would never finish
    (r"(?:a{1000}){1000}", "at most 100,000"),
    (r"(?x:a b)", "(?x:...) scoped to a group"),
])
def test_what_the_matcher_cannot_run_in_bounded_time_is_refused_at_load(pattern: str, says: str) -> None:
    problem = pattern_problem(pattern)
    assert problem is not None and problem.startswith("invalid regular expression: ") and says in problem


def test_re_still_decides_what_compiles() -> None:
    assert pattern_problem(r"(a") == "invalid regular expression: missing ), unterminated subpattern at position 0"
    assert pattern_problem(r"\p{L}") is not None  # the regex module would take it; re does not
    assert pattern_problem(r"(?:a{100}){1000}") is None  # 100,000 is the limit


def test_a_condition_whose_pattern_gave_up_names_its_field() -> None:
    exc = PatternTimeout(CATASTROPHIC, 100_001, 0.05)
    seen = gave_up(PatternArgs(pattern=CATASTROPHIC), exc)
    assert seen["field"] == "pattern" and seen["message"].startswith("pattern: the regex gave up after 0.05 s")
    stored = StorageItemArgs(area="local", key="k", matches=CATASTROPHIC)
    assert gave_up(stored, exc)["field"] == "matches"
    texts = TextsArgs(target={"type": "css", "selector": "li"}, texts=["one", f"/{CATASTROPHIC}/"])
    assert gave_up(texts, exc)["field"] == "texts[1]"
    assert gave_up_in(seen) and not gave_up_in({"error": "TimeoutError"}) and not gave_up_in(None)


def test_a_route_whose_pattern_gives_up_takes_no_request_and_is_told_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Playwright's client calls a regex route's matcher for every request of the context."""
    monkeypatch.setattr(patterns, "MATCH_SECONDS", 0.05)
    stubs = Stubs([Route.model_validate({"url": {"pattern": CATASTROPHIC}, "abort": True})], {}, {})
    assert stubs.gave_up() is None
    matcher = stubs.answers[0].matcher
    assert callable(matcher)
    assert matcher("http://127.0.0.1/" + "a" * 5000 + "!") is False
    assert matcher("http://127.0.0.1/aaa") is False  # given up: no second spin
    key_path, exc = stubs.gave_up()
    assert key_path == "routes[0].url.pattern" and isinstance(exc, PatternTimeout)
    assert stubs.gave_up() is None


def test_a_regex_route_still_answers_as_written() -> None:
    stubs = Stubs([Route.model_validate({"url": {"pattern": r"/api/feed$"}, "respond": {"status": 201, "body": "x"}})],
                  {}, {})
    answer = stubs.answers[0]
    assert (answer.status, answer.body) == (201, b"x")
    assert answer.matcher("http://127.0.0.1/api/feed") is True and answer.matcher("http://127.0.0.1/") is False
