"""The Jupyter server configuration ``make lab`` adds (``JUPYTER_CONFIG_PATH``): a built notebook is
saved with the metadata ``notebooks/build.py`` stores, so opening one in Lab leaves ``git status`` clean
(Lab writes the kernel's ``language_info``, Python patch version included, as soon as the kernel starts).
The user's own Jupyter configuration still applies; a ``pre_save_hook`` of theirs takes precedence."""

import importlib.util
import warnings
from pathlib import Path

_spec = importlib.util.spec_from_file_location("notebooks_build", Path(__file__).resolve().parents[1] / "build.py")
assert _spec is not None and _spec.loader is not None
_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_build)

c = get_config()  # type: ignore[name-defined]  # noqa: F821
c.FileContentsManager.pre_save_hook = _build.lab_pre_save
# jupyter_server's validator warns "Overriding existing pre_save_hook" whenever a configured hook is validated
# again (traitlets cross-validates it once it is set): here that names this same hook twice, and says nothing.
warnings.filterwarnings(
    "ignore", r"Overriding existing pre_save_hook \(lab_pre_save\) with a new one \(lab_pre_save\)", UserWarning
)
