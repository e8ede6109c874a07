/*
 * models/sleep.pml - the designated sleeper of src/sleep.c, for spin: the
 * sleepers of one shared word in one process, of which one rechecks and the
 * others sleep untimed.
 *
 * Mirrors src/sleep.c as pinned by the //@mirrors line (see
 * models/README.md); each step names the function or step it mirrors.
 *
 * What the primitives' models assume of the futex layer (BOUNDED): in shared
 * memory every sleeper ends its sleep at a recheck and re-reads its word.
 * What this model shows: with designation, every sleeper that such a recheck
 * would have let through does get through, although only one rechecks.
 *
 *   NT threads, each waiting until the word W holds its own target (as
 *   counter waiters with different targets, or barrier and cond waiters of
 *   different rounds: the designated one may not be waiting for what
 *   another is). Its call: loop { v := W; if v == target: done; sleep(v) }.
 *   The environment sets W to each thread's target in turn without a
 *   FUTEX_WAKE (the waker killed between its change and its wake: the only
 *   way a shared wake is lost) and keeps it there until that thread is
 *   through. With CANCEL, thread 0 may instead be cancelled at any point of
 *   its sleep (fx_sem_wait and fx_cond_wait are cancellation points).
 *
 *   The table's lock is an atomic block here: it is held only for the few
 *   loads and stores of each function, never across a sleep.
 *   futex_waitv of an untimed sleeper: EAGAIN if W != v or the hand-off
 *   word moved since it registered, else it sleeps until a wake of the
 *   hand-off word (a lost change wakes nobody). The designated sleeper's
 *   bounded sleep: EAGAIN if W != v, else it sleeps until its recheck, which
 *   may come at any time.
 *
 * Properties
 *   safety    no invalid end state (a thread asleep for good while its
 *             target stands), at most one designated call, counts exact.
 *   all_done  <> every thread through (or cancelled), under weak fairness.
 */

//@mirrors src/sleep.c watch_pass watch_join watch_back fxi_recheck_end_slow watch_recheck sleep_enter sleep_leave sha256=dbeb92b6a981db08216693309062f0a0ebe3dd98e76f4de5363421095b2248f0

//@check safety
//@check ltl all_done
//@check safety -DCANCEL=1
//@check ltl all_done -DCANCEL=1

#define NT 3
#ifndef CANCEL
#define CANCEL 0
#endif

byte W = 0;            /* the shared word; thread i waits for i + 1 */
bool designated = 0;
byte untimed = 0;
/* The hand-off word: only whether it moved since each untimed sleeper read
 * it matters (futex_waitv compares it), so each thread keeps that bit;
 * moving it sets everyone's. */
bool moved[NT];
byte slept_on = 0;
byte alike = 0;        /* 0 none, 1 all on slept_on, 2 different values */
bool asleep[NT];       /* queued on the hand-off word (untimed sleepers) */
bool done[NT];

inline bump() {
    moved[0] = 1; moved[1] = 1; moved[2] = 1
}

/* watch_pass, under the lock: true when one untimed sleeper must be
 * handed the free role. */
inline pass(wake) {
    wake = 0;
    if
    :: designated -> skip
    :: else ->
        if
        :: untimed == 0 -> alike = 0
        :: else -> bump(); wake = 1 /* [M:pass-no-bump] */
        fi
    fi
}

/* FUTEX_WAKE of one (or all) sleepers of the hand-off word. */
inline wake_one() {
    if
    :: asleep[0] -> asleep[0] = 0
    :: asleep[1] -> asleep[1] = 0
    :: asleep[2] -> asleep[2] = 0
    :: else -> skip
    fi
}
inline wake_all() {
    asleep[0] = 0; asleep[1] = 0; asleep[2] = 0
}

proctype thread(byte me) {
    byte v;
    bool role = 0;      /* this call holds the recheck (s->watch) */
    bool reg = 0;       /* this sleep is registered untimed (s->untimed_in) */
    bool wake, recheck;
    do
    :: v = W;
       if
       :: v == me + 1 -> break
       :: else -> skip
       fi;
       /* sleep_enter: watch_join, unless the call holds the role */
       if
       :: role -> skip
       :: else ->
           atomic {
               if
               :: !designated -> designated = 1; role = 1
               :: else ->
                   untimed++; reg = 1; moved[me] = 0;
                   if
                   :: alike == 0 -> slept_on = v; alike = 1
                   :: alike != 0 && slept_on != v -> alike = 2
                   :: else -> skip
                   fi
               fi
           }
       fi;
       recheck = 0;
       /* sleep_once */
       if
       :: reg ->
           atomic {
               if
               :: W != v || moved[me] -> skip     /* EAGAIN */
               :: else -> asleep[me] = 1
               fi
           };
           if
           :: CANCEL && me == 0 -> goto cancelled
           :: !asleep[me] -> skip                 /* woken through the hand-off */
           fi
       :: else ->
           if
           :: W != v -> skip                      /* EAGAIN */
           :: else ->
               if
               :: CANCEL && me == 0 -> goto cancelled
               :: true -> recheck = 1             /* the recheck came */
               fi
           fi
       fi;
       /* sleep_leave: watch_back(take), then the designated recheck */
       if
       :: reg ->
           atomic {
               untimed--; reg = 0;
               if
               :: untimed == 0 -> alike = 0
               :: else -> skip
               fi;
               if
               :: !designated -> designated = 1; role = 1   /* [M:back-no-take] */
               :: else -> skip
               fi
           }
       :: else -> skip
       fi;
       if
       :: recheck && role ->
           atomic {                               /* watch_recheck */
               if
               :: untimed > 0 && (alike == 2 || W != slept_on) ->   /* [M:recheck-none] */
                   alike = 0; bump(); wake = 1
               :: else -> wake = 0
               fi
           };
           if
           :: wake -> wake_all()                  /* @sleep.recheck.all */
           :: else -> skip
           fi
       :: else -> skip
       fi
    od;
    done[me] = 1;
    goto finish;
cancelled:
    /* the unwinding runs fxi_recheck_end: an untimed registration first */
    asleep[me] = 0;
    if
    :: reg ->
        atomic { untimed--; reg = 0; pass(wake) };
        if
        :: wake -> wake_one()
        :: else -> skip
        fi
    :: else -> skip
    fi;
    done[me] = 1;
finish:
    /* fxi_recheck_end of the call's role */
    if
    :: role ->
        atomic { designated = 0; role = 0; pass(wake) };   /* [M:end-no-pass] */
        if
        :: wake -> wake_one()                     /* @sleep.end.handoff */
        :: else -> skip
        fi
    :: else -> skip
    fi;
    assert(!asleep[me])
}

/* Sets each thread's target in turn, without a wake, and keeps it until
 * that thread is through. */
proctype environment() {
    byte i;
    for (i : 0 .. NT - 1) {
        W = i + 1;
        done[i]
    }
}

init {
    atomic {
        run thread(0); run thread(1); run thread(2);
        run environment()
    }
}

ltl all_done { <> (done[0] && done[1] && done[2]) }
