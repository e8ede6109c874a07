/*
 * models/engine.pml - the waiting engine of src/sleep.c, for spin: the
 * sleepers of one process in shared memory, one of which (the prober)
 * sleeps bounded on the look grid and looks at every other one's word at
 * each tick, the others listed and asleep untimed in futex_waitv.
 *
 * Mirrors src/sleep.c as pinned by the //@mirrors lines (see
 * models/README.md); each step names the step or function it mirrors. It
 * replaces models/sleep.pml (the per-word designated sleeper) and
 * models/prober.pml (the PROBED owners' prober), whose code the engine
 * replaced.
 *
 * What the primitives' models assume of the futex layer (BOUNDED): in
 * shared memory a sleeper's sleep may end at a recheck at any time, after
 * which it re-reads its word. What this model shows: a listed sleeper whose
 * word no longer holds the value it slept on (a change whose FUTEX_WAKE was
 * lost), or whose word names a PROBED owner that is dead, is told (its
 * sleep ends) at the first look after that, though only one sleeper of the
 * process looks, and every look is made; a sleeper whose word did not
 * change sleeps on (the prober too: at a tick it sleeps again on its word,
 * without returning to its caller). So BOUNDED is exact for a primitive
 * whose caller, after a sleep that ended with its word unchanged, only
 * sleeps again: each primitive model that uses BOUNDED says why that holds
 * for it. It does not hold for fx_rwlock's writers, which sleep on
 * writer_seq and re-read the state word (models/rwlock.pml, -DENGINE=1).
 *
 *   NT = 3 threads of one process, each in a sleeping call whose scope is
 *   already known to be shared (its first sleep, bounded by its own recheck,
 *   @futex.sleep.recheck in sleep_bounded, is not modelled):
 *   - threads 0 and 1 wait until the shared word W holds their own target
 *     (1 and 2; as counter waiters with different targets, or barrier and
 *     cond waiters of different rounds: the prober may not be waiting for
 *     what another is). Their call (fxi_futex_sleep's caller): loop { v :=
 *     W; if v == target: through; sleep(W, v) }. The environment sets W to
 *     1, then, once thread 0 is through, to 2, without a FUTEX_WAKE (the
 *     waker killed between its change and its wake: the only way a shared
 *     wake is lost); nothing else wakes W.
 *   - thread 2 waits for an object whose word O names a PROBED owner (an
 *     fx_rmutex or fx_once whose owner has no robust list,
 *     fxi_futex_sleep_probed): loop { v := O; if v is free: through; if
 *     told (judge) and the owner is dead: through (the take-over);
 *     sleep_probed(O, v) }. The owner dies (the word does not change: only
 *     the probe can tell), or releases O and is killed before its
 *     FUTEX_WAKE, or holds it for ever, at a moment of its choosing.
 *   - thread TIMED (1 by default) has a deadline: it may pass at any
 *     moment, so its sleep may end at it while it is listed, while it is the
 *     prober, and exactly at a tick (the clock makes both at once); its call
 *     then returns ETIMEDOUT.
 *   - with CANCEL, thread 0 may be cancelled at any point of its sleeps
 *     (fx_cond_wait and fx_sem_wait are cancellation points): at any step
 *     inside engine_wait, where asynchronous cancellation is enabled; the
 *     unwinding runs fxi_recheck_end, which gives up the call's place
 *     (engine_leave_locked). A cancellation may come at any of those
 *     points, so under weak fairness a thread 0 asleep for good is
 *     cancelled: what all_through then checks is that the others get
 *     through whatever its cancellation leaves (thread 0's own liveness is
 *     the check without CANCEL's).
 *
 *   Time. `due` is "now >= engine.next_look": a grid tick has passed since
 *   the last look of any prober (next_look is the process's). The clock
 *   sets it at any moment, but only once the last tick's look is over (a
 *   look takes less than a period; several ticks without a look are one to
 *   the protocol anyway). The prober, reading the clock, clears it
 *   (next_look := the next tick) and makes the look's first part in the
 *   same step (nobody else sees the reading, and no tick comes during a
 *   look). `expired` is the timed thread's deadline, set at any moment
 *   (never, in some runs), never cleared; the clock may also set both at
 *   once (a deadline on the tick). A prober's bounded sleep ends with
 *   ETIMEDOUT once either is set (it lasts until the earlier of the two).
 *
 *   The engine's lock is an atomic block: it is held only for the few loads
 *   and stores of each function and the wakes of told sleepers, never
 *   across a sleep or a probe. The listed entries are the array of
 *   list_link/list_unlink (swap-removed), so pass_role's first entry is the
 *   C's. A listed sleeper's futex_waitv: EAGAIN if its word differs from
 *   the value it slept on or its tell word moved since it read it (under the
 *   lock, at its link), else it sleeps until a wake of its tell word (tell())
 *   or its deadline. The prober's FUTEX_WAIT: EAGAIN if its word differs,
 *   else it sleeps until the tick or its deadline. The liveness probe
 *   (fxi_id_probe) reads `dead`, outside the lock. Steps that touch nothing
 *   shared (a thread's own locals, the clock's reading) are folded into the
 *   neighbouring step.
 *
 * Properties
 *   safety       no invalid end state: nobody asleep for good while its
 *                target stands or its owner is dead; in every state the
 *                engine's lock releases: the listed count is exact, at most
 *                one sleeper holds the role (state PROBER: the sleeping prober,
 *                or one told so on its way back) and engine.prober says
 *                whether one does, and the role is held whenever someone is
 *                listed; and every look is made (timely): a listed sleeper
 *                whose word had changed, or whose owner was dead, at a tick
 *                is told by that tick's look, before the next tick.
 *   all_through  <> every thread through or gone (timed out, cancelled),
 *                but thread 2 when its owner lives for ever, under weak
 *                fairness.
 *
 * Not modelled: FUTEX_WAKEs of the words and signals (they end a sleep as a
 * tell does, and the caller re-reads); more owners than one (a look's
 * batches of 64 owners); the full table (FXI_LISTED_MAX: the call keeps its
 * own recheck); futex_waitv refused after the setup (ENOSYS: the call keeps
 * its own recheck); a fork (the engine's pages are wiped in the child).
 * Memory is sequentially consistent: the engine's fields are ordered by its
 * lock, next_look by the role's passing under it.
 */

