"""The algorithms the course teaches: plain data in, plain data out (no widgets, plots or
IPython)."""
