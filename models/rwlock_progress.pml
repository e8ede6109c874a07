/*
 * models/rwlock_progress.pml - writers are not starved by a stream of
 * readers.
 *
 * Two readers take and release the lock forever, so that their read holds
 * may overlap without end, and a writer takes the lock twice (the second
 * time with the WW bit it keeps after having slept). Under weak fairness
 * (every process that stays able to move eventually moves), each of the
 * writer's calls ends with the writer holding the lock: claim
 * writer_progress, [] (wants -> <> !wants). The safety check adds mutual
 * exclusion and the absence of deadlock. No timeouts and no signals here: a
 * timed caller may legitimately never get the lock.
 *
 * (A writer looping forever would make the search deeper than pan's default
 * depth bound; one that stops after two calls keeps it under 1000 steps and
 * still covers every state of the readers' stream around a waiting writer.)
 *
 * Readers have no such guarantee against a stream of writers: writers are
 * preferred (include/futexsync/rwlock.h). The protocol itself is in
 * models/rwlock.inc.
 */
//@check safety
//@check ltl writer_progress

#include "rwlock.inc"

ltl writer_progress { [] (wants[2] -> <> !wants[2]) }

init {
    atomic {
        run reader(0, 0, 0, FOREVER); /* me, timed, signals, iterations */
        run reader(1, 0, 0, FOREVER);
        run writer(2, 0, 0, 2)
    }
}
