# cmake/riscv64-linux-gnu.cmake - build futexsync for RV64GC (riscv64) with
# Debian's cross compiler and run its tests under qemu-user (scripts/test.sh's
# riscv64 stage):
#   apt-get install gcc-riscv64-linux-gnu g++-riscv64-linux-gnu qemu-user
#   . scripts/deps.sh && fx_cross_cmocka riscv64-linux-gnu   # cmocka, once
#   cmake -S . -B build/riscv64 -DCMAKE_TOOLCHAIN_FILE=cmake/riscv64-linux-gnu.cmake
#   cmake --build build/riscv64 -j2 && ctest --test-dir build/riscv64
# See cmake/cross-linux-gnu.cmake.
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(FUTEXSYNC_CROSS_TRIPLE riscv64-linux-gnu)
set(FUTEXSYNC_QEMU qemu-riscv64)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)
