"""Same as `popucom train` (the name players of this game know from the reference project)."""

import sys

from popucom.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
