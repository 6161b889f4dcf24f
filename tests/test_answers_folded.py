"""No answer in plain sight, in any of the ten lessons (issue 29): read by its meaning.

A learner reads a lesson top to bottom. Whatever answers a predict-the-output question must be
folded (a ``%%reveal`` output, or a ``<details>`` box in the markdown after it) until the learner
runs or opens it. Text in plain sight is every markdown cell with its ``<details>`` boxes taken
out. The checks look for an answer by what it says, not by how it was once printed:

- a number in any of its usual forms: ``1425``, ``1,425``, ``1 425`` (also with a no-break or
  thin space), ``1425.0`` and ``one thousand four hundred and twenty-five``;
- a run of ids in the order an answer lists them (``system``, ``chunk-b`` and ``chunk-c``);
- a whole printed line of the answer.

The fast tests hold lessons 01-05's answers, recomputed here with packlab; the slow test reads
every lesson as executed (conftest.executed_lessons) and takes each answer from its folded output.
A question's answer must not be given earlier in the course either: the checks below recompute
the answers that were once given early (issue 29) and look for them before the question.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE, executed

from packlab.packing.curves import pack_state
from packlab.packing.examples import big_first_parts, chat_parts
from packlab.packing.packers import greedy, report, stop_at_first_miss
from packlab.packing.tokens import count_tokens, estimate_tokens

REVEAL = "%%reveal"
FOLD = re.compile(r"<details\b.*?</details>", re.S | re.I)
HEADING = re.compile(r"^#{1,2} ", re.M)  # a lesson's title or a section, not a ### sub-heading
# Thousands separators: an underscore (Python), a space, a no-break, a narrow no-break, a thin one.
SEPARATORS = "_ \u00a0\u202f\u2009"
ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
        "nineteen"]
TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


# ---- reading a lesson as a learner does -----------------------------------------------------

def cells(path: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(path, as_version=4).cells


def lesson(number: str):
    return next(one for one in COURSE.lessons if one.slug.startswith(number))


def in_plain_sight(cell: nbformat.NotebookNode) -> str:
    """What a reader sees of a markdown cell before opening anything (code: nothing here)."""
    return FOLD.sub(" ", cell.source) if cell.cell_type == "markdown" else ""


def is_reveal(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and cell.source.startswith(REVEAL)


def section_around(notebook_cells: list, index: int) -> range:
    """The cells of the section that holds cell ``index``: from its heading to the next one."""
    starts = [i for i, cell in enumerate(notebook_cells)
              if cell.cell_type == "markdown" and HEADING.search(cell.source)]
    start = max((i for i in starts if i <= index), default=0)
    end = min((i for i in starts if i > index), default=len(notebook_cells))
    return range(start, end)


def plain_sight_of_section(notebook_cells: list, index: int) -> str:
    """Everything the reader sees in the markdown of the section asking question ``index``,
    before and after it, with the folds closed."""
    return "\n".join(in_plain_sight(notebook_cells[i]) for i in section_around(notebook_cells,
                                                                               index))


# ---- an answer, by its meaning ---------------------------------------------------------------

def words(number: int) -> str:
    """``number`` (0 to 9,999) in English words: 1425 -> "one thousand four hundred twenty five"."""
    if number < 20:
        return ONES[number]
    if number < 100:
        return TENS[number // 10] + ("" if number % 10 == 0 else " " + ONES[number % 10])
    if number < 1000:
        rest = number % 100
        return ONES[number // 100] + " hundred" + (" " + words(rest) if rest else "")
    rest = number % 1000
    return words(number // 1000) + " thousand" + (" " + words(rest) if rest else "")


def number_pattern(number: int) -> re.Pattern:
    """``number`` written with or without thousands separators (a comma, an underscore or any
    space), or as ``1425.0``; never as part of a longer number (``128_000`` is not 128)."""
    grouped = f"{number:,}"
    forms = {str(number), grouped} | {grouped.replace(",", sep) for sep in SEPARATORS}
    alternatives = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    return re.compile(rf"(?<![\d.,_])(?:{alternatives})(?:\.0+)?(?![\d]|[.,_]\d)")


def says_number(text: str, number: int) -> bool:
    """Whether ``text`` states ``number`` in digits, in any grouping, or in words."""
    if number_pattern(number).search(text):
        return True
    if number >= 10_000:
        return False
    spelled = re.sub(r"[-\s]+", " ", text.casefold()).replace(" and ", " ")
    return re.search(rf"\b{words(number)}\b", spelled) is not None


def says_ids_in_order(text: str, ids: tuple[str, ...]) -> bool:
    """Whether ``text`` lists ``ids`` one after the other (quoted, in backticks, with commas or
    an "and" between), as an answer would."""
    between = r"[\s`'\",()\[\]]*(?:and\s+|then\s+)?[\s`'\"]*"
    return re.search(r"(?<![\w-])" + between.join(re.escape(i) for i in ids) + r"(?![\w-])",
                     text) is not None


@dataclass(frozen=True)
class Answer:
    """What answers one question: numbers, runs of ids and printed lines."""

    numbers: tuple[int, ...] = ()
    runs: tuple[tuple[str, ...], ...] = ()
    lines: tuple[str, ...] = ()

    def found_in(self, text: str) -> list[str]:
        said = [str(n) for n in self.numbers if says_number(text, n)]
        said += [" ".join(run) for run in self.runs if says_ids_in_order(text, run)]
        flat = " ".join(text.split())
        said += [line for line in self.lines if line in flat]
        return said


# ---- lessons 01-05: each predict question's answer, recomputed -------------------------------

def _first_budget(kept) -> int:
    return next(b for b in range(602) if kept(pack_state(chat_parts(), greedy, b).taken))


def _runs(budgets: list[int]) -> list[tuple[int, int]]:
    """Consecutive budgets as (first, last) stretches."""
    return [(b, next(e for e in budgets[budgets.index(b):] if e + 1 not in budgets))
            for b in budgets if b - 1 not in budgets]


def warranty_skipped_stretches() -> list[tuple[int, int]]:
    """Budgets at which chunk-warranty is skipped while a part after it gets in."""
    parts = chat_parts()
    later = {part["id"] for part in parts[4:]}
    assert parts[3]["id"] == "chunk-warranty"
    return _runs([b for b in range(602) if (taken := set(pack_state(parts, greedy, b).taken))
                  and "chunk-warranty" not in taken and later & taken])


def fewer_parts_for_more_budget() -> list[tuple[int, int, int]]:
    """(budget, parts kept one token below, parts kept at it) wherever one more token keeps
    fewer parts of the Larkspur request."""
    kept = [len(pack_state(chat_parts(), greedy, b).taken) for b in range(602)]
    return [(b, kept[b - 1], kept[b]) for b in range(1, 602) if kept[b] < kept[b - 1]]


def agreeing_stretches() -> list[tuple[int, int]]:
    """Where greedy and stop_at_first_miss agree on big_first_parts(), between 12 and 659."""
    parts = big_first_parts()
    return _runs([b for b in range(12, 660) if greedy(parts, b) == stop_at_first_miss(parts, b)])


def _l01_three() -> Answer:
    three = [{"id": "system", "tokens": 240}, {"id": "file-excerpt", "tokens": 1150},
             {"id": "question", "tokens": 35}]
    state = pack_state(three, greedy, 2_000)
    return Answer(numbers=(state.used, state.remaining))


def _l01_slider() -> Answer:
    return Answer(numbers=(_first_budget(bool),
                           _first_budget(lambda t: {"system", "turn-latest"} <= set(t)),
                           _first_budget(lambda t: "chunk-warranty" in t)))


def _l02_three() -> Answer:
    three = [{"id": "sys", "tokens": 100}, {"id": "huge", "tokens": 80},
             {"id": "small", "tokens": 10}]
    packed = [greedy(three, budget) for budget in (130, 180)]
    return Answer(numbers=(packed[0].used,),  # packed[1] uses 180, the budget the question gives
                  runs=tuple(tuple(p.taken) for p in packed))


def _l02_slider() -> Answer:
    ends = {n for stretch in warranty_skipped_stretches() for n in stretch}
    drops = {n for budget, _, _ in fewer_parts_for_more_budget() for n in (budget - 1, budget)}
    return Answer(numbers=tuple(sorted((ends | drops) - {428})))  # 428: lesson 01's answer


def _l03_slider() -> Answer:
    stretches = agreeing_stretches()
    ends = sorted({n for stretch in stretches for n in stretch})
    return Answer(numbers=(sum(last - first + 1 for first, last in stretches), *ends),
                  runs=(tuple(greedy(big_first_parts(), 50).taken),))


def _l03_request() -> Answer:
    request = [{"id": "system", "tokens": 50}, {"id": "chunk-a", "tokens": 300},
               {"id": "chunk-b", "tokens": 40}, {"id": "chunk-c", "tokens": 30},
               {"id": "memory", "tokens": 90}]
    packed = greedy(request, 200)
    return Answer(numbers=(packed.used,), runs=(tuple(packed.taken),))


def _l04_report() -> Answer:
    agent = [{"id": "system", "tokens": 120}, {"id": "tool-log", "tokens": 300},
             {"id": "turn-latest", "tokens": 40}, {"id": "memory", "tokens": 90}]
    result = report(agent, 250, greedy)  # it uses 250, the budget the question gives
    return Answer(runs=(tuple(result["included"]),),
                  lines=(f"'used': {result['used']}",))


def _l05_phone() -> Answer:
    s = "+44 20 7946 0958"
    return Answer(numbers=(count_tokens(s), len(s)),
                  lines=(f"says {estimate_tokens(s)};", f"chars/4 says {estimate_tokens(s)}"))


# The reveal cells of lessons 01-05, in order, and what answers each.
ANSWERS = {"01": [_l01_slider, _l01_three], "02": [_l02_three, _l02_slider],
           "03": [_l03_slider, _l03_request], "04": [_l04_report], "05": [_l05_phone]}
FAST = sorted(ANSWERS)


def reveals(path: Path) -> list[int]:
    return [i for i, cell in enumerate(cells(path)) if is_reveal(cell)]


@pytest.mark.parametrize("number", FAST)
def test_every_predict_answer_of_lessons_01_to_05_is_known_here(number):
    assert len(reveals(lesson(number).path)) == len(ANSWERS[number]), (
        f"lesson {number}: a %%reveal cell was added or removed; say here what answers it")


@pytest.mark.parametrize("number", FAST)
def test_no_answer_of_lessons_01_to_05_is_in_plain_sight(number):
    """Neither the section's unfolded markdown nor the reveal cell's own code says the answer."""
    notebook_cells = cells(lesson(number).path)
    shown = {}
    for index, answer in zip(reveals(lesson(number).path), ANSWERS[number], strict=True):
        seen = plain_sight_of_section(notebook_cells, index)
        said = answer().found_in(seen) + [f"in the reveal's code: {n}" for n in
                                          answer().numbers if says_number(
                                              notebook_cells[index].source, n)]
        if said:
            shown[notebook_cells[index].id] = said
    assert not shown, f"lesson {number}: answers in plain sight: {shown}"


# ---- the meaning test can fail: the forms that once slipped past an exact-string check -------

@pytest.mark.parametrize("written", [
    "what remains is 2,000 − 1,425 = **575**", "1425 and 575", "1 425", "1\u202f425",
    "1425.0", "1_425", "One thousand four hundred and twenty-five", "five hundred seventy-five"])
def test_a_number_is_found_in_any_of_its_forms(written):
    assert _l01_three().found_in(written)


@pytest.mark.parametrize("written", ["11,425", "1425.5", "21425", "2,000 − 1,424", "14 25",
                                     "1425_000"])
def test_a_longer_or_other_number_is_not_the_answer(written):
    assert not _l01_three().found_in(written)


def test_a_run_of_ids_is_found_however_it_is_quoted():
    answer = _l03_request()
    for written in ("`system`, `chunk-b` and `chunk-c`", "['system', 'chunk-b', 'chunk-c']",
                    "system, chunk-b, then chunk-c"):
        assert answer.found_in(written), written
    assert not answer.found_in("`system`, `chunk-a`, `chunk-b` and `chunk-c`")


def test_a_markdown_answer_under_the_reveal_is_caught_until_it_is_folded():
    """Lesson 01's old "### Answer" cell fails the check unfolded, and passes in a <details>."""
    notebook_cells = cells(lesson("01").path)
    index = reveals(lesson("01").path)[1]
    old = ("### Answer\n\nAll three parts fit, so `used` is the total cost, 240 + 1,150 + 35 = "
           "**1,425**, and what\nremains is 2,000 − 1,425 = **575**.")
    notebook_cells.insert(index + 1, nbformat.v4.new_markdown_cell(old))
    assert _l01_three().found_in(plain_sight_of_section(notebook_cells, index))
    notebook_cells[index + 1].source = f"<details><summary>Why</summary>\n\n{old}\n</details>"
    assert not _l01_three().found_in(plain_sight_of_section(notebook_cells, index))


