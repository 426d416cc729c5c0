"""Before Qt starts: is there a display, and are the system libraries of its xcb (X11)
platform plugin installed?

Without either Qt aborts the process (SIGABRT) with "Could not load the Qt platform plugin
"xcb"", naming at most one package, and from 6.5 always libxcb-cursor0 whatever is really
missing, even where the only thing missing is the display. `check_xcb` finds every missing
library first (ldd on the plugin, plus a dlopen of libxcb-cursor.so.0, which Qt also names) and
`install_hint` turns them into one apt-get line; `display_problem` tells a missing or
unreachable X display (DISPLAY unset, or no X server answering there), and `no_display_hint`
says how to run without one. No Qt import here: this runs before the first one could abort.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

# The libraries the PySide6 wheel's libqxcb.so (and its libQt6XcbQpa) load, directly or
# through other system libraries, as Debian and Ubuntu package them.
DEBIAN_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libXau.so.6": "libxau6",
    "libXdmcp.so.6": "libxdmcp6",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libEGL.so.1": "libegl1",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libpng16.so.16": "libpng16-16",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
    "libexpat.so.1": "libexpat1",
    "libz.so.1": "zlib1g",
}
# Loaded by Qt itself at run time as well as linked: checked by name even where ldd is missing.
DLOPENED = ("libxcb-cursor.so.0",)
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)


def uses_xcb(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether Qt will try the xcb plugin first: on Linux, with QT_QPA_PLATFORM unset or naming
    xcb first (`xcb`, `xcb:options`, `xcb;wayland`), and not in a Wayland session, where Qt
    tries wayland first and xcb only as a fallback."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return False
    requested = environ.get("QT_QPA_PLATFORM", "").strip()
    if requested:
        return requested.split(";")[0].split(":")[0].strip() == "xcb"
    return environ.get("XDG_SESSION_TYPE", "") != "wayland"


def xcb_plugin() -> Path | None:
    """The installed PySide6's libqxcb.so, found without importing PySide6 (that is safe, but
    this keeps the check free of Qt); None where there is none."""
    import importlib.util

    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        plugin = Path(location) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            return plugin
    return None


def parse_ldd(output: str) -> list[str]:
    """The sonames an `ldd` listing reports as `not found`, each once, in order."""
    return list(dict.fromkeys(_NOT_FOUND.findall(output)))


def missing_libraries(plugin: Path) -> list[str]:
    """The shared libraries `plugin` needs that the dynamic loader cannot find."""
    missing: list[str] = []
    ldd = shutil.which("ldd")
    if ldd is not None:
        try:
            out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=30)
            missing += parse_ldd(out.stdout)
        except (OSError, subprocess.SubprocessError):
            pass  # no verdict from ldd: the dlopen checks below still run
    for soname in DLOPENED:
        if soname not in missing:
            try:
                ctypes.CDLL(soname)
            except OSError:
                missing.append(soname)
    return missing


def install_hint(missing: list[str]) -> str:
    """What to tell the user: the missing libraries and the apt-get line that installs them.
    Libraries of Qt itself (libQt6*) mean a broken PySide6, not a missing system package."""
    packages = list(dict.fromkeys(DEBIAN_PACKAGES[s] for s in missing if s in DEBIAN_PACKAGES))
    qt_own = [s for s in missing if s.startswith("libQt6")]
    unknown = [s for s in missing if s not in DEBIAN_PACKAGES and s not in qt_own]
    lines = [
        "popucom gui: Qt's xcb (X11) platform plugin cannot load; missing system libraries: " + ", ".join(missing),
    ]
    if packages:
        lines.append("On Debian or Ubuntu install them with:")
        lines.append("    sudo apt-get install " + " ".join(packages))
    if unknown:
        lines.append(
            "Not mapped to a Debian package here (find one with `apt-file search NAME`): " + ", ".join(unknown)
        )
    if qt_own:
        lines.append("Qt's own libraries are missing: reinstall PySide6-Essentials (pip install --force-reinstall)")
    lines.append("Or run without a display: QT_QPA_PLATFORM=offscreen (nothing is shown).")
    return "\n".join(lines)


def display_problem(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the xcb plugin would find no X display (DISPLAY unset, or no X server answering at
    it, asked through libxcb as Qt asks), or None. Where libxcb itself is missing, None: the
    library check names it."""
    environ = os.environ if environ is None else environ
    display = environ.get("DISPLAY", "").strip()
    if not display:
        return "DISPLAY is not set"
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(display.encode(), None)  # never NULL: an error connection instead
    try:
        failed = xcb.xcb_connection_has_error(connection) != 0
    finally:
        xcb.xcb_disconnect(connection)
    return f"no X server answers at DISPLAY={display}" if failed else None


def no_display_hint(problem: str) -> str:
    """What to tell the user when there is no display to open the window on."""
    return "\n".join(
        [
            f"popucom gui: no display ({problem}): Qt's xcb (X11) platform cannot open a window.",
            "Run it in a desktop session (or over `ssh -X`), under a virtual display (`xvfb-run popucom gui`,",
            "from the xvfb package), or without a window: QT_QPA_PLATFORM=offscreen popucom gui (nothing is shown).",
        ]
    )


def check_xcb(environ: Mapping[str, str] | None = None) -> str | None:
    """The message to print instead of Qt's abort, or None when the xcb plugin will load and
    find a display (or is not the one Qt will use, or cannot be found to check): missing
    libraries and a missing display are both told, the display first."""
    if not uses_xcb(environ):
        return None
    plugin = xcb_plugin()
    if plugin is None:
        return None
    missing = missing_libraries(plugin)
    display = display_problem(environ)
    messages = ([no_display_hint(display)] if display else []) + ([install_hint(missing)] if missing else [])
    return "\n".join(messages) if messages else None
