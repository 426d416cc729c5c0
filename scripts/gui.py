"""Starts the GUI: python scripts/gui.py [game.sgf] [--opponent MODEL|BOT] (same as `popucom gui`)."""

import sys

from popucom.gui.app import main

if __name__ == "__main__":
    sys.exit(main())