# ---- every lesson: an answer comes only after its question, folded ---------------------------

@pytest.mark.parametrize("path", [one.path for one in COURSE.lessons], ids=lambda p: p.stem[:2])
def test_what_explains_a_reveal_waits_behind_its_prediction(path):
    """One mechanism in all ten lessons (issue 36): each ``%%reveal ID`` names its question in
    predictions.toml, which holds the explanation; no markdown after it explains anything."""
    from packlab.course.predictions import questions

    notebook_cells = cells(path)
    assert reveals(path), "no %%reveal predict cell"
    for index in reveals(path):
        first = notebook_cells[index].source.splitlines()[0].split()
        assert len(first) == 2 and first[1] in questions(), (
            f"{notebook_cells[index].id}: a reveal that names no question: {first}")
        after = notebook_cells[index + 1] if index + 1 < len(notebook_cells) else None
        assert after is None or "<details" not in after.source, (
            f"{after.id}: an explanation folded after the reveal, open without a prediction")


@pytest.mark.parametrize("path", [one.path for one in COURSE.lessons], ids=lambda p: p.stem[:2])
def test_no_markdown_is_headed_answer_unfolded(path):
    headed = [cell.id for cell in cells(path)
              if re.search(r"^#+ *answer", in_plain_sight(cell), re.M | re.I)]
    assert not headed, f"an answer heading in plain sight: {headed}"


