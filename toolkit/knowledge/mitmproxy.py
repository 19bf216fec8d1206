"""Which mitmproxy release writes which ``.mitm`` flow format version, so messages can name the release.

Source: ``FLOW_FORMAT_VERSION`` in ``mitmproxy/version.py`` of the mitmproxy/mitmproxy repository at each
release tag (v3.0.0 to v12.2.3); before 3.0 a flow's version was its release's ``[major, minor]``. Versions
missing from the table (5 and 6: the 3.0 release candidates; 11 to 13, 16, 19) were written only by development
builds between releases.
"""

from __future__ import annotations

__all__ = ["CONVERT_COMMAND", "FLOW_FORMAT_RELEASES", "HAR_COMMAND", "release_of"]

FLOW_FORMAT_RELEASES: dict[int, str] = {
    7: "3.x to 5.1",
    8: "5.2",
    9: "5.3",
    10: "6.x",
    14: "7.x",
    15: "8.0",
    17: "8.1",
    18: "9.x",
    20: "10.x",
    21: "11.x and 12.x",
}

# Rewrites a flow file in the current flow format (run where mitmproxy 10 or later is installed; it migrates
# every older version itself): ``mitmdump`` reads (-r) without proxying (-n) and writes (-w).
CONVERT_COMMAND = "mitmdump -nr {path} -w {path_new}"
# Converts a flow file to HAR (mitmproxy 10.1 or later: the savehar addon's ``hardump`` option), losing chunk times.
HAR_COMMAND = "mitmdump -nr {path} --set hardump=out.har"


def release_of(version: object) -> str:
    """``"mitmproxy 9.x"`` for 18; a development build, or an unknown writer, otherwise."""
    if isinstance(version, (list, tuple)):  # until 2.x the version was the release's own (major, minor)
        return "mitmproxy " + ".".join(map(str, version[:2]))
    if isinstance(version, int) and version in FLOW_FORMAT_RELEASES:
        return f"mitmproxy {FLOW_FORMAT_RELEASES[version]}"
    if isinstance(version, int) and 0 < version < max(FLOW_FORMAT_RELEASES):
        return "a mitmproxy development build"
    return "no mitmproxy release this toolkit knows"
