"""The postmortem template renders to one self-contained HTML file."""

from __future__ import annotations

import re
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "notebooks"))
import render_postmortem


def test_postmortem_renders_offline_with_every_section(tmp_path):
    out = render_postmortem.render(REPO / "notebooks" / "06_postmortem.ipynb", tmp_path / "pm.html")
    html = out.read_text(encoding="utf-8")
    assert not re.search(r'(src|href)="https?://|import\("https?://', html)  # nothing fetched when opened
    assert html.count('src="data:image/png;base64,') >= 1  # the figure is embedded
    for heading in ("Summary", "Timeline", "Evidence by layer", "Root causes", "Fixes"):
        assert f">{heading}<" in html
    assert "invalid justification: expected a non-empty sentence" in html
    assert "sk-lab-FAKE" not in html and "def " not in html  # redacted, and the code is hidden
