"""tests/docs/test_host.py: every host transcript in docs/ (`$` blocks: make, tools/trace-record, trace-cmd report,
readelf, objdump ...) is typed again on the host and must print what the chapter shows.

One test per chapter, its blocks in order in one scratch directory (tests/docs/host.py); the output compared as
tests/docs/test_labs.py compares the kernel's, with the same vary/elide vocabulary (tests/docs/transcript.py).  A
command shown without output must succeed.  So no command of the course can be printed wrong: a command that a
shell would mangle (a `$retval` in double quotes) prints something else, or nothing, and fails here.
"""

import pytest

from tests.docs.host import HostReplay
from tests.docs.replay import chapters
from tests.docs.test_labs import indent
from tests.docs.transcript import compare

CHAPTERS = chapters(host=True)


@pytest.mark.parametrize("path", CHAPTERS, ids=[c[5:-3] for c in CHAPTERS])
def test_chapter_host_transcripts_replay(path):
    r = HostReplay(path)
    found = []
    for block in r.blocks_to_run():
        for step, status, got in r.run_block(block):
            if not step.expected:
                why = None if status == 0 else "exit status %s" % status
            else:
                why = compare(step.expected, got, block.vary, block.unordered)
            if why:
                found.append("%s:%d `%s`: %s\n    printed:\n%s\n    the chapter shows:\n%s" % (
                    r.path, step.line, step.cmd, why, indent(got), indent(step.expected)))
    assert not found, "%d of the chapter's host commands printed something else:\n%s" % (
        len(found), "\n".join(found))
