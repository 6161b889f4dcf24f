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

Where a single press's time goes, as medians per slider: "to kernel" (from the keydown until the
kernel starts on the slider's new value: the page, the server, and any frame the kernel was
drawing ahead meanwhile), "kernel" (from then until every update left: the view's frame, drawn or
from memory, and its messages), "back" (until the image's ``src`` changed in the page; of it,
"wire" until the picture's message reached the page's websocket, the rest JupyterLab's) and
"browser" (until the picture was decoded and painted). The kernel logs its side (wall-clock
times, which the page's ``performance.timeOrigin`` shares) to a file beside the notebook;
"drawn" counts the presses whose frame was not ready, "ms/frame" is the median time the kernel
took to draw one frame (at a press or ahead of one: in the page's kernel, alongside the rest),
and "alone" the same drawn in this script's own process, one frame after another with nothing
else running in it: the figure load distorts least. Finer, from the same logs: "page out" (from
the keydown until the page's websocket sends the new value), "server in" (until the kernel's main
thread takes the message: the server, zmq and the kernel's shell channel thread), "server out"
(from the kernel's IOPub thread handing the picture to zmq until it reaches the page's websocket:
the server and the browser's network side), "decode" (from the image's new ``src`` until it is
decoded, with whatever else the page's main thread does meanwhile) and "paint" (until the next
frame was painted).

The machine's load average (os.getloadavg) is printed with the results: on a busy machine every
figure is larger. Uses the browser helpers of tests/browser.py (Debian's chromium, Playwright).

Run: .venv/bin/python benchmarks/slider.py [--steps N] [--burst N]
"""

from __future__ import annotations

import argparse
import json
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

KERNEL_LOG = "slider-bench-log.jsonl"
# Times the kernel's side of each step: a slider's new value from the page (Widget.set_state),
# every frame not kept when asked for (Frames.get: at a press, or drawn ahead before pictures
# were drawn in the background), and every picture drawn (Frames._draw, where there is one).
# Wall-clock milliseconds.
TIMING = f'''\
import json, time
import ipywidgets
from packlab.views.widgets import Frames

def _log(**entry):
    with open({KERNEL_LOG!r}, "a") as out:
        out.write(json.dumps(entry) + "\\n")

def _timed(method, kind, when=lambda *args: True):
    def timed(self, *args):
        if not when(self, *args):
            return method(self, *args)
        start = time.time() * 1000
        try:
            return method(self, *args)
        finally:
            _log(kind=kind, start=start, end=time.time() * 1000)
    return timed


Frames.get = _timed(Frames.get, "missed", lambda self, value: value not in self)
if hasattr(Frames, "_draw"):  # every picture, at a press or drawn ahead in the background
    Frames._draw = _timed(Frames._draw, "picture")
ipywidgets.Widget.set_state = _timed(ipywidgets.Widget.set_state, "step",
                                     lambda self, data: "value" in data or "index" in data)

import ipykernel.iostream, ipykernel.kernelbase
_dispatch_shell = ipykernel.kernelbase.Kernel.dispatch_shell
async def _dispatch(self, msg, *args, **kwargs):  # a shell message reaches the main thread
    _log(kind="shell", start=time.time() * 1000, end=time.time() * 1000)
    return await _dispatch_shell(self, msg, *args, **kwargs)
ipykernel.kernelbase.Kernel.dispatch_shell = _dispatch
_really_send = ipykernel.iostream.IOPubThread._really_send
def _sent(self, msg, *args, **kwargs):  # IOPub's thread hands a large message (a picture) to zmq
    start = time.time() * 1000
    _really_send(self, msg, *args, **kwargs)
    if sum(memoryview(part).nbytes for part in msg) > 4096:
        _log(kind="sent", start=start, end=time.time() * 1000)
ipykernel.iostream.IOPubThread._really_send = _sent
'''

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
    const log = {keys: [], shown: [], changed: [], decoded: [], origin: performance.timeOrigin};
    view.__bench = log;
    view.addEventListener('keydown', () => log.keys.push(performance.now()), true);
    new MutationObserver(async () => {
        const src = img.src;
        const changed = performance.now();
        try { await img.decode(); } catch (error) { /* replaced before it decoded */ }
        if (img.src !== src) return;
        const decoded = performance.now();
        requestAnimationFrame(() => setTimeout(() => {
            log.changed.push(changed);
            log.decoded.push(decoded);
            log.shown.push(performance.now());
        }, 0));
    }).observe(img, {attributes: true, attributeFilter: ['src']});
}"""
TIMES = "(view) => view.__bench"
# Before JupyterLab loads: note when the page sends a websocket message and when each large one (a
# picture) arrives.
ARRIVALS = """(() => {
    const Native = window.WebSocket;
    window.__arrivals = [];
    window.__sends = [];
    window.WebSocket = class extends Native {
        send(data) {
            window.__sends.push(performance.now());
            return super.send(data);
        }
        constructor(...args) {
            super(...args);
            this.addEventListener('message', (event) => {
                const size = event.data.byteLength ?? event.data.size ?? event.data.length;
                if (size > 4096) window.__arrivals.push(performance.now());
            });
        }
    };
})();"""
COUNT = "(view) => view.__bench.shown.length"
LAST_STEP = "([view, n]) => view.__bench.shown[n] - view.__bench.keys[view.__bench.keys.length - 1]"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def notebook() -> nbformat.NotebookNode:
    cells = [nbformat.v4.new_code_cell(TIMING + SETUP)]
    cells += [nbformat.v4.new_code_cell(source) for _, source, _ in VIEWS]
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})


def open_and_run(context, lab):
    page = context.new_page()
    page.add_init_script(ARRIVALS)
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


def step_once(page, view, key: str) -> tuple[float, int, int] | None:
    """Press ``key`` once: ms from the keydown to the new picture painted, and the indexes of
    that keydown and that picture in the page's log (None: no picture came)."""
    handle = view.element_handle()
    seen = page.evaluate(COUNT, handle)
    page.keyboard.press(key)
    try:
        page.wait_for_function(f"(view) => view.__bench.shown.length > {seen}", arg=handle,
                               timeout=WAIT_MS)
    except Exception:  # noqa: BLE001 - Playwright's timeout: this step drew nothing new
        return None
    keys = page.evaluate("(view) => view.__bench.keys.length", handle)
    return page.evaluate(LAST_STEP, [handle, seen]), keys - 1, seen


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
    times, new, missed, pairs = [], [], 0, []
    for index in range(steps):
        forward = index < steps // 2  # out to budgets not shown yet, then back over them
        step = step_once(page, view, keys[0] if forward else keys[1])
        if step is None:
            missed += 1
        else:
            times.append(step[0])
            pairs.append(step[1:])
            if forward:
                new.append(step[0])
        page.wait_for_timeout(PAUSE_MS)
    log = page.evaluate(TIMES, view.element_handle())
    origin = log["origin"]
    arrivals = page.evaluate("() => window.__arrivals")
    sends = page.evaluate("() => window.__sends")
    presses = []
    for k, s in pairs:
        key = log["keys"][k]
        came = [t for t in arrivals if key < t <= log["changed"][s]]
        went = [t for t in sends if key <= t <= log["changed"][s]]
        presses.append({"key": origin + key, "changed": origin + log["changed"][s],
                        "sent": origin + went[0] if went else None,
                        "shown": origin + log["shown"][s], "decoded": origin + log["decoded"][s],
                        "arrived": origin + came[-1] if came else None})
    burst_ms, settled = held(page, view, keys[1], burst) if burst else (None, True)
    return {"label": label, "times": times, "new": new, "missed": missed, "burst": burst_ms,
            "settled": settled, "presses": presses}


def kernel_entries(folder: Path) -> list[dict]:
    """The kernel's log of steps and frames drawn (see TIMING)."""
    path = folder / KERNEL_LOG
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def split(row: dict, entries: list[dict]) -> dict:
    """Medians of where each single press's time went, from the page's and the kernel's logs."""
    steps = [e for e in entries if e["kind"] == "step"]
    missed = [e for e in entries if e["kind"] == "missed"]
    frames = [e for e in entries if e["kind"] == "picture"] or missed
    shells = [e for e in entries if e["kind"] == "shell"]
    sent = [e for e in entries if e["kind"] == "sent"]
    parts = {"to kernel": [], "kernel": [], "back": [], "wire": [], "browser": [],
             "page out": [], "server in": [], "server out": [], "decode": [], "paint": []}
    drawn = 0
    for press in row["presses"]:
        step = next((e for e in steps if e["start"] >= press["key"] - 1), None)
        if step is None or step["start"] > press["changed"]:
            continue
        parts["to kernel"].append(step["start"] - press["key"])
        parts["kernel"].append(step["end"] - step["start"])
        parts["back"].append(press["changed"] - step["end"])
        if press["arrived"] is not None:
            parts["wire"].append(press["arrived"] - step["end"])
        parts["browser"].append(press["shown"] - press["changed"])
        parts["decode"].append(press["decoded"] - press["changed"])
        parts["paint"].append(press["shown"] - press["decoded"])
        shell = next((e for e in shells if e["start"] >= press["key"] - 1), None)
        if press["sent"] is not None and shell is not None and shell["start"] <= step["start"]:
            parts["page out"].append(press["sent"] - press["key"])
            parts["server in"].append(shell["start"] - press["sent"])
        out = next((e for e in sent if e["start"] >= step["start"]), None)
        if out is not None and press["arrived"] is not None and out["start"] <= press["arrived"]:
            parts["server out"].append(press["arrived"] - out["end"])
        drawn += any(step["start"] <= f["start"] <= step["end"] for f in missed)
    first = row["presses"][0]["key"] if row["presses"] else 0
    last = row["presses"][-1]["shown"] if row["presses"] else 0
    costs = [f["end"] - f["start"] for f in frames if first <= f["start"] <= last]
    medians = {name: statistics.median(v) if v else float("nan") for name, v in parts.items()}
    return {**medians, "drawn": drawn, "frame": statistics.median(costs) if costs else float("nan")}


def kernel_side(draws: int) -> dict[str, float]:
    """Per slider, in this process (no browser): median ms of a frame at a budget not drawn
    before (the packing, the picture and its PNG, the summary), over ``draws`` budgets."""
    scope: dict = {}
    exec(SETUP, scope)  # noqa: S102 - this script's own notebook cell
    costs = {}
    for label, source, _ in VIEWS:
        view = eval(source, scope)  # noqa: S307 - this script's own cell
        owner = view if hasattr(view, "frames") else view.curve  # drop_reasons_view wraps one
        slider = owner.slider if hasattr(owner, "slider") else owner.budget
        values = (list(slider.options) if hasattr(slider, "options")
                  else list(range(slider.min, slider.max + 1)))
        fresh = [v for v in values[:: max(1, len(values) // draws)] if v not in owner.frames]
        times = []
        for value in fresh[:draws]:
            start = time.perf_counter()
            owner.frames.get(value)
            times.append((time.perf_counter() - start) * 1000)
        costs[label] = statistics.median(times)
    return costs


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
    print(f"\n{'where a press went (medians)':<28} {'to kernel':>9} {'kernel':>6} {'back':>5}"
          f" {'(wire)':>6} {'browser':>7} {'drawn':>6} {'ms/frame':>8} {'alone':>6}")
    for row in rows:
        if "split" in row:
            p = row["split"]
            print(f"{row['label']:<28} {p['to kernel']:>9.1f} {p['kernel']:>6.1f} {p['back']:>5.1f}"
                  f" {p['wire']:>6.1f} {p['browser']:>7.1f} {p['drawn']:>6} {p['frame']:>8.1f}"
                  f" {row.get('alone', float('nan')):>6.1f}")
    print(f"\n{'the same, finer (medians)':<28} {'page out':>8} {'server in':>9} {'server out':>10}"
          f" {'decode':>6} {'paint':>5}")
    for row in rows:
        if "split" in row:
            p = row["split"]
            print(f"{row['label']:<28} {p['page out']:>8.1f} {p['server in']:>9.1f}"
                  f" {p['server out']:>10.1f} {p['decode']:>6.1f} {p['paint']:>5.1f}")
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
    parser.add_argument("--draws", type=int, default=30,
                        help="new frames per slider drawn in this process, without a browser")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="packlab-slider-bench-") as folder:
        tmp = Path(folder)
        with lab_server(tmp) as lab, chromium() as context:
            nbformat.write(notebook(), lab.folder / NOTEBOOK)
            page = open_and_run(context, lab)
            rows = [measure(page, label, source, keys, args.steps, args.burst)
                    for label, source, keys in VIEWS]
            entries = kernel_entries(lab.folder)
    alone = kernel_side(args.draws)
    for row in rows:
        row["split"] = split(row, entries)
        row["alone"] = alone[row["label"]]
    show(rows, load_before, os.getloadavg())


if __name__ == "__main__":
    main()
