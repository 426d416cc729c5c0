"""Search throughput: serial C++ playouts/s, batched multi-game search cost per
leaf with 1 and 2 threads (zero-cost evaluator, G=256, batch ~512), uct rollouts/s.

Usage: python bench/search.py [--repeats R]   (same as `popucom bench search`)
"""

import sys

from popucom.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "search", *sys.argv[1:]]))
