from tests.executor.conftest import DEFAULTS


def test_login_flow_passes(run):
    r = run(
        "name: login\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}, postconditions: [{kind: title_contains, args: {text: Sign in}}]}
  - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
  - {id: pw, kind: fill, target: {type: label, text: Password, exact: true}, value: demo}
  - id: submit
    kind: click
    criticality: critical
    target: {type: role, role: button, name: Sign in, exact: true}
    postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]
  - id: greet
    kind: assert
    postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: greeting}, text: "Welcome, alice"}}]
"""
    )
    assert r.error is None, r.error
    assert r.types()[0] == "run_started" and r.types()[-1] == "run_finished"
    assert [e["seq"] for e in r.events] == list(range(1, len(r.events) + 1))
