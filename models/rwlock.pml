/*
 * models/rwlock.pml - fx_rwlock with two readers (one timed) and a writer.
 *
 * An untimed reader and a timed reader take the lock once each, an untimed
 * writer twice; the untimed ones may be hit by a signal (EINTR) once. This
 * covers several readers holding together, the readers' wake-all, a reader
 * timing out with RW set, and the fast-path reader's undo. Checked:
 *   - mutual exclusion: a writer holds the lock alone (assertions in the
 *     acquiring steps, models/rwlock.inc);
 *   - no lost wake-up: every run ends with every process finished (one left
 *     asleep is an invalid end state, and init then blocks too);
 *   - the lock ends free, with no waiting bit and nobody queued.
 * The protocol itself is in models/rwlock.inc.
 */
//@check safety

#include "rwlock.inc"

init {
    atomic {
        run reader(0, 0, 1, 1);     /* me, timed, signals, iterations */
        run reader(1, 1, 0, 1);
        run writer(2, 0, 1, 2)
    };
    (_nr_pr == 1);
    assert(st == 0);
    assert(!qst[0] && !qst[1] && !qseq[0] && !qseq[1])
}
