"""Whether `import popucom` must load torch before the compiled core.

On a GPU machine (torch 2.11.0+cu130, Python 3.12, the core built there by gcc 13.3) `import
torch` after the core killed the process with a segmentation fault inside torch's own import,
and the reverse order worked; CPU builds of torch (2.13, gcc 12) load either way. So the
package loads a GPU build of torch first, and leaves a CPU build to the modules that use it:
reading a config, the rules and the bots then start without it. The build is told from the
files torch ships, without importing it. This module imports neither torch nor the core.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# Libraries only a GPU build of torch ships (CUDA, ROCm; Linux and Windows names).
GPU_LIBRARIES = ("libtorch_cuda*", "libtorch_hip*", "torch_cuda*", "torch_hip*")


def gpu_build(torch_folder: Path) -> bool:
    """Whether the torch installed in `torch_folder` (the package's folder) is a GPU build."""
    lib = torch_folder / "lib"
    return any(next(lib.glob(pattern), None) is not None for pattern in GPU_LIBRARIES)


def torch_must_load_first() -> bool:
    """True where torch is installed as a GPU build and not loaded yet."""
    if "torch" in sys.modules:
        return False
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return False
    return any(gpu_build(Path(folder)) for folder in spec.submodule_search_locations)
