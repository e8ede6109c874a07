/*
 * models/rwlock.pml - the fx_rwlock protocol of src/rwlock.c, with the futex.
 *
 * Mirrors the functions of src/rwlock.c pinned by the //@mirrors line (see
 * models/README.md); each step names the step tag of src/rwlock.c it mirrors
 * as "@rwlock.<step>".
 *
 * Scenarios (one per check, chosen by a macro):
 *   default           an untimed and a timed reader take the lock once each,
 *                     an untimed writer twice; the untimed ones may be hit by
 *                     a signal (EINTR) once: several readers holding
 *                     together, the readers' wake-all, a reader timing out
 *                     with RW set, the fast-path reader kept out.
 *   SCENARIO_WRITERS  an untimed reader once, an untimed writer twice and a
 *                     timed writer once: writers waking one another through
 *                     writer_seq (WW set again by a writer that has slept), WP
 *                     taken back by a writer that gives up, a wake handed from
 *                     writers to readers when no writer was asleep.
 *   SCENARIO_GIVEUP   reader 0 holds the lock until reader 1 has been
 *                     inside too, while a timed writer waits and gives up at
 *                     any moment: a writer that gave up must not keep
 *                     reader 1 out (issue 11, class 6; see writer_give_up).
 *   SCENARIO_DEATH    two readers and a writer, once each, one of them killed
 *                     at any step (DEATHS=1, see "Death"): a reader killed in
 *                     rdlock's fast path while the writer holds or waits
 *                     (issue 19: the fetch_add and undo it replaced left a
 *                     phantom reader, mutation rwlock-fast-add-undo), a woken reader or
 *                     writer killed before it returns (the wake consumed), a
 *                     releaser killed before or inside its wakes, the writer
 *                     killed while it waits with WP/WW set (issue 11,
 *                     classes 7 and 8).
 *   SCENARIO_DEATH_WRITERS  a reader and two writers, once each, one killed
 *                     at any step: a writer woken through writer_seq killed
 *                     before it returns, or killed while the other sleeps.
 *   SCENARIO_STREAM   two readers take and release the lock forever (their
 *                     holds may overlap without end), a writer takes it twice;
 *                     no timeouts, no signals.
 * Checked:
 *   - mutual exclusion: a writer holds the lock alone (assertions in the
 *     acquiring steps);
 *   - no lost wake-up: in the finite scenarios every run ends with every
 *     process finished (one left asleep is an invalid end state, and init
 *     then blocks too), and the lock ends free with nobody queued;
 *   - with deaths (live_finish, weak fairness): every process that is not
 *     killed finishes, through the bounded sleeps' rechecks (BOUNDED, an
 *     always-enabled way out of a futex wait that returns as a wake does)
 *     and the readers' clearing of a stale writer intent (INTENT). The
 *     mutations rwlock-unbounded-sleep and rwlock-no-stale-clear remove
 *     them; each is caught;
 *   - with INTENT=1 and no deaths (no recheck: a private lock, whose
 *     readers watch the intent too, issue 31), no lost wake-up still: a
 *     reader may count no writer asleep and clear the intent of a live
 *     writer that goes to sleep just after the count, and whoever clears WW
 *     wakes a writer (writer_seq += 1 first). Without that wake the writer
 *     sleeps for ever on a free lock (an invalid end state; checked by hand
 *     with the step tagged stale-wake-writer made a skip);
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
 * writer_seq) stay separate steps. A reader's spin (@rwlock.rdlock_slow.spin) is
 * relaxed loads only: it only repeats the look of the step after it (enter,
 * or set RW and sleep) and is left out. A writer's spin (@rwlock.wrlock_slow.spin)
 * also writes: each pass sets WP again if it is clear (a writer that acquired,
 * or one that gave up, cleared it), so it is not left out but bounded: the
 * model makes SPIN_W passes where the source makes FXI_RWLOCK_SPIN = 100
 * (fewer when the lock is free first). This is a bound, not an exact
 * abstraction: the checks cover spins of SPIN_W = 1 pass, and an extra run
 * covers 3 passes in the writers scenario, the one where a second writer
 * can clear WP under a spinning writer (every check also passed with
 * SPIN_W = 2 and 3 when tried). More passes only add more "set WP if clear"
 * steps before the sleep step, which sets WP itself. The observers nr and nw
 * change in the same atomic step as the acquiring and releasing operations,
 * so they cover exactly the holds.
 *
 * Without deaths the bounded sleeps' rechecks (fxi_futex_sleep) and the
 * readers' clearing of a stale writer intent are off by default (BOUNDED =
 * INTENT = 0): every wake duty of the table must then be met by wakes
 * alone, which is what the checks without deaths show. That is also the C
 * in private memory, once a sleep's scope is known (no recheck); the
 * checks with INTENT=1 and no deaths add the readers' watch, which the C
 * keeps in private memory too. With DEATHS both are on. Time is not
 * modelled: the stale time of intent_is_stale (writer_seq unchanged for
 * FXI_RWLOCK_STALE_NS) may have passed at any look of a reader kept out by
 * WP/WW alone (no WL); the reader then counts the writers asleep on
 * writer_seq (a step of its own), and if there were none, a later step
 * takes WP, WW and RW away (CAS) and wakes a writer if WW was set and the
 * readers RW stood for. So a live writer that is awake (spinning, or on its
 * way to its sleep) may be taken for dead here, as in the C when it has not
 * run for the stale time: it loses its turn, never mutual exclusion (only
 * WL and R exclude). The writers' declarations of their intent on
 * writer_seq are modelled (they make another writer's sleep return EAGAIN),
 * and so is the slow-path reader's entry past RW alone (RW cleared with the
 * entry, its readers woken).
 *
 * The recheck and the engine. In shared memory (the checks with deaths)
 * a sleep's bound is src/sleep.c's: the call's first recheck, then the
 * process's waiting engine, which ends a sleep at a look that finds its
 * word changed (models/engine.pml shows that every such sleeper is told)
 * and not otherwise. BOUNDED (a recheck at any time, the checks above) is
 * what the protocol needs, and it is what the engine gives the readers: a
 * reader kept out by WP/WW alone (no WL) bounds its sleep by its own watch
 * of the intent in any scope but private (@rwlock.rdlock_slow.sleep: the
 * engine does not look at writer_seq), and a reader behind WL whose sleep
 * ends with the state unchanged marks nothing new and sleeps on the same
 * value again. A writer sleeps on writer_seq but decides on the state word,
 * so it names the state as the word it watches (rc.watch,
 * @rwlock.wrlock_slow.sleep): the engine tells it when writer_seq moved or
 * the state differs from its last load. With ENGINE=1 the recheck fires only
 * as the engine's would (a reader's while the state differs from the value
 * slept on or no WL is set, a writer's while writer_seq moved or the state
 * moved since its load), and live_finish holds. Without the watch it fails
 * (found by this check, 2026-12-07): a reader killed in its release between
 * the CAS that frees the lock (or wake_waiters' CAS that clears WW) and
 * wake_writer's writer_seq += 1 leaves WP (and WW) on a free lock and
 * writer_seq unchanged; the writer is never told, and new readers, finding
 * it asleep on writer_seq, take the intent for alive and wait too
 * (tests/test_sleep.c, test_writers_told_when_the_state_moves_under_
 * writer_seq). The other checks with deaths keep BOUNDED.
 *
 * Releases: a reader's release is reader_release (fx_rwlock_unlock, and
 * fx_rwlock_rdunlock, whose first CAS from 1 to 0 is the same step when it
 * is the only reader and no bit is set), a writer's is writer_release
 * (fx_rwlock_unlock, and fx_rwlock_wrunlock, whose first CAS from WL to 0
 * is the same step when no bit is set). Both are CAS loops that take one
 * reader (R > 0, no WL) or WL (set) only when the word holds it, else
 * EPERM with nothing changed (issue 19); for a holder, whose hold cannot
 * go away under it, a loop is one step st - 1 or st - WL (see
 * Granularity). A release by a thread that holds nothing is not modelled:
 * the lock tracks no owners, so while others hold it in that mode such a
 * call cannot be told from theirs; when they do not, it changes nothing
 * (tests/test_rwlock.c checks that against concurrent threads).
 */
