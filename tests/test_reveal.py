"""Predict, then reveal: the ``%%reveal`` magic runs a cell and folds everything it showed.

The browser tests (test_browser_lab.py, test_browser_book.py) check the folded box in JupyterLab
(after Run All, reopened, untrusted) and in the built book; test_workshop.py in the slides.
"""

import html
import re

import nbformat
from IPython.core.interactiveshell import InteractiveShell
from IPython.testing.globalipapp import start_ipython

from packlab.course.kernels import notebook_client
from packlab.course.reveal import FOLDED, SUMMARY, Answer, run


def shell():
    start_ipython()  # once per process; later calls return None
    ipython = InteractiveShell.instance()
    # A kernel's formatter shows every mime type; a terminal's, plain text only.
    ipython.display_formatter.active_types = list(ipython.display_formatter.formatters)
    return ipython


def test_a_predict_cell_prints_its_output_and_last_value_folded():
    ipython = shell()
    ipython.user_ns["parts"] = [3, 4]
    assert run("print(sum(parts))\nlen(parts)", ipython.user_ns).text == "7\n2\n"
    folded = Answer("<7>")
    assert repr(folded) == FOLDED
    assert folded._repr_html_().startswith('<details class="packlab-reveal"')
    assert "&lt;7&gt;" in folded._repr_html_() and "<7>" not in folded._repr_html_()


def test_an_error_is_the_answer_not_a_traceback():
    assert run("1 / 0", {}).text == "ZeroDivisionError: division by zero\n"


def test_rich_outputs_and_stderr_are_folded_too():
    """Nothing a predict cell shows escapes the box: displayed HTML and pictures, warnings, and
    a last value shown the way IPython shows it (pretty-printed)."""
    ipython = shell()
    source = ("import sys\nfrom IPython.display import HTML, Image, display\n"
              "display(HTML('<b>bold 41</b>'))\n"
              "print('to stderr 43', file=sys.stderr)\n"
              "{'key': list(range(30))}")
    answer = run(source, ipython.user_ns, ipython)
    page = answer._repr_html_()
    assert "<b>bold 41</b>" in page and "to stderr 43" in page
    assert "'key': [0,\n" in answer.text  # IPython's pretty printer, not repr()
    png = run("from IPython.display import Image\nImage(data=pixel)",
              {"pixel": PNG}, ipython)._repr_html_()
    assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="[^"]+"', png)


def test_the_cell_shows_one_folded_output_and_nothing_else():
    """Run as a notebook (nbclient, a real kernel): the cell's outputs are one display_data whose
    HTML is a closed <details> box and whose plain text is the placeholder."""
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%load_ext packlab.course.reveal"),
        nbformat.v4.new_code_cell("%%reveal\nprint(6 * 7)\n'the end'"),
    ])
    notebook_client(notebook, timeout=120, kernel_name="python3").execute()
    outputs = notebook.cells[1].outputs
    assert [o.output_type for o in outputs] == ["display_data"], outputs
    data = outputs[0].data
    assert data["text/plain"] == FOLDED
    page = data["text/html"]
    assert page.startswith("<details") and " open" not in page.split(">")[0]
    assert f">{SUMMARY}</summary>" in page
    assert html.unescape(page).split("</summary>")[1].count("42\n'the end'") == 1


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201b5b1a4a20000000049454e44ae426082")


def test_the_slides_keep_the_answer_folded(tmp_path):
    """`make slides` exports executed lessons with nbconvert's reveal template: each %%reveal
    output reaches the deck as its closed <details> box, the answer only inside it."""
    from packlab.course import slides

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## Predict"),
        nbformat.v4.new_code_cell("%load_ext packlab.course.reveal"),
        nbformat.v4.new_code_cell("%%reveal\nprint('slide answer', 6 * 7)"),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    notebook_client(notebook, timeout=120, kernel_name="python3").execute()
    deck = slides.export(notebook, "reveal", tmp_path, slides.write_template(tmp_path / "t"))
    page = deck.read_text(encoding="utf-8")
    boxes = re.findall(r"<details[^>]*>.*?</details>", page, re.S)
    assert len(boxes) == 1 and " open" not in boxes[0].split(">")[0], boxes
    assert "slide answer 42" in boxes[0]
    assert page.count("slide answer 42") == 1, "the answer shows outside its box"


def test_the_student_install_holds_the_magic_a_lesson_loads(tmp_path):
    """A lesson loads the magic with %load_ext, not an import: the student install, which holds
    only the modules the notebooks import, must count it too."""
    from packlab.course.student import notebook_imports

    path = tmp_path / "lesson.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%load_ext packlab.course.reveal")]), path)
    assert "packlab.course.reveal" in notebook_imports([path])
