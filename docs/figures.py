"""Draw the pictures the README shows (run: .venv/bin/python docs/figures.py)."""

from __future__ import annotations

from pathlib import Path

from packlab.packing.examples import big_first_parts, chat_parts, docs_corpus
from packlab.views.widgets import break_vs_continue, budget_slider, drop_curve_view

HERE = Path(__file__).resolve().parent


def main() -> None:
    views = {
        "budget-slider.png": budget_slider(chat_parts(), budget=400),
        "drop-curve.png": drop_curve_view(docs_corpus(30)),
        "break-vs-continue.png": break_vs_continue(big_first_parts(), budget=400),
    }
    for name, view in views.items():
        (HERE / name).write_bytes(bytes(view.image.value))
        print("wrote", HERE / name)


if __name__ == "__main__":
    main()