//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wake_raw sha256=dce47033ca72a3d7606308724ad4fe8606ac00a881241bc263cbeef98f2b76b6
//@mirrors src/sleep.c fxi_futex_sleep sleep_call sleep_bounded recheck_scope engine_wait engine_sleep engine_probe engine_look sha256=053a3384bf224e4143db68cd791354c640abd749aafc1d70e438e53279c51442
//@mirrors src/rwlock.c fx_rwlock_rdunlock rwlock_wracquire fx_rwlock_wrlock intent_is_stale fx_rwlock_unlock fx_rwlock_wrunlock unlock_announced rdlock_common rdlock_shared rdlock_slow reader_release reader_release_more wake_readers_if_open wake_waiters wake_writer writer_give_up writer_release writer_release_more wrlock_slow sha256=d0ee0817e2fee01684341a6bbbf9713868797fb02c15b023a4219b3f428321f2
//@check safety
//@check safety -DSCENARIO_WRITERS
//@check safety -DSCENARIO_WRITERS -DSPIN_W=3
//@check safety -DSCENARIO_STREAM
//@check safety -DSCENARIO_GIVEUP
//@check safety -DINTENT=1
//@check safety -DINTENT=1 -DSCENARIO_WRITERS
//@check safety -DINTENT=1 -DSCENARIO_GIVEUP
//@check ltl writer_progress -DSCENARIO_STREAM
//@check ltl live_finish -DDEATHS=1 -DSCENARIO_DEATH
//@check ltl live_finish -DDEATHS=1 -DSCENARIO_DEATH_WRITERS -DCOLLAPSE long
//@check ltl live_finish -DDEATHS=1 -DSCENARIO_DEATH -DENGINE=1

