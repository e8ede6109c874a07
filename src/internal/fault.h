/*
 * src/internal/fault.h - named fault points on the slow paths, for tests.
 *
 * A test that must force a schedule (kill a process between the kernel's wake
 * and its return, let a TID be reused between a liveness check and a CAS,
 * deliver a signal between two waits) defines
 *
 *     void fxi_fault_point(const char *step) { ... }
 *
 * in its own executable; the library's weak reference then resolves to it and
 * every FX_FAULT("primitive.step") calls it with the step's name. Without such
 * a definition the reference stays null and a fault point costs one test of a
 * constant address. Fault points sit only on slow paths (after a failed fast
 * path, around system calls), never on an uncontended path.
 */
#ifndef FX_INTERNAL_FAULT_H
#define FX_INTERNAL_FAULT_H

extern void fxi_fault_point(const char *step) __attribute__((weak));

#define FX_FAULT(step)                                                                   \
    do {                                                                                 \
        if (fxi_fault_point != 0)                                                        \
            fxi_fault_point(step);                                                       \
    } while (0)

#endif /* FX_INTERNAL_FAULT_H */
