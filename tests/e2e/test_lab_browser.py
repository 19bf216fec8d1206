"""The strict-variant comparer in a real browser: JupyterLab, Run All, change a dropdown, read the panes.

This is the round trip nbval cannot see: a DOM ``change`` event on the right side's compat dropdown
travels over the widget comm to the kernel, the comparer's observer recomputes, and the new HTML comes
back into the panes. Part of ``make test``; it needs Chromium (``make browser`` installs it).

The server is a throw-away JupyterLab from this venv on a free 127.0.0.1 port with no token, on a
temporary root holding copies of the notebook in both languages (``notebooks/`` and ``notebooks/zh-CN/``;
Lab autosaves into them) and a link to ``data/``. Lab's
settings, workspaces, runtime, data and IPython dirs are temporary too, so nothing from the user's own
Jupyter set-up leaks in and nothing is written back; teardown stops the server and its kernels.

Selectors are the ``tk-cmp-*`` classes ``StrictVariantComparer`` adds to its controls and panes.
(Everything lives in this one module: a ``tests/e2e/conftest.py`` would shadow ``tests/conftest.py``,
which other test modules import as ``conftest``.)
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

REPO = Path(__file__).resolve().parents[2]
REPORTS = REPO / "reports" / "e2e"

CHROMIUM_ARGS = [
    "--no-sandbox",  # required as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-proxy-server",  # the only traffic is to 127.0.0.1
]
START_TIMEOUT = 30.0

# Lab user settings for the run: attach every cell (no windowing) and never fetch news.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}

_LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy


def chromium_path() -> str:
    """The system Chromium (Debian's ``chromium``); a missing browser fails the test, it does not skip it."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(
        "Chromium not found on PATH: the browser test needs it. Install it with `make browser` "
        "(runs `apt-get install -y chromium` as root) or `sudo apt-get install -y chromium`.",
        pytrace=False,
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status(base: str) -> int | None:
    try:
        with _LOCAL.open(f"{base}/api/status", timeout=2) as resp:
            return resp.status
    except (urllib.error.URLError, OSError):
        return None


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM the server (it shuts its kernels down), then kill whatever of its tree is left."""
    try:
        tree = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        tree = []
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    _, alive = psutil.wait_procs(tree, timeout=5)
    for child in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A running JupyterLab: ``{"base": "http://127.0.0.1:<port>", "root": Path, "log": Path}``."""
    tmp = tmp_path_factory.mktemp("lab")
    root, home = tmp / "root", tmp / "home"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "zh-CN").mkdir()
    for notebook in NOTEBOOKS.values():
        shutil.copy2(REPO / notebook, root / notebook)
    (root / "data").symlink_to(REPO / "data", target_is_directory=True)  # the notebook reads ../data
    settings = home / "lab-settings"
    for rel, value in LAB_SETTINGS.items():
        (settings / rel).parent.mkdir(parents=True, exist_ok=True)
        (settings / rel).write_text(json.dumps(value), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(
        {
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_DATA_DIR": str(home / "data"),  # the notebook-signing key goes here, not into ~
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(settings),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
            "IPYTHONDIR": str(home / "ipython"),
            "JUPYTER_PLATFORM_DIRS": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--port-retries=0",
        "--allow-root",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]
    log = tmp / "jupyter-lab.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while _status(base) != 200:
            if proc.poll() is not None:
                pytest.fail(
                    f"jupyter lab exited with {proc.returncode} before answering /api/status:\n"
                    + log.read_text(errors="replace")[-4000:],
                    pytrace=False,
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"jupyter lab did not answer {base}/api/status within {START_TIMEOUT:.0f} s:\n"
                    + log.read_text(errors="replace")[-4000:],
                    pytrace=False,
                )
            time.sleep(0.1)
        yield {"base": base, "root": root, "log": log}
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, through Python Playwright."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    try:
        yield pg
    finally:
        context.close()


@pytest.fixture
def failure_screenshot(request) -> Path:
    """Where the test saves its screenshot when it fails: ``reports/e2e/<test name>.png``."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in request.node.name)
    return REPORTS / f"{safe}.png"


# ---- the test ----------------------------------------------------------------------------------

NOTEBOOKS = {"en": "notebooks/02_serialization.ipynb", "zh-CN": "notebooks/zh-CN/02_serialization.ipynb"}
# What the panes show, per language. The values (`false`, `absent`, the compat setting) are the same in both;
# the labels around them are the notebook's language, so the Chinese run checks the values and that its
# markdown is the Chinese twin (its first heading, from notebooks/02_serialization.py).
CJK = re.compile(r"[\u4e00-\u9fff]")
EXPECT = {
    "en": {
        "heading": "Layer 2: serialization",
        "initial_right": [
            "sent strict: false",
            "compat.supportsStrictMode true",
            "read as: non-strict",
            "must send: command, description",
        ],
        "initial_left": ["sent strict: absent"],
        "initial_summary": ["sent strict absent → false"],
        "changed_right": [
            "sent strict: absent",
            "compat.supportsStrictMode unset",
            "read as: strict by the gateway's normalisation",
            "must send: every field",
        ],
        "changed_right_not": ["sent strict: false"],
        "changed_summary": ["no difference in what the model must send"],
    },
    "zh-CN": {
        "heading": "第二层：序列化",
        "initial_right": ["false", "compat.supportsStrictMode true", "command", "description"],
        "initial_left": ["absent"],
        "initial_summary": ["absent → false"],
        "changed_right": ["absent", "compat.supportsStrictMode unset"],
        "changed_right_not": [],
        "changed_summary": [],
    },
}

IDLE = ".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status='idle']"
# the indicator also reads idle before the kernel exists; the status bar names the connected kernel
KERNEL_IDLE = re.compile(r"^Python 3 \(ipykernel\) \| Idle$")
BUSY_PROMPT = ".jp-NotebookPanel .jp-InputArea-prompt:text-is('[*]:')"
ERROR_OUTPUTS = (
    ".jp-NotebookPanel .jp-OutputArea-output[data-mime-type*='error'], "
    ".jp-NotebookPanel .jp-RenderedText[data-mime-type*='error'], "
    ".jp-NotebookPanel .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
    ":has-text('Traceback')"
)

COMPARER = ".jp-NotebookPanel .tk-cmp"
RIGHT_COMPAT = f"{COMPARER} .tk-cmp-right-compat select"
LEFT_PANE = f"{COMPARER} .tk-cmp-left-pane .widget-html-content"
RIGHT_PANE = f"{COMPARER} .tk-cmp-right-pane .widget-html-content"
SUMMARY = f"{COMPARER} .tk-cmp-summary .widget-html-content"


def _wait_kernel_ready(page, base: str, notebook: str, timeout: float = 60.0) -> None:
    """The notebook's kernel is idle with the page's websocket connected; then the page says so too.
    (The server keeps the kernels of notebooks opened before, so the kernel is found by its session.)"""
    deadline = time.monotonic() + timeout
    while True:
        resp = page.request.get(f"{base}/api/sessions")
        sessions = resp.json() if resp.ok else []
        kernels = [s.get("kernel") or {} for s in sessions if s.get("path") == notebook]
        if any(k.get("execution_state") == "idle" and k.get("connections", 0) >= 1 for k in kernels):
            break
        assert time.monotonic() < deadline, (
            f"no idle, connected kernel for {notebook} after {timeout:.0f} s: {sessions}"
        )
        page.wait_for_timeout(100)
    expect(page.locator(".jp-StatusBar-Widget").get_by_text(KERNEL_IDLE)).to_be_visible(timeout=timeout * 1000)
    page.locator(IDLE).wait_for(timeout=timeout * 1000)


def _error_texts(page) -> list[str]:
    try:
        return [t.strip()[:600] for t in page.locator(ERROR_OUTPUTS).all_inner_texts()]
    except PlaywrightError:
        return []


@contextlib.contextmanager
def _screenshot_on_failure(page, path, step: list[str]):
    """On any failure: save a full-page screenshot and name it (and the step, and any error outputs)."""
    try:
        yield
    except (AssertionError, PlaywrightError) as exc:
        try:
            page.screenshot(path=str(path), full_page=True)
            shot = f"screenshot: {path}"
        except PlaywrightError as shot_exc:
            shot = f"no screenshot ({shot_exc})"
        errors = _error_texts(page)
        detail = "\nerror outputs in the notebook:\n" + "\n---\n".join(errors) if errors else ""
        raise AssertionError(f"browser test failed at step {step[-1]!r}; {shot}{detail}\n{exc}") from exc


@pytest.mark.parametrize("lang", list(NOTEBOOKS))
def test_comparer_round_trip_in_lab(page, lab, failure_screenshot, lang):
    notebook, expect_text = NOTEBOOKS[lang], EXPECT[lang]
    step = [f"open {notebook}"]
    timings: dict[str, float] = {}
    t0 = time.monotonic()
    with _screenshot_on_failure(page, failure_screenshot, step):
        # a workspace of its own, or Lab would restore the notebook an earlier test opened beside this one
        page.goto(f"{lab['base']}/lab/workspaces/e2e-{lang}/tree/{notebook}")
        _wait_kernel_ready(page, lab["base"], notebook)
        timings["kernel idle"] = time.monotonic() - t0
        expect(page.locator(".jp-NotebookPanel .jp-MarkdownOutput h1").first).to_contain_text(expect_text["heading"])

        step.append("Run > Run All Cells")
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()

        step.append("wait for the comparer to render")
        t1 = time.monotonic()
        # the comparer, or an error output (Run All stops at the first error, so don't wait it out)
        page.locator(f"{RIGHT_PANE}, {ERROR_OUTPUTS}").first.wait_for(timeout=45_000)
        errors = _error_texts(page)
        assert not errors, "cells show errors after Run All:\n" + "\n---\n".join(errors)
        expect(page.locator(RIGHT_PANE)).to_contain_text(expect_text["initial_right"][0])
        # the comparer is the last code cell: once it renders and no cell is still queued, Run All is done
        expect(page.locator(BUSY_PROMPT)).to_have_count(0, timeout=20_000)
        page.locator(IDLE).wait_for()
        timings["run all"] = time.monotonic() - t1

        step.append("no cell shows an error")
        errors = _error_texts(page)
        assert not errors, "cells show errors after Run All:\n" + "\n---\n".join(errors)

        step.append("initial state: left is the incident, right is the fix")
        right = page.locator(RIGHT_PANE)
        expect(page.locator(RIGHT_COMPAT)).to_have_value("true")
        for text in expect_text["initial_right"]:
            expect(right).to_contain_text(text)
        for text in expect_text["initial_left"]:
            expect(page.locator(LEFT_PANE)).to_contain_text(text)
        for text in expect_text["initial_summary"]:
            expect(page.locator(SUMMARY)).to_contain_text(text)
        before, summary_before = right.inner_text(), page.locator(SUMMARY).inner_text()
        # the widget's labels are in the notebook's language
        if lang == "zh-CN":
            expect(page.locator(COMPARER)).to_contain_text(CJK)
        else:
            expect(page.locator(COMPARER)).not_to_contain_text(CJK)

        step.append("change the right side's compat to unset")
        t2 = time.monotonic()
        page.locator(RIGHT_COMPAT).select_option("unset")
        # DOM change -> comm -> kernel observer -> new HTML in both panes and the summary
        for text in expect_text["changed_right"]:
            expect(right).to_contain_text(text)
        for text in expect_text["changed_right_not"]:
            expect(right).not_to_contain_text(text)
        for text in expect_text["changed_summary"]:
            expect(page.locator(SUMMARY)).to_contain_text(text)
        expect(page.locator(SUMMARY)).not_to_have_text(summary_before)
        timings["round trip"] = time.monotonic() - t2
        assert right.inner_text() != before

        step.append("still no errors after the change")
        errors = _error_texts(page)
        assert not errors, "cells show errors after the change:\n" + "\n---\n".join(errors)

        if os.environ.get("E2E_FINAL_SCREENSHOT"):  # e.g. to look at the rendered widget after a green run
            page.locator(COMPARER).evaluate("el => el.scrollIntoView({block: 'start'})")
            page.screenshot(path=os.environ["E2E_FINAL_SCREENSHOT"])
    print(f"e2e timings ({lang}): " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_html_report_fits_a_laptop_window_with_its_figure_near_the_top(browser, tmp_path, lang):
    """The demo's before-fix HTML report (``make demo``) in a 1,280 x 800 window: nothing scrolls sideways,
    the figure starts on the first screens (it followed the 118-row provenance table, 15,000 px down),
    and the folded parts open. The same browser as the Lab test: one Chromium per run."""
    out = tmp_path / f"before.{lang}.html"
    argv = ["verify", "--settings", "data/dsh-before-fix/settings.yaml", "--capture", "data/dsh-before-fix/capture.har"]
    argv += ["--session", "data/dsh-before-fix/session.jsonl.zstd", "--dsh", "0.1.0-rc.8", "--format", "html"]
    done = subprocess.run(
        [sys.executable, "-m", "toolkit.present.cli", *argv, "--lang", lang, "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(out.as_uri())
        size = page.evaluate(
            "() => ({width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight,"
            " figure: document.querySelector('img').getBoundingClientRect().top + window.scrollY})"
        )
        assert size["width"] <= 1280, size
        assert size["figure"] < 2 * 800, size  # within the first two screens
        closed = size["height"]
        page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        opened = page.evaluate("() => document.documentElement.scrollHeight")
        assert opened > closed  # everything is there, folded
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280  # and still wraps
        print(f"report ({lang}): {size['width']} px wide, {closed} px tall folded, {opened} px open")
    finally:
        context.close()