#define NR 2              /* readers: processes 0 .. NR-1 */
#define NW 2              /* writers: processes NR .. NR+NW-1 */
#ifndef SPIN_W
#define SPIN_W 1          /* spin passes of a writer (FXI_RWLOCK_SPIN) */
#endif
#ifndef DEATHS
#define DEATHS 0          /* processes killed in a run, at most (see "Death") */
#endif
#ifndef BOUNDED
#define BOUNDED (DEATHS > 0) /* the sleeps end at a recheck (fxi_futex_sleep); off, it
                                is also a private object, whose sleeps have
                                no recheck once their scope is known */
#endif
#ifndef INTENT
#define INTENT (DEATHS > 0)  /* readers take a stale writer intent away */
#endif
#ifndef ENGINE
#define ENGINE 0          /* 1: the recheck as src/sleep.c's engine makes it (see
                             "The recheck and the engine") */
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
#define RENEW 6
#define AGAIN 7
#define WAKE_S 8

int st = 0;               /* fx_rwlock.state */
bool seqchg[NW];          /* writer_seq changed since writer w loaded it */
bool qst[NR];             /* futex queue of &state (only readers sleep there) */
bool qseq[NW];            /* futex queue of &writer_seq */
byte nr = 0;              /* readers inside a critical section (observer) */
bool wants[NR + NW];      /* process p is inside a lock call (observer) */
bool nw = 0;              /* a writer inside a critical section (observer) */
#ifdef SCENARIO_GIVEUP
bool met = 0;             /* reader 1 has been inside (SCENARIO_GIVEUP) */
#endif
#if DEATHS
/* Death: a killer SIGKILLs at most DEATHS processes, each at any step at
 * which it does not hold the lock (fx_rwlock promises nothing for a holder
 * that dies); a reader is counted in R only as a holder, so this is every
 * step at which it is not counted either: in rdlock's fast path before or
 * after its CAS failed, spinning, asleep, between a wake's dequeue and its return
 * (the woken side: the wake is consumed), between a release and its wakes
 * (the notifier side), inside wake_waiters or writer_give_up, and a writer
 * while it waits with WP/WW set (issue 11, class 8). The kernel drops a
 * dying process from the futex queue. The property is live_finish: every
 * live process finishes, which needs the bounded sleeps (BOUNDED) and, for
 * a dead waiting writer, the readers' clearing of its stale intent (INTENT). */
