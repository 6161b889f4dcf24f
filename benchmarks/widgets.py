"""How fast the widgets answer: one slider step, and a whole drop curve (a script, not a test).

Run: .venv/bin/python benchmarks/widgets.py
Each figure has its own target; a learner's packer is called at every budget, ours are not.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from packlab.packing.curves import drop_curve, even_budgets
from packlab.packing.examples import random_parts
from packlab.packing.packers import Packer, greedy
from packlab.views.plots import DropCurvePlot
from packlab.views.widgets import budget_slider, drop_curve_view

RUNS = 7


def learners_greedy(parts, budget):
    """Greedy behind a function of its own, as a learner would write it: called at every budget."""
    return greedy(parts, budget)


def median_ms(action: Callable[[], object], runs: int = RUNS) -> float:
    """Median wall time of ``action`` in milliseconds, after one warm-up call."""
    action()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def slider_step(n: int = 1_000) -> float:
    """One slider step on ``n`` parts: re-pack with greedy, redraw, encode the PNG."""
    parts = random_parts(n, seed=1)
    view = budget_slider(parts, greedy)
    total = view.slider.max
    budgets = iter(range(total // 3, total, 997))

    def step() -> None:
        view.slider.value = next(budgets)

    return median_ms(step)


def curve(n: int = 10_000, count: int = 100, draw: bool = False, packer: Packer = greedy) -> float:
    """A drop curve over ``count`` budgets of ``n`` parts with ``packer``, optionally drawn too."""
    parts = random_parts(n, seed=2)
    budgets = even_budgets(parts, count)

    def run() -> None:
        points = drop_curve(parts, packer, budgets)
        if draw:
            DropCurvePlot(parts, points, points[len(points) // 2]).png()

    return median_ms(run, runs=5)


def curve_step(n: int = 10_000) -> float:
    """One slider step of the drop-curve view on ``n`` parts: move the marker, encode the PNG."""
    view = drop_curve_view(random_parts(n, seed=2), greedy)
    budgets = iter(view.slider.options[1::3] * 2)

    def step() -> None:
        view.slider.value = next(budgets)

    return median_ms(step)


def packer_alone(n: int = 10_000, count: int = 100) -> float:
    """The floor under any curve: ``greedy`` itself called at ``count`` budgets."""
    parts = random_parts(n, seed=2)
    budgets = even_budgets(parts, count)
    return median_ms(lambda: [greedy(parts, b) for b in budgets], runs=5)


def main() -> None:
    rows = [
        ("slider step, 1,000 parts (pack + draw + PNG)", slider_step(), 25),
        ("drop curve, 10,000 parts x 100 budgets", curve(), 20),
        ("drop curve, same, a learner's packer (100 calls)", curve(packer=learners_greedy), 100),
        ("drop curve + new plot + PNG, same", curve(draw=True), 100),
        ("drop-curve view slider step, 10,000 parts", curve_step(), 100),
        ("(floor) greedy alone, 10,000 parts x 100 budgets", packer_alone(), None),
    ]
    print(f"{'measurement':<50} {'median ms':>10} {'target':>8}  verdict")
    for label, ms, target in rows:
        if target is None:
            print(f"{label:<50} {ms:>10.1f} {'-':>8}")
            continue
        verdict = "PASS" if ms <= target else "OVER"
        print(f"{label:<50} {ms:>10.1f} {target:>8.0f}  {verdict}")


if __name__ == "__main__":
    main()
