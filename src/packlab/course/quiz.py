"""Multiple-choice checks for the lessons: every option, right or wrong, explains itself."""

from __future__ import annotations

import html

import ipywidgets as widgets

from packlab.views import static


class MultipleChoice(widgets.VBox):
    """Radio buttons, a Check button, and the explanation of whichever option was picked."""

    def __init__(self, question: str, options: dict[str, str], answer: str):
        if answer not in options:
            raise ValueError(f"the answer {answer!r} is not one of the options")
        self.options = options
        self.answer = answer
        self.choice = widgets.RadioButtons(options=list(options), value=None,
                                           layout=widgets.Layout(width="auto"))
        self.button = widgets.Button(description="Check", button_style="primary")
        self.feedback = widgets.HTML()
        self.button.on_click(lambda _: self.check())
        title = widgets.HTML(f"<b>{html.escape(question)}</b>")
        super().__init__([title, self.choice, self.button, self.feedback])

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.multiple_choice(self))

    def check(self) -> bool | None:
        """Show the chosen option's explanation; return whether it was right (None if no pick)."""
        picked = self.choice.value
        if picked is None:
            self.feedback.value = "<i>Pick an option first.</i>"
            return None
        right = picked == self.answer
        verdict = "✓ Right." if right else "✗ Not quite."
        colour = "#166534" if right else "#b45309"
        self.feedback.value = (
            f"<p style='color:{colour}'><b>{verdict}</b> {html.escape(self.options[picked])}</p>"
        )
        return right


def multiple_choice(question: str, options: dict[str, str], answer: str) -> MultipleChoice:
    """A multiple-choice check: ``options`` maps each option to why it is right or wrong."""
    return MultipleChoice(question, options, answer)
