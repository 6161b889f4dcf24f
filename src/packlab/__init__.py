"""packlab: a hands-on course on packing the context window of a language model."""

__version__ = "0.1.0"
