"""`import popucom` loads a GPU build of torch before the compiled core (loaded after it, one
crashed: popucom/torch_first.py) and leaves a CPU build to the modules that use it."""

import subprocess
import sys
from pathlib import Path

from popucom.torch_first import gpu_build, torch_must_load_first


def fake_torch(folder: Path, *libraries: str) -> Path:
    (folder / "lib").mkdir(parents=True)
    for name in libraries:
        (folder / "lib" / name).write_bytes(b"")
    return folder


def test_a_gpu_build_is_told_from_its_libraries(tmp_path: Path) -> None:
    assert gpu_build(fake_torch(tmp_path / "cuda", "libc10.so", "libtorch_cpu.so", "libtorch_cuda.so"))
    assert gpu_build(fake_torch(tmp_path / "rocm", "libtorch_cpu.so", "libtorch_hip.so"))
    assert gpu_build(fake_torch(tmp_path / "windows", "torch_cpu.dll", "torch_cuda.dll"))
    assert not gpu_build(fake_torch(tmp_path / "cpu", "libc10.so", "libtorch_cpu.so", "libgomp.so.1"))
    assert not gpu_build(tmp_path / "nothing")


def test_popucom_loads_torch_first_only_for_a_gpu_build() -> None:
    """In a fresh interpreter: the order in which torch and the core load on `import popucom`."""
    probe = (
        "import sys\n"
        "seen = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'popucom._core': seen.append('torch' in sys.modules)\n"
        "sys.meta_path.insert(0, Watch())\n"
        "import popucom._core\n"
        "print(seen[0], 'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    gpu = torch_must_load_first()
    assert out.stdout.split() == [str(gpu), str(gpu)]  # torch before the core, or not at all