//@mirrors src/sleep.c engine_sleep engine_probe engine_look engine_wait pass_role tell list_link list_unlink engine_leave_locked fxi_recheck_end_slow fxi_futex_sleep_probed sha256=0c429190b985b2aadbfad44e9be0b5ba686525b52b4f31b5ab00a2c8aa6399f6
//@mirrors src/internal/sleep.h fxi_recheck_end sha256=dfce2d91faa6c6864e5b5ca115ab2f2e9f08692cbef780d0a48b6a6a8f1a7283
//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wait2_raw fxi_futex_wake_private sha256=62febed1d109e1206e7202a4e0f438276841a985069d2531d0827f84e85709f5

//@check safety
//@check ltl all_through -DNFAIR=3
//@check safety -DCANCEL=1
//@check ltl all_through -DCANCEL=1 -DNFAIR=3

#define NT 3
#ifndef CANCEL
#define CANCEL 0
#endif
#ifndef TIMED
#define TIMED 1         /* the thread with a deadline */
#endif
#define OWNED 1         /* O names the PROBED owner; 0: free */

/* A sleeper's state (src/sleep.c) */
#define OUT 0
#define LISTED 1
#define TOLD 2
#define PROBER 3
/* How an engine sleep ended (no FUTEX_WAKE of a word here: never WOKEN) */
#define ENDED 0
#define TOLD_BY_LOOK 2
/* Results */
#define OK 0
#define EAGAIN 1
#define ETIMEDOUT 2

#define WORD(t) ((t) == 2 -> O : W)
/* owner(word) of an entry names the owner (only thread 2 has an owner()) */
#define NAMES(t) ((t) == 2 && O == OWNED)

