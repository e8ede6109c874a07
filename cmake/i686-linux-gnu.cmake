# cmake/i686-linux-gnu.cmake - build futexsync for i686 (IA-32) on an x86-64
# Debian host with the multilib compilers, to run natively on the 64-bit
# kernel (scripts/test.sh's i686 stage):
#   dpkg --add-architecture i386 && apt-get update
#   apt-get install gcc-multilib g++-multilib libcmocka-dev:i386
#   cmake -S . -B build/i686 -DCMAKE_TOOLCHAIN_FILE=cmake/i686-linux-gnu.cmake \
#         -DFUTEXSYNC_TIME_BITS=64
# FUTEXSYNC_TIME_BITS=64 builds with a 64-bit time_t (-D_TIME_BITS=64, the
# default of newer 32-bit distributions); otherwise time_t has 32 bits.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_C_FLAGS_INIT "-m32 -march=i686")
set(CMAKE_CXX_FLAGS_INIT "-m32 -march=i686")
if(FUTEXSYNC_TIME_BITS EQUAL 64)
  string(APPEND CMAKE_C_FLAGS_INIT " -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64")
  string(APPEND CMAKE_CXX_FLAGS_INIT " -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FUTEXSYNC_TIME_BITS)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-m32")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-m32")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-m32")
# Libraries and pkg-config files of the i386 packages (Debian multiarch).
set(CMAKE_LIBRARY_ARCHITECTURE i386-linux-gnu)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/i386-linux-gnu/pkgconfig:/usr/share/pkgconfig")
