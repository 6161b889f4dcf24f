"""Each check is named for what it catches: for every mutant of the gallery, the first check that
fails (in the order a learner reads them: visible, edge cases, properties) names what that mutant
broke, and points to the mutant's own misconception."""

from __future__ import annotations

import pytest

from autograder.checks import gallery
from autograder.checks.suite import CheckFailed, Failure, in_process_caller
from autograder.checks.suites import load

# mutant -> words the name of its first failing check must hold (any case)
FIRST_CHECK_SAYS = {
    "assemble_turn/best_first_placement": ("edges-first",),
    "assemble_turn/drops_required": ("required", "raise a ValueError"),
    "assemble_turn/evidence_before_history": ("history is packed first",),
    "assemble_turn/evidence_break": ("evidence", "skipped", "next still"),
    "assemble_turn/evidence_by_input_order": ("evidence", "score", "not in the order"),
    "assemble_turn/history_with_holes": ("history", "no holes"),
    "assemble_turn/keeps_oldest_history": ("history", "newest"),
    "assemble_turn/prefix_unstable": ("system prompt", "tools", "first"),
    "assemble_turn/question_not_last": ("question", "last"),
    "assemble_turn/reasons_collapsed": ("reason",),
    "assemble_turn/splits_pairs": ("tool call", "together"),
    "assemble_turn/vague_required_error": ("ValueError naming",),
    "drop_reasons/break_at_first_miss": ("skipped", "walk goes on"),
    "drop_reasons/dropped_without_ids": ("dropped entry", "id and a reason"),
    "drop_reasons/ignores_priority": ("highest priority", "first"),
    "drop_reasons/lists_in_priority_order": ("input order", "not the priority order"),
    "drop_reasons/one_reason_only": ("reason", "single-chunk-too-large", "over-budget"),
    "drop_reasons/reason_against_remaining": ("reason", "whole budget"),
    "drop_reasons/sorts_in_place": ("left as it was",),
    "drop_reasons/strict_too_large": ("exactly the budget", "not too large"),
    "drop_reasons/ties_reversed": ("equal priority", "input order"),
    "fit/break_at_first_miss": ("excluded", "walk goes on"),
    "fit/ignores_priority": ("highest priority", "first"),
    "fit/missing_validation": ("refused",),
    "fit/never_warns": ("one UserWarning",),
    "fit/no_reserve": ("reserve",),
    "fit/pair_split": ("pair",),
    "fit/required_dropped": ("required item", "raises"),
    "fit/required_promoted": ("required item", "own priority"),
    "fit/sorts_output_by_priority": ("input order", "not in priority order"),
    "fit/type_error_for_bad_tokens": ("ValueError",),
    "fit/unstable_ties": ("equal priorities", "earlier"),
    "fit/vague_required_error": ("naming it",),
    "fit/warns_per_item": ("one UserWarning", "whole call"),
    "pack/break_at_first_miss": ("skipped", "after it still fits"),
    "pack/forgets_return": ("returns a list",),
    "pack/mutates_input": ("left as it was",),
    "pack/returns_parts": ("id strings", "not the parts"),
    "pack/reversed_order": ("input order", "reversed"),
    "pack/sorts_by_size": ("input order", "sorted"),
    "pack/splits_part": ("whole", "budget"),
    "pack/strict_less_than": ("exactly on the budget",),
    "pack_evidence/ascending_score": ("best score first", "not", "lowest first"),
    "pack_evidence/break_at_first_miss": ("skipped", "later", "still goes in"),
    "pack_evidence/counts_id_in_limit": ("limit", "not the ids"),
    "pack_evidence/cuts_the_id": ("id is never cut",),
    "pack_evidence/empty_fragment": ("not even an empty text",),
    "pack_evidence/forgets_truncated_flag": ("truncated",),
    "pack_evidence/input_order": ("best score first", "not in input order"),
    "pack_evidence/keeps_the_end": ("keeps the start",),
    "pack_evidence/min_span_strict": ("exactly min_span",),
    "pack_evidence/no_min_span": ("less than min_span", "skipped"),
    "pack_evidence/sorts_in_place": ("left as it was",),
    "pack_evidence/ties_reversed": ("equal scores", "input order"),
    "pack_report/break_at_first_miss": ("dropped", "after it still fit"),
    "pack_report/dropped_reversed": ("dropped", "input order", "reversed"),
    "pack_report/dropped_sorted": ("dropped", "input order", "sorted"),
    "pack_report/missing_used_key": ("keys", "'used'"),
    "pack_report/mutates_input": ("left as it was",),
    "pack_report/returns_parts": ("ids such as", "not the parts"),
    "pack_report/returns_tuple_of_lists": ("returns a dict",),
    "pack_report/strict_less_than": ("exactly on the budget",),
    "pack_report/used_counts_dropped": ("used", "never the dropped"),
    "score_and_pack/break_at_first_miss": ("skipped", "walk goes on"),
    "score_and_pack/classic_idf": ("word found in most items", "IDF"),
    "score_and_pack/deferred_count_wrong": ("deferred_count",),
    "score_and_pack/ignores_pinned": ("pinned",),
    "score_and_pack/no_error_signal": ("error boost",),
    "score_and_pack/no_length_normalisation": ("short item", "long one"),
    "score_and_pack/no_recency": ("recency",),
    "score_and_pack/output_by_score": ("story order",),
    "score_and_pack/splits_on_spaces": ("punctuation separates words",),
    "total_tokens/counts_parts": ("every part's tokens",),
    "total_tokens/float_total": ("an int", "float"),
    "total_tokens/forgets_return": ("returns a whole number", "None"),
    "total_tokens/mutates_input": ("left as it was",),
    "total_tokens/returns_string": ("an int", "string"),
    "total_tokens/skips_first": ("the first and the last",),
    "wrapped_cost/counts_bytes": ("characters, not UTF-8 bytes",),
    "wrapped_cost/forgets_id": ("the id", "count"),
    "wrapped_cost/forgets_wrapper": ("heading", "fences"),
    "wrapped_cost/ignores_ratio": ("ratio given", "3 characters per token"),
    "wrapped_cost/int_plus_one": ("divides exactly", "no extra token"),
    "wrapped_cost/no_validation": ("raises a ValueError",),
    "wrapped_cost/rejects_whole_ratio": ("whole-number ratio works",),
    "wrapped_cost/returns_float": ("an int", "not a float"),
    "wrapped_cost/rounds_down_int": ("rounds up",),
    "wrapped_cost/rounds_to_nearest": ("whole extra token",),
    "wrapped_cost/vague_error": ("names ratio",),
}
MUTANTS = gallery.every()


