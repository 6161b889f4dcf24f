"""The course's sliders: ipywidgets' own, with the value a page sets not echoed back to it.

ipywidgets 8 answers every value a page sets with an ``echo_update`` message, so that several views
of one widget agree. Each of our sliders has one view, and the echo is one more message between the
kernel and the page for every key press, ahead of the picture the learner waits for (about 4 ms a
step in benchmarks/slider.py). ``echo_update=False`` is ipywidgets' own switch for one trait.
"""

import ipywidgets as widgets
from traitlets import CInt, Int


class IntSlider(widgets.IntSlider):
    """An ``ipywidgets.IntSlider`` whose value is not echoed back to the page that set it."""

    value = CInt(0, help="Int value").tag(sync=True, echo_update=False)


class SelectionSlider(widgets.SelectionSlider):
    """An ``ipywidgets.SelectionSlider`` whose index is not echoed back to the page that set it."""

    index = Int(None, help="Selected index", allow_none=True).tag(sync=True, echo_update=False)
