# attack: read a classmate's submitted notebook and run their answer
# defence: the class's submissions are not in the sandbox's filesystem
import json

NOTEBOOK = "{submitted}/honest/02-greedy-pack/02-greedy-pack.ipynb"

with open(NOTEBOOK) as handle:
    for cell in json.load(handle)["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "pack-answer":
            exec("".join(cell["source"]))
