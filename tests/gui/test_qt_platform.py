"""The check before Qt starts (popucom/gui/qt_platform.py): missing xcb libraries become one
apt-get line and exit code 2, not Qt's abort. The "missing" lists are injected, so the tests
do not need the libraries to be absent."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from popucom.gui import qt_platform

# ldd on PySide6 6.11's libqxcb.so on a Debian 12 server without X libraries (abridged).
LDD = """\
\tlinux-vdso.so.1 (0x00007ffd6a1f4000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x00007f1e4c200000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f1e4c1f8000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-util.so.1 => /lib/x86_64-linux-gnu/libxcb-util.so.1 (0x00007f1e4c1f0000)
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f1e4be1f000)
"""


def test_ldd_not_found_lines_are_the_missing_libraries() -> None:
    assert qt_platform.parse_ldd(LDD) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert qt_platform.parse_ldd("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


def test_the_message_names_every_library_and_the_apt_line() -> None:
    message = qt_platform.install_hint(["libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    assert message.splitlines() == [
        "popucom gui: Qt's xcb (X11) platform plugin cannot load; missing system libraries: "
        "libxcb-cursor.so.0, libxcb-icccm.so.4, libxcb-keysyms.so.1",
        "On Debian or Ubuntu install them with:",
        "    sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1",
        "Or run without a display: QT_QPA_PLATFORM=offscreen (nothing is shown).",
    ]
    # Two sonames of one package name it once; unknown ones and Qt's own are said apart.
    message = qt_platform.install_hint(
        ["libglib-2.0.so.0", "libgthread-2.0.so.0", "libfoo.so.3", "libQt6DBus.so.6", "libxkbcommon-x11.so.0"]
    )
    assert "    sudo apt-get install libglib2.0-0 libxkbcommon-x11-0\n" in message
    assert "(find one with `apt-file search NAME`): libfoo.so.3" in message
    assert "reinstall PySide6-Essentials" in message and "libQt6DBus" not in message.split("\n", 2)[2]


def test_every_mapped_library_names_a_debian_package() -> None:
    for soname, package in qt_platform.DEBIAN_PACKAGES.items():
        assert soname.startswith("lib") and ".so." in soname, soname
        assert package == package.lower() and " " not in package, package  # Debian package names
    assert set(qt_platform.DLOPENED) <= set(qt_platform.DEBIAN_PACKAGES)


@pytest.mark.parametrize(
    ("environ", "platform", "expected"),
    [
        ({}, "linux", True),
        ({"QT_QPA_PLATFORM": "xcb"}, "linux", True),
        ({"QT_QPA_PLATFORM": "xcb:nograb;wayland"}, "linux", True),
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", False),
        ({"XDG_SESSION_TYPE": "wayland"}, "linux", False),
        ({"XDG_SESSION_TYPE": "x11"}, "linux", True),
        ({}, "darwin", False),
        ({}, "win32", False),
    ],
)
def test_only_an_xcb_start_on_linux_is_checked(environ, platform, expected) -> None:
    assert qt_platform.uses_xcb(environ, platform) is expected


def test_missing_libraries_reads_ldd_and_tries_the_dlopened_ones(monkeypatch) -> None:
    calls = []

    def fake_run(command, **kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(command, 0, stdout=LDD, stderr="")

    def fake_cdll(name):
        if name == "libxcb-cursor.so.0":
            raise OSError(f"{name}: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(qt_platform.shutil, "which", lambda name: "/usr/bin/ldd")
    monkeypatch.setattr(qt_platform.subprocess, "run", fake_run)
    monkeypatch.setattr(qt_platform.ctypes, "CDLL", fake_cdll)
    plugin = Path("/venv/PySide6/Qt/plugins/platforms/libqxcb.so")
    assert qt_platform.missing_libraries(plugin) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0"]
    assert calls == [["/usr/bin/ldd", str(plugin)]]
    # Without ldd the dlopen check still speaks.
    monkeypatch.setattr(qt_platform.shutil, "which", lambda name: None)
    assert qt_platform.missing_libraries(plugin) == ["libxcb-cursor.so.0"]


def test_the_gui_exits_with_the_apt_line_instead_of_qt_abort() -> None:
    pytest.importorskip("PySide6")
    # A fresh process, as `popucom gui` starts: the libraries are reported missing (whatever
    # this machine has) and the GUI must stop before Qt loads the plugin.
    code = textwrap.dedent(
        """
        import sys
        from popucom.gui import app, qt_platform
        qt_platform.xcb_plugin = lambda: qt_platform.Path("/nowhere/libqxcb.so")
        qt_platform.missing_libraries = lambda plugin: ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
        sys.exit(app.main(["--opponent", "greedy"]))
        """
    )
    env = {"PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "xcb", "HOME": "/nonexistent"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert "    sudo apt-get install libxcb-icccm4 libxcb-keysyms1\n" in out.stderr
    assert "Aborted" not in out.stderr and "could not be initialized" not in out.stderr


def test_a_missing_or_unreachable_display_is_told() -> None:
    assert qt_platform.display_problem({}) == "DISPLAY is not set"
    assert qt_platform.display_problem({"DISPLAY": "  "}) == "DISPLAY is not set"
    try:
        qt_platform.ctypes.CDLL("libxcb.so.1")
    except OSError:
        pytest.skip("libxcb is not installed: the library check speaks instead")
    # No X server answers on a display number nobody uses (a socket path that cannot exist).
    assert qt_platform.display_problem({"DISPLAY": ":4093"}) == "no X server answers at DISPLAY=:4093"
    hint = qt_platform.no_display_hint("DISPLAY is not set")
    assert hint.startswith("popucom gui: no display (DISPLAY is not set)")
    assert "QT_QPA_PLATFORM=offscreen" in hint and "xvfb-run" in hint


def test_the_gui_without_a_display_says_so_instead_of_qt_abort() -> None:
    pytest.importorskip("PySide6")
    if qt_platform.xcb_plugin() is None:
        pytest.skip("this PySide6 has no xcb plugin to check")
    # A fresh process, as `popucom gui` starts on a server: no DISPLAY, whatever libraries it has.
    code = "import sys; from popucom.gui import app; sys.exit(app.main(['--opponent', 'greedy']))"
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("popucom gui: no display (DISPLAY is not set)")
    assert "QT_QPA_PLATFORM=offscreen" in out.stderr and "xvfb-run" in out.stderr
    assert "Aborted" not in out.stderr and "could not be initialized" not in out.stderr
