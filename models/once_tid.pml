/*
 * models/once_tid.pml - fx_once (src/once.c) against a dead initialiser
 * whose TID comes back as a live thread: issue 11 classes 1 and 5 for the
 * once word, with the identity rule of once_slow.
 *
 * Layout 2: this model is the PROBED initialiser (a thread without a robust
 * list), the one judged by TID. An initialiser on its robust list is never
 * judged: the kernel marks its word ABANDONED at its death and wakes one
 * caller, who runs it again, the protocol that models/rmutex.pml checks with
 * -DKERNEL=1 for the rmutex word; it is not modelled here.
 *
 * The word is NOT_RUN, DONE or RUNNING|t (WAITERS is left out: no wake-up is
 * modelled, waiters block until the word changes or their recheck finds the
 * initialiser dead). The word names the initialiser by TID alone; each
 * thread keeps a record of the initialisers it is running (src/identity.c,
 * fxi_once_inside). So:
 *   - a caller that finds its own TID in the word but o not in its record
 *     is a new thread with the TID of one that died inside the initialiser:
 *     it takes the word over at once (CAS RUNNING|me -> RUNNING|me); only a
 *     caller inside its own initialiser is told EDEADLK (class 5; the
 *     mutation once-tid-deadlk compares the TID alone);
 *   - the liveness check (fxi_id_probe) asks about the TID: the dead
 *     initialiser's TID back in a live thread looks alive, so its waiters
 *     wait until that thread calls fx_once on o (and takes over, as above)
 *     or is gone itself; the reborn thread here does either;
 *   - class 1's fault (found in fx_rmutex; the mutation checks that the
 *     model would see it here too): a waiter that found t dead and lost the
 *     take-over CAS keeps that verdict; with t back as a new initialiser, it
 *     takes the word over from a live one: two initialisers at once. In the
 *     source a verdict is used by the one CAS from the value it was made
 *     for, and a lost CAS reloads the word and judges it afresh.
 *
 * Processes: the ghost (TID 3) died running the initialiser (the word is
 * RUNNING|3 at the start); waiters with TIDs 1 and 2, whose initialiser may
 * exit early once (the cleanup handler once_abandon puts the word back to
 * NOT_RUN, and the thread is gone); the reborn thread, a new thread with TID
 * 3, which calls fx_once, or does not and exits some time later. The
 * liveness check of a waiter (once_sleep_probed: due FXI_ONCE_CHECK_MS after
 * its first sleep, at an absolute time `check` that signals cannot
 * postpone; after that, due when the process's waiting engine tells it, as
 * its prober does at the first look that finds the TID dead,
 * fxi_futex_sleep_probed's *judge, models/engine.pml; or, where the engine
 * cannot be used, every FXI_ONCE_CHECK_MS again) is a transition enabled
 * while the word names a dead TID, the probe and the verdict in one step; a
 * wait also ends when the word changes (the engine tells that too). A
 * waiter told of a death whose own probe then finds the TID alive again (a
 * reborn thread took it) sleeps on as before: that is the guard not
 * enabled, here. As in
 * models/rmutex.pml -DTIDREUSE=1, a TID is not reused between one waiter's liveness
 * check and its CAS right after it.
 *
 * Properties (safety): at most one initialiser runs at a time; nobody is
 * told EDEADLK (no caller here is inside its own initialiser); every caller
 * returns (no invalid end state: a waiter blocked behind a dead initialiser
 * forever is one); the initialiser ran to its end exactly once. Mutations
 * once-verdict-kept, once-tid-deadlk and once-self-waits (a caller that finds
 * its own TID without the record waits as for a live owner: the reborn
 * thread waits for itself, and everyone with it) are caught.
 */
//@mirrors src/identity.c fxi_once_inside fxi_once_enter fxi_once_leave fxi_once_abandon sha256=8b3508df3e891daad7f5e2ea03416fb89c56434e01271c84337e462803a85e6d
//@mirrors src/once.c once_finish once_abandon once_run once_word_owner once_sleep_probed once_slow fx_once_call sha256=967d7867eb752ddbf35c80986ad6d38eeb7d7d9c72a08dbeb363ceed5a9827bb
//@mirrors src/sleep.c fxi_futex_sleep_probed sha256=8a7f94ae680778bdf1e2ea04525375973c10a028d46f02d7608a27cc877e7aa5
//@check safety

#define NOT_RUN 0
#define DONE    1
#define RUN     2       /* RUNNING: the word is RUN with tid */
#define GHOST   3       /* the dead initialiser's TID, given again to the reborn */

