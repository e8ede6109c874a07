#!/usr/bin/env bash
# scripts/test.sh - the README's test command, also run by CI (.ci/run).
#
# Every check of the project, each in its own build directory under build/:
#   genmc    builds GenMC once per machine (tests/genmc/build-genmc.sh)
#   gcc      -Werror build, the whole ctest suite (unit, examples, stress, bench smoke,
#            the GenMC checks of tests/genmc/)
#   clang    -Werror build, the ctest suite but the stress runs and the source checks
#   asan     AddressSanitizer + UndefinedBehaviorSanitizer, the suite but the source checks
#   tsan     ThreadSanitizer, the suite but the source checks (plus the TSan annotation tests)
#   stats    -DFUTEXSYNC_STATS=ON: test_stats and the bench smoke
#   fuzz     clang, -DFUTEXSYNC_FUZZ=ON: the libFuzzer targets (tests/fuzz)
#   i686     Debian's i686 cross compiler (cmake/i686-linux-gnu.cmake), run
#            natively on the x86-64 kernel with a 64-bit time_t: the ctest suite
#            but stress, models and source checks; i686-time32: the futex, time and syscall
#            tests with a 32-bit time_t
#   aarch64, riscv64  cross-built (cmake/<arch>-linux-gnu.cmake): the ctest
#            suite but stress, models and source checks, run under qemu-user
#   install  cmake --install, then a separate CMake project (find_package) and
#            a plain pkg-config build, in C and C++; a user's program built with
#            -fsanitize=thread (and one under Helgrind) against the installed
#            library: silent through each primitive, reported without it
#   package  tests/package/check.sh: add_subdirectory installs nothing by
#            default, the shared library's SONAME and exports, man pages
# Installs what is missing (Debian). Exits non-zero at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

fx_require_packages cmake make gcc g++ clang libclang-rt-14-dev libc6-dev pkg-config \
                    libcmocka-dev spin groff-base perl
fx_want_packages libnsync-dev libck-dev valgrind

jobs=$(fx_jobs)
start=$(date +%s)
stage() { echo; echo "==== $* ($(( $(date +%s) - start )) s)"; }

