"""Protocol knowledge only: bytes and dicts in, records out. No files, no network, no pandas.

Nothing here imports from the rest of the package (see ``tests/test_architecture.py``).
"""