byte deaths = DEATHS;     /* deaths left */
bool doom[NR + NW];       /* the killer chose process p: it dies at once */
bool dead[NR + NW];       /* (observer) process p was killed */
bool holds[NR + NW];      /* (observer) p holds the lock (counted in R, or WL) */
bool fin[NR + NW];        /* (observer) p finished */
byte ndead = 0;           /* (observer) */
byte done = 0;            /* (observer) processes finished */
#define HOLDS(b) holds[me] = b
#else
#define HOLDS(b) skip
#endif
/* Leaves a futex wait (fxi_futex_wait_raw, futex.c): by a wake (queue
 * flag cleared by the waker), a timeout or a signal. */
inline futex_leave(q, told)
{
    if
    :: atomic { !q -> r = WOKEN }
    :: timed -> atomic {
           if
           :: q -> q = 0; r = ETIMEDOUT
           :: else -> r = WOKEN
           fi }
    :: atomic { signals > 0 && q -> q = 0; signals--; r = EINTR }
    :: atomic { BOUNDED && q && (!ENGINE || (told)) -> q = 0; r = WOKEN } /* the recheck (fxi_futex_sleep) [M:recheck-bound] */
    fi
}

/* wake_waiters (rwlock.c), called when the caller's release left the
 * lock free with RW or WW set. */
inline wake_waiters()
{
    do
    :: atomic {
           s = st;
           if
           :: (s & HELD) != 0 -> act = DONE                    /* @rwlock.wake_waiters.held */
           :: (s & HELD) == 0 && (s & WW) != 0 ->
               st = s & ~WW; act = WAKE_W                      /* @rwlock.wake_waiters.clear_ww */
           :: (s & HELD) == 0 && (s & WW) == 0 && (s & RW) != 0 ->
               st = s & ~RW; act = WAKE_R                      /* @rwlock.wake_waiters.clear_rw */
           :: else -> act = DONE                               /* @rwlock.wake_waiters.nobody */
           fi
       };
       if
       :: act == DONE -> break
       :: act == WAKE_W ->
           atomic { seqchg[0] = 1; seqchg[1] = 1 };            /* wake_writer, @rwlock.wake_writer.seq */
           atomic {                                            /* @rwlock.wake_writer.wake: wake one */
               n = 0;
               if
               :: qseq[0] -> qseq[0] = 0; n = 1
               :: qseq[1] -> qseq[1] = 0; n = 1
               :: else -> skip
               fi
           };
           if
           :: n > 0 || (s & RW) == 0 -> break                  /* @rwlock.wake_waiters.writer_woken */
           :: else -> skip                       /* @rwlock.wake_waiters.no_writer: readers [M:hand-to-readers] */
           fi
       :: act == WAKE_R ->
           atomic {                                            /* @rwlock.wake_waiters.wake_readers: wake all */
               if :: qst[0] -> qst[0] = 0 :: else -> skip fi;
               if :: qst[1] -> qst[1] = 0 :: else -> skip fi
           };
           break                                               /* @rwlock.wake_waiters.done */
       fi
    od;
    n = 0; act = DONE
}

/* reader_release (rwlock.c): read unlock (also fx_rwlock_rdunlock,
 * @rwlock.rdunlock.sub). The readers' releases inline it below; only the
 * mutation rwlock-fast-add-undo calls it (the undo of the code before
 * issue 19). */
