"""Writing a new exercise of the course's own kind: the scaffold and the author's check."""
