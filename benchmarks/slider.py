"""How fast a slider answers a hand, as a person sees it (a script, not a test).

Starts `make lab`'s server (`packlab lab`, a fresh workspace), opens a notebook of the course's
sliders in headless Chromium — lesson 01's `budget_slider`, lesson 04's `drop_curve_view`,
lesson 07's `drop_reasons_view`, lesson 10's `turn_view`, and `budget_slider(parts,
packer=pack)` on a learner's own `pack` — runs it, and presses keys on each slider's handle.

Each step is timed inside the page, from the ``keydown`` to the new picture on screen: a
MutationObserver sees the image's ``src`` change, waits for the image to decode, then for the
next frame to be painted. Two ways of pressing:
- one press at a time, as a hand taps an arrow key (the next press after the picture and a
  short pause): ``--steps`` presses, half of them out to budgets not shown before ("new"),
  half of them back; median and 95th percentile of all, and of the new ones;
- a held key: ``--burst`` presses 30 ms apart (a keyboard's auto-repeat), timed from the last
  press to the picture of the final budget (checked against the slider's readout).

The machine's load average (os.getloadavg) is printed with the results: on a busy machine every
figure is larger. Uses the browser helpers of tests/browser.py (Debian's chromium, Playwright).

Run: .venv/bin/python benchmarks/slider.py [--steps N] [--burst N]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from browser import ALL_RUN, NOTEBOOK_READY, chromium, lab_server  # noqa: E402

NOTEBOOK = "slider-bench.ipynb"
PAUSE_MS = 120  # between single presses: a hand, not a machine
REPEAT_MS = 30  # a keyboard's auto-repeat interval
WAIT_MS = 10_000  # a step that shows nothing new in this long is counted as "no picture"

SETUP = '''\
from packlab.packing.examples import chat_parts, docs_corpus
from packlab.views.conversation import turn_view
from packlab.views.reasons import drop_reasons_view
from packlab.views.widgets import budget_slider, drop_curve_view

# Lesson 07's support request: its parts with the lesson's priorities.
priority = {"system": 100, "turn-latest": 90, "tool-order-lookup": 80, "chunk-warranty": 70,
            "chunk-refunds": 60, "turn-previous": 40, "chunk-shipping": 30,
            "chunk-tent-care": 20, "memory-customer": 10}
request = [{**part, "priority": priority[part["id"]]} for part in chat_parts()]


def pack(parts, budget):
    """A learner's greedy packer, as exercise 02 asks for it."""
    chosen, used = [], 0
    for part in parts:
        if used + part["tokens"] <= budget:
            chosen.append(part["id"])
            used += part["tokens"]
    return chosen
