# cmake/aarch64-linux-gnu.cmake - build futexsync for arm64 (AArch64) with
# Debian's cross compiler and run its tests under qemu-user (scripts/test.sh's
# aarch64 stage):
#   apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user
#   . scripts/deps.sh && fx_cross_cmocka aarch64-linux-gnu   # cmocka, once
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#   cmake --build build/aarch64 -j2 && ctest --test-dir build/aarch64
# See cmake/cross-linux-gnu.cmake.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(FUTEXSYNC_CROSS_TRIPLE aarch64-linux-gnu)
set(FUTEXSYNC_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)
