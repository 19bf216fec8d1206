"""Make the font the Chinese plot labels are drawn with: toolkit/present/fonts/AgentContractCJK-Regular.otf.

matplotlib's DejaVu Sans has no CJK glyphs and many machines have no CJK font, so the plots carry their
own: the glyphs of the zh-CN plot texts (``toolkit.present.plots.font_characters()``), subset from Noto
Sans CJK SC in Debian's ``fonts-noto-cjk`` (SIL Open Font License 1.1). The package is fetched with
``apt-get download`` (no root needed) into a temporary directory, unpacked with ``dpkg-deb -x``, checked
against its pinned sha256 and subset with fontTools; the OFL text from the package's copyright file is
written beside the font. The output is the same bytes on every run (no timestamps are touched).

    .venv/bin/python lab/subset_font.py            # or: make font
    .venv/bin/python lab/subset_font.py --check    # exit 1 if the bundled font is not what this makes
    .venv/bin/python lab/subset_font.py --deb fonts-noto-cjk_....deb   # a package already downloaded
"""

from __future__ import annotations

import argparse
import hashlib
import io
import subprocess
import sys
import tempfile
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

from toolkit.present import plots

PACKAGE = "fonts-noto-cjk"
VERSION = "1:20220127+repack1-1"  # Debian bookworm
SOURCE = "usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
SOURCE_SHA256 = "b76b0433203017ca80401b2ee0dd69350349871c4b19d504c34dbdd80541690a"
SOURCE_FAMILY = "Noto Sans CJK SC"
COPYRIGHT = "usr/share/doc/fonts-noto-cjk/copyright"
POSTSCRIPT = "AgentContractCJK-Regular"
OUT = plots.FONT_FILE
LICENSE = OUT.parent / "OFL.txt"


def download(tmp: Path) -> Path:
    """The pinned package, fetched into ``tmp``."""
    subprocess.run(["apt-get", "download", f"{PACKAGE}={VERSION}"], cwd=tmp, check=True, capture_output=True)
    (deb,) = tmp.glob("*.deb")
    return deb


def subset_font(ttc: Path, chars: str) -> bytes:
    """The Simplified Chinese face of ``ttc`` cut down to ``chars`` (outlines, metrics, cmap; no layout
    tables: matplotlib does not shape text), renamed as a modified version must be under the OFL."""
    collection = TTCollection(str(ttc), recalcTimestamp=False)
    (face,) = [f for f in collection.fonts if f["name"].getDebugName(1) == SOURCE_FAMILY]
    buf = io.BytesIO()
    face.save(buf)  # the one face, on its own, so the subsetter reads a plain OpenType font
    font = TTFont(io.BytesIO(buf.getvalue()), recalcTimestamp=False)
    original = {n: font["name"].getDebugName(n) for n in (0, 5, 7, 8, 11, 12, 13, 14)}
    options = subset.Options()
    options.layout_features = []
    options.drop_tables += ["BASE", "VORG", "vhea", "vmtx", "GDEF", "GPOS", "GSUB", "DSIG"]
    options.name_IDs = []
    options.name_languages = [0x409]
    options.desubroutinize = True
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=chars)
    subsetter.subset(font)

    names = {
        0: original[0],
        1: plots.FONT_FAMILY,
        2: "Regular",
        3: f"2.004;agent-contract-toolkit;{POSTSCRIPT}",
        4: plots.FONT_FAMILY,
        5: original[5],
        6: POSTSCRIPT,
        7: original[7],
        8: original[8],
        10: f"The glyphs of agent-contract-toolkit's Chinese plot labels, subset from {SOURCE_FAMILY} "
        f"(Debian {PACKAGE} {VERSION}) by lab/subset_font.py.",
        11: original[11],
        12: original[12],
        13: original[13],
        14: original[14],
    }
    table = font["name"]
    table.names = []
    for name_id, value in names.items():
        if value:
            table.setName(value, name_id, 3, 1, 0x409)
    cff = font["CFF "].cff
    cff.fontNames = [POSTSCRIPT]
    top = cff.topDictIndex[0]
    top.FullName = top.FamilyName = plots.FONT_FAMILY
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def license_text(copyright_file: str, font_copyright: str) -> str:
    """The OFL 1.1 as the package states it (Debian's copyright file), with the copyright notices."""
    stanzas = copyright_file.split("\n\n")
    files = next(s for s in stanzas if s.startswith("Files: *\n"))
    holders = [line.removeprefix("Copyright:").strip() for line in files.splitlines() if line.startswith("Copyright:")]
    ofl = next(s for s in stanzas if s.startswith("License: SIL-1.1\n"))
    body = [line[1:] if line != " ." else "" for line in ofl.splitlines()[1:]]
    return (
        f"{plots.FONT_FAMILY} ({POSTSCRIPT}.otf) is a modified version (a subset, renamed) of {SOURCE_FAMILY},\n"
        f"taken from the Debian package {PACKAGE} {VERSION} by lab/subset_font.py.\n\n"
        f"{font_copyright}\n"
        + "".join(f"Copyright {h}\n" for h in holders)
        + "\nThis Font Software is licensed under the SIL Open Font License, Version 1.1.\n\n"
        + "\n".join(body).rstrip("\n")
        + "\n"
    )


def build(deb: Path | None) -> tuple[bytes, str]:
    with tempfile.TemporaryDirectory(prefix="subset-font-") as tmp_dir:
        tmp = Path(tmp_dir)
        deb = deb or download(tmp)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp / "x")], check=True)
        ttc = tmp / "x" / SOURCE
        digest = hashlib.sha256(ttc.read_bytes()).hexdigest()
        if digest != SOURCE_SHA256:
            sys.exit(f"subset_font: {SOURCE} in {deb.name} has sha256 {digest}, expected {SOURCE_SHA256}")
        font = subset_font(ttc, plots.font_characters())
        copyright_notice = TTFont(io.BytesIO(font))["name"].getDebugName(0) or ""
        return font, license_text((tmp / "x" / COPYRIGHT).read_text(encoding="utf-8"), copyright_notice)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deb", type=Path, help=f"an already downloaded {PACKAGE} {VERSION} package")
    parser.add_argument("--check", action="store_true", help="compare with the bundled font instead of writing")
    args = parser.parse_args(argv)
    font, licence = build(args.deb.resolve() if args.deb else None)
    if args.check:
        same = OUT.exists() and OUT.read_bytes() == font and LICENSE.read_text(encoding="utf-8") == licence
        print(f"{OUT.name}: {'up to date' if same else 'out of date: run make font'}")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(font)
    LICENSE.write_text(licence, encoding="utf-8")
    chars = plots.font_characters()
    print(
        f"wrote {OUT.relative_to(Path.cwd()) if OUT.is_relative_to(Path.cwd()) else OUT}: {len(font)} bytes, "
        f"{len(chars)} characters, sha256 {hashlib.sha256(font).hexdigest()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
