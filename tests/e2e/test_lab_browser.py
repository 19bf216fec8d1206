"""The strict-variant comparer in a real browser: JupyterLab, Run All, change a dropdown, read the panes.

This is the round trip nbval cannot see: a DOM ``change`` event on the right side's compat dropdown
travels over the widget comm to the kernel, the comparer's observer recomputes, and the new HTML comes
back into the panes. Part of ``make test``; it needs Chromium (``make browser`` installs it).

The server is a throw-away JupyterLab from this venv on a 127.0.0.1 port it picks itself, with no token, on a
temporary root holding copies of the notebook in both languages (``notebooks/`` and ``notebooks/zh-CN/``;
Lab autosaves into them) and a link to ``data/``. Lab's
settings, workspaces, runtime, data and IPython dirs are temporary too, so nothing from the user's own
Jupyter set-up leaks in and nothing is written back; teardown stops the server and its kernels.

Nothing here depends on how fast the machine is: every wait is a hang guard (``HANG_GUARD``, minutes) that only
ends a run that is stuck, never a slow but healthy one (the suite must pass with every core busy).

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
# The bound of every wait below: far above a healthy run on a loaded 2-core machine (the Lab's start, Run All
# and a round trip each take seconds to tens of seconds there), so it only ends a hung run, never a slow one.
HANG_GUARD = 600.0  # s
HANG_GUARD_MS = int(HANG_GUARD * 1000)
# Playwright's assertions wait 5 s by default, a performance assertion on a loaded machine; they get the guard.
expect.set_options(timeout=HANG_GUARD_MS)

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


def _status(base: str) -> int | None:
    """``/api/status``'s HTTP status, or None while nothing answers (each try is bounded, the loop retries)."""
    try:
        with _LOCAL.open(f"{base}/api/status", timeout=30) as resp:
            return resp.status
    except (urllib.error.URLError, OSError):
        return None


def _server_info(runtime: Path, pid: int) -> dict | None:
    """The server's own ``jpserver-<pid>.json`` (its URL and the port the OS gave it), or None until it is whole.

    The server writes it just before it listens, so it names the port Lab really binds; the test never picks a
    port and hands it over (another process could take it in between)."""
    try:
        info = json.loads((runtime / f"jpserver-{pid}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):  # not written yet, or caught mid-write
        return None
    return info if info.get("pid") == pid and info.get("port") else None


# jupyter_server, when the port it found free is taken before it listens (it binds port 0, reads the port, closes
# and listens on it a moment later): a collision with another process, not the test's failure; start again.
PORT_TAKEN = "could not be started because no available port could be found"
START_ATTEMPTS = 3


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
    runtime = home / "runtime"  # the server writes jpserver-<pid>.json here, with the port it got
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
            "JUPYTER_RUNTIME_DIR": str(runtime),
            "JUPYTERLAB_SETTINGS_DIR": str(settings),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
            "IPYTHONDIR": str(home / "ipython"),
            "JUPYTER_PLATFORM_DIRS": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        "--port=0",  # the OS picks a free port when the server binds; the server writes it to its runtime file
        "--port-retries=0",
        "--allow-root",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]
    for attempt in range(1, START_ATTEMPTS + 1):
        log = tmp / f"jupyter-lab.{attempt}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        try:
            base = _wait_lab_answers(proc, runtime, log)
            if base is not None:
                yield {"base": base, "root": root, "log": log}
                return
        finally:
            _stop(proc)
    pytest.fail(f"jupyter lab lost its port to another process {START_ATTEMPTS} times; last log: {log}", pytrace=False)


def _wait_lab_answers(proc: subprocess.Popen, runtime: Path, log: Path) -> str | None:
    """The server's base URL once ``/api/status`` answers 200; None if it lost its port to another process.
    Any other exit fails with the log's tail; ``HANG_GUARD`` only ends a server that never answers."""
    deadline = time.monotonic() + HANG_GUARD
    base = None
    while True:
        if base is None and (info := _server_info(runtime, proc.pid)) is not None:
            base = str(info["url"]).rstrip("/")
        if base is not None and _status(base) == 200:
            return base
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-4000:]
            if PORT_TAKEN in tail:
                return None
            pytest.fail(
                f"jupyter lab exited with {proc.returncode} before answering /api/status:\n{tail}", pytrace=False
            )
        if time.monotonic() > deadline:
            pytest.fail(
                f"jupyter lab did not answer /api/status within {HANG_GUARD:.0f} s (at {base or 'no URL yet'}):\n"
                + log.read_text(errors="replace")[-4000:],
                pytrace=False,
            )
        time.sleep(0.1)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, through Python Playwright."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True, timeout=HANG_GUARD_MS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(HANG_GUARD_MS)
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


