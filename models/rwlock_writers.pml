/*
 * models/rwlock_writers.pml - fx_rwlock with a reader and two writers (one
 * timed).
 *
 * An untimed reader takes the lock once, an untimed writer twice and a timed
 * writer once; the untimed ones may be hit by a signal (EINTR) once. This
 * covers writers waking one another through writer_seq (the WW bit set again
 * by a writer that has slept), WP taken back by a writer that gives up, and a
 * wake handed from writers to readers when no writer was asleep. Checked as
 * in models/rwlock.pml: mutual exclusion, no lost wake-up (no invalid end
 * state), and a free lock with nobody queued at the end.
 * The protocol itself is in models/rwlock.inc.
 */
//@check safety

#include "rwlock.inc"

init {
    atomic {
        run reader(0, 0, 1, 1);     /* me, timed, signals, iterations */
        run writer(2, 0, 1, 2);
        run writer(3, 1, 0, 1)
    };
    (_nr_pr == 1);
    assert(st == 0);
    assert(!qst[0] && !qst[1] && !qseq[0] && !qseq[1])
}
