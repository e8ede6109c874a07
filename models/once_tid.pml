/*
 * models/once_tid.pml - fx_once (src/once.c) against a dead initialiser
 * whose TID comes back as a live thread: issue 11 classes 1 and 5 for the
 * once word.
 *
 * The word is NOT_RUN, DONE or RUNNING|t (WAITERS is left out: no wake-up is
 * modelled, waiters block until the word changes or their recheck finds the
 * initialiser dead). The initialiser is named by its identity: its TID t and
 * (the fix asked for by issue 11, to land on branch ident) the incarnation
 * of that TID, e.g. the thread's
 * start time, here gen[t]: the kernel gives the TID of a dead thread to a
 * new one with a new incarnation. Main named it by TID alone, so
 *   - class 5: a new thread whose TID equals the dead initialiser's was told
 *     EDEADLK ("inside your own initialiser") on every call, and
 *   - a liveness check by TID alone sees the new thread and takes the dead
 *     initialiser for alive: its waiters never take over;
 *   - class 1's fault (found in fx_rmutex; the mutation checks that the
 *     model would see it here too): a waiter that found t dead and lost the
 *     take-over CAS keeps that verdict; with t back as a new initialiser, it
 *     takes the word over from a live one: two initialisers at once.
 *
 * Processes: the ghost (TID 3, incarnation 0) died running the initialiser
 * (the word is RUNNING|3/0 at the start); waiters with TIDs 1 and 2, whose
 * initialiser may exit early once (the cleanup handler puts the word back to
 * NOT_RUN, and the thread is gone); the reborn thread, TID 3 in its next
 * incarnation, which calls fx_once. The recheck of a waiter
 * (every FX_ONCE_CHECK_MS, at an absolute time signals cannot postpone: the
 * fix of class 4) is a transition enabled while the word names
 * a dead initialiser; a wait also ends when the word changes. As in
 * models/rmutex_tid.pml, a TID is not reused between one waiter's liveness
 * check and its CAS right after it.
 *
 * Properties (safety): at most one initialiser runs at a time; nobody is
 * told EDEADLK (no caller here is inside its own initialiser); every caller
 * returns (no invalid end state: a waiter blocked behind a dead initialiser
 * forever is one); the initialiser ran to its end exactly once. Mutations
 * once-verdict-kept, once-tid-deadlk and once-tid-liveness re-introduce the
 * three faults above; each is caught.
 */
//@mirrors src/once.c once_finish once_abandon once_run fx_once_call sha256=4b3552803e1fd8cbc8e08bbd293e281eff78a78f4b0728cba0ac57420fbfde52
//@check safety

#define NOT_RUN 0
#define DONE    1
#define RUN     2       /* RUNNING: the word is RUN with (tid, tgen) */
#define GHOST   3       /* the dead initialiser's TID, given again to the reborn */

byte st = RUN;          /* the word's kind: NOT_RUN, DONE or RUN */
byte tid = GHOST;       /* with RUN: the initialiser's TID */
byte tgen = 0;          /* with RUN: its incarnation (start time) */
byte gen[GHOST + 1];    /* the current incarnation of each TID */
bool alive[GHOST + 1];  /* the current incarnation of TID t is alive */
byte running = 0;       /* initialisers running (observer) */
byte ran = 0;           /* initialisers that ran to the end (observer) */
byte checking = 0;      /* callers between a liveness check and its CAS (observer) */
byte finished = 0;

/* fx_tid_dead for the identity (t, g): the incarnation g of TID t is gone. */
#define DEAD(t, g) (!alive[t] || gen[t] != g)  /* [M:liveness] */

/* fx_once(o, init) by the thread (me, mg); exits: the initialiser may
 * return early once (thread exit: the cleanup handler puts NOT_RUN back). */
proctype caller(byte me; byte mg; bool exits)
{
    byte vs, vt, vg;        /* the word as loaded */
    byte verdict = 0;       /* 1 + the TID found dead, 0: none */
    byte vgen;              /* ... and its incarnation */
    bool d, mine = 0, early = exits;
    do
    :: atomic { vs = st; vt = tid; vg = tgen };          /* acquire load */
        if
        :: vs == DONE -> break                           /* returns 0 */
        :: vs == NOT_RUN ->
            atomic {                                     /* CAS 0 -> RUNNING|me */
                if
                :: st == NOT_RUN -> st = RUN; tid = me; tgen = mg; mine = 1; running++; assert(running == 1)
                :: else -> skip
                fi
            }
        :: vs == RUN && vt == me && vg == mg ->          /* [M:deadlk] */
            assert(false)                                /* EDEADLK: never inside its own initialiser here */
        :: vs == RUN && !(vt == me && vg == mg) ->
            if
            :: verdict == vt + 1 && vgen == vg -> atomic { d = 1; checking++ } /* the verdict kept [M:verdict-use] */
            :: else ->
                /* Sleep until the word changes, or the recheck, which
                 * asks fx_tid_dead, finds the initialiser dead. */
                atomic {
                    (st != vs || tid != vt || tgen != vg) || DEAD(vt, vg) ->
                    d = (st == vs && tid == vt && tgen == vg);
                    checking = checking + d;
                    if :: d -> verdict = vt + 1; vgen = vg :: else fi
                }
            fi;
            if
            :: d ->
                atomic {                                 /* CAS from the exact value seen: take over */
                    checking--;
                    if
                    :: st == vs && tid == vt && tgen == vg ->
                        tid = me; tgen = mg; mine = 1; running++; assert(running == 1)
                    :: else -> skip
                    fi
                };
                if
                :: !mine -> verdict = 0                  /* the lost CAS drops the verdict [M:verdict-drop] */
                :: else -> verdict = 0
                fi
            :: else -> skip
            fi;
            d = 0
        fi;
        if
        :: mine ->
            if
            :: early ->                                  /* the thread exits: the cleanup handler, RUNNING|me -> NOT_RUN */
                atomic { running--; assert(st == RUN && tid == me); st = NOT_RUN; tid = 0; tgen = 0; alive[me] = 0 };
                break
            :: else ->                                   /* returned: RUNNING|me -> DONE */
                atomic { running--; ran++; assert(st == RUN && tid == me); st = DONE; tid = 0; tgen = 0 };
                break
            fi
        :: else -> skip
        fi
    od;
    finished++
}

/* The kernel gives TID 3 to a new thread at any moment (but not while a
 * caller is between its check and its CAS); it calls fx_once. */
proctype reborn()
{
    atomic { checking == 0 ->
        gen[GHOST] = 1; alive[GHOST] = 1;
        run caller(GHOST, 1, 0)
    };
    finished++
}

init
{
    atomic {
        alive[1] = 1; alive[2] = 1;                      /* the ghost (TID 3/0) is dead */
        run caller(1, 0, 1);                             /* its initialiser may exit early */
        run caller(2, 0, 0);
        run reborn()
    };
    (finished == 4);
    assert(st == DONE && ran == 1 && running == 0)
}
