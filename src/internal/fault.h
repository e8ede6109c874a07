/*
 * src/internal/fault.h - named fault points on the slow paths, for tests.
 *
 * A test that must force a schedule (kill a process between the kernel's wake
 * and its return, let a TID be reused between a liveness check and a CAS,
 * deliver a signal between two waits) links the test variant of the library,
 * futexsync_testing (tests/CMakeLists.txt), which is compiled with
 * FUTEXSYNC_TESTING, and defines
 *
 *     void fxi_fault_point(const char *step) { ... }
 *
 * in its own executable (tests/fxfault.c does); the variant's weak reference
 * then resolves to it and every FXI_FAULT("primitive.step") calls it with the
 * step's name. Fault points sit only on slow paths (after a failed fast path,
 * around system calls), never on an uncontended path.
 *
 * The library that is built for users and installed (libfutexsync.a, .so) is
 * compiled without FUTEXSYNC_TESTING: FXI_FAULT is empty there, and the
 * library holds no reference to fxi_fault_point, so no program can hook into
 * it by defining that name (tests/package/check.sh and the
 * library_test_hooks test check its symbols).
 */
#ifndef FXI_INTERNAL_FAULT_H
#define FXI_INTERNAL_FAULT_H

#include <stdbool.h>

#ifdef FUTEXSYNC_TESTING
extern void fxi_fault_point(const char *step) __attribute__((weak));

#define FXI_FAULT(step)                                                                   \
    do {                                                                                 \
        if (fxi_fault_point != 0)                                                        \
            fxi_fault_point(step);                                                       \
    } while (0)

/* A decision the library made (a bool) that a test may overwrite: a test that
 * defines fxi_fault_verdict(step, v) returns v, or the verdict to force. */
extern bool fxi_fault_verdict(const char *step, bool verdict) __attribute__((weak));
#define FXI_FAULT_VERDICT(step, v) (fxi_fault_verdict != 0 ? fxi_fault_verdict(step, v) : (v))
#else
#define FXI_FAULT(step)                                                                   \
    do {                                                                                 \
    } while (0)
#define FXI_FAULT_VERDICT(step, v) (v)
#endif

#endif /* FXI_INTERNAL_FAULT_H */
