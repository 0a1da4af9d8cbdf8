"""Generators of realistic valid plans for benchmarks (no randomness: reproducible)."""

from __future__ import annotations

STEP_TEMPLATES = [
    "  - id: fill_{i}\n    kind: fill\n    target: {{type: label, text: 'Field {i}', exact: true}}\n    value: ${{vars.user}}-{i}\n"
    "    postconditions:\n      - {{kind: element_value_equals, args: {{value: 'x-{i}'}}}}\n",
    "  - id: click_{i}\n    kind: click\n    target:\n      - {{type: text, text: 'Go {i}', exact: true}}\n      - {{type: testid, id: go-{i}}}\n"
    "    preconditions: [{{kind: element_enabled}}, {{kind: no_blocking_overlay}}]\n",
    "  - id: select_{i}\n    kind: select\n    target: {{type: role, role: combobox, name: 'Country {i}', exact: true}}\n    value: ES\n",
    "  - id: check_{i}\n    kind: assert\n    postconditions:\n      - {{kind: element_text_contains, args: {{target: {{type: css, selector: '#out-{i}'}}, text: done}}}}\n"
    "      - {{kind: url_matches, args: {{pattern: '/form/{i}$'}}}}\n",
    "  - id: submit_{i}\n    kind: click\n    criticality: critical\n    target: {{type: frame, selector: '#pay', inner: {{type: role, role: button, name: Pay}}}}\n"
    "    postconditions: [{{kind: url_matches, args: {{pattern: /done}}}}]\n",
]


def plan_text(n: int, steps: int = 20) -> str:
    head = (
        f"name: generated plan {n}\n"
        "tags: [bench, generated]\n"
        "base_url: http://127.0.0.1:8000\n"
        "vars: {user: alice}\n"
        "defaults:\n"
        "  criticality: normal\n"
        "  timeout_ms: 5000\n"
        "  preconditions: [{kind: host_in_allowlist}]\n"
        "  postconditions: [{kind: host_in_allowlist}]\n"
        "steps:\n"
        "  - id: open\n    kind: navigate\n    target: {type: url, url: /form}\n"
    )
    body = "".join(STEP_TEMPLATES[i % len(STEP_TEMPLATES)].format(i=i) for i in range(steps - 1))
    return head + body