byte st = RUN;          /* the word's kind: NOT_RUN, DONE or RUN */
byte tid = GHOST;       /* with RUN: the initialiser's TID */
bool alive[GHOST + 1];  /* a live thread has TID t */
bool reborn_in = 0;     /* the reborn thread is inside fx_once (observer) */
byte running = 0;       /* initialisers running (observer) */
byte ran = 0;           /* initialisers that ran to the end (observer) */
byte checking = 0;      /* callers between a liveness check and its CAS (observer) */
byte finished = 0;

/* fxi_id_probe(t) == DEAD: no live thread has TID t. For a live one the
 * probe may answer "unknown" (hidepid, no /proc, seccomp, another PID
 * namespace), which acts as alive: the branch tagged unknown (mutation
 * once-unknown-is-dead takes it for dead: two initialisers at once). */
#define DEAD(t) (!alive[t])

/* fx_once(o, init) by thread me (once_slow); exits: the initialiser may
 * return early once (thread exit: once_abandon puts NOT_RUN back). No caller
 * here is inside its own initialiser when it looks at the word: its record
 * (fxi_once_inside) never holds o then. */
proctype caller(byte me; bool exits)
{
    byte vs, vt;            /* the word as loaded */
    byte verdict = 0;       /* 1 + the TID found dead, 0: none */
    bool d, mine = 0, early = exits;
    bool unk = 0;           /* the probe answered "unknown" once: after that,
                               "unknown" and "alive" are the same sleep, which
                               the blocking guard models (an unbounded
                               stutter would hide deadlocks) */
    do
    :: atomic { vs = st; vt = tid };                     /* acquire load */
        if
        :: vs == DONE -> break                           /* returns 0 */
        :: vs == NOT_RUN ->
            atomic {                                     /* CAS 0 -> RUNNING|me */
                if
                :: st == NOT_RUN -> st = RUN; tid = me; mine = 1; running++; assert(running == 1)
                :: else -> skip
                fi
            }
        :: vs == RUN && vt == me ->                      /* owner == me; fxi_once_inside is false (EDEADLK otherwise): */
            atomic { d = 1; checking++ }                 /* the TID's last thread died inside [M:self] */
        :: vs == RUN && vt != me ->
            if
            :: verdict == vt + 1 -> atomic { d = 1; checking++ } /* a verdict kept (never, unless mutated) */
            :: else ->
                /* Sleep until the word changes, or the recheck, which
                 * asks fxi_id_probe, finds the initialiser dead. */
                if
                :: atomic {
                    (st != vs || tid != vt) || DEAD(vt) ->
                    d = (st == vs && tid == vt);
                    checking = checking + d;
                    if :: d -> verdict = vt + 1 :: else fi
                   }
                :: atomic { !unk && st == vs && tid == vt && !DEAD(vt) -> unk = 1; d = 0 } /* fxi_id_probe: unknown (a live initialiser it cannot see) acts as alive [M:unknown] */
                fi
            fi
        fi;
        if
        :: d ->
            atomic {                                     /* CAS from the exact value seen: take over */
                checking--;
                if
                :: st == vs && tid == vt ->
                    tid = me; mine = 1; running++; assert(running == 1)
                :: else -> skip
                fi
            };
            if
            :: !mine -> verdict = 0                      /* the lost CAS drops the verdict [M:verdict-drop] */
            :: else -> verdict = 0
            fi
        :: else -> skip
        fi;
        d = 0;
        if
        :: mine ->
            if
            :: early ->                                  /* the thread exits: once_abandon, RUNNING|me -> NOT_RUN */
                atomic { running--; assert(st == RUN && tid == me); st = NOT_RUN; tid = 0; alive[me] = 0 };
                break
            :: else ->                                   /* returned: once_finish, RUNNING|me -> DONE */
                atomic { running--; ran++; assert(st == RUN && tid == me); st = DONE; tid = 0 };
                break
            fi
        :: else -> skip
        fi
    od;
    finished++
}

/* The kernel gives TID 3 to a new thread at any moment (but not while a
 * caller is between its check and its CAS). It calls fx_once, or it does
 * not and exits later (until then the word naming TID 3 looks alive). */
proctype reborn()
{
    atomic { checking == 0 -> alive[GHOST] = 1 };
    if
    :: run caller(GHOST, 0)
    :: atomic { alive[GHOST] = 0; finished++ }       /* exits without calling */
    fi;
    finished++
}

init
{
    atomic {
        alive[1] = 1; alive[2] = 1;                      /* the ghost (TID 3) is dead */
        run caller(1, 1);                                /* its initialiser may exit early */
        run caller(2, 0);
        run reborn()
    };
    (finished == 4);
    assert(st == DONE && ran == 1 && running == 0)
}