def first_failure(mutant: gallery.Mutant) -> Failure:
    """The first check of the mutant's suite that fails, in the order the learner reads them."""
    suite = load(mutant.suite)
    scope: dict = {}
    exec(compile(mutant.code, mutant.key, "exec"), scope)  # noqa: S102 - the course's own gallery
    call = in_process_caller(scope[suite.function])
    for group in suite.groups:
        for check in group.checks:
            try:
                check.run(call)
            except CheckFailed as exc:
                return exc.failure
    raise AssertionError(f"{mutant.key} passes every check")


def test_every_mutant_has_its_words() -> None:
    assert sorted(FIRST_CHECK_SAYS) == sorted(m.key for m in MUTANTS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.key)
def test_the_first_failing_check_is_named_for_what_the_mutant_broke(mutant) -> None:
    failure = first_failure(mutant)
    missing = [w for w in FIRST_CHECK_SAYS[mutant.key] if w.lower() not in failure.check.lower()]
    assert not missing, f"{mutant.key}: first failing check {failure.check!r} lacks {missing}"
    assert failure.misconception.key == mutant.misconception, (
        f"{mutant.key}: first failing check {failure.check!r} points to "
        f"{failure.misconception.key!r}")



LEFT_ALONE = ("left as it was", "left exactly as it was", "left as they were",
              "left exactly as they were")


def left_alone_checks(suite) -> list:
    return [check for group in suite.groups for check in group.checks
            if any(words in check.name for words in LEFT_ALONE)]


@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m.misconception != "mutates-input"
                                    and left_alone_checks(load(m.suite))], ids=lambda m: m.key)
def test_a_mutant_that_changes_nothing_passes_the_left_alone_checks(mutant) -> None:
    """Issue 29: returning the parts instead of their ids failed "the parts list is left as it
    was", though the list was untouched: those checks now judge the arguments only."""
    suite = load(mutant.suite)
    scope: dict = {}
    exec(compile(mutant.code, mutant.key, "exec"), scope)  # noqa: S102 - the course's own gallery
    call = in_process_caller(scope[suite.function])
    wrong = []
    for check in left_alone_checks(suite):
        try:
            check.run(call)
        except CheckFailed as exc:
            wrong.append(f"{exc.failure.check}: came back {exc.failure.got}")
    assert not wrong, wrong
