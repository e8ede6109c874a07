/*
 * models/rwlock.pml - the fx_rwlock protocol of src/rwlock.c, with the futex.
 *
 * Mirrors src/rwlock.c at the version pinned by the //@source line (see
 * models/README.md); each step names the line(s) of src/rwlock.c it mirrors
 * as "rwlock.c:LINE".
 *
 * Scenarios (one per check, chosen by a macro):
 *   default           an untimed and a timed reader take the lock once each,
 *                     an untimed writer twice; the untimed ones may be hit by
 *                     a signal (EINTR) once: several readers holding
 *                     together, the readers' wake-all, a reader timing out
 *                     with RW set, the fast-path reader's undo.
 *   SCENARIO_WRITERS  an untimed reader once, an untimed writer twice and a
 *                     timed writer once: writers waking one another through
 *                     writer_seq (WW set again by a writer that has slept), WP
 *                     taken back by a writer that gives up, a wake handed from
 *                     writers to readers when no writer was asleep.
 *   SCENARIO_STREAM   two readers take and release the lock forever (their
 *                     holds may overlap without end), a writer takes it twice;
 *                     no timeouts, no signals.
 * Checked:
 *   - mutual exclusion: a writer holds the lock alone (assertions in the
 *     acquiring steps);
 *   - no lost wake-up: in the finite scenarios every run ends with every
 *     process finished (one left asleep is an invalid end state, and init
 *     then blocks too), and the lock ends free with nobody queued;
 *   - writer progress under a stream of readers (writer_progress, weak
 *     fairness): each of the writer's calls ends with the writer holding the
 *     lock. (A writer looping forever too would make the search deeper than
 *     pan's default bound; two calls cover every state of the readers'
 *     stream around a waiting writer, the second one with the WW bit it
 *     keeps after having slept.) Readers have no such guarantee against a
 *     stream of writers: writers are preferred.
 *
 * The state word keeps the layout of src/rwlock.c with a smaller reader
 * field (the reader limit is not modelled): R = bits 0..7, WL, WP, RW, WW.
 * writer_seq is modelled without wrap-around: wake_writer marks it changed
 * for every writer, and a writer's load of it clears its own mark, so a
 * writer's futex wait returns EAGAIN exactly when the real one would.
 *
 * Futex semantics: a wait compares the word and queues the caller in one
 * atomic step; the caller leaves when a wake dequeues it (result 0), or by a
 * timeout (timed callers, at any moment) or a signal (EINTR, `signals` times
 * at most, so that a waiter nobody wakes does stay blocked), both of which
 * dequeue it themselves. A wake-one dequeues any one queued process.
 *
 * Granularity: memory is sequentially consistent. A CAS loop, "load s,
 * decide, CAS(s -> f(s)), on failure reload and decide again", is one atomic
 * step "read st, decide, write f(st)": a CAS succeeds only if the word still
 * holds what was read, and a failed one only repeats the decision, so the
 * two have the same outcomes. Loads whose value is used by something other
 * than a CAS (the futex compare, the writer's re-check after reading
 * writer_seq) stay separate steps. A reader's spin (rwlock.c:217-222) is
 * relaxed loads only: it only repeats the look of the step after it (enter,
 * or set RW and sleep) and is left out. A writer's spin (rwlock.c:284-293)
 * also writes: each pass sets WP again if it is clear (a writer that acquired,
 * or one that gave up, cleared it), so it is not left out but bounded: the
 * model makes SPIN_W passes where the source makes FX_RWLOCK_SPIN = 100
 * (fewer when the lock is free first). This is a bound, not an exact
 * abstraction: the checks cover spins of SPIN_W = 1 pass, and an extra run
 * covers 3 passes in the writers scenario, the one where a second writer
 * can clear WP under a spinning writer (every check also passed with
 * SPIN_W = 2 and 3 when tried). More passes only add more "set WP if clear"
 * steps before the sleep step, which sets WP itself. The observers nr and nw
 * change in the same atomic step as the acquiring and releasing operations,
 * so they cover exactly the holds.
 *
 * Releases: a reader's release is reader_release (fx_rwlock_unlock and
 * fx_rwlock_rdunlock both end in one fetch_sub), a writer's is
 * writer_release (fx_rwlock_unlock, and fx_rwlock_wrunlock, whose first CAS
 * from WL to 0 is the same step when no bit is set).
 */