inline reader_release()
{
    atomic { st = st - 1; s = st; HOLDS(0) };                 /* @rwlock.reader_release.sub */
    if
    :: (s & HELD) == 0 && (s & (RW | WW)) != 0 -> wake_waiters() /* @rwlock.reader_release.wake */
    :: else -> skip
    fi
}

/* writer_give_up (rwlock.c; issue 11 class 6, fixed on branch rwsem,
 * 6b7f462): a writer that gives up takes WP and WW away, whoever set them,
 * so that no reader waits for a writer that is gone (before the fix only WP
 * was taken back, and only a lock found free woke anyone: a timed-out
 * writer's WW kept new readers out while readers held the lock, the
 * mutation rwlock-give-up-keeps-ww). If WW was set it wakes one sleeping
 * writer (wake_writer), which sets WP and WW again at its next look; if
 * nobody woke, wake_readers_if_open: while RW is set and none of WL, WP, WW,
 * the CAS -RW, then FUTEX_WAKE(state, all). The CAS loop, whose first
 * decision is on the value the fetch_and left, is one atomic step on the
 * current word when that value passes (a CAS from a stale value fails and
 * decides again on the reloaded one). */
inline writer_give_up()
{
    atomic { s = st; st = st & ~(WP | WW) };                   /* @rwlock.writer_give_up.clear_wp: fetch_and ~(WP|WW) [M:give-up-bits] */
    n = 0;
    if
    :: (s & WW) != 0 ->                                        /* @rwlock.writer_give_up.wake */
        atomic { seqchg[0] = 1; seqchg[1] = 1 };               /* wake_writer: writer_seq += 1 */
        atomic {                                               /* wake_writer: wake one */
            if
            :: qseq[0] -> qseq[0] = 0; n = 1
            :: qseq[1] -> qseq[1] = 0; n = 1
            :: else -> skip
            fi
        }
    :: else -> skip
    fi;
    s = s & ~(WP | WW);
    if
    :: n == 0 && (s & RW) != 0 && (s & (WL | WP | WW)) == 0 ->
        atomic {                                               /* wake_readers_if_open: CAS -RW */
            s = st;
            if
            :: (s & RW) != 0 && (s & (WL | WP | WW)) == 0 -> st = s & ~RW; act = WAKE_R
            :: else -> act = DONE
            fi
        };
        if
        :: act == WAKE_R -> atomic { if :: qst[0] -> qst[0] = 0 :: else fi; if :: qst[1] -> qst[1] = 0 :: else fi } /* wake all [M:give-up-wake] */
        :: else -> skip
        fi
    :: else -> skip
    fi;
    n = 0; act = DONE
}

