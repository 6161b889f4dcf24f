"""Predict, then reveal: the ``%%reveal`` magic runs a cell and folds what it printed."""

from IPython.testing.globalipapp import start_ipython

from packlab.course.reveal import FOLDED, Answer, run


def test_a_predict_cell_prints_its_output_and_last_value_folded():
    shell = start_ipython()
    shell.run_line_magic("load_ext", "packlab.course.reveal")
    shell.user_ns["parts"] = [3, 4]
    assert run("print(sum(parts))\nlen(parts)", shell.user_ns) == "7\n2\n"
    folded = Answer("<7>")
    assert repr(folded) == FOLDED
    assert folded._repr_html_().startswith('<details class="packlab-reveal"><summary>')
    assert "&lt;7&gt;" in folded._repr_html_() and "<7>" not in folded._repr_html_()


def test_an_error_is_the_answer_not_a_traceback():
    assert run("1 / 0", {}) == "ZeroDivisionError: division by zero\n"