//@source src/rwlock.c sha256=254d5e44b5bb5facd8bd0d2de0f147eafed3d20690c210f3759adfab308b152b
//@check safety
//@check safety -DSCENARIO_WRITERS
//@check safety -DSCENARIO_WRITERS -DSPIN_W=3
//@check safety -DSCENARIO_STREAM
//@check ltl writer_progress -DSCENARIO_STREAM

#define NR 2              /* readers: processes 0 .. NR-1 */
#define NW 2              /* writers: processes NR .. NR+NW-1 */
#ifndef SPIN_W
#define SPIN_W 1          /* spin passes of a writer (FX_RWLOCK_SPIN) */
#endif
#define RMASK 255
#define WL 256
#define WP 512
#define RW 1024
#define WW 2048
#define HELD 511          /* RMASK | WL */
#define FOREVER 255       /* iterations: loop forever */

#define SLEEPING 1
#define WOKEN 0
#define EAGAIN 2
#define ETIMEDOUT 3
#define EINTR 4

#define DONE 0            /* actions chosen by an atomic decision step */
#define ENTER 1
#define SPIN 2
#define SLEEP 3
#define WAKE_R 4
#define WAKE_W 5

int st = 0;               /* fx_rwlock.state */
bool seqchg[NW];          /* writer_seq changed since writer w loaded it */
bool qst[NR];             /* futex queue of &state (only readers sleep there) */
bool qseq[NW];            /* futex queue of &writer_seq */
byte nr = 0;              /* readers inside a critical section (observer) */
bool wants[NR + NW];      /* process p is inside a lock call (observer) */
bool nw = 0;              /* a writer inside a critical section (observer) */

/* Leaves a futex wait (fxi_futex_wait_raw, futex.c:33-57): by a wake (queue
 * flag cleared by the waker), a timeout or a signal. */
inline futex_leave(q)
{
    if
    :: atomic { !q -> r = WOKEN }
    :: timed -> atomic {
           if
           :: q -> q = 0; r = ETIMEDOUT
           :: else -> r = WOKEN
           fi }
    :: atomic { signals > 0 && q -> q = 0; signals--; r = EINTR }
    fi
}

/* wake_waiters (rwlock.c:163-188), called when the caller's release left the
 * lock free with RW or WW set. */
inline wake_waiters()
{
    do
    :: atomic {
           s = st;
           if
           :: (s & HELD) != 0 -> act = DONE                    /* rwlock.c:166-167 */
           :: (s & HELD) == 0 && (s & WW) != 0 ->
               st = s & ~WW; act = WAKE_W                      /* rwlock.c:168-172 */
           :: (s & HELD) == 0 && (s & WW) == 0 && (s & RW) != 0 ->
               st = s & ~RW; act = WAKE_R                      /* rwlock.c:178-181 */
           :: else -> act = DONE                               /* rwlock.c:184-185 */
           fi
       };
       if
       :: act == DONE -> break
       :: act == WAKE_W ->
           atomic { seqchg[0] = 1; seqchg[1] = 1 };            /* wake_writer, rwlock.c:157 */
           atomic {                                            /* rwlock.c:158: wake one */
               n = 0;
               if
               :: qseq[0] -> qseq[0] = 0; n = 1
               :: qseq[1] -> qseq[1] = 0; n = 1
               :: else -> skip
               fi
           };
           if
           :: n > 0 || (s & RW) == 0 -> break                  /* rwlock.c:173-174 */
           :: else -> skip                       /* rwlock.c:175-177: readers [M:hand-to-readers] */
           fi
       :: act == WAKE_R ->
           atomic {                                            /* rwlock.c:182: wake all */
               if :: qst[0] -> qst[0] = 0 :: else -> skip fi;
               if :: qst[1] -> qst[1] = 0 :: else -> skip fi
           };
           break                                               /* rwlock.c:183 */
       fi
    od;
    n = 0; act = DONE
}

