"""Every source a lesson or a quiz cites can be opened, and is cited in one form.

The form: a markdown link with an https URL, `[label](https://...)`. A GitHub issue or pull request
is labelled `<repo> #<number>`, the repository and number of its URL. Every URL is one of
`SOURCES`: pages and files whose content was read when the lesson was fact-checked (GitHub files
pinned to the commit that was read, so the link keeps showing what the lesson quotes). A new
citation means a new entry here, and reading the source first.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE

from packlab.course import quiz

QUIZZES = Path(quiz.__file__).with_name(quiz.QUIZZES)

GITHUB = "https://github.com/"
LANGCHAIN = GITHUB + "langchain-ai/langchain/"
COOKBOOK = (GITHUB + "openai/openai-cookbook/blob/c81359cdc6744f001e40c08a192604c5113fdab3/"
            "examples/How_to_count_tokens_with_tiktoken.ipynb")

SOURCES = {
    GITHUB + "JeremySNR/snug": "snug, the packer of seed 002",
    GITHUB + "anysphere/priompt": "priompt, priority-based prompt rendering",
    GITHUB + "microsoft/vscode-prompt-tsx": "vscode-prompt-tsx, prompt elements with priorities",
    GITHUB + "dorianbrown/rank_bm25": "rank_bm25 (BM25Okapi: k1=1.5, b=0.75)",
    GITHUB + "KillianLucas/tokentrim/issues/11": "tokentrim: system tokens subtracted twice",
    GITHUB + "vectorize-io/hindsight/issues/3688": "hindsight: greedy break returns nothing",
    GITHUB + "vectorize-io/hindsight/pull/3704": "hindsight: skip, don't stop",
    LANGCHAIN + "issues/33245": "trim_messages leaves orphaned tool messages",
    LANGCHAIN + "blob/b113633b77b59722336b699ef1d50d2e730d8ec1/docs/docs/how_to/"
                "trim_messages.ipynb": "LangChain's guide: start_on, end_on",
    LANGCHAIN + "blob/37405d8883ba783e3d8b929fa14157d6e1fc272a/libs/community/"
                "langchain_community/document_transformers/long_context_reorder.py":
        "LongContextReorder",
    GITHUB + "apache/lucene/blob/0087b0f438d80909c819176e6e5543d2baf1be3d/lucene/core/src/java/"
             "org/apache/lucene/search/similarities/BM25Similarity.java": "Lucene BM25, k1=1.2",
    GITHUB + "elastic/elasticsearch/blob/f41bfb936cd35b2b356621cb43b95c440560799e/server/src/"
             "main/java/org/elasticsearch/lucene/similarity/LegacyBM25Similarity.java":
        "Elasticsearch's own LegacyBM25Similarity (the k1 + 1 factor kept)",
    COOKBOOK: "num_tokens_from_messages and num_tokens_for_tools",
    COOKBOOK.replace("c81359cdc6744f001e40c08a192604c5113fdab3",
                     "06d9feb5e21e6fdc85f3ddce7731e05892758cd7"):
        "an earlier cookbook's rule for gpt-3.5-turbo-0301 (4 per message, -1 for a name)",
    "https://arxiv.org/abs/2307.03172": "Liu et al., Lost in the Middle (TACL 2024)",
    "https://developers.openai.com/api/docs/guides/prompt-caching": "OpenAI prompt caching",
    "https://platform.claude.com/docs/en/build-with-claude/prompt-caching":
        "Anthropic prompt caching",
    "https://docs.anthropic.com/en/docs/tool-use-pricing-and-tokens":
        "Anthropic's tool-use system prompt tokens",
}
PAPERS = ("https://arxiv.org/", "https://aclanthology.org/", "https://doi.org/")

# A lesson that names one of these must link a source that starts with its prefix.
NAMED = {
    "snug": GITHUB + "JeremySNR/snug", "priompt": GITHUB + "anysphere/priompt",
    "vscode-prompt-tsx": GITHUB + "microsoft/vscode-prompt-tsx",
    "rank_bm25": GITHUB + "dorianbrown/rank_bm25", "tokentrim": GITHUB + "KillianLucas/tokentrim/",
    "hindsight": GITHUB + "vectorize-io/hindsight/", "trim_messages": LANGCHAIN,
    "LongContextReorder": LANGCHAIN, "Lucene": GITHUB + "apache/lucene/", "cookbook": COOKBOOK,
    "Lost in the Middle": "https://arxiv.org/abs/2307.03172",
}

LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
ISSUE_URL = re.compile(r"https://github\.com/[\w.-]+/([\w.-]+)/(?:issues|pull)/(\d+)$")
BARE_ISSUE = re.compile(r"(?:\b[\w.-]+(?:/[\w.-]+)?\s+|\b(?:issue|PR)\s+|\()#\d+\b", re.I)


def prose(path) -> list[str]:
    """The lesson's markdown cells, fenced code blocks left out."""
    notebook = nbformat.read(path, as_version=4)
    return [FENCE.sub("", c.source) for c in notebook.cells if c.cell_type == "markdown"]


