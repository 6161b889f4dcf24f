"""The guides do what they say: every ```bash block of every guide page runs, and the README is
an entry page that points into them.

Which pages run: book/intro.md and every page the book's TOC lists in `book.GUIDES` (book/*.md and
book/instructors/*.md), in the TOC's order, except docs/jupyterhub.md, whose commands make
system accounts and serve a JupyterHub: tests/class_hub.py runs them (as root, for the hub
tests).

How they run: in one temporary copy of the course (the files git knows, tracked or new, committed
in a git repository of the copy's own), as one
rehearsal of a term: each page's blocks run in order, in bash with `set -e -o pipefail`, from the
copy's root, with the venv's bin/ first on PATH and the copy's code first on PYTHONPATH (so
`packlab` reads and writes the copy, never this checkout), HOME and XDG_STATE_HOME in the copy.
A later page uses what an earlier one made (the release, the practice class, graded/), so the
test of a page first runs every page before it that has not run yet; the copy and the release
are made once for the module. ```text blocks are shown to the reader, never run (servers that
run until stopped, JupyterHub's exchange, a cluster).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from packlab.course import book
from packlab.course.manifest import ROOT

pytestmark = pytest.mark.xdist_group("guides")

README = ROOT / "README.md"
README_WORDS = 1500
PAGES = ["intro", *(page for pages in book.GUIDES.values() for page in pages
                    if not page.startswith("docs/"))]
BLOCK_TIMEOUT = 300  # seconds; each block takes seconds to a minute here
OUTPUT_SHOWN = 6000  # characters of a failing block's output kept in the message


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
    student build reads .gitignore through git)."""
    for name in course_files():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)
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


@dataclass
class Rehearsal:
    """One copy of the course in which the pages run in order, each at most once."""

    course: Path
    env: dict[str, str]
    done: dict[str, str | None] = field(default_factory=dict)  # page -> failure, or None

    def run_block(self, block: Block) -> str | None:
        """None when the block ran cleanly, else what to tell the reader."""
        script = "set -e -o pipefail\n" + block.code
        try:
            ran = subprocess.run(["bash", "-c", script], cwd=self.course, env=self.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 timeout=BLOCK_TIMEOUT)
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
        for block in bash_blocks(page):
            failure = self.run_block(block)
            if failure:
                return failure
        return None


@pytest.fixture(scope="module")
def rehearsal(tmp_path_factory) -> Rehearsal:
    course = copy_course(tmp_path_factory.mktemp("guides") / "course")
    return Rehearsal(course, environment(course))


# ---------------------------------------------------------------------------------------------
# Every command a guide gives
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_bash_block_of_the_page_runs(rehearsal, page):
    failure = rehearsal.run_page(page)
    assert failure is None, failure


def test_the_instructors_guides_give_commands_to_run():
    """The rehearsal is not empty: the pages that grade a class give their commands in bash."""
    for page in ("setting-up", "grading", "gradebook", "feedback", "analytics"):
        assert bash_blocks(f"instructors/{page}"), page


def test_no_bash_block_starts_a_server():
    """`make lab`, `make demo` and `jupyter lab` serve until stopped: they go in text blocks."""
    for page in PAGES:
        for block in bash_blocks(page):
            for server in ("make lab", "make demo", "jupyter lab", "packlab lab", "packlab demo"):
                assert server not in block.code, f"book/{page}.md line {block.line}: {server}"


# ---------------------------------------------------------------------------------------------
# The README is the entry page; the book holds the guides
# ---------------------------------------------------------------------------------------------


def test_the_readme_is_at_most_1500_words():
    words = len(README.read_text(encoding="utf-8").split())  # as `wc -w README.md` counts
    assert words <= README_WORDS, f"README.md has {words} words; at most {README_WORDS}"


def test_the_readme_gives_the_two_commands_the_three_paths_and_the_book():
    text = README.read_text(encoding="utf-8")
    for command in ("make lab", "make test", "make book"):
        assert command in text, command
    for page in ("book/learners.md", "book/instructors.md", "book/presenters.md",
                 "book/speed.md"):
        assert f"]({page})" in text, page


def test_the_readme_keeps_the_course_map_between_its_markers():
    text = README.read_text(encoding="utf-8")
    assert text.count("<!-- course-map:start -->") == 1
    assert text.count("<!-- course-map:end -->") == 1
    start, end = text.index("<!-- course-map:start -->"), text.index("<!-- course-map:end -->")
    assert start < end
    assert "lessons/01-" in text[start:end]


def test_every_link_from_the_readme_into_the_repository_resolves():
    text = README.read_text(encoding="utf-8")
    links = [t.attrGet("href") for token in MarkdownIt("commonmark").parse(text)
             if token.children for t in token.children if t.type == "link_open"]
    local = [link.split("#")[0] for link in links if "://" not in link]
    assert any(link.startswith("book/") for link in local)
    missing = [link for link in local if link and not (ROOT / link).exists()]
    assert not missing


def test_every_guide_page_is_in_the_book_and_every_book_page_in_the_toc():
    listed = {page for pages in book.GUIDES.values() for page in pages}
    for page in listed:
        assert book.guide_file(page).is_file(), page
    written = {str(p.relative_to(book.BOOK).with_suffix("")) for p in book.BOOK.rglob("*.md")
               if "_build" not in p.parts}
    assert written - {"intro"} <= listed, written - listed - {"intro"}


def _relative_links(text: str) -> list[str]:
    links = [t.attrGet("href") for token in MarkdownIt("commonmark").parse(text)
             if token.children for t in token.children if t.type == "link_open"]
    return [link.split("#")[0] for link in links if "://" not in link and link.split("#")[0]]


@pytest.mark.parametrize("page", sorted({p for pages in book.GUIDES.values() for p in pages}))
def test_every_link_of_a_guide_works_on_the_repositorys_page_and_in_the_book(page):
    """A link resolves from the page's file in the repository, and from its place in the book's
    source (book/'s pages at the top, docs/ beside them), as `book.stage` writes it."""
    where = book.guide_file(page)
    text = where.read_text(encoding="utf-8")
    links = _relative_links(text)
    assert [link for link in links if not (where.parent / link).exists()] == []
    source = Path("/source")
    staged = _relative_links(book.book_links(text, page.count("/")))
    assert len(staged) == len(links)

    def in_repository(path: Path) -> Path:
        inside = path.relative_to(source)
        return ROOT / inside if inside.parts[0] == "docs" else book.BOOK / inside

    placed = (source / page).parent
    assert [link for link in staged
            if not in_repository(Path(os.path.normpath(placed / link))).exists()] == []
