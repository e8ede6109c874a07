/*
 * src/internal/spin.h - the pause instruction for busy-wait loops.
 */
#ifndef FX_INTERNAL_SPIN_H
#define FX_INTERNAL_SPIN_H

/* Tells the CPU this is a spin-wait loop: saves power, yields the core to a
 * hyper-thread sibling and avoids a memory-order mis-speculation on exit. */
static inline void fx_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* FX_INTERNAL_SPIN_H */