byte W = 0;             /* the shared word of threads 0 and 1 */
byte O = OWNED;         /* the word of thread 2's object */
bool dead = 0;          /* its owner has died */

bool due = 0;           /* now >= engine.next_look */
bool expired = 0;       /* the timed thread's deadline has passed */

/* The engine (engine.prober, engine.listed, listed.e[]), under its lock */
bool prober = 0;
byte nlisted = 0;
byte e[NT];             /* listed.e[i].node */
/* Each node's fields and its entry's (one entry per node while listed) */
byte slot[NT];          /* n->slot */
byte ex[NT];            /* the entry's expected value */
bool lk[NT];            /* the entry's looked == the current look */
byte st[NT];            /* n->state */
/* The tell word: only whether it moved since its sleeper read it matters
 * (futex_waitv compares it), so each node keeps that bit. */
bool moved[NT];
bool asleep[NT];        /* in the kernel: futex_waitv (listed) or FUTEX_WAIT (prober) */

bool gone[NT];          /* (observer) through, timed out or cancelled */
bool lives = 0;         /* (observer) thread 2's owner holds its object for ever */
bool looking = 0;       /* (observer) a look is being made */
bool missed[NT];        /* (observer) listed and stale at the last tick */

/* What the engine's lock guarantees when it is released. */
inline check_inv()
{
    assert(nlisted == (st[0] == LISTED) + (st[1] == LISTED) + (st[2] == LISTED));
    assert((st[0] == PROBER) + (st[1] == PROBER) + (st[2] == PROBER) == prober);
    assert(nlisted == 0 || prober)
}

/* sleep.c list_link(): n joins the listed entries (never full here). */
inline list_link(n)
{
    slot[n] = nlisted; e[nlisted] = n; ex[n] = v; lk[n] = 0; nlisted++
}

/* sleep.c list_unlink(): the last entry takes n's place. */
inline list_unlink(n)
{
    nlisted--;
    e[slot[n]] = e[nlisted];
    slot[e[nlisted]] = slot[n];
    e[nlisted] = 0; slot[n] = 0; ex[n] = 0; lk[n] = 0;
    missed[n] = 0
}

/* sleep.c tell(): a listed sleeper is told (TOLD or PROBER) and woken,
 * under the lock. */
inline tell(n, s)
{
    list_unlink(n);
    st[n] = s;
    moved[n] = 1;           /* tell += 1 [M:tell-move] */
    asleep[n] = 0           /* FUTEX_WAKE(&n->tell, 1) [M:tell-wake] */
}

/* sleep.c pass_role(): the role goes to the first entry (the C calls it
 * the oldest; a removal moves the last entry into the removed one's place,
 * so it is not always), or falls free. */
inline pass_role()
{
    prober = (nlisted > 0);
    if
    :: nlisted > 0 -> n = e[0]; tell(n, PROBER); n = 0      /* @sleep.role.pass [M:pass-tell] */
    :: else -> skip
    fi
}

/* sleep.c engine_leave_locked(): the call of `me` is back from the engine. */
inline leave_locked()
{
    if
    :: st[me] == LISTED -> list_unlink(me)
    :: st[me] == PROBER -> pass_role()
    :: else -> skip
    fi;
    st[me] = OUT
}

/* sleep.c engine_look(), in two parts. The first, under the lock: every
 * listed sleeper whose word changed is told; owners := some listed word
 * may name an owner. Made in the prober's step that finds the look due
 * (the clock's reading is seen by nobody else, and no tick comes during a
 * look). */
inline look_values()
{
    i = 0; owners = 0;                  /* ++looks */
    do
    :: i < nlisted ->
        owners = owners || e[i] == 2;
        if
        :: WORD(e[i]) != ex[e[i]] -> n = e[i]; tell(n, TOLD)  /* @sleep.look.values [M:look-values] */
        :: else -> i++
        fi
    :: else -> break
    od;
    lk[0] = 0; lk[1] = 0; lk[2] = 0;    /* no entry has looked at this look yet */
    i = 0; n = 0;
    check_inv()
}

