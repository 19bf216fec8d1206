"""Protocol knowledge only: bytes and dicts in, records out. No files, no network, no pandas.

Nothing here imports from the rest of the package but ``toolkit.errors`` and the facts in
``toolkit.knowledge`` (see ``tests/test_architecture.py``).
"""

__all__: list[str] = []
