"""Facts about the outside systems (DSH, pi-ai), each written once with the source it came from.

Pure data and tiny formatters; no I/O. Layers import from here instead of restating a default, a
rule or a message.
"""

__all__: list[str] = []
