"""The GUI's language: English (the source strings in the code) or Simplified Chinese, through
Qt's own machinery (QTranslator and the compiled .qm catalogues in i18n/).

Which language: `popucom gui --lang`, else the choice stored by the View > Language menu
(QSettings key `language`), else the system locale (QLocale.system(): Chinese in the
simplified script gives zh_CN, anything else English). The menu switches at run time:
`set_language` replaces the installed translators, Qt sends every widget a LanguageChange
event, and each widget re-sets its texts (MainWindow.retranslate, AnalysisPanel.retranslate).

The catalogue's source is i18n/popucom_zh_CN.ts; after changing a user-visible string:
    pyside6-lupdate popucom/gui/*.py -ts popucom/gui/i18n/popucom_zh_CN.ts -no-obsolete -locations none
    (translate the new entries, e.g. with pyside6-linguist, and drop their type="unfinished")
    pyside6-lrelease popucom/gui/i18n/popucom_zh_CN.ts -qm popucom/gui/i18n/popucom_zh_CN.qm
tests/gui/test_i18n.py checks that the .qm matches the .ts and that nothing is left untranslated.
State lives here, module-wide, as Qt's own translators are application-wide.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QSettings, QTranslator
from PySide6.QtGui import QFontDatabase, QGuiApplication

I18N_DIR = Path(__file__).with_name("i18n")
ENGLISH = "en"
# Each language named in its own language: the menu shows these untranslated.
LANGUAGES = {ENGLISH: "English", "zh_CN": "简体中文"}
SETTINGS_KEY = "language"
# The script of each translation that Latin fonts lack: Qt's writing system and fontconfig's
# language, to ask whether any installed font has its characters (else they show as boxes).
SCRIPTS = {"zh_CN": (QFontDatabase.WritingSystem.SimplifiedChinese, "zh-cn")}
FONT_INSTALL = "sudo apt-get install fonts-noto-cjk"

_installed: list[QTranslator] = []  # kept referenced: Qt does not own installed translators
_current = ENGLISH
_font_warned: set[str] = set()  # the languages whose missing font was reported (once a run)


class LanguageError(ValueError):
    """An unknown language name, or a translation catalogue that is missing or unreadable."""


def normalize(name: str) -> str:
    """`en`, `zh_CN` and their usual spellings (`zh-CN`, `zh`, `en_US`, `English`...) as a key
    of LANGUAGES; LanguageError for anything else."""
    key = name.strip().replace("-", "_").lower()
    if key in ("en", "english") or key.startswith("en_"):
        return ENGLISH
    if key in ("zh", "zh_cn", "zh_hans", "zh_sg", "zh_hans_cn", "chinese", "简体中文"):
        return "zh_CN"
    raise LanguageError(f"unknown language '{name}': choose one of {', '.join(LANGUAGES)}")


def system_language(locale: QLocale | None = None) -> str:
    """The language for a locale (default: the system's, from LANGUAGE, LC_ALL, LC_MESSAGES,
    LANG): the first of its UI languages that is English or Chinese in the simplified
    script; English if none is (Traditional Chinese readers get English, not zh_CN)."""
    locale = locale if locale is not None else QLocale.system()
    for name in locale.uiLanguages():
        ui = QLocale(name)
        if ui.language() == QLocale.Language.English:
            return ENGLISH
        if ui.language() == QLocale.Language.Chinese:
            # The first Chinese entry decides: zh-Hant-TW comes with a bare `zh` fallback
            # after it, which QLocale would read as simplified.
            return "zh_CN" if ui.script() != QLocale.Script.TraditionalHanScript else ENGLISH
    return ENGLISH


def stored_language(settings: QSettings | None) -> str | None:
    """The language the menu stored last time, if any and still known."""
    if settings is None:
        return None
    value = settings.value(SETTINGS_KEY)
    try:
        return normalize(str(value)) if value else None
    except LanguageError:
        return None


def store_language(settings: QSettings | None, language: str) -> None:
    if settings is not None:
        settings.setValue(SETTINGS_KEY, language)
        settings.sync()


def choose_language(requested: str | None, settings: QSettings | None, locale: QLocale | None = None) -> str:
    """--lang if given (LanguageError if unknown), else the stored choice, else the locale's."""
    if requested:
        return normalize(requested)
    return stored_language(settings) or system_language(locale)


def catalogue(language: str) -> Path:
    return I18N_DIR / f"popucom_{language}.qm"


def current_language() -> str:
    return _current


def font_installed(language: str) -> bool:
    """Whether an installed font has `language`'s characters: Qt's font database once a
    QGuiApplication runs and has found fonts, else fontconfig's `fc-list :lang=...`; True where
    neither can tell (no fc-list), so a warning is never a guess."""
    language = normalize(language)
    if language not in SCRIPTS:
        return True
    writing_system, fontconfig_lang = SCRIPTS[language]
    if QGuiApplication.instance() is not None:
        found = QFontDatabase.writingSystems()
        if found:
            return writing_system in found
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return True
    try:
        out = subprocess.run([fc_list, f":lang={fontconfig_lang}", "family"], capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return True
    return out.returncode != 0 or bool(out.stdout.strip())


def missing_font_warning() -> str | None:
    """The warning, in the current language, that no installed font has its characters, the
    first time it applies in this run (then None, as for a language whose font is there)."""
    if _current in _font_warned or font_installed(_current):
        return None
    _font_warned.add(_current)
    return QCoreApplication.translate(
        "Language", "No installed font has {language} characters, which show as boxes; install one: {command}"
    ).format(language=LANGUAGES[_current], command=FONT_INSTALL)


def set_language(language: str) -> None:
    """Installs the translators for `language` in the running QCoreApplication, replacing the
    previous ones (English installs none: the code's strings are English). Raises
    LanguageError, leaving the language as it was, if the name is unknown or the catalogue is
    missing or unreadable. Qt's own catalogue (dialog buttons, context menus) is added when
    the Qt installation ships one; its absence is not an error."""
    global _current
    language = normalize(language)
    app = QCoreApplication.instance()
    if app is None:
        raise LanguageError("set_language needs a QApplication")
    translators: list[QTranslator] = []
    if language != ENGLISH:
        path = catalogue(language)
        ours = QTranslator(app)
        if not path.is_file():
            raise LanguageError(f"the {LANGUAGES[language]} translation {path} is missing (reinstall popucom)")
        if not ours.load(str(path)) or ours.isEmpty():
            raise LanguageError(f"the {LANGUAGES[language]} translation {path} cannot be read")
        translators.append(ours)
        qt_own = QTranslator(app)
        if qt_own.load(f"qt_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            translators.append(qt_own)
    # Installing and removing translators each send the application a LanguageChange, which
    # Qt posts on to every top-level widget (and they to their children).
    for old in _installed:
        QCoreApplication.removeTranslator(old)
    _installed[:] = translators
    for translator in translators:
        QCoreApplication.installTranslator(translator)
    _current = language
