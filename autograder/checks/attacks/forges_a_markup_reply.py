# attack: reply on the worker's pipe with a failure whose text is rich markup and HTML
# defence: every student-controlled string is escaped for the terminal, HTML and CSV
import os
import sys


def pack(parts, budget):
    os.write(int(sys.argv[2]), b'{"ok": false, "kind": "raised", "detail": "[/][bold green]'
             b'All checks passed[/] <h1>Everything passed</h1>"}\n')
    return []
