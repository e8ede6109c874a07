/*
 * models/prober.pml - the process's prober of src/sleep.c
 * (fxi_futex_sleep_probed), for spin: the waiters of owners whose death only
 * the liveness probe can tell (fx_rmutex's PROBED owners), in one process, of
 * which one, the prober, looks for all and the others sleep untimed.
 *
 * Mirrors src/sleep.c as pinned by the //@mirrors line (see
 * models/README.md); each step names the function it mirrors.
 *
 *   NT threads wait for objects whose owners are alive, then die, each at a
 *   moment the environment picks: threads 0 and 1 for object 0, thread 2 for
 *   object 1 (several waiters of one word, and words of their own). A
 *   thread's call: loop { look: if its owner is dead, done (the take-over);
 *   sleep_probed }. Thread 2 is timed: its sleep may end at its deadline at
 *   any moment, and the call then returns (ETIMEDOUT). Owners only die here:
 *   a release's wake is rmutex.pml's business.
 *
 *   The table's lock is an atomic block: it is held only for the few loads
 *   and stores of each function, never across a sleep or a probe. The
 *   prober's bounded sleep ends at its tick, which may come at any time; a
 *   tick probes every registered word (probed_look) and then its own. An
 *   untimed sleeper's futex_waitv: EAGAIN if its slot's tell word moved
 *   since it registered, else it sleeps until a wake of one sleeper of that
 *   word (FUTEX_WAKE(tell, 1)); the prober is not among them. A returning
 *   sleeper looks at once (*judge).
 *
 * Properties
 *   safety    no invalid end state (a waiter asleep for good while its
 *             owner is dead).
 *   all_done  <> the waiters of the dead owner through, under weak
 *             fairness, though the prober may wait for ever for a live one.
 */

//@mirrors src/sleep.c probed_find probed_busy probed_tell probed_pass probed_dead probed_look probed_prober fxi_futex_sleep_probed sha256=1e3a3297ba538d6100f99d6a27d88f89183ffe148088d21712d5dca917a512ae

//@check safety
//@check ltl all_done

#define NT 3
#define NS 2

bool dead[NS];           /* the owner of object s has died */
bool prober = 0;         /* a call holds the role */
byte sleepers[NS];       /* untimed sleepers registered per word */
/* Each slot's tell word: only whether it moved since each sleeper read it
 * matters (futex_waitv compares it), so each thread keeps that bit, and a
 * move sets it for every thread of the slot. */
bool moved[NT];
bool asleep[NT];         /* queued on its slot's tell word */
bool done[NT];

#define obj(t) ((t) == 2 -> 1 : 0)

/* probed_tell: the slot's tell word moves. */
inline tell_moves(s) {
    if :: obj(0) == s -> moved[0] = 1 :: else -> skip fi;
    if :: obj(1) == s -> moved[1] = 1 :: else -> skip fi;
    if :: obj(2) == s -> moved[2] = 1 :: else -> skip fi
}

/* FUTEX_WAKE(tell of slot s, 1): one asleep sleeper of s, if any. */
inline wake_one(s) {
    if
    :: asleep[0] && obj(0) == s -> asleep[0] = 0
    :: asleep[1] && obj(1) == s -> asleep[1] = 0
    :: asleep[2] && obj(2) == s -> asleep[2] = 0
    :: else -> skip
    fi
}

/* probed_pass, then the wake after the unlock: the free role goes to one
 * sleeper of a word that has sleepers (the first such slot). */
inline pass_role(s) {
    atomic {
        s = NS;
        if
        :: prober -> skip
        :: !prober && sleepers[0] > 0 -> s = 0; tell_moves(0)
        :: !prober && sleepers[0] == 0 && sleepers[1] > 0 -> s = 1; tell_moves(1)
        :: else -> skip
        fi
    };
    if
    :: s < NS -> wake_one(s)                   /* [M:pass-no-wake] */
    :: else -> skip
    fi
}

proctype thread(byte me) {
    bool role, gaveup = 0;
    byte s, k;
    do
    :: dead[obj(me)] -> break                  /* the look: EOWNERDEAD */
    :: !dead[obj(me)] ->
        /* fxi_futex_sleep_probed: join */
        atomic {
            if
            :: !prober -> prober = 1; role = 1
            :: else -> role = 0; sleepers[obj(me)]++; moved[me] = 0
            fi
        };
        if
        :: role ->
            /* probed_prober: ticks until its own owner is dead (or its
             * deadline, for the timed thread) */
            do
            :: me == 2 -> gaveup = 1; break       /* its deadline */
            :: true ->                            /* a tick: probed_look */
                k = 0;
                do
                :: k < NS ->
                    if
                    :: dead[k] ->
                        atomic {
                            if
                            :: sleepers[k] > 0 -> tell_moves(k); s = k   /* [M:look-no-tell] */
                            :: else -> s = NS
                            fi
                        };
                        if
                        :: s < NS -> wake_one(s)
                        :: else -> skip
                        fi
                    :: else -> skip
                    fi;
                    k++
                :: else -> break
                od;
                if
                :: dead[obj(me)] -> break
                :: else -> skip
                fi
            od;
            atomic { prober = 0; role = 0 };
            pass_role(s)
        :: else ->
            atomic {
                if
                :: moved[me] -> skip              /* EAGAIN */
                :: else -> asleep[me] = 1
                fi
            };
            if
            :: !asleep[me] -> skip                /* told, or EAGAIN */
            :: atomic { me == 2 && asleep[me] -> asleep[me] = 0; gaveup = 1 }   /* its deadline */
            fi;
            atomic { sleepers[obj(me)]-- };
            pass_role(s)
        fi;
        if
        :: gaveup -> break
        :: else -> skip
        fi
    od;
    done[me] = 1
}

/* The environment: object 0's owner dies, at a moment of its choosing;
 * object 1's dies too, or lives for ever (its waiter, thread 2, may then be
 * the prober for good, and only its looks tell the others). */
active proctype deaths() {
    dead[0] = 1;
    if
    :: dead[1] = 1
    :: skip
    fi
}

init {
    atomic {
        run thread(0);
        run thread(1);
        run thread(2)
    }
}

ltl all_done { <> (done[0] && done[1]) }
