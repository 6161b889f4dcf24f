# attack: read other students' feedback pages, to learn what the hidden tests expect
# defence: the results folder is not in the sandbox's filesystem
import glob

PAGES = glob.glob("{out}/**/feedback.html", recursive=True)
with open(PAGES[0] if PAGES else "{out}/students/honest/02-greedy-pack/feedback.html") as handle:
    LEAKED = handle.read()


def pack(parts, budget):
    return []
