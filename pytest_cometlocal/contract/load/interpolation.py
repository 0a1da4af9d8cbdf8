"""``${vars.NAME}`` and ``${secrets.NAME}`` in plan strings.

Vars are substituted at load time. Secrets are *checked* at load time (the
name is declared and its environment variable is set) but stay as
``${secrets.NAME}`` references in the validated plan: the executor resolves
them at the moment it types them, so no validated plan, trace line or report
can carry a secret value. (v1.2) ``${saved.NAME}`` is left as it is written:
a value a step saves while the plan runs, substituted by the executor then
(rule SAVED checks at load time that an earlier step saves it). Nothing else
is evaluated: there are no expressions, filters or defaults inside ``${...}``.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from pytest_cometlocal.contract.errors import InterpolationError

REFERENCE = re.compile(r"\$\{([^{}]*)\}")
_NAME = re.compile(r"^(vars|secrets|saved)\.([A-Za-z_][A-Za-z0-9_]*)$")
SECRET_REFERENCE = re.compile(r"\$\{secrets\.([A-Za-z_][A-Za-z0-9_]*)\}")
SAVED_REFERENCE = re.compile(r"\$\{saved\.([A-Za-z_][A-Za-z0-9_]*)\}")  # (v1.2)


def interpolate(
    text: str,
    vars: Mapping[str, object],
    secret_names: Callable[[str], None],
    secrets_in_vars: bool = False,
) -> str:
    """Substitute vars in ``text``; ``secret_names`` checks each secret reference.

    ``secret_names(name)`` raises InterpolationError when the secret is not
    usable. Raises InterpolationError for an unknown var or a malformed
    reference. ``secrets_in_vars`` is for a step group's vars: a ``with``
    value may be a secret reference the plan author wrote (and that is
    checked where it is written), which then passes into the group's steps.
    """
    if "${" not in text:
        return text
    errors: list[str] = []
    passed: list[str] = []  # secret references brought in by var values
    kept: list[str] = []  # (v1.2) saved references a group's ``with`` value brings in

    def replace(match: re.Match[str]) -> str:
        inner = match.group(1).strip()
        m = _NAME.match(inner)
        if not m:
            errors.append(
                f"cannot interpolate '${{{match.group(1)}}}': use ${{vars.NAME}} or ${{secrets.NAME}}"
            )
            return match.group(0)
        space, name = m.groups()
        if space == "vars":
            if name not in vars:
                known = ", ".join(sorted(vars)) or "none declared"
                errors.append(f"unknown var '{name}' (vars: {known})")
                return match.group(0)
            value = str(vars[name])
            if secrets_in_vars and "${" in value:
                passed.extend(SECRET_REFERENCE.findall(value))
                kept.extend(SAVED_REFERENCE.findall(value))
            return value
        if space == "saved":  # (v1.2) substituted at run time
            return "${saved." + name + "}"
        try:
            secret_names(name)
        except InterpolationError as exc:
            errors.append(str(exc))
        return "${secrets." + name + "}"

    out = REFERENCE.sub(replace, text)
    if errors:
        # Each distinct problem once: a text repeating one bad reference must not
        # give a message as long as the text.
        raise InterpolationError("; ".join(dict.fromkeys(errors)))
    if _references_formed(text, out, passed, kept):
        raise InterpolationError("a var value cannot form a new ${...} reference")
    return out


def _references_formed(text: str, out: str, passed: list[str] = (), kept: list[str] = ()) -> bool:
    """Did substitution assemble a reference that was not written as such?

    Substitution is one pass, so "${secrets.${vars.X}}" or a var holding "$"
    before "{secrets.P}" could otherwise build a secret reference nobody
    checked. After substitution the only "${" left may be the secret
    references and the unmatched "${" that were already in the text.
    """
    if "${" not in out and not passed and not kept and "${secrets." not in text and "${saved." not in text:
        return False  # no reference before, none after: the common case, without the regexes
    secrets_before = sorted(SECRET_REFERENCE.findall(text) + list(passed))
    saved_before = sorted(SAVED_REFERENCE.findall(text) + list(kept))
    if sorted(SECRET_REFERENCE.findall(out)) != secrets_before or sorted(SAVED_REFERENCE.findall(out)) != saved_before:
        return True
    unmatched_before = text.count("${") - len(REFERENCE.findall(text))
    return out.count("${") > unmatched_before + len(secrets_before) + len(saved_before)


def resolve_secrets(text: str, values: Mapping[str, str]) -> str:
    """Executor side: replace ``${secrets.NAME}`` with the value (at the last moment)."""
    return SECRET_REFERENCE.sub(lambda m: values[m.group(1)], text)


def long_key_vars(path: tuple[Any, ...], text: str, vars: Mapping[str, object]) -> str | None:
    """Rule KEY (v1.1), where vars are substituted (a plan's, a step group's): a step's ``key`` takes
    ``${vars.X}`` of one character only, so that ``press`` never types text key by key (fill does)."""
    if not (len(path) >= 3 and path[-1] == "key" and path[-3] == "steps" and isinstance(path[-2], int)):
        return None
    names = [m.group(1).strip()[5:] for m in REFERENCE.finditer(text) if m.group(1).strip().startswith("vars.")]
    long = [f"vars.{n}" for n in names if n in vars and len(str(vars[n])) > 1]
    if not long:
        return None
    return f"a key takes ${{vars...}} of one character only ({', '.join(long)}): text is typed with fill, not key by key"