proctype reader(byte me; bool timed; byte signals; byte iters)
{
    int s; byte n; byte act; byte r;
    bool probed;  /* its last count found no writer asleep on writer_seq */
#if DEATHS
    {
#endif
    do
    :: iters > 0 ->
        if
        :: iters != FOREVER -> iters--
        :: else -> skip
        fi;
        wants[me] = 1;
        /* rdlock_common, rwlock.c: CAS 0 -> 1, and if it fails CAS s -> s+1
         * from the value it failed on, only when no bit but R is set: one
         * step (see Granularity). The reader is counted only as a holder. */
        atomic {
            s = st;                                 /* @rwlock.rdlock.cas, @rwlock.rdlock.cas_more */
            if
            :: (s & ~RMASK) == 0 -> st = s + 1; nr++; assert(!nw); wants[me] = 0; HOLDS(1); act = ENTER /* [M:fast-check] */
            :: else -> act = DONE                              /* nothing written [M:fast-fail] */
            fi
        };
        if
        :: act == ENTER -> act = DONE; goto inside
        :: else -> s = 0                                       /* to rdlock_slow [M:fast-undo] */
        fi;
slow:   /* rdlock_slow, rwlock.c (the spin, @rwlock.rdlock_slow.spin, only repeats the look) */
        /* intent_is_stale: kept out by WP/WW alone, once the stale time has
         * passed, the reader counts the writers asleep on writer_seq; the
         * clear below is a later step, so a writer may go to sleep in
         * between. Time is not modelled: without deaths (safety checks) the
         * stale time may or may not have passed at any look; with deaths
         * (live_finish) it has at every look, so that a reader behind a
         * dead writer does clear its intent under weak fairness (a choice
         * within a process is not fair). */
        if
        :: INTENT && (st & WL) == 0 && (st & (WP | WW)) != 0 ->
            atomic { probed = !qseq[0] && !qseq[1] }          /* @rwlock.intent_is_stale.probe */
#if DEATHS
        :: else -> skip
#else
        :: true -> skip
#endif
        fi;
        atomic {
            s = st;
            if
            :: (s & (WL | WP | WW)) == 0 ->                    /* @rwlock.rdlock_slow.enter: CAS +1 -RW [M:slow-enter-rw] */
                st = (s + 1) & ~RW; nr++; assert(!nw); wants[me] = 0; HOLDS(1);
                if
                :: (s & RW) != 0 -> act = WAKE_R               /* the readers RW stands for */
                :: else -> act = ENTER
                fi
            :: INTENT && (s & WL) == 0 && (s & (WP | WW)) != 0 && probed -> /* @rwlock.rdlock_slow.stale [M:stale] */
                st = s & ~(WP | WW | RW);
                if
                :: (s & (RW | WW)) != 0 -> act = WAKE_S        /* and wake those WW and RW stand for */
                :: else -> act = AGAIN
                fi
            :: else ->
                if                                             /* @rwlock.rdlock_slow.mark_rw */
                :: (s & RW) == 0 -> st = s | RW; s = s | RW
                :: else -> skip
                fi;
                act = SLEEP
            fi;
            probed = 0
        };
        if
        :: act == ENTER -> act = DONE; goto inside
        :: act == WAKE_R ->                                   /* @rwlock.rdlock_slow.wake_rw: wake all [M:slow-enter-wake] */
            atomic { if :: qst[0] -> qst[0] = 0 :: else fi; if :: qst[1] -> qst[1] = 0 :: else fi; act = DONE };
            goto inside
        :: act == WAKE_S ->
            if
            :: (s & WW) != 0 ->                               /* @rwlock.rdlock_slow.stale_wake_writer: wake_writer [M:stale-wake-writer] */
                atomic { seqchg[0] = 1; seqchg[1] = 1 };      /* writer_seq += 1 */
                atomic { if :: qseq[0] -> qseq[0] = 0 :: qseq[1] -> qseq[1] = 0 :: else -> skip fi } /* wake one */
            :: else -> skip
            fi;
            if
            :: (s & RW) != 0 ->                               /* @rwlock.rdlock_slow.stale_wake: wake all */
                atomic { if :: qst[0] -> qst[0] = 0 :: else fi; if :: qst[1] -> qst[1] = 0 :: else fi }
            :: else -> skip
            fi;
            act = DONE; goto slow
        :: act == AGAIN -> act = DONE; goto slow
        :: else -> act = DONE
        fi;
        atomic {                                               /* futex wait, @rwlock.rdlock_slow.sleep */
            if
            :: st != s -> r = EAGAIN
            :: else -> qst[me] = 1; r = SLEEPING
            fi
        };
        if
        :: r == SLEEPING -> futex_leave(qst[me], (st != s || (s & WL) == 0))
        :: else -> skip
        fi;
        if
        :: r == ETIMEDOUT -> r = 0; wants[me] = 0; goto next   /* @rwlock.rdlock_slow.timed_out */
        :: else -> r = 0; s = 0                                /* @rwlock.rdlock_slow.again */
        fi;
        goto slow;
inside: /* the critical section: nr counts it from the acquiring step */
        s = 0;
#ifdef SCENARIO_GIVEUP
        /* Reader 0 waits inside until reader 1 has been inside too (a reader
         * waiting for another reader, which a writer that is gone must not
         * keep out). */
        if
        :: me == 0 -> met
        :: else -> met = 1
        fi;
#endif
        atomic { nr--; st = st - 1; s = st; HOLDS(0) };        /* reader_release, @rwlock.reader_release.sub */
        if
        :: (s & HELD) == 0 && (s & (RW | WW)) != 0 -> wake_waiters() /* @rwlock.reader_release.wake */
        :: else -> skip
        fi;
next:
        s = 0
    :: else -> break
    od;
#if DEATHS
    atomic { done++; fin[me] = 1 }
    } unless {
        /* Killed (see "Death"): the kernel drops it from the futex queue;
         * whatever it was to do (a wake) is not done. */
        atomic { doom[me] -> qst[me] = 0; assert(!holds[me]); dead[me] = 1; ndead++; s = 0; n = 0; act = 0; r = 0; probed = 0 }
    }
#endif
}