/* reader_release (rwlock.c:191-198): read unlock (also fx_rwlock_rdunlock,
 * rwlock.c:473 and 479-481), or a fast-path reader's undo. */
inline reader_release()
{
    atomic { st = st - 1; s = st };                            /* rwlock.c:195 */
    if
    :: (s & HELD) == 0 && (s & (RW | WW)) != 0 -> wake_waiters() /* rwlock.c:196-197 */
    :: else -> skip
    fi
}

/* writer_give_up (rwlock.c:259-265). */
inline writer_give_up()
{
    atomic { st = st & ~WP; s = st };                          /* rwlock.c:262 */
    if
    :: (s & HELD) == 0 && (s & (RW | WW)) != 0 -> wake_waiters() /* rwlock.c:263-264 [M:give-up-wake] */
    :: else -> skip
    fi
}

proctype reader(byte me; bool timed; byte signals; byte iters)
{
    int s; byte n; byte act; byte r;
    do
    :: iters > 0 ->
        if
        :: iters != FOREVER -> iters--
        :: else -> skip
        fi;
        wants[me] = 1;
        /* rdlock_common, rwlock.c:247-255: fetch_add, then read_lockable */
        atomic {
            s = st; st = st + 1;                               /* rwlock.c:250 */
            if
            :: (s & ~RMASK) == 0 -> nr++; assert(!nw); wants[me] = 0; act = ENTER /* [M:fast-check] */
            :: else -> act = DONE                              /* rwlock.c:251 */
            fi
        };
        if
        :: act == ENTER -> act = DONE; goto inside
        :: else -> reader_release(); s = 0                     /* the undo, rwlock.c:253 */
        fi;
slow:   /* rdlock_slow, rwlock.c:200-244 (the spin, rwlock.c:217-222, only repeats the look) */
        atomic {
            s = st;
            if
            :: (s & (WL | WP | RW | WW)) == 0 ->               /* rwlock.c:209-215 */
                st = s + 1; nr++; assert(!nw); wants[me] = 0; act = ENTER
            :: else ->
                if                                             /* rwlock.c:229-235 */
                :: (s & RW) == 0 -> st = s | RW; s = s | RW
                :: else -> skip
                fi;
                act = SLEEP
            fi
        };
        if
        :: act == ENTER -> act = DONE; goto inside
        :: else -> act = DONE
        fi;
        atomic {                                               /* futex wait, rwlock.c:236 */
            if
            :: st != s -> r = EAGAIN
            :: else -> qst[me] = 1; r = SLEEPING
            fi
        };
        if
        :: r == SLEEPING -> futex_leave(qst[me])
        :: else -> skip
        fi;
        if
        :: r == ETIMEDOUT -> r = 0; wants[me] = 0; goto next   /* rwlock.c:237-238 */
        :: else -> r = 0; s = 0                                /* rwlock.c:241-242 */
        fi;
        goto slow;
inside: /* the critical section: nr counts it from the acquiring step */
        s = 0;
        atomic { nr--; st = st - 1; s = st };                  /* reader_release, rwlock.c:195 */
        if
        :: (s & HELD) == 0 && (s & (RW | WW)) != 0 -> wake_waiters() /* rwlock.c:196-197 */
        :: else -> skip
        fi;
next:
        s = 0
    :: else -> break
    od
}

