"""The four verification layers: config, serialization, capability, execution.

Each answers one question about a setup with evidence, from settings and captures; none imports the
analyses or the presentation above it.
"""

__all__ = ["LAYERS"]

#: The four layers of a verdict, in the order a request meets them.
LAYERS = ("config", "serialization", "capability", "execution")
