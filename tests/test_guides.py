"""The guides do what they say: every ```bash block of every guide page runs, and the README is
an entry page that points into them.

Which pages run: book/intro.md and every page the book's TOC lists in `book.GUIDES` (book/*.md and
book/instructors/*.md), in the TOC's order, except docs/jupyterhub.md, whose commands make
system accounts and serve a JupyterHub: tests/class_hub.py runs them (as root, for the hub
tests).

How they run: in one temporary copy of the course (the files git knows, tracked or new, committed
in a git repository of the copy's own), as one rehearsal of a term, made once for the session
(`rehearsal` in tests/conftest.py, tests/guide_walk.py says how; tests/test_authoring.py reads
what the new-exercise guide's walk made in it). ```text blocks are shown to the reader, never
run (servers that run until stopped, JupyterHub's exchange, a cluster).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from guide_walk import (
    EXAMPLE,
    EXAMPLE_FILES,
    NEW_EXERCISE,
    NUMBER,
    PAGES,
    bash_blocks,
    free_number,
    renumber_example,
    renumbered,
)
from markdown_it import MarkdownIt

from packlab.course import book
from packlab.manifest import ROOT

pytestmark = pytest.mark.xdist_group("guides")

README = ROOT / "README.md"
README_WORDS = 1500


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


def test_the_new_exercise_walk_takes_the_first_free_number(tmp_path):
    """An instructor's own exercises 11 and 12 do not break the guide's walk: it runs as 13."""
    manifest = tmp_path / "course.toml"
    manifest.write_text('[[exercises]]\nname = "11-mine"\n[[exercises]]\nname = "12-more"\n')
    assert free_number(manifest) == "13"
    shutil.copytree(ROOT / EXAMPLE_FILES, tmp_path / EXAMPLE_FILES)
    renumber_example(tmp_path, "13")
    for path in (tmp_path / EXAMPLE_FILES).rglob("*"):
        assert EXAMPLE not in str(path.relative_to(tmp_path)), path
        if path.is_file():
            assert not NUMBER.search(path.read_text(encoding="utf-8")), path
    assert (tmp_path / EXAMPLE_FILES / "class/bob/13-trim-history/13-trim-history.ipynb").is_file()
    notebook = (tmp_path / EXAMPLE_FILES / "files/solutions/13-trim-history/13-trim-history.ipynb")
    assert '"# Exercise 13:' in notebook.read_text() and 'hint 13`' in notebook.read_text()
    blocks = [renumbered(b.code, "13") for b in bash_blocks(NEW_EXERCISE)]
    assert all("11-trim-history" not in b for b in blocks)
    assert any("packlab release 13-trim-history" in b for b in blocks)


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