# build_and_test NAME CTEST_ARGS... -- CMAKE_ARGS... [-- TARGETS...]
# Builds TARGETS (by default all) in build/NAME, then runs ctest there with
# $ctest_jobs (by default $jobs) tests at a time.
build_and_test() {
    local name=$1; shift
    local ctest_args=() cmake_args=() targets=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do ctest_args+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    [ $# -gt 0 ] && targets=(--target "$@")
    stage "$name: configure and build"
    cmake -S . -B "build/$name" -DFUTEXSYNC_WERROR=ON ${cmake_args[@]+"${cmake_args[@]}"} >/dev/null
    if ! cmake --build "build/$name" -j "$jobs" ${targets[@]+"${targets[@]}"} \
            >"build/$name/build.log" 2>&1; then
        cat "build/$name/build.log"
        return 1
    fi
    stage "$name: ctest"
    ctest --test-dir "build/$name" --output-on-failure -j "${ctest_jobs:-$jobs}" \
        ${ctest_args[@]+"${ctest_args[@]}"}
    # cmocka's own verdict of every test binary that passed (ctest shows the
    # output of failed tests only): one line per binary, from ctest's log.
    echo "cmocka results ($name):"
    awk '/^[0-9]+\/[0-9]+ Testing: / { test = $3 }
         /^\[  PASSED  \]/ { printf "  %-28s %s\n", test, $0 }' \
        "build/$name/Testing/Temporary/LastTest.log"
}

# GenMC 0.10.3, for the weak-memory checks of the real C code (tests/genmc/,
# ctest label genmc, run by the gcc build below): built once per machine into
# a cache outside the clone, about 7 minutes on 2 cores the first time, then
# found there. Where it cannot be built the checks skip with a message.
stage "genmc: GenMC 0.10.3 (built once per machine)"
tests/genmc/build-genmc.sh >/dev/null ||
    echo "note: GenMC is not available here: the genmc checks will skip"

build_and_test gcc -- -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
# The checks of the sources alone (label source: docs, man pages, include
# cycles, file sizes) run in the gcc stage only: the sources are the same in
# every stage.
# clang: every test but the stress runs, which the gcc, ASan and TSan builds
# run (they run one at a time, RUN_SERIAL, and a fourth pass costs CI a minute).
build_and_test clang -LE 'stress|source' -- -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
build_and_test asan -LE source -- -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_BUILD_TYPE=Debug -DFUTEXSYNC_SANITIZE=address,undefined
build_and_test tsan -LE source -- -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFUTEXSYNC_SANITIZE=thread
# The stats build (FUTEXSYNC_STATS=ON): its own tests and the bench's fx_* columns.
# Only the programs these tests run are built.
build_and_test stats -R 'test_stats|bench_smoke' -- -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFUTEXSYNC_STATS=ON -- test_stats futexsync-bench
# The libFuzzer targets, a fixed number of executions each (label fuzz): only
# they are built (tests/fuzz/fuzz_<name>.c is the target fuzz_<name>).
mapfile -t fuzz_targets < <(cd tests/fuzz && for f in fuzz_*.c; do echo "${f%.c}"; done)
build_and_test fuzz -L fuzz -- -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFUTEXSYNC_FUZZ=ON -- "${fuzz_targets[@]}"

# i686 (IA-32), natively on this x86-64 kernel: the 32-bit ABI (addresses
# above 2 GiB are negative longs, other system call numbers, futex_time64)
# with _TIME_BITS=64, the default of newer 32-bit distributions, whose libc
# timespec the kernel's 32-bit calls do not take. The stress runs and the
# models are the same code as on x86-64, which runs them. Then a 32-bit
# time_t build of the tests of the time conversions alone (the rest of the
# library does not depend on time_t's width). Built by Debian's i686 cross
# compiler, which installs beside the aarch64 and riscv64 ones (gcc-multilib
# conflicts with them all), with cmocka cross-built as for those; the
# programs run on Debian's 32-bit runtime for amd64 (libc6-i386 and co.).
fx_require_packages gcc-i686-linux-gnu g++-i686-linux-gnu libc6-i386 lib32gcc-s1 lib32stdc++6
stage "i686: cmocka for i686-linux-gnu"
cmocka=$(fx_cross_cmocka i686-linux-gnu)
# Some x86-64 kernels run no 32-bit program (IA-32 emulation off: execve
# gives ENOEXEC). There the i686 programs are built (-Werror, the 32-bit
# ABI) and not run, and the run says so.
i686_ctest=()
i686_probe=$(mktemp -d)
echo 'int main(void) { return 0; }' >"$i686_probe/p.c"
if ! i686-linux-gnu-gcc "$i686_probe/p.c" -o "$i686_probe/p" 2>/dev/null || ! "$i686_probe/p" 2>/dev/null; then
    echo "note: this kernel runs no i686 program (IA-32 emulation off): the i686 stages build only"
    i686_ctest=(-R '^$' --no-tests=ignore)
fi
rm -rf "$i686_probe"
build_and_test i686 -LE 'stress|model|source' ${i686_ctest[@]+"${i686_ctest[@]}"} -- -DCMAKE_TOOLCHAIN_FILE=cmake/i686-linux-gnu.cmake \
    -DFUTEXSYNC_CMOCKA_PREFIX="$cmocka" -DFUTEXSYNC_TIME_BITS=64 -DCMAKE_BUILD_TYPE=RelWithDebInfo
stage "i686-time32: configure and build (32-bit time_t)"
cmake -S . -B build/i686-time32 -DFUTEXSYNC_WERROR=ON -DFUTEXSYNC_CMOCKA_PREFIX="$cmocka" \
    -DCMAKE_TOOLCHAIN_FILE=cmake/i686-linux-gnu.cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
if ! cmake --build build/i686-time32 -j "$jobs" --target test_futex test_time test_syscall \
        >build/i686-time32/build.log 2>&1; then
    cat build/i686-time32/build.log
    exit 1
fi
stage "i686-time32: ctest"
if [ ${#i686_ctest[@]} -eq 0 ]; then
    ctest --test-dir build/i686-time32 --output-on-failure -j "$jobs" -R '^(test_futex|test_time|test_syscall)$'
else
    echo "note: built, not run (no i686 program runs on this kernel)"
fi

# aarch64 and riscv64 under qemu-user (cmake/<arch>-linux-gnu.cmake: Debian's
# cross compilers, ctest runs each program through qemu-<arch> -L the cross
# sysroot; cmocka cross-built once into ~/.cache/futexsync by deps.sh). What
# qemu-user cannot do (seccomp, process_vm_readv, exec of a target program
# without binfmt_misc, new PID namespaces, zombies that look alive) a test
# finds out by a probe at run time and skips or adapts with a message
# (tests/fxtest.h): every test binary runs, no list of names. Not run here:
# the stress runs, since qemu-user on this x86-64 host executes the target's
# loads and stores with the host's TSO ordering (no weak-memory reordering
# that the native stress runs do not see), and the models, the same files as
# in the gcc stage. Part of every run, and so of CI; FUTEXSYNC_CROSS=0 leaves
# them out (a quick native run by hand).

# qemu-user, or qemu-user-static where that is installed instead (no
# binfmt_misc registration is needed: the toolchain file names qemu).
# ctest runs one test more at a time than there are cores: the emulated
# tests spend much of their time blocked (waits, sleeps, forks), so this
# shortens the stages (docs/verification.md, "Architectures").
if [ "${FUTEXSYNC_CROSS:-1}" = 1 ]; then
    qemu_pkg=qemu-user
    [ -z "$(fx_missing_packages qemu-user-static)" ] && qemu_pkg=qemu-user-static
    fx_require_packages "$qemu_pkg" gcc-aarch64-linux-gnu g++-aarch64-linux-gnu \
                        gcc-riscv64-linux-gnu g++-riscv64-linux-gnu
    ctest_jobs=$(( jobs + 1 ))
    for arch in aarch64 riscv64; do
        stage "$arch: cmocka for $arch-linux-gnu"
        cmocka=$(fx_cross_cmocka "$arch-linux-gnu")
        # A failed test is run once more here, and only here: under load a
        # forked test process has now and then not finished in time under
        # qemu-user (test_rwlock's, test_fault_wake's, test_rmutex's process
        # cases), never in the native stages, which run everything once.
        # ctest names every test that needed the second run. Stopgap until the
        # cause is caught (CLOSING NOTE of 2026-12-07, "a rare hang").
        build_and_test "$arch" -LE 'stress|model|source' --repeat until-pass:2 -- \
            -DCMAKE_TOOLCHAIN_FILE="cmake/$arch-linux-gnu.cmake" -DFUTEXSYNC_CMOCKA_PREFIX="$cmocka" \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo
    done
    unset ctest_jobs

else
    stage "aarch64, riscv64: skipped (FUTEXSYNC_CROSS=0)"
fi

stage "install: cmake --install, find_package and pkg-config consumers"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install build/gcc --prefix "$prefix" >/dev/null
cmake -S tests/install -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
"$prefix/consumer/consumer_c"
"$prefix/consumer/consumer_cxx"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror tests/install/consumer.c -o "$prefix/pc_c" $(pkg-config --cflags --libs futexsync)
# shellcheck disable=SC2046
g++ -std=c++17 -Wall -Wextra -Werror tests/install/consumer.cpp -o "$prefix/pc_cxx" $(pkg-config --cflags --libs futexsync)
"$prefix/pc_c"
"$prefix/pc_cxx"
# futexsync.hpp: the C++ types with the standard lock wrappers, both ways.
"$prefix/consumer/consumer_hpp"
# shellcheck disable=SC2046
g++ -std=c++17 -Wall -Wextra -Werror tests/install/consumer_hpp.cpp -o "$prefix/pc_hpp" $(pkg-config --cflags --libs futexsync)
"$prefix/pc_hpp"

stage "package: vendored install, shared library, man pages"
tests/package/check.sh "$prefix/package"

# The installed release library (not a TSan build of it) under the user's race
# detector: a program built with -fsanitize=thread (gcc: libtsan, clang: its
# static runtime) reports no race when 8 threads update an int through each
# primitive, and reports one without the primitive; the same pair under
# Helgrind when valgrind is installed (tests/sanitizer/race_user.sh judges).
stage "install: the release library under ThreadSanitizer and Helgrind"
for cc in gcc clang; do
    # shellcheck disable=SC2046
    $cc -std=c11 -Wall -Wextra -Werror -g -fsanitize=thread tests/sanitizer/race_user.c \
        -o "$prefix/race_user_tsan_$cc" $(pkg-config --cflags --libs futexsync)
    sh tests/sanitizer/race_user.sh tsan "$prefix/race_user_tsan_$cc"
done
if command -v valgrind >/dev/null; then
    # shellcheck disable=SC2046
    gcc -std=c11 -Wall -Wextra -Werror -g tests/sanitizer/race_user.c \
        -o "$prefix/race_user_plain" $(pkg-config --cflags --libs futexsync)
    sh tests/sanitizer/race_user.sh helgrind "$prefix/race_user_plain"
fi

stage "all checks passed"
