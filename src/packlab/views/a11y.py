"""Accessible names for the live views: each slider named by its visible label, each plot an alt.

ipywidgets gives a slider's handle no accessible name (its "budget" label is not linked to it)
and an Image widget no ``alt``. `describe` adds to a view one hidden anywidget (a11y.js) that
links them in the page, from the one place every view passes through when it is shown: its
static rendering (packlab.views.static).
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import ipywidgets as widgets
import traitlets


class Accessible(anywidget.AnyWidget):
    """A hidden child of a view: names its sliders by their labels and gives its plots ``alt``."""

    _esm = Path(__file__).with_name("a11y.js")
    alt = traitlets.Unicode("").tag(sync=True)


def describe(view: widgets.Box, alt: str) -> None:
    """Make ``view``'s sliders and plot images accessible, ``alt`` saying what its plot shows."""
    for child in view.children:
        if isinstance(child, Accessible):
            child.alt = alt
            return
    view.children = (*view.children, Accessible(alt=alt))