proctype writer(byte me; bool timed; byte signals; byte iters)
{
    int s; byte n; byte act; byte r; int slept; byte spins;
    byte w = me - NR;
#if DEATHS
    {
#endif
    do
    :: iters > 0 ->
        if
        :: iters != FOREVER -> iters--
        :: else -> skip
        fi;
        wants[me] = 1;
        /* The fast path of rwlock_wracquire (@rwlock.wracquire.fast, CAS
         * 0 -> WL; fx_rwlock_wrlock and fx_rwlock_timedwrlock, rwlock.c fx_rwlock_wrlock())
         * is the first step below with slept = 0: it takes a free lock, and a
         * free lock with waiting bits goes on to that step. */
        slept = 0; spins = 0;
slow:   /* wrlock_slow, rwlock.c */
        atomic {
            s = st;
            if
            :: (s & HELD) == 0 ->                      /* @rwlock.wrlock_slow.take */
                st = (s & ~WP) | WL | slept; assert(nr == 0 && !nw); nw = 1; wants[me] = 0; HOLDS(1);
                act = ENTER
            :: else ->
                if
                :: spins < SPIN_W ->                   /* @rwlock.wrlock_slow.spin */
                    if
                    :: (s & WP) == 0 -> st = s | WP
                    :: else -> skip
                    fi;
                    spins++; act = SPIN
                :: else ->                             /* @rwlock.wrlock_slow.mark_ww */
                    if
                    :: (s & (WP | WW)) != (WP | WW) -> st = s | WP | WW; act = RENEW /* [M:sleep-bits] */
                    :: else ->
                        if
                        :: slept == 0 -> act = RENEW  /* its first sleep in the call */
                        :: else -> act = SLEEP
                        fi
                    fi;
                    slept = WW     /* [M:slept] */
                fi
            fi
        };
        if
        :: act == ENTER -> act = DONE; goto inside
        :: act == SPIN -> act = DONE; s = 0; goto slow
        :: else -> skip
        fi;
        /* The declaration of the writer's intent (readers watch writer_seq,
         * intent_is_stale): at its first sleep in the call, and when it has
         * just set WP/WW; never at a recheck. It changes writer_seq under
         * the other writer, whose sleep then returns EAGAIN if it comes
         * after its load of writer_seq. */
        if
        :: act == RENEW -> atomic { seqchg[0] = 1; seqchg[1] = 1; act = DONE } /* @rwlock.wrlock_slow.renew */
        :: act == SLEEP -> act = DONE
        fi;
        seqchg[w] = 0;                                 /* load writer_seq, @rwlock.wrlock_slow.seq */
        s = st;                                        /* @rwlock.wrlock_slow.recheck */
        if
        :: (s & HELD) == 0 || (s & WW) == 0 -> s = 0; goto slow /* @rwlock.wrlock_slow.no_sleep [M:recheck] */
        :: else -> skip
        fi;
        atomic {                                       /* futex wait, @rwlock.wrlock_slow.sleep */
            if
            :: seqchg[w] -> r = EAGAIN
            :: else -> qseq[w] = 1; r = SLEEPING
            fi
        };
        if
        :: r == SLEEPING -> futex_leave(qseq[w], (seqchg[w] || st != s)) /* the state watched [M:writer-watch] */
        :: else -> skip
        fi;
        if
        :: r == ETIMEDOUT -> r = 0; wants[me] = 0; writer_give_up(); goto next /* @rwlock.wrlock_slow.timed_out */
        :: else -> r = 0; s = 0
        fi;
        /* @rwlock.wrlock_slow.again: the spin again only if the state or
         * writer_seq moved since the sleep; either choice here (a superset
         * of what the two relaxed loads decide). */
        if
        :: spins = 0
        :: spins = SPIN_W
        fi;
        goto slow;
inside: /* the critical section: nw is set from the acquiring step */
        s = 0; slept = 0; spins = 0;
        atomic { nw = 0; st = st - WL; s = st; HOLDS(0) }; /* writer_release, @rwlock.writer_release.sub */
        if
        :: (s & HELD) == 0 && (s & (RW | WW)) != 0 -> wake_waiters() /* @rwlock.writer_release.wake */
        :: else -> skip
        fi;
next:
        s = 0; slept = 0; spins = 0
    :: else -> break
    od;
#if DEATHS
    atomic { done++; fin[me] = 1 }
    } unless {
        atomic { doom[me] -> qseq[w] = 0; assert(!holds[me]); dead[me] = 1; ndead++; s = 0; n = 0; act = 0; r = 0; slept = 0; spins = 0 }
    }
#endif
}