# ---- no question is answered earlier in the course -------------------------------------------

def before(number: str, index: int) -> str:
    """Every cell a learner has read (markdown, opened folds, code) before cell ``index`` of
    lesson ``number``, from lesson 01 on."""
    texts = []
    for one in COURSE.lessons:
        notebook_cells = cells(one.path)
        if one.slug[:2] == number:
            texts += [cell.source for cell in notebook_cells[:index]]
            return "\n".join(texts)
        texts += [cell.source for cell in notebook_cells]
    raise AssertionError(f"no lesson {number}")


def question_index(number: str, asked: str) -> int:
    return next(i for i, cell in enumerate(cells(lesson(number).path)) if asked in cell.source)


def test_more_budget_fewer_parts_is_found_in_lesson_02_not_told_before():
    """Lesson 02's slider asks for a budget at which one token more keeps fewer parts: nothing
    earlier in the course names such a pair of budgets, or the idea."""
    drops = fewer_parts_for_more_budget()
    assert (428, 8, 4) in drops and len(drops) == 4, drops
    read = before("02", question_index("02", "one token more keeps *fewer* parts"))
    told = [(b - 1, b) for b, _, _ in drops if says_number(read, b - 1) and says_number(read, b)]
    assert not told, f"the budgets {told} are both named before lesson 02 asks"
    flat = " ".join(read.split()).casefold()
    assert "fewer parts" not in flat and "more budget" not in flat


