"""Rules throughput: random playouts/s in C++, Python API cost per move, encoder positions/s.

Usage: python bench/rules.py [--games N] [--repeats R]   (same as `popucom bench rules`)
"""

import sys

from popucom.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "rules", *sys.argv[1:]]))
