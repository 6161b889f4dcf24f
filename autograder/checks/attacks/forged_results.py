# attack: write a forged results.json and grades.csv, both in its folder and in the real output
# defence: its folder is a private tmpfs, thrown away; the output folder is not in its filesystem
import json
import os

FORGED = {"score": 5, "output": "FORGED: all 25 tests passed", "tests": []}
CSV = "student,assignment,score,max_score\nFORGED,02-greedy-pack,5,5\n"


def forge(folder):
    for name, text in (("results.json", json.dumps(FORGED)), ("grades.csv", CSV),
                       ("forged.txt", "FORGED")):
        try:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(text)
        except OSError:
            pass


forge(".")
forge("{out}")
forge("{out}/forged_results/02-greedy-pack")


def pack(parts, budget):
    forge("{out}/forged_results/02-greedy-pack")
    return []