/* The rest: the owners, a batch at a time, outside the lock but for the
 * batch's collection and the tells; mine_dead := the owner named in the
 * prober's own word is dead. */
inline look_owners()
{
    do                                  /* @sleep.look.owners: a batch at a time */
    :: owners ->                        /* [M:look-owners] */
        atomic {                        /* the lock: the owners not probed at this look */
            if
            :: st[2] == LISTED && !lk[2] -> lk[2] = 1; id = NAMES(2)
            :: else -> id = 0
            fi
        };
        if
        :: !id -> break
        :: else -> skip
        fi;
        atomic { verdict = dead };      /* @sleep.look.probe: fxi_id_probe, outside the lock */
        if
        :: verdict ->
            atomic {                    /* @sleep.look.dead: the lock */
                if
                :: st[2] == LISTED && NAMES(2) -> n = 2; tell(n, TOLD); n = 0
                :: else -> skip
                fi;
                check_inv()
            }
        :: else -> skip
        fi;
        verdict = 0
    :: else -> break
    od;
    owners = 0; id = 0;
    if                                  /* @sleep.look.own */
    :: me == 2 ->
        atomic { id = NAMES(2) };       /* owner(me->word) */
        if
        :: id -> atomic { mine_dead = dead } /* fxi_id_probe [M:look-own] */
        :: else -> skip
        fi;
        id = 0
    :: else -> skip
    fi
    /* looking := 0 with the prober's next step (its wait, or its leave) */
}

/* Where asynchronous cancellation is enabled (engine_wait with cancel), a
 * pending cancellation of thread 0 may act: while it sleeps, and once the
 * futex call has returned (a wake may have picked it). The step before the
 * futex call is left out: that call's compare is seen by nobody else. */
#if CANCEL
#define CANCEL_ASLEEP :: me == 0 && asleep[me] -> goto cancelled
#define CANCEL_POINT if :: me == 0 -> goto cancelled :: true -> skip fi
#else
#define CANCEL_ASLEEP
#define CANCEL_POINT skip
#endif

/* Back from the engine (engine_sleep returns r; fxi_futex_sleep_probed's
 * *judge is how == TOLD_BY_LOOK); the caller re-reads its word, or returns
 * ETIMEDOUT. Within the step that leaves. */
inline returns()
{
    is_listed = 0; v = 0;
    judge = (me == 2 && how == TOLD_BY_LOOK);
    how = ENDED;
    if
    :: r == ETIMEDOUT -> goto through
    :: else -> goto call
    fi
}

