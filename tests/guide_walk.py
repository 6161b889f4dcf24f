"""The guides' rehearsal, shared by tests/test_guides.py (every ```bash block of every guide
runs) and tests/test_authoring.py (what the new-exercise guide's walk made): one copy of the
course in which the pages run in order, each at most once, for the whole test session.

How the blocks run: in bash with `set -e -o pipefail`, from the copy's root, with the venv's bin/
first on PATH and the copy's code first on PYTHONPATH (so `packlab` reads and writes the copy,
never this checkout), HOME and XDG_STATE_HOME in the copy. A later page uses what an earlier one
made (the release, the practice class, graded/), so running a page first runs every page before
it that has not run yet. What each block printed, and the digests of the released exercises
before and after each page, are kept for the tests that read them.

The new-exercise guide's example is exercise 11. When the course already has an exercise
numbered 11 (an instructor added one), the walk takes the first free number instead: the page's
commands and its example files are renumbered in the copy, so the guide stays a rehearsal of
adding one more exercise to whatever course this is.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt

from packlab.course import book
from packlab.manifest import ROOT

PAGES = ["intro", *(page for pages in book.GUIDES.values() for page in pages
                    if not page.startswith("docs/"))]
BLOCK_TIMEOUT = 300  # seconds; each block takes seconds to a minute here
OUTPUT_SHOWN = 6000  # characters of a failing block's output kept in the message
NEW_EXERCISE = "instructors/new-exercise"
EXAMPLE = "11-trim-history"  # the new-exercise guide's example, as the page writes it
EXAMPLE_FILES = Path("book/instructors/examples/trim_history")
NUMBER = re.compile(r"\b11(?=-trim-history|-\d\d\"|:|`|\\\")")  # the example's number, as written


@dataclass
class Block:
    page: str
    number: int  # 1, 2, ... within its page
    line: int  # where the block starts in its page (1-based)
    code: str


def bash_blocks(page: str) -> list[Block]:
    """The ```bash fenced blocks of book/<page>.md, in order."""
    text = (book.BOOK / f"{page}.md").read_text(encoding="utf-8")
    fences = [t for t in MarkdownIt("commonmark").parse(text)
              if t.type == "fence" and t.info.strip().split(" ")[0] == "bash"]
    return [Block(page, i, t.map[0] + 1, t.content) for i, t in enumerate(fences, 1)]


def course_files() -> list[str]:
    """Every file git knows in this checkout: committed, or new and not ignored."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def copy_course(target: Path) -> Path:
    """The course's files in ``target``, committed there as a git checkout of its own (the
    student build reads .gitignore through git), with the property checks' examples this
    session stored (tests/conftest.py): the copy's grader is this checkout's, so its `packlab
    release` would draw the same examples again (4.5 of its 8.5 CPU-s)."""
    from autograder.checks import example_cache

    for name in course_files():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)
    stored = example_cache.path()
    if stored.is_file():
        copy = target / stored.relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(stored, copy)
    git = ["git", "-c", "user.name=guides", "-c", "user.email=guides@example.org"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the course"]):
        subprocess.run([*git, *command], cwd=target, check=True, capture_output=True)
    return target


def environment(course: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PACKLAB_COURSE_TOML", "PACKLAB_WORKSPACE", "VIRTUAL_ENV")}
    home = course / ".home"
    home.mkdir(exist_ok=True)
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=f"{course / 'src'}{os.pathsep}{course}", HOME=str(home),
               XDG_STATE_HOME=str(home / "state"), NO_COLOR="1", TERM="dumb", COLUMNS="100")
    return env


def free_number(manifest: Path) -> str:
    """The example's number, 11, or the first number after it no exercise of ``manifest`` has."""
    taken = {entry["name"][:2] for entry in
             tomllib.loads(manifest.read_text(encoding="utf-8")).get("exercises", [])}
    return next(f"{n:02d}" for n in range(11, 100) if f"{n:02d}" not in taken)


def renumbered(text: str, number: str) -> str:
    """The example's text with its number 11 written as ``number``."""
    return NUMBER.sub(number, text)


def renumber_example(course: Path, number: str) -> None:
    """The example's files in ``course``, names and texts, renumbered to ``number``."""
    for path in sorted((course / EXAMPLE_FILES).rglob("*"), reverse=True):  # deepest first
        if path.is_file():
            path.write_text(renumbered(path.read_text(encoding="utf-8"), number),
                            encoding="utf-8")
        if EXAMPLE in path.name:
            path.rename(path.with_name(renumbered(path.name, number)))


def digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@dataclass
class Rehearsal:
    """One copy of the course in which the pages run in order, each at most once."""

    course: Path
    env: dict[str, str]
    done: dict[str, str | None] = field(default_factory=dict)  # page -> failure, or None
    said: dict[str, list[str]] = field(default_factory=dict)  # page -> each block's output
    releases: dict[str, tuple[dict, dict]] = field(default_factory=dict)  # page -> before, after
    number: str = ""  # the new-exercise example's number in this course (set when it runs)

    @property
    def example(self) -> str:
        """The new-exercise guide's exercise, as named in this course."""
        return renumbered(EXAMPLE, self.number or free_number(self.course / "course.toml"))

    def run_block(self, block: Block) -> str | None:
        """None when the block ran cleanly, else what to tell the reader."""
        script = "set -e -o pipefail\n" + block.code
        try:
            ran = subprocess.run(["bash", "-c", script], cwd=self.course, env=self.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 timeout=BLOCK_TIMEOUT)
            self.said.setdefault(block.page, []).append(ran.stdout)
            if ran.returncode == 0:
                return None
            what, output = f"exit status {ran.returncode}", ran.stdout
        except subprocess.TimeoutExpired as exc:
            what, output = f"still running after {BLOCK_TIMEOUT} s", str(exc.output or "")
        return (f"book/{block.page}.md, bash block {block.number} (line {block.line}) failed "
                f"({what}):\n{block.code}\n--- its output ---\n{output[-OUTPUT_SHOWN:]}")

    def run_page(self, page: str) -> str | None:
        for earlier in PAGES[:PAGES.index(page)]:
            if earlier not in self.done:
                self.done[earlier] = self._blocks_of(earlier)
            if self.done[earlier]:
                return f"book/{page}.md follows book/{earlier}.md, which failed:\n" \
                       f"{self.done[earlier]}"
        if page not in self.done:
            self.done[page] = self._blocks_of(page)
        return self.done[page]

    def _blocks_of(self, page: str) -> str | None:
        blocks = bash_blocks(page)
        if page == NEW_EXERCISE:
            self.number = free_number(self.course / "course.toml")
            if self.number != "11":
                renumber_example(self.course, self.number)
                blocks = [Block(b.page, b.number, b.line, renumbered(b.code, self.number))
                          for b in blocks]
        before = digests(self.course / "exercises")
        try:
            for block in blocks:
                failure = self.run_block(block)
                if failure:
                    return failure
            return None
        finally:
            self.releases[page] = (before, digests(self.course / "exercises"))