def quiz_texts() -> dict[str, list[str]]:
    """Per quiz in quizzes.toml, what a learner reads: the question, each option and its why."""
    quizzes = tomllib.loads(QUIZZES.read_text(encoding="utf-8"))
    return {quiz_id: [entry["question"], *(f"{option['text']}\n{option['why']}"
                                          for option in entry["options"])]
            for quiz_id, entry in quizzes.items()}


def problems(cells: list[str]) -> list[str]:
    """Every way the cells break the citation rules, one line each."""
    found = []
    links = []
    for cell in cells:
        cell_links = LINK.findall(cell)
        links += [url for _, url in cell_links]
        for label, url in cell_links:
            if ":" not in url.split("/")[0]:
                continue  # a link inside the course, such as ../exercises/...
            if url not in SOURCES:
                found.append(f"not a checked source (or not https): {url}")
            issue = ISSUE_URL.match(url)
            if issue and label != f"{issue[1]} #{issue[2]}":
                found.append(f"label {label!r} should be {issue[1]} #{issue[2]}")
        rest = LINK.sub("", cell)
        found += [f"a bare address: {m}" for m in re.findall(r"(?:https?://|www\.)\S+", rest)]
        found += [f"an unlinked issue: {m}" for m in BARE_ISSUE.findall(rest)]
        if "et al." in cell and not any(url.startswith(PAPERS) for _, url in cell_links):
            found.append("'et al.' without a link to the paper in the same cell")
    text = "\n".join(LINK.sub(r"\1", cell) for cell in cells)
    for name, prefix in NAMED.items():
        if name in text and not any(url.startswith(prefix) for url in links):
            found.append(f"names {name} but links no {prefix}")
    return found


@pytest.mark.parametrize("lesson", COURSE.lessons, ids=lambda lesson: lesson.slug)
def test_every_citation_is_a_link_to_a_checked_source(lesson):
    assert problems(prose(lesson.path)) == []


@pytest.mark.parametrize("quiz_id", sorted(quiz_texts()))
def test_every_citation_in_a_quiz_is_a_link_to_a_checked_source(quiz_id):
    assert problems(quiz_texts()[quiz_id]) == []


def test_the_quizzes_are_read():
    texts = quiz_texts()
    assert len(texts) == len(COURSE.lessons)
    assert any("min_span" in text for text in texts["08-less-than-min-span"])


def test_the_rules_catch_each_kind_of_broken_citation():
    assert problems(["see khive #94 for holes"]) == ["an unlinked issue: khive #94"]
    assert problems(["[a page](https://example.com/page)"]) == [
        "not a checked source (or not https): https://example.com/page"]
    assert problems(["[#3688](https://github.com/vectorize-io/hindsight/issues/3688)"]) == [
        "label '#3688' should be hindsight #3688"]
    assert problems(["Liu et al. found it"]) == [
        "'et al.' without a link to the paper in the same cell"]
    assert problems(["read https://arxiv.org/abs/2307.03172"]) == [
        "a bare address: https://arxiv.org/abs/2307.03172"]
    assert problems(["tokentrim subtracts twice"]) == [
        f"names tokentrim but links no {GITHUB}KillianLucas/tokentrim/"]
    assert problems(["[exercise 08](../exercises/08-pack-evidence/08-pack-evidence.ipynb)"]) == []
