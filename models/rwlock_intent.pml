/*
 * models/rwlock_intent.pml - a writer of fx_rwlock killed while it waits
 * (issue 11, class 8), and the renewal of writer intent that the fix on
 * branch rwsem (7a5ab71) implements in src/rwlock.c.
 *
 * A waiting writer sets WP and WW (here one bit, I: "a writer says it
 * waits"), which keep new readers out. A writer killed while it waits leaves
 * I behind; before the fix, readers stayed out for good (and a reader inside
 * that waits for another reader then never leaves). The fix: a waiting
 * writer renews its intent on writer_seq (every recheck period, and when it
 * sets I), and a reader kept out by I alone that sees writer_seq unchanged
 * for more than two renewal periods takes I away (CAS from the exact value
 * seen) and comes in. Clearing I never breaks mutual exclusion (only WL and
 * the reader count exclude); a live writer that was only slow sets I again at
 * its next look.
 *
 * Time is abstracted to rechecks: a reader kept out looks again at its
 * recheck (always enabled while it waits: fxi_futex_sleep) and counts the
 * rechecks in a row at which writer_seq had not moved; STALE of them make
 * the intent stale (FXI_RWLOCK_STALE_NS is more than two renewal periods,
 * and a writer renews at each of its own rechecks). writer_seq is kept
 * modulo 4.
 *
 * Processes: reader 0 holds the read lock from the start and leaves only
 * after reader 1 has been inside (a reader waiting for another reader);
 * reader 1 arrives later; the writer arrives while reader 0 holds, says it
 * waits, renews, and is killed at any step of its wait (it never gets the
 * lock: reader 0 does not leave before reader 1 came in, and a live writer
 * would rightly keep reader 1 out: writer preference). The writer is always
 * killed in the end (otherwise the run is the writer-preference deadlock
 * that pthread_rwlock_t has too).
 *
 * Property reader_in (weak fairness): reader 1 eventually gets in, once the
 * writer is dead. The mutation rwlock-intent-never-stale (readers never take
 * a gone writer's intent away: main before the fix) is caught.
 */
//@check ltl reader_in

#define STALE 2

bool I = 0;             /* WP|WW: a writer says it waits */
byte R = 1;             /* readers holding: reader 0 from the start */
byte seq = 0;           /* writer_seq, modulo 4 */
bool doom = 0;          /* the killer chose the writer */
bool wdead = 0;         /* the writer was killed (observer) */
bool met = 0;           /* reader 1 has been inside */
bool r1in = 0;          /* (observer) */

/* The writer: waits for the readers to drain (they do not), says so, and
 * renews at each of its rechecks until it is killed. */
active proctype writer()
{
    {
        atomic { I = 1; seq = (seq + 1) % 4 };     /* +WP +WW, and a renewal */
        do
        :: atomic { seq = (seq + 1) % 4; I = 1 }   /* its recheck: renew, set I again if cleared */
        od
    } unless { atomic { doom -> wdead = 1 } }      /* killed, at any step */
}

/* The killer: SIGKILLs the writer at any moment (its escape above is taken
 * before the writer's next step). */
active proctype killer()
{
    doom = 1
}

/* Reader 1: kept out while I is set; at each recheck, counts how long
 * writer_seq has not moved, and takes a stale I away. */
active proctype reader1()
{
    byte seen, still = 0;
    bool in = 0;
    do
    :: in -> break
    :: else ->
        atomic {
            if
            :: !I -> R++; in = 1; met = 1; r1in = 1   /* no writer says it waits: in */
            :: else -> seen = seq                     /* kept out by I alone: watch */
            fi
        };
        if
        :: !in ->
            atomic {                                  /* the recheck (a bounded sleep) */
                if
                :: seq == seen -> still++
                :: else -> still = 0
                fi
            };
            if
            :: still >= STALE ->                      /* stale: the writer is gone */
                atomic { if :: seq == seen -> I = 0 :: else fi }; /* CAS -WP -WW [M:intent-stale] */
                still = 0
            :: else -> skip
            fi
        :: else -> skip
        fi
    od;
    atomic { R-- }
}

/* Reader 0: holds the lock until reader 1 has been inside. */
active proctype reader0()
{
    met;
    atomic { R-- }
}

ltl reader_in { [] (wdead -> <> r1in) }
