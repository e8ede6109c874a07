# cmake/i686-linux-gnu.cmake - build futexsync for i686 (IA-32) with Debian's
# cross compiler, to run natively on an x86-64 kernel (scripts/test.sh's i686
# stages). The programs are ordinary i686 ones (interpreter /lib/ld-linux.so.2)
# and run on Debian's 32-bit runtime for amd64 (libc6-i386, lib32gcc-s1,
# lib32stdc++6); cmocka is cross-built like the qemu targets' (no i386
# foreign architecture is needed):
#   apt-get install gcc-i686-linux-gnu g++-i686-linux-gnu \
#                   libc6-i386 lib32gcc-s1 lib32stdc++6
#   . scripts/deps.sh && fx_cross_cmocka i686-linux-gnu     # cmocka, once
#   cmake -S . -B build/i686 -DCMAKE_TOOLCHAIN_FILE=cmake/i686-linux-gnu.cmake \
#         -DFUTEXSYNC_TIME_BITS=64
# Debian's cross compilers (unlike gcc-multilib, which conflicts with them)
# install side by side: i686, aarch64 and riscv64 on one machine.
# FUTEXSYNC_TIME_BITS=64 builds with a 64-bit time_t (-D_TIME_BITS=64, the
# default of newer 32-bit distributions); otherwise time_t has 32 bits.
# See cmake/cross-linux-gnu.cmake.
set(CMAKE_SYSTEM_PROCESSOR i686)
set(FUTEXSYNC_CROSS_TRIPLE i686-linux-gnu)
set(FUTEXSYNC_CROSS_MULTIARCH i386-linux-gnu)
set(CMAKE_C_FLAGS_INIT "-march=i686")
set(CMAKE_CXX_FLAGS_INIT "-march=i686")
if(FUTEXSYNC_TIME_BITS EQUAL 64)
  string(APPEND CMAKE_C_FLAGS_INIT " -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64")
  string(APPEND CMAKE_CXX_FLAGS_INIT " -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FUTEXSYNC_TIME_BITS)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)