def _wait_kernel_ready(page, base: str, notebook: str, timeout: float = HANG_GUARD) -> None:
    """The notebook's kernel is idle with the page's websocket connected; then the page says so too.
    (The server keeps the kernels of notebooks opened before, so the kernel is found by its session.)"""
    deadline = time.monotonic() + timeout
    while True:
        resp = page.request.get(f"{base}/api/sessions", timeout=HANG_GUARD_MS)
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
        page.locator(f"{RIGHT_PANE}, {ERROR_OUTPUTS}").first.wait_for()
        errors = _error_texts(page)
        assert not errors, "cells show errors after Run All:\n" + "\n---\n".join(errors)
        expect(page.locator(RIGHT_PANE)).to_contain_text(expect_text["initial_right"][0])
        # the comparer is the last code cell: once it renders and no cell is still queued, Run All is done
        expect(page.locator(BUSY_PROMPT)).to_have_count(0)
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
        timeout=HANG_GUARD,
    )
    assert done.returncode == 1, done.stderr
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(HANG_GUARD_MS)
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


# ---- the server's start, without a browser -------------------------------------------------------


def test_the_port_collision_line_is_jupyter_servers_own(monkeypatch, caplog):
    """``PORT_TAKEN`` is what jupyter_server logs when the port it found is taken before it listens."""
    from jupyter_server.serverapp import ServerApp

    app = ServerApp()
    monkeypatch.setattr(app, "_bind_http_server_tcp", lambda: False)  # listen() met EADDRINUSE
    monkeypatch.setattr(app, "exit", lambda code: (_ for _ in ()).throw(SystemExit(code)))
    app.log.propagate = True
    with caplog.at_level("CRITICAL", logger=app.log.name), pytest.raises(SystemExit, match="1"):
        app._bind_http_server()
    assert PORT_TAKEN in caplog.text


def _fake_server(tmp_path, code: str) -> tuple[subprocess.Popen, Path]:
    log = tmp_path / "fake.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT)
    proc.wait(timeout=HANG_GUARD)
    return proc, log


def test_a_server_that_lost_its_port_is_started_again_and_any_other_exit_fails(tmp_path):
    lost, log = _fake_server(tmp_path, f"import sys; print('[C] ERROR: the Jupyter server {PORT_TAKEN}.'); sys.exit(1)")
    assert _wait_lab_answers(lost, tmp_path, log) is None
    broken, log = _fake_server(tmp_path, "import sys; print('ImportError: no module named jupyterlab'); sys.exit(1)")
    with pytest.raises(pytest.fail.Exception, match=r"exited with 1 before answering /api/status:\n.*ImportError"):
        _wait_lab_answers(broken, tmp_path, log)


def test_the_url_comes_from_the_servers_whole_runtime_file(tmp_path):
    info = {"url": "http://127.0.0.1:40123/", "port": 40123, "pid": 4242}
    whole = json.dumps(info, indent=2, sort_keys=True)
    (tmp_path / "jpserver-4242.json").write_text(whole[: len(whole) // 2], encoding="utf-8")  # caught mid-write
    assert _server_info(tmp_path, 4242) is None
    (tmp_path / "jpserver-4242.json").write_text(whole, encoding="utf-8")
    assert _server_info(tmp_path, 4242) == info
    assert _server_info(tmp_path, 4243) is None  # another server's file is not this one's