#ifdef SCENARIO_STREAM
ltl writer_progress { [] (wants[2] -> <> !wants[2]) }
#endif

#if DEATHS
/* Kills a process that is not counted in the word, at any step of it: the
 * victim takes its escape (the unless above) before its next statement. */
#define KILL(p) :: atomic { deaths > 0 && !holds[p] && !fin[p] && !dead[p] -> doom[p] = 1; deaths-- }
active proctype killer()
{
end:
    do
    KILL(0)
#if !defined(SCENARIO_WRITERS) && !defined(SCENARIO_DEATH_WRITERS)
    KILL(1)
#endif
    KILL(2)
#if defined(SCENARIO_WRITERS) || defined(SCENARIO_DEATH_WRITERS)
    KILL(3)
#endif
    od
}
#define NPROCS 3          /* readers and writers of every scenario but STREAM */
/* Every live process finishes: no sleeper stays asleep while the lock could
 * let it through (and no reader stays out behind a dead writer). */
ltl live_finish { <> (done + ndead == NPROCS) }
#endif

init {
    atomic {
#if defined(SCENARIO_WRITERS)
        run reader(0, 0, 1, 1);     /* me, timed, signals, iterations */
        run writer(2, 0, 1, 2);
        run writer(3, 1, 0, 1)
#elif defined(SCENARIO_GIVEUP)
        run reader(0, 0, 0, 1);
        run reader(1, 0, 0, 1);
        run writer(2, 1, 0, 1)
#elif defined(SCENARIO_DEATH)
        run reader(0, 0, 0, 1);
        run reader(1, 0, 0, 1);
        run writer(2, 0, 0, 1)
#elif defined(SCENARIO_DEATH_WRITERS)
        run reader(0, 0, 0, 1);
        run writer(2, 0, 0, 1);
        run writer(3, 0, 0, 1)
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
#if DEATHS
    (done + ndead == NPROCS);
    assert((st & HELD) == 0);     /* a dead writer may leave WP/WW, a dead reader RW */
    assert(!qst[0] && !qst[1] && !qseq[0] && !qseq[1])
#elif !defined(SCENARIO_STREAM)
    (_nr_pr == 1);
    assert(st == 0);
    assert(!qst[0] && !qst[1] && !qseq[0] && !qseq[1])
#endif
}