def test_the_idea_is_taught_once_and_pointed_back_to():
    """"More budget can keep fewer parts" is said in lesson 02 only; lesson 04 points back."""
    saying = re.compile(r"more budget,? (can )?keeps? fewer parts|less budget, more parts", re.I)
    where = [one.slug[:2] for one in COURSE.lessons if one.slug[:2] <= "05" and any(
        saying.search(" ".join(cell.source.split())) for cell in cells(one.path))]
    assert where == ["02", "04"], where
    pointer = next(cell.source for cell in cells(lesson("04").path)
                   if saying.search(" ".join(cell.source.split())))
    assert "lesson 02" in " ".join(pointer.split())


def test_lesson_03_does_not_print_its_slider_answer_before_asking():
    """Lesson 03 once asked how many tokens the buggy packer uses from 500 down to 100, after
    printing 90 at 400. Its question now asks where the packers agree: nothing before says it."""
    stretches = agreeing_stretches()
    assert stretches == [(60, 71), (90, 101), (510, 521), (528, 539), (553, 580), (595, 610),
                         (617, 652)]
    read = before("03", question_index("03", "Find the lowest budget in that range"))
    assert not says_number(read, sum(b - a + 1 for a, b in stretches))
    told = [f"{a}-{b}" for a, b in stretches
            if re.search(rf"(?<!\d){a}\s*(?:to|-|–|,)\s*{b}(?!\d)", read)]
    assert not told, told


