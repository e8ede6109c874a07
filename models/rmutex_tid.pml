/*
 * models/rmutex_tid.pml - TID reuse against the dead-owner detection of
 * fx_rmutex (src/rmutex.c), issue 11 class 1.
 *
 * The owner word names its owner by TID. A thread that died holding the
 * mutex leaves its TID in the word; a waiter checks the owner's liveness
 * (fxi_tid_dead) and takes the mutex over with a CAS from the exact value it
 * read (EOWNERDEAD). The kernel may give the dead thread's TID to a new,
 * live thread, which may then take the mutex normally. The bug of class 1: a
 * waiter that found TID T dead but lost its take-over CAS (another waiter
 * took over first) kept the verdict "T is dead" for the rest of its
 * acquisition; once the new thread with TID T held the mutex, the waiter
 * "recovered" it from that live owner: two owners. The fix (issue 11, branch ident, now in fx_rm_step):
 * a liveness verdict is valid only for the exact owner-word value it was
 * made for, and a lost take-over CAS drops it, so the waiter checks again
 * and finds T alive.
 *
 * What is modelled: the owner word (FREE, a TID, ORPHANED), the ghost
 * (TID 4) dead holding the mutex at the start, two waiters (TIDs 1, 2), and
 * the reborn thread that receives TID 4 once the word no longer names the
 * ghost, then locks the mutex once. Each waiter's acquisition is a loop of
 * steps: a relaxed load of the word; if it names an owner, the liveness
 * check, then (dead) the take-over CAS from the value loaded. Sleeping is
 * left out: a waiter that finds a live owner loads again (the futex wait
 * returns when the word changes, or at the recheck; for mutual exclusion
 * only the order of loads, checks and CASes matters). The WAITERS bit, the
 * depth slot and consistent/NOTRECOVERABLE are in models/rmutex.pml; here
 * every owner unlocks to FREE.
 *
 * Assumption: the kernel does not reuse a TID between one waiter's liveness
 * check and its CAS right after it (that needs a full cycle of the PID space
 * within a few microseconds); the reborn thread appears only while no waiter
 * is between the two. Without it, the check-then-CAS of any design that
 * names owners by TID alone has that (ABA) window, which the owner's start
 * time (/proc/T/stat field 22, as issue 11 suggests) narrows further.
 *
 * Property: mutual exclusion (assertion at every acquisition), and every
 * thread finishes (no invalid end state). The mutation rm-verdict-kept (the
 * verdict survives a lost CAS) is caught.
 */
//@mirrors src/rmutex.c fx_rm_step sha256=0540cfcc0b83976f8ce4fe6ec589bf17837bd2dcafb22f58c8641c60e46ce972
//@check safety

#define FREE   0
#define GHOST  4       /* the dead owner's TID, given again to the reborn thread */
#define ORPH   5       /* FX_RMUTEX_ORPHANED */
#define held(o) ((o) >= 1 && (o) <= GHOST)

byte own = GHOST;      /* the owner word: the ghost died holding the mutex */
bool dead[GHOST + 1];  /* dead[t]: TID t names no live thread */
byte cs = 0;           /* live threads in the critical section (observer) */
byte checking = 0;     /* waiters between a liveness check and its CAS (observer) */
byte finished = 0;     /* (observer) */

/* A waiter with TID me: fx_rmutex_lock until it holds the mutex, then
 * unlock (fx_rm_step's load, liveness check and take-over CAS; the verdict
 * is w->dead for the value w->seen). */
proctype waiter(byte me)
{
    byte vo;            /* the word as loaded */
    byte verdict = 0;   /* the owner value found dead, 0: none */
    bool d, got = 0;
    do
    :: got -> break
    :: else ->
        atomic { vo = own };                                 /* [@rmutex.step.load] relaxed load */
        if
        :: vo == FREE || vo == ORPH ->
            atomic {                                         /* [@rmutex.step.take] CAS 0|ORPH -> me */
                if
                :: own == vo -> own = me; got = 1; cs++; assert(cs == 1)
                :: else -> skip
                fi
            }
        :: held(vo) ->
            if
            :: verdict != 0 && verdict == vo -> atomic { d = 1; checking++ } /* the verdict kept */
            :: else -> atomic { d = dead[vo]; checking = checking + d; verdict = (d -> vo : 0) } /* [@rmutex.step.check_due] fxi_tid_dead */
            fi;
            if
            :: d ->
                atomic {                                     /* [@rmutex.step.take_over] CAS vo -> me */
                    checking--;
                    if
                    :: own == vo -> own = me; got = 1; cs++; assert(cs == 1)
                    :: else -> skip
                    fi
                };
                if
                :: !got -> verdict = 0                       /* the lost CAS drops the verdict [M:verdict-drop] */
                :: else -> verdict = 0
                fi
            :: else -> skip                                  /* alive: wait and look again */
            fi;
            d = 0
        fi
    od;
    /* The critical section, then fx_rmutex_unlock (release CAS me -> FREE;
     * nobody else writes a word that names a live owner). */
    atomic { cs--; assert(own == me); own = FREE };
    finished++
}

/* The kernel gives TID 4 to a new thread once the ghost's word was taken
 * over; it locks the mutex once, normally. */
proctype reborn()
{
    atomic { own != GHOST && checking == 0 -> dead[GHOST] = 0 };
    atomic { (own == FREE || own == ORPH) -> own = GHOST; cs++; assert(cs == 1) };
    atomic { cs--; own = FREE };
    finished++
}

init
{
    atomic {
        dead[GHOST] = 1;
        run waiter(1);
        run waiter(2);
        run reborn()
    };
    (finished == 3);
    assert(own == FREE && cs == 0)
}