'''

# (label, the cell that shows the view, the key that moves it one step each way)
VIEWS = [
    ("lesson 01 budget_slider", "budget_slider(chat_parts())", ("PageDown", "PageUp")),
    ("lesson 04 drop_curve_view", "drop_curve_view(docs_corpus(30))", ("ArrowLeft", "ArrowRight")),
    ("lesson 07 drop_reasons_view", "drop_reasons_view(request)", ("ArrowLeft", "ArrowRight")),
    ("lesson 10 turn_view", "turn_view(budget=400)", ("ArrowRight", "ArrowLeft")),
    ("your own pack", "budget_slider(chat_parts(), packer=pack)", ("PageDown", "PageUp")),
]

# Records every keydown and every picture shown (decoded, then painted) of one view's image.
WATCH = """(view) => {
    const img = view.querySelector('img.widget-image');
    const log = {keys: [], shown: []};
    view.__bench = log;
    view.addEventListener('keydown', () => log.keys.push(performance.now()), true);
    new MutationObserver(async () => {
        const src = img.src;
        try { await img.decode(); } catch (error) { /* replaced before it decoded */ }
        if (img.src !== src) return;
        requestAnimationFrame(() => setTimeout(() => log.shown.push(performance.now()), 0));
    }).observe(img, {attributes: true, attributeFilter: ['src']});
}"""
COUNT = "(view) => view.__bench.shown.length"
LAST_STEP = "([view, n]) => view.__bench.shown[n] - view.__bench.keys[view.__bench.keys.length - 1]"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def notebook() -> nbformat.NotebookNode:
    cells = [nbformat.v4.new_code_cell(SETUP)]
    cells += [nbformat.v4.new_code_cell(source) for _, source, _ in VIEWS]
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})


def open_and_run(context, lab):
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(lab.url(f"/lab/tree/{NOTEBOOK}"))
    page.wait_for_function(NOTEBOOK_READY, arg=len(VIEWS) + 1, timeout=120_000)
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").click(
        position={"x": 5, "y": 5})
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-item").filter(has=page.locator(
        ".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$"))).click()
    page.wait_for_function(ALL_RUN, timeout=300_000)  # every cell ran: the kernel is free
    return page


def view_of(page, source: str):
    cell = page.locator(".jp-CodeCell").filter(has_text=source).last
    view = cell.locator(".jp-OutputArea-output .widget-vbox").first
    view.locator(".widget-slider .noUi-handle").first.wait_for(timeout=180_000)
    view.locator("img.widget-image").first.wait_for(timeout=180_000)
    return view


def readout(view) -> str:
    return view.locator(".widget-slider .widget-readout").first.text_content().strip()


def step_once(page, view, key: str) -> float | None:
    """Press ``key`` once; ms from the keydown to the new picture painted (None: none came)."""
    handle = view.element_handle()
    seen = page.evaluate(COUNT, handle)
    page.keyboard.press(key)
    try:
        page.wait_for_function(f"(view) => view.__bench.shown.length > {seen}", arg=handle,
                               timeout=WAIT_MS)
    except Exception:  # noqa: BLE001 - Playwright's timeout: this step drew nothing new
        return None
    return page.evaluate(LAST_STEP, [handle, seen])


def held(page, view, key: str, presses: int) -> tuple[float | None, bool]:
    """``presses`` presses ``REPEAT_MS`` apart; ms from the last to the final picture, and
    whether the view's summary and picture settled on the slider's final value."""
    handle = view.element_handle()
    for _ in range(presses):
        page.keyboard.press(key)
        page.wait_for_timeout(REPEAT_MS)
    final = readout(view)
    deadline = time.monotonic() + WAIT_MS / 1000
    # The picture of the final value is the last one: wait until nothing new comes for 1 s.
    last, quiet_since = page.evaluate(COUNT, handle), time.monotonic()
    while time.monotonic() < deadline:
        page.wait_for_timeout(100)
        now = page.evaluate(COUNT, handle)
        if now != last:
            last, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since > 1.0:
            break
    ms = page.evaluate(
        "(view) => view.__bench.shown[view.__bench.shown.length - 1]"
        " - view.__bench.keys[view.__bench.keys.length - 1]", handle)
    return ms, readout(view) == final


def measure(page, label: str, source: str, keys: tuple[str, str], steps: int, burst: int):
    view = view_of(page, source)
    view.scroll_into_view_if_needed()
    page.evaluate(WATCH, view.element_handle())
    view.locator(".widget-slider .noUi-handle").first.focus()
    times, new, missed = [], [], 0
    for index in range(steps):
        forward = index < steps // 2  # out to budgets not shown yet, then back over them
        ms = step_once(page, view, keys[0] if forward else keys[1])
        if ms is None:
            missed += 1
        else:
            times.append(ms)
            if forward:
                new.append(ms)
        page.wait_for_timeout(PAUSE_MS)
    burst_ms, settled = held(page, view, keys[1], burst) if burst else (None, True)
    return {"label": label, "times": times, "new": new, "missed": missed, "burst": burst_ms,
            "settled": settled}


def show(rows: list[dict], load_before, load_after) -> None:
    every = [t for row in rows for t in row["times"]]
    print(f"{'slider':<28} {'steps':>5} {'median':>6} {'p95':>5} {'min':>5} {'max':>6}"
          f" {'new: median':>11} {'p95':>5} {'held key':>9}")
    total = {"label": "all", "times": every, "new": [t for row in rows for t in row["new"]],
             "burst": None, "settled": True}
    for row in [*rows, total]:
        t, n = row["times"], row["new"]
        held_ms = "" if row["burst"] is None else f"{row['burst']:.0f} ms"
        if not row["settled"]:
            held_ms += " NOT FINAL"
        print(f"{row['label']:<28} {len(t):>5} {statistics.median(t):>6.0f} "
              f"{percentile(t, 0.95):>5.0f} {min(t):>5.0f} {max(t):>6.0f} "
              f"{statistics.median(n):>11.0f} {percentile(n, 0.95):>5.0f} {held_ms:>9}")
    missed = sum(row["missed"] for row in rows)
    print(f"(ms from key press to the new picture painted; 'new': the first half of the steps, "
          f"to budgets not shown before; {missed} presses drew nothing new)")
    print("load average (1, 5, 15 min): before " + ", ".join(f"{x:.2f}" for x in load_before)
          + "; after " + ", ".join(f"{x:.2f}" for x in load_after)
          + f"; {os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="single presses per slider")
    parser.add_argument("--burst", type=int, default=10, help="presses of the held key (0: none)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="packlab-slider-bench-") as folder:
        tmp = Path(folder)
        with lab_server(tmp) as lab, chromium() as context:
            nbformat.write(notebook(), lab.folder / NOTEBOOK)
            page = open_and_run(context, lab)
            rows = [measure(page, label, source, keys, args.steps, args.burst)
                    for label, source, keys in VIEWS]
    show(rows, load_before, os.getloadavg())


if __name__ == "__main__":
    main()
