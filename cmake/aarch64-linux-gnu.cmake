# Cross-builds the native tests for 64-bit ARM (the portable kernels on NEON) with Debian's
# cross compiler, and runs them under qemu-user: what an ARM laptop, phone or board would run.
#   cmake -S . -B build/arm64-tests -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#   cmake --build build/arm64-tests && ctest --test-dir build/arm64-tests
# Needs Debian's g++-aarch64-linux-gnu and qemu-user (tests/core/test_arm_build.py).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/aarch64-linux-gnu)
