"""Recorded HTTP cassettes: the files test suites replay instead of calling the API.

One module per format, each with ``recognize(head)`` and ``read(path, source)``, and ``interaction``,
which the three share (loading the YAML, one interaction into a ``Decoded``):

- ``vcr``: VCR.py (``interactions:`` of ``request``/``response``, ``version: 1``), pydantic-ai's
  ``parsed_body`` variant, ``.yaml.gz``;
- ``go_vcr``: go-vcr v2 and later (``version: 2``, bodies as strings, ``duration``);
- ``ruby_vcr``: Ruby VCR (``http_interactions:``, ``body: {encoding, string | base64_string}``).

Each interaction is one entry (``EntryCount(source, "interaction", n)``), at location ``interaction N``
(0-based) with exchange id ``"{source}:N"``; one that is not a mapping or has no ``request`` mapping is a
``bad-entry`` problem and reading goes on. A file that is not YAML, or holds no interactions, raises
``CaptureError`` naming the file and the place.
"""

__all__: list[str] = []