active [NT] proctype thread()
{
    byte me = _pid;
    byte v, r, how, n, i;
    bool is_listed, judge, owners, id, verdict, mine_dead, nowexp, lookit;
call:
    /* The caller (re-)reads its word; through when it holds the target, or
     * (thread 2) when it is free, or its owner is dead once a look told it. */
    if
    :: atomic { me < 2 -> v = W; if :: v == me + 1 -> v = 0; goto through :: else -> skip fi }
    :: atomic { me == 2 -> v = O;
           if
           :: v != OWNED || (judge && dead) -> v = 0; judge = 0; goto through
           :: else -> judge = 0
           fi }
    fi;
    /* engine_sleep */
    atomic {                                      /* @sleep.join: the lock */
        if
        :: !prober -> prober = 1; st[me] = PROBER; is_listed = 0
        :: else -> list_link(me); st[me] = LISTED; moved[me] = 0; is_listed = 1 /* h := n->tell */
        fi;
        check_inv()
    };
    if
    :: atomic { is_listed ->                      /* @sleep.listed.wait: futex_waitv */
           if
           :: WORD(me) != v || moved[me] -> r = EAGAIN
           :: else -> asleep[me] = 1
           fi };
        if
        :: !asleep[me] -> skip                    /* EAGAIN, or woken through the tell word */
        :: atomic { asleep[me] && me == TIMED && expired -> asleep[me] = 0; r = ETIMEDOUT }
        CANCEL_ASLEEP
        fi;
        CANCEL_POINT;
        atomic {                                  /* @sleep.listed.back: the lock */
            moved[me] = 0;
            if
            :: st[me] == TOLD -> how = TOLD_BY_LOOK; r = OK
            :: else -> skip
            fi;
            if
            :: st[me] == PROBER && r != ETIMEDOUT && how == ENDED && WORD(me) == v -> r = OK; is_listed = 0 /* go on */
            :: else -> leave_locked(); check_inv(); returns() /* [M:listed-leave] */
            fi;
            check_inv()
        }
    :: else -> skip
    fi;
    /* @sleep.probe: engine_probe, the role held */
    do
    :: atomic {                                   /* clock_gettime, then @sleep.probe.due */
           nowexp = (me == TIMED && expired);
           if
           :: due -> due = 0; looking = 1; lookit = 1; look_values() /* next_look := the next tick; the look [M:due] */
           :: else -> lookit = 0
           fi
       };
       if
       :: lookit ->                               /* [M:look-first] */
           lookit = 0;
           look_owners();
           if
           :: mine_dead -> mine_dead = 0; nowexp = 0; how = TOLD_BY_LOOK; r = OK; break
           :: else -> skip
           fi
       :: else -> skip
       fi;
       if
       :: nowexp -> nowexp = 0; r = ETIMEDOUT; break /* @sleep.probe.deadline */
       :: else -> skip
       fi;
       atomic {                                   /* @sleep.probe.wait: FUTEX_WAIT until the tick or the deadline */
           looking = 0;
           if
           :: WORD(me) != v -> r = EAGAIN
           :: else -> asleep[me] = 1; r = OK
           fi
       };
       if
       :: !asleep[me] -> break                    /* EAGAIN: the word changed, return 0 */
       :: atomic { asleep[me] && (due || (me == TIMED && expired)) -> asleep[me] = 0; r = ETIMEDOUT }
       CANCEL_ASLEEP
       fi;
       CANCEL_POINT;
       r = OK                                     /* the tick or the deadline: loop */
    od;
    atomic {                                      /* the lock; engine_leave_locked */
        looking = 0;
        if :: r == EAGAIN -> r = OK :: else -> skip fi;
        leave_locked(); check_inv(); returns()
    };
cancelled:
    /* The unwinding runs fxi_recheck_end (sleep.c fxi_recheck_end_slow()):
     * the kernel has dequeued the thread. */
    atomic { asleep[me] = 0; if :: st[me] != OUT -> leave_locked() :: else -> skip fi; check_inv() }; /* [M:cancel-leave] */
through:
    gone[me] = 1;
    assert(!asleep[me] && st[me] == OUT)
}

/* Sets each value waiter's target in turn, without a wake, and keeps it
 * until that waiter is through (or gone). */
active proctype environment()
{
    W = 1;
    gone[0];
    W = 2;
    gone[1]
}

/* The fate of thread 2's object, at a moment of its choosing. */
active proctype owner()
{
    if
    :: dead = 1         /* dies holding it: only the probe can tell */
    :: O = 0            /* releases it and is killed before its FUTEX_WAKE */
    :: lives = 1        /* holds it for ever */
    fi
}

/* (observer) At a tick: a listed sleeper whose word changed, or whose
 * owner is dead, must not have been so already at the last tick (its look
 * would have told it). */
inline stale(t)
{
    if
    :: st[t] == LISTED && (WORD(t) != ex[t] || (NAMES(t) && dead)) ->
        assert(!missed[t]);         /* timely */
        missed[t] = 1
    :: else -> skip
    fi
}

/* Time: the grid's ticks, and the deadline. */
active proctype clock()
{
end:
    do
    :: atomic { !due && !looking -> due = 1; stale(0); stale(1); stale(2) }
    :: atomic { !expired && !gone[TIMED] -> expired = 1 }
    :: atomic { !due && !looking && !expired && !gone[TIMED] -> due = 1; expired = 1; stale(0); stale(1); stale(2) }
    od
}

ltl all_through { <> (gone[0] && gone[1] && (gone[2] || lives)) }