proctype writer(byte me; bool timed; byte signals; byte iters)
{
    int s; byte n; byte act; byte r; int slept; byte spins;
    byte w = me - NR;
    do
    :: iters > 0 ->
        if
        :: iters != FOREVER -> iters--
        :: else -> skip
        fi;
        wants[me] = 1;
        /* The fast path of fx_rwlock_wracquire (rwlock.c:383-385, CAS
         * 0 -> WL; fx_rwlock_wrlock and fx_rwlock_timedwrlock, rwlock.c:390-398)
         * is the first step below with slept = 0: it takes a free lock, and a
         * free lock with waiting bits goes on to that step. */
        slept = 0; spins = 0;
slow:   /* wrlock_slow, rwlock.c:267-327 */
        atomic {
            s = st;
            if
            :: (s & HELD) == 0 ->                      /* rwlock.c:277-282 */
                st = (s & ~WP) | WL | slept; assert(nr == 0 && !nw); nw = 1; wants[me] = 0;
                act = ENTER
            :: else ->
                if
                :: spins < SPIN_W ->                   /* rwlock.c:284-293 */
                    if
                    :: (s & WP) == 0 -> st = s | WP
                    :: else -> skip
                    fi;
                    spins++; act = SPIN
                :: else ->                             /* rwlock.c:302-310 */
                    if
                    :: (s & (WP | WW)) != (WP | WW) -> st = s | WP | WW /* [M:sleep-bits] */
                    :: else -> skip
                    fi;
                    slept = WW; act = SLEEP     /* [M:slept] */
                fi
            fi
        };
        if
        :: act == ENTER -> act = DONE; goto inside
        :: act == SPIN -> act = DONE; s = 0; goto slow
        :: else -> act = DONE
        fi;
        seqchg[w] = 0;                                 /* load writer_seq, rwlock.c:314 */
        s = st;                                        /* rwlock.c:315 */
        if
        :: (s & HELD) == 0 || (s & WW) == 0 -> s = 0; goto slow /* rwlock.c:316-317 [M:recheck] */
        :: else -> skip
        fi;
        atomic {                                       /* futex wait, rwlock.c:318 */
            if
            :: seqchg[w] -> r = EAGAIN
            :: else -> qseq[w] = 1; r = SLEEPING
            fi
        };
        if
        :: r == SLEEPING -> futex_leave(qseq[w])
        :: else -> skip
        fi;
        if
        :: r == ETIMEDOUT -> r = 0; wants[me] = 0; writer_give_up(); goto next /* rwlock.c:319-322 */
        :: else -> r = 0; s = 0
        fi;
        spins = 0;                                     /* rwlock.c:324-325 */
        goto slow;
inside: /* the critical section: nw is set from the acquiring step */
        s = 0; slept = 0; spins = 0;
        atomic { nw = 0; st = st - WL; s = st };       /* writer_release, rwlock.c:430 */
        if
        :: (s & HELD) == 0 && (s & (RW | WW)) != 0 -> wake_waiters() /* rwlock.c:431-432 */
        :: else -> skip
        fi;
next:
        s = 0; slept = 0; spins = 0
    :: else -> break
    od
}


#ifdef SCENARIO_STREAM
ltl writer_progress { [] (wants[2] -> <> !wants[2]) }
#endif

init {
    atomic {
#if defined(SCENARIO_WRITERS)
        run reader(0, 0, 1, 1);     /* me, timed, signals, iterations */
        run writer(2, 0, 1, 2);
        run writer(3, 1, 0, 1)
#elif defined(SCENARIO_STREAM)
        run reader(0, 0, 0, FOREVER);
        run reader(1, 0, 0, FOREVER);
        run writer(2, 0, 0, 2)
#else
        run reader(0, 0, 1, 1);
        run reader(1, 1, 0, 1);
        run writer(2, 0, 1, 2)
#endif
    };
#ifndef SCENARIO_STREAM
    (_nr_pr == 1);
    assert(st == 0);
    assert(!qst[0] && !qst[1] && !qseq[0] && !qseq[1])
#endif
}