# ---- the slow check: every lesson, answers taken from what the reveal prints -----------------

NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")


def printed_numbers(text: str) -> set[int]:
    """Whole numbers of two digits or more in ``text`` (1,425 read as 1425; 0.25 left out)."""
    found = set()
    for match in NUMBER.findall(text):
        if "." in match:
            continue
        digits = match.replace(",", "")
        if digits.isdigit() and int(digits) >= 10:
            found.add(int(digits))
    return found


def folded_text(cell) -> str:
    """What a %%reveal cell prints, shown once its prediction is committed (sealed in its page),
    as text."""
    from folds import sealed_answer

    printed = sealed_answer(cell).split("</summary>", 1)[1]  # the output, not the explanation
    return html.unescape(re.sub(r"<[^>]+>", " ", printed))


@pytest.mark.slow
@pytest.mark.parametrize("one", COURSE.lessons, ids=lambda one: one.slug[:2])
def test_no_printed_answer_is_in_plain_sight(executed_lessons, one):
    """For every lesson: each number the fold prints (and its code does not), and each long line
    it prints, is nowhere in the unfolded markdown of the question's section."""
    notebook_cells = executed(executed_lessons, one).cells
    shown = {}
    for index, cell in enumerate(notebook_cells):
        if not is_reveal(cell):
            continue
        text = folded_text(cell)
        lines = tuple(" ".join(line.split()) for line in text.splitlines()
                      if len(line.strip()) > 12)
        answer = Answer(numbers=tuple(sorted(printed_numbers(text)
                                             - printed_numbers(cell.source))), lines=lines)
        said = answer.found_in(plain_sight_of_section(notebook_cells, index))
        if said:
            shown[cell.id] = said
    assert not shown, f"{one.slug}: answers in plain sight: {shown}"


@pytest.mark.parametrize("number", FAST)
def test_no_earlier_text_lists_an_answers_ids(number):
    """Nothing the learner read before a question's section (earlier lessons and sections, folds
    opened, code included) lists the ids the answer lists, in its order, or prints its lines.
    (Its numbers are often data given earlier, such as a part's cost: the checks above test the
    ones that were once given away.)"""
    path = lesson(number).path
    notebook_cells = cells(path)
    told = {}
    for index, make in zip(reveals(path), ANSWERS[number], strict=True):
        answer = make()
        read = before(number, section_around(notebook_cells, index).start)
        said = Answer(runs=answer.runs, lines=answer.lines).found_in(read)
        if said:
            told[notebook_cells[index].id] = said
    assert not told, f"lesson {number}: answers told before their question: {told}"
