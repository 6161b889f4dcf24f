"""Where every command prints: one rich console, and `shown` for text a user controls.

Every string a learner or a student controls (paths, names, notes, messages, the summary) is
printed through `shown`: as written, never as rich markup or terminal control characters.
"""

from rich.console import Console

from autograder.escape import for_terminal as shown

console = Console(highlight=False)

__all__ = ["console", "shown"]
