# cmake/cross-linux-gnu.cmake - the part common to the toolchain files of
# Debian's cross compilers (cmake/aarch64-linux-gnu.cmake,
# cmake/riscv64-linux-gnu.cmake, cmake/i686-linux-gnu.cmake), which set
# FUTEXSYNC_CROSS_TRIPLE, optionally FUTEXSYNC_CROSS_MULTIARCH (the Debian
# multiarch name of the target's libraries, by default the triple) and
# FUTEXSYNC_QEMU, and include this file.
#
# Debian's cross compilers <triple>-gcc/g++ build for the target; its C
# library lives in /usr/<triple> (the cross "sysroot"). With FUTEXSYNC_QEMU
# set, ctest runs each test program through CMAKE_CROSSCOMPILING_EMULATOR,
# qemu-user with -L that sysroot, so no binfmt_misc registration is needed;
# scripts that run programs they built themselves (the man pages' examples,
# examples/shm) take the same command from the FUTEXSYNC_EMULATOR environment
# variable. Without it (i686 on an x86-64 kernel) the programs run directly.
#
# cmocka for the target: the prefix where it is installed, by default the
# cache that scripts/deps.sh (fx_cross_cmocka) builds it into,
# ${XDG_CACHE_HOME:-$HOME/.cache}/futexsync/cmocka-1.1.5-<triple>; or
# -DFUTEXSYNC_CMOCKA_PREFIX=DIR.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${FUTEXSYNC_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${FUTEXSYNC_CROSS_TRIPLE}-g++)
if(NOT FUTEXSYNC_CROSS_MULTIARCH)
  set(FUTEXSYNC_CROSS_MULTIARCH ${FUTEXSYNC_CROSS_TRIPLE})
endif()
set(CMAKE_LIBRARY_ARCHITECTURE ${FUTEXSYNC_CROSS_MULTIARCH})

if(NOT FUTEXSYNC_CMOCKA_PREFIX)
  if(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
    set(_fx_cache "$ENV{XDG_CACHE_HOME}")
  else()
    set(_fx_cache "$ENV{HOME}/.cache")
  endif()
  set(FUTEXSYNC_CMOCKA_PREFIX "${_fx_cache}/futexsync/cmocka-1.1.5-${FUTEXSYNC_CROSS_TRIPLE}")
endif()
# try_compile projects see the same values.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FUTEXSYNC_CMOCKA_PREFIX)

# Libraries, headers and packages of the target only (the sysroot and the
# cross-built cmocka); programs (pkg-config, sh, nm) of the host.
set(CMAKE_FIND_ROOT_PATH /usr/${FUTEXSYNC_CROSS_TRIPLE} ${FUTEXSYNC_CMOCKA_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config: the target's .pc files, never the host's (libcmocka-dev of
# x86-64 installs one too).
set(ENV{PKG_CONFIG_LIBDIR}
    "${FUTEXSYNC_CMOCKA_PREFIX}/lib/pkgconfig:/usr/lib/${FUTEXSYNC_CROSS_MULTIARCH}/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

if(FUTEXSYNC_QEMU)
  find_program(FUTEXSYNC_QEMU_PATH ${FUTEXSYNC_QEMU} ${FUTEXSYNC_QEMU}-static)
  if(NOT FUTEXSYNC_QEMU_PATH)
    message(WARNING "${FUTEXSYNC_QEMU} not found (apt-get install qemu-user): "
                    "the tests build but ctest cannot run them")
    set(FUTEXSYNC_QEMU_PATH ${FUTEXSYNC_QEMU})
  endif()
  set(CMAKE_CROSSCOMPILING_EMULATOR ${FUTEXSYNC_QEMU_PATH} -L /usr/${FUTEXSYNC_CROSS_TRIPLE})
endif()
