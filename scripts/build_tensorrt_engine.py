"""Same as `popucom build-engine` (the name players of this game know from the reference project)."""

import sys

from popucom.cli import main

if __name__ == "__main__":
    sys.exit(main(["build-engine", *sys.argv[1:]]))
