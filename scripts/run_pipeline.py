"""Same as `popucom pipeline` (the name players of this game know from the reference project)."""

import sys

from popucom.cli import main

if __name__ == "__main__":
    sys.exit(main(["pipeline", *sys.argv[1:]]))
