"""Same as `popucom export` (the name players of this game know from the reference project)."""

import sys

from popucom.cli import main

if __name__ == "__main__":
    sys.exit(main(["export", *sys.argv[1:]]))
