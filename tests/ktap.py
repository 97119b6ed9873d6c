"""Parse KTAP output (the kernel's test-result format) into per-case results for pytest.

    KTAP version 1
    1..3
    ok 1 first_case
    # test_x.c:12: got 3, expected 4       <- diagnostics belong to the next result
    not ok 2 second_case
    ok 3 third_case # SKIP no SMP

Lines before the version line and after the last planned result are ignored, so a
whole serial log can be passed in. If the version line carries a prefix (a timestamp,
a console tag), lines after it lose a prefix of the same shape (digits may differ).
Indented lines are nested subtests: they do not count as results; they are kept as
diagnostics of the top-level result that follows them, so a failing parent shows its
children's output.
"""

import re
from typing import List, NamedTuple

VERSION_RE = re.compile(r"K?TAP version \d+\s*$")
PLAN_RE = re.compile(r"1\.\.(\d+)\s*$")
RESULT_RE = re.compile(r"(ok|not ok) (\d+)(?:\s+-)?(?:\s+(.*))?$")


class KtapResult(NamedTuple):
    number: int
    name: str
    ok: bool
    skip: bool
    diagnostics: List[str]


class KtapError(Exception):
    """The output is not a complete KTAP report. `results` holds what was parsed before
    the problem, `trailing` the lines after the last result (often a crash report)."""

    def __init__(self, message, results=(), trailing=()):
        super().__init__(message)
        self.results = list(results)
        self.trailing = list(trailing)


def _result(match, diagnostics):
    """A KtapResult from a RESULT_RE match: 'ok 3 name # SKIP reason'."""
    name, _, directive = (match.group(3) or "").partition("#")
    skip = directive.strip().upper().startswith("SKIP")
    return KtapResult(int(match.group(2)), name.strip(), match.group(1) == "ok", skip,
                      diagnostics)


def _prefix_re(prefix):
    """A pattern for prefixes shaped like this one: '[   12.5] ' also matches '[  130.0] '."""
    return re.compile("".join(r"[\d ]" if c.isdigit() or c == " " else re.escape(c)
                              for c in prefix))


def parse_ktap(text: str) -> List[KtapResult]:
    """The top-level results in text, in order; raises KtapError unless the plan
    ("1..N") and the results found agree."""
    lines = text.replace("\r", "").split("\n")
    for start, line in enumerate(lines):
        version = VERSION_RE.search(line)
        if version:
            break
    else:
        raise KtapError("no 'KTAP version' line in the output")
    prefix = _prefix_re(lines[start][:version.start()])

    results, pending, plan = [], [], None
    for line in lines[start + 1:]:
        if plan is not None and len(results) >= plan:
            break
        match = prefix.match(line)
        if match:
            line = line[match.end():]
        if not line.strip():
            continue
        if line[0] in " \t":
            pending.append(line.strip())
            continue
        if VERSION_RE.match(line):
            raise KtapError("KTAP output restarted before it was complete", results, pending)
        if line.startswith("Bail out!"):
            raise KtapError(line, results, pending)
        match = PLAN_RE.match(line)
        if match and plan is None:
            plan = int(match.group(1))
            continue
        match = RESULT_RE.match(line)
        if match:
            result = _result(match, pending)
            if result.number != len(results) + 1:
                raise KtapError(f"result {result.number} ({result.name}) is out of order, "
                                f"expected {len(results) + 1}", results, pending)
            results.append(result)
            pending = []
            continue
        pending.append(line[2:] if line.startswith("# ") else line)

    if plan is None:
        raise KtapError("no plan line (1..N)", results, pending)
    if len(results) != plan:
        raise KtapError(f"plan says {plan} results, found {len(results)}", results, pending)
    return results
