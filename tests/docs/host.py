"""tests/docs/host.py: type a chapter's host transcripts (`$` blocks) again, with bash, in a scratch copy of the tree.

The scratch directory, build/docs-host/<chapter>/, holds a symbolic link to every top-level entry of the tree but
build/, and a build/ of its own whose entries are links to the tree's build outputs: `readelf`, `objdump` and
`make` find the kernel as built (make sees everything up to date), while what a command writes (`make trace`'s
build/trace.dat, `tools/trace-record -o rec`) stays in the scratch directory.  The chapter's blocks run in order
in one directory, as a reader types them in one shell.  The rules of a transcript are in tests/docs/transcript.py.
"""

import os
import shutil
import subprocess

from tests.console import ROOT
from tests.docs.transcript import read_chapter

SCRATCH = os.path.join(ROOT, "build", "docs-host")
COMMAND_TIMEOUT = 600


def scratch_tree(name):
    """A fresh scratch directory for one chapter (see the module's docstring)."""
    where = os.path.join(SCRATCH, name)
    shutil.rmtree(where, ignore_errors=True)
    os.makedirs(os.path.join(where, "build"))
    for entry in os.listdir(ROOT):
        if entry != "build" and not entry.startswith(".git"):
            os.symlink(os.path.join(ROOT, entry), os.path.join(where, entry))
    for entry in os.listdir(os.path.join(ROOT, "build")):
        if entry not in ("docs-host", "test-runs", "test-logs", "flake-twin", "flake"):
            os.symlink(os.path.join(ROOT, "build", entry), os.path.join(where, "build", entry))
    return where


class HostReplay:
    """One chapter's host transcripts, run in order in one scratch directory."""

    def __init__(self, path):
        self.path = path
        with open(os.path.join(ROOT, path)) as f:
            self.blocks = [b for b in read_chapter(path, f.read()) if b.host]
        self.cwd = None

    def blocks_to_run(self):
        return [b for b in self.blocks if not b.skip]

    @staticmethod
    def env():
        """The reader's environment: not that of a `make test` this runs under, whose MAKELEVEL and
        MAKEFLAGS would make a `make` in a transcript print "Entering directory" lines."""
        env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
        return dict(env, LC_ALL="C", TERM="dumb")

    def shell(self, cmd):
        """(exit status, printed lines) of `cmd` under bash, stdout and stderr as a terminal interleaves them."""
        if self.cwd is None:
            self.cwd = scratch_tree(os.path.basename(self.path)[:-3])
        try:
            r = subprocess.run(["bash", "-c", cmd], cwd=self.cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", timeout=COMMAND_TIMEOUT,
                               env=self.env())
        except subprocess.TimeoutExpired:
            return None, ["(replay: `%s` ran more than %d s)" % (cmd, COMMAND_TIMEOUT)]
        out = r.stdout[:-1] if r.stdout.endswith("\n") else r.stdout
        return r.returncode, out.split("\n") if out else []

    def run_block(self, block):
        """[(step, status, printed lines)]; a setup command that fails is reported on the first step."""
        results = []
        for cmd in block.setup:
            status, out = self.shell(cmd)
            if status != 0:
                return [(block.steps[0], status, ["(replay: setup `%s` failed)" % cmd] + out)]
        for step in block.steps:
            status, out = self.shell(step.cmd.replace("\\\n", "\n"))
            results.append((step, status, out))
        return results


__all__ = ["HostReplay"]
