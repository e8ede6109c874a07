#!/usr/bin/env bash
# models/mutate.sh - mutation testing of the models: each mutation below
# breaks a model the way a plausible bug would break the C code, and the
# model checks (models/check.sh) must then FAIL with a counterexample. A
# mutation that survives means the checks are too weak to see that bug.
#
# A mutation replaces whole lines of a model: the line holding the tag
# "[M:<tag>]" (in a comment) is replaced by the given text. Every tag must
# occur exactly once; when a model is rewritten, keep the tags on the lines
# that play the same role, or update the mutations here (a tag that no longer
# exists is reported as BROKEN, never silently skipped).
#
# usage: models/mutate.sh [--list] [--full | --long] [-j N] [-k] [name ...]
#   (default: every mutation except the long ones)
#   --full  also the long mutations (long_mutation, long_equivalent): those
#           whose check takes half a minute or more, and the equivalent
#           mutations of models whose
#           checks take minutes (an equivalent mutation must pass every check
#           of its model, so it costs a whole run of them); ctest runs them
#           only in the long mode (models/README.md)
#   --long  only the long mutations
#   -j N    run N mutations at a time (default: FX_SPIN_JOBS, or 1); the
#           checks of one mutation run one after another and stop at the
#           first that fails
#   -k      keep the mutated models and the check logs
# Mutations named on the command line run whether long or not.
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

names=() declare -A MODEL DESC SUBS EXPECT LONG ONLY

# mutation <name> <model> <description> <tag> <replacement> [<tag> <replacement>]...
#   only=REGEX mutation ...: run only the model's checks that match REGEX (as
#   check.sh --only), for a mutation that only those checks can catch (e.g.
#   the death checks, -DDEATHS): the others would only cost time.
# equivalent ...: the same, for a change the checks must accept (SURVIVED).
# long_equivalent ...: an equivalent mutation that runs only with --full.
equivalent() { expect=SURVIVED mutation "$@"; }
long_equivalent() { expect=SURVIVED long=1 mutation "$@"; }
# long_mutation ...: a mutation whose catch takes half a minute or more; it
# runs only with --full/--long (ctest -L long), to keep the CI run short.
long_mutation() { long=1 mutation "$@"; }
mutation() {
    local n=$1
    names+=("$n")
    MODEL[$n]=$2
    DESC[$n]=$3
    EXPECT[$n]=${expect:-CAUGHT}
    LONG[$n]=${long:-0}
    ONLY[$n]=${only:-}
    shift 3
    SUBS[$n]=""
    while [ $# -ge 2 ]; do
        SUBS[$n]+="$1"$'\t'"$2"$'\n'
        shift 2
    done
}

# --- fx_mutex (models/mutex.pml, src/mutex.c) ------------------------------

mutation mark-contended mutex.pml \
    "a waiter sleeps on a LOCKED word without marking it CONTENDED first" \
    mark-contended '        atomic { ok = true; sleep_on = LOCKED; /* MUTANT */'

mutation slept-as-locked mutex.pml \
    "a thread that slept takes a free lock as LOCKED, not CONTENDED" \
    slept-as-contended '        atomic { cas(v, LOCKED, ok); /* MUTANT */'

mutation unlock-no-wake mutex.pml \
    "unlock of a CONTENDED lock releases it without FUTEX_WAKE" \
    unlock-wake '        :: ok && v == CONTENDED -> atomic { resp[me] = false } /* MUTANT */'

mutation unlock-load-store mutex.pml \
    "unlock reads the word, then stores 0 (not one atomic step) and wakes if it read CONTENDED" \
    unlock '    atomic { incs = 0; v = state }; atomic { state = UNLOCKED; ok = true; resp[me] = (v == CONTENDED) }; if :: v == CONTENDED -> futex_wake_one() :: else fi; /* MUTANT */'

mutation unlock-gives-up mutex.pml \
    "unlock whose CAS 1->0 fails (a waiter marked the word CONTENDED) returns without the slow path" \
    unlock '    atomic { incs = 0; v = LOCKED; cas(v, UNLOCKED, ok); if :: !ok -> v = UNLOCKED; ok = true :: else fi }; /* MUTANT */'

mutation unlock-exchange mutex.pml \
    "unlock is an exchange with 0 that ignores the old value (never wakes)" \
    unlock '    atomic { incs = 0; v = state; state = UNLOCKED; ok = true }; /* MUTANT */'

mutation timed-exit-after-wake mutex.pml \
    "a timed waiter woken at its deadline gives up without stepping again (the wake is lost)" \
    timed-exit '        :: r == ETIMEDOUT || (timed && r == OK) -> r = ETIMEDOUT; break /* MUTANT */'

mutation fast-path-not-atomic mutex.pml \
    "the lock fast path tests and then sets the word in two steps" \
    fast-path '    atomic { v = state }; atomic { ok = (v == UNLOCKED); if :: ok -> state = LOCKED :: else fi }; /* MUTANT */'

mutation mutex-kernel-no-compare mutex.pml \
    "FUTEX_WAIT sleeps without comparing the word (a plain sleep/wake pair)" \
    futex-compare '        :: false -> r = EAGAIN /* MUTANT */'

# --- fx_counter (models/counter.pml, src/counter.c) ------------------------

mutation waiter-not-registered counter.pml \
    "the waiter sleeps without counting itself in the waiters slot" \
    R1 '    skip; /* MUTANT: no R1 */' \
    R5 '    skip; /* MUTANT: no R5 */'

mutation writer-checks-early counter.pml \
    "the writer reads waiters before its new value is visible (W2 before W1: a relaxed check)" \
    W1 '    atomic { w = waiters }; /* MUTANT: W2 first */' \
    W2 '    atomic { value++ }; /* MUTANT: then W1 */'

mutation wake-one counter.pml \
    "the writer wakes one waiter instead of all (waiters wait for different values)" \
    wake '    :: w != 0 -> futex_wake_one() /* MUTANT */'

mutation counter-kernel-no-compare counter.pml \
    "FUTEX_WAIT sleeps without comparing the value" \
    futex-compare '        :: false -> r = EAGAIN /* MUTANT */'

# --- fx_cond (models/cond.pml, src/cond.c) ---------------------------------

mutation cond-advance-always cond.pml \
    "signal advances the counter even when no waiter armed it" \
    S2 '       seq = ADV(seq); /* MUTANT */'

mutation cond-no-recheck cond.pml \
    "after EINTR/EAGAIN/timeout the waiter sleeps again without comparing the counter" \
    recheck '          :: false -> break /* MUTANT */'

only=DEATHS mutation cond-unbounded-sleep cond.pml \
    "the sleeps on the cond word and the mutex word have no recheck: a Signaller killed between its advance and its wake, or after an unlock's wake picked it, strands a waiter whose wait was released (issue 11, class 7)" \
    recheck-seq '          :: false -> skip /* MUTANT */' \
    recheck-mutex '    :: false -> skip /* MUTANT */'

long_mutation cond-relock-locked cond.pml \
    "a possibly requeued waiter takes the mutex as LOCKED" \
    relock '    :: flagged -> mutex_lock() /* MUTANT */'

long_mutation cond-bcast-no-flag cond.pml \
    "broadcast does not set BCAST before requeueing" \
    B2 '          if :: (!adv && (seq & A)) -> seq = ADV(seq) :: else -> skip fi; /* MUTANT */'

long_mutation cond-bcast-retry-advances cond.pml \
    "a broadcast retry advances the counter again" \
    B2 '          if :: (seq & A) -> seq = ADV(seq) | B :: else -> seq = seq | B fi; /* MUTANT */'

long_mutation cond-bcast-wakes-none cond.pml \
    "broadcast parks every sleeper and wakes none" \
    B3 '          :: seq == ns -> futex_move_all(QSEQ, QPARK); r = 0 /* MUTANT */'

long_mutation cond-no-drive cond.pml \
    "the woken waiter does not move the parked ones on" \
    drive '    :: flagged -> skip /* MUTANT */'

long_mutation cond-bcast-gives-up cond.pml \
    "broadcast gives up when the requeue compare fails" \
    retry '       break /* MUTANT */'

long_mutation cond-requeue-no-compare cond.pml \
    "broadcast requeues whatever seq holds" \
    B3 '          :: true -> futex_wake1(QSEQ); futex_move_all(QSEQ, QPARK); r = 0 /* MUTANT */'

# --- fx_sem (models/sem.pml, src/sem.c) -----------------------------------

mutation sem-post-no-wake sem.pml \
    "post adds the token but never wakes a waiter" \
    P2 '        :: waiters != 0 -> skip /* MUTANT */'

mutation sem-post-checks-early sem.pml \
    "post reads the waiter count (P2) before adding the token (P1)" \
    P1 '        if :: waiters != 0 -> futex_wake_one() :: else -> skip fi; atomic { value++; posted++ }; /* MUTANT */' \
    P2 '        :: false -> skip /* MUTANT */'

# --- fx_rwlock (models/rwlock.pml, src/rwlock.c) ---------------------------

mutation rwlock-fast-path-ignores-writer rwlock.pml \
    "the reader fast path keeps its increment while a writer holds the lock" \
    fast-check '            :: (s & ~(RMASK | WL)) == 0 -> st = s + 1; nr++; assert(!nw); wants[me] = 0; HOLDS(1); act = ENTER /* MUTANT */'

only=ENGINE mutation rwlock-writer-unwatched rwlock.pml \
    "a waiting writer does not name the state word to the engine (rc.watch): a reader killed between the CAS that frees the lock and its writer_seq += 1 leaves the writer asleep for ever" \
    writer-watch '        :: r == SLEEPING -> futex_leave(qseq[w], seqchg[w]) /* MUTANT */'

only=DEATHS mutation rwlock-fast-add-undo rwlock.pml \
    "the reader fast path adds itself with a fetch_add and takes it back when it may not enter (main before issue 19): a reader killed between the two is a phantom reader every later writer waits for" \
    fast-fail '            :: else -> st = s + 1; act = DONE /* MUTANT: the fetch_add keeps its increment */' \
    fast-undo '        :: else -> reader_release(); s = 0 /* MUTANT: the undo */'

mutation rwlock-no-rearm-ww rwlock.pml \
    "a writer that has slept acquires without setting WW again for the writers still asleep" \
    slept '                    slept = 0 /* MUTANT */'

mutation rwlock-no-recheck rwlock.pml \
    "a writer sleeps on writer_seq without re-reading the state after loading it" \
    recheck '        :: false -> skip /* MUTANT */'

mutation rwlock-readers-left-asleep rwlock.pml \
    "a writer wake that found no writer asleep is not handed on to the readers" \
    hand-to-readers '           :: else -> break /* MUTANT */'

mutation rwlock-give-up-no-wake rwlock.pml \
    "a writer that times out drops WP and WW without waking the readers they kept out" \
    give-up-wake '        :: act == WAKE_R -> skip /* MUTANT */'

only=SCENARIO_GIVEUP mutation rwlock-give-up-keeps-ww rwlock.pml \
    "a writer that times out takes back WP only (main before the fix): its WW keeps new readers out while readers hold the lock (issue 11, class 6)" \
    give-up-bits '    atomic { s = st & ~WW; st = st & ~WP }; /* MUTANT */'

only=SCENARIO_GIVEUP mutation rwlock-give-up-keeps-wp rwlock.pml \
    "a writer that times out takes back WW only: its WP keeps new readers out (issue 11, class 6)" \
    give-up-bits '    atomic { s = st & ~WP; st = st & ~WW }; /* MUTANT */'

only=DEATHS mutation rwlock-unbounded-sleep rwlock.pml \
    "the sleeps of readers and writers have no recheck (fxi_futex_wait_raw until a wake): a process killed after a wake picked it, or before its wakes, strands the sleepers (issue 11, class 7)" \
    recheck-bound '    :: false -> skip /* MUTANT */'

only=DEATHS mutation rwlock-no-stale-clear rwlock.pml \
    "readers never take a stale writer intent away: a writer killed while it waits keeps WP/WW set and readers out for good (issue 11, class 8)" \
    stale '            :: false -> /* MUTANT */'

# --- TID reuse (models/once_tid.pml, src/once.c) ---------------------------

mutation once-verdict-kept once_tid.pml \
    "a waiter keeps its verdict 'TID t is dead' after losing the take-over CAS; t comes back running the initialiser and the waiter takes the word over from it: two initialisers (issue 11, class 1)" \
    verdict-drop '            :: !mine -> skip /* MUTANT */'

mutation once-unknown-is-dead once_tid.pml \
    "the probe's 'unknown' (a live initialiser it cannot see: hidepid, no /proc, another PID namespace) is taken for 'dead': a waiter runs the initialiser while it runs (issue 18)" \
    unknown '                :: atomic { !unk && st == vs && tid == vt && !DEAD(vt) -> unk = 1; d = 1; checking++; verdict = vt + 1 } /* MUTANT */'

mutation once-tid-deadlk once_tid.pml \
    "the recursion check compares the TID alone, without the thread's record: a new thread with the dead initialiser's TID is told EDEADLK (issue 11, class 5)" \
    self '            atomic { assert(false) } /* MUTANT */'

mutation once-self-waits once_tid.pml \
    "a caller that finds its own TID in the word without the record waits as for a live owner: the new thread with the dead initialiser's TID waits for itself, and its TID keeps the other waiters waiting" \
    self '            atomic { (st != vs || tid != vt) || DEAD(vt) -> d = (st == vs && tid == vt); checking = checking + d } /* MUTANT */'

mutation rwlock-intent-never-stale rwlock_intent.pml \
    "readers never take a gone writer's WP/WW away: a writer killed while it waits closes the lock to new readers for good (issue 11, class 8)" \
    intent-stale '                atomic { skip }; /* MUTANT */'

# --- fx_barrier (models/barrier.pml, src/barrier.c) ------------------------

mutation barrier-no-sleepers-bit barrier.pml \
    "a waiter sleeps without setting the sleepers bit" \
    sleepers '                :: (s & SB) == 0 -> skip /* MUTANT */'

mutation barrier-no-wake barrier.pml \
    "the last arrival opens the next round without waking the sleepers" \
    wake '            :: false -> /* MUTANT */'

mutation barrier-withdraw-any-round barrier.pml \
    "a timed-out waiter withdraws without checking that its round is still open" \
    withdraw-check '            :: false -> skip /* MUTANT */'

only=DEATHS mutation mutex-no-recheck mutex.pml \
    "sleeps are unbounded again (fxi_futex_wait_raw, no recheck): a process killed between the unlock's CAS 2->0 and its FUTEX_WAKE, or after the wake picked it, strands a sleeper of a free lock (issue 11, class 7)" \
    recheck '        :: atomic { false -> skip } /* MUTANT */'

only=DEATHS mutation sem-no-recheck sem.pml \
    "sleeps are unbounded again (fxi_futex_wait_raw, no recheck): a poster killed between P1 and P2, or a waiter killed after P2's wake picked it, leaves a token there and a waiter asleep for ever (issue 11, class 7)" \
    recheck '        :: atomic { false -> skip } /* MUTANT */'

only=DEATHS mutation counter-no-recheck counter.pml \
    "sleeps are unbounded again (fxi_futex_wait_raw, no recheck): a writer killed between its W1 and its wake leaves the waiters asleep although the counter reached their target (issue 11, class 7)" \
    recheck '        :: atomic { false -> skip } /* MUTANT */'

only=DEATHS mutation barrier-no-recheck barrier.pml \
    "sleeps are unbounded again (fxi_futex_wait_raw, no recheck): the last arrival killed between the CAS that opens the next round and its FUTEX_WAKE leaves the others asleep in a round that has ended (issue 11, class 7)" \
    recheck '            :: atomic { false -> skip } /* MUTANT */'

# --- fx_rmutex (models/rmutex.pml, src/rmutex.c) ---------------------------

mutation rm-unlock-no-wake rmutex.pml \
    "rmutex_release frees a word that has W set without FUTEX_WAKE" \
    unlock-wake '        :: !notrec && oldW -> skip /* MUTANT */' \
    ghost-wake '       :: oldW -> skip /* MUTANT */'

mutation rm-recover-no-wake rmutex.pml \
    "fx_rmutex_recover makes a word with W set ORPHANED without waking a sleeper" \
    recover-wake '            :: ok && vw -> break /* MUTANT */'

mutation rm-notrec-wake-if-w rmutex.pml \
    "the release to NOTRECOVERABLE wakes all only if W is set (the first design: a woken thread leaving with ENOTRECOVERABLE took W's duty with it)" \
    notrec-wake '        :: notrec && oldW -> wake_all() /* MUTANT */'

mutation rm-trylock-drops-w rmutex.pml \
    "a non-waiting attempt (trylock) that takes over from a dead owner drops the W it read (CAS to self|keep, not self|(v & W)|keep)" \
    try-keep-w '                own = me; W = slept; res = R_DEAD /* MUTANT */'

mutation rm-slept-takes-free-bare rmutex.pml \
    "a thread that has slept takes FREE as its bare TID (no keep): the sleepers behind it are forgotten" \
    free-keep '            own = me; W = false; res = R_OK /* MUTANT */'

mutation rm-recheck-no-liveness rmutex.pml \
    "a waiter whose re-check is due takes the word over without asking fxi_tid_dead (the owner may be alive)" \
    due-dead '        :: held(vo) && !nowait && due -> /* MUTANT */' \
    due-alive '        :: held(vo) && !nowait && !due -> /* MUTANT */'

mutation rm-woken-sleeps-on-orph rmutex.pml \
    "a waiter that has slept and finds ORPHANED marks W and sleeps on it again instead of taking it (as if ORPHANED named a live owner)" \
    orph '        :: vo == ORPH && slept && !nowait -> W = true; vw = true; res = R_BUSY /* MUTANT */ :: vo == ORPH && !(slept && !nowait) ->'

mutation rm-unknown-is-dead rmutex.pml \
    "the probe's 'unknown' (a live owner it cannot see: hidepid, no /proc, another PID namespace) is taken for 'dead': a waiter takes the mutex over from a live owner (issue 18)" \
    unknown-now '            :: !dead[vo] -> own = me; W = (vw || slept); res = R_DEAD /* MUTANT */' \
    unknown-due '        :: held(vo) && !nowait && due && !dead[vo] -> own = me; W = (vw || slept); res = R_DEAD /* MUTANT */'

mutation rm-no-recheck-timer rmutex.pml \
    "the waiter sleeps with no liveness re-check timeout (only the caller's deadline): a dead owner is never noticed" \
    recheck-timer '    :: atomic { false -> /* MUTANT */'

mutation rm-recover-blind-store rmutex.pml \
    "fx_rmutex_recover checks the TID it loaded, then stores ORPHANED unconditionally (not a CAS from that value): it can undo a waiter's takeover" \
    cas-compare '        :: true -> own = no; W = nw; ok = true /* MUTANT */'

only=KERNEL mutation rm-kernel-no-wake rmutex.pml \
    "the kernel's robust-list walk marks a dead owner's word ORPHANED but wakes no sleeper (handle_futex_death without its futex_wake)" \
    kernel-wake '            :: W -> skip /* MUTANT */'

only=TIDREUSE mutation rm-verdict-kept rmutex.pml \
    "a waiter keeps its verdict 'TID T is dead' after losing the take-over CAS; T comes back as a live owner and the waiter recovers the mutex from it (issue 11, class 1)" \
    verdict-drop '             :: else -> judge = vo; kept = vo /* MUTANT */'

only=TIDREUSE mutation rm-tid-self-waits rmutex.pml \
    "a thread that finds its own TID in the word without a record of the acquisition checks that TID's liveness (its own: alive) and waits: the new thread with a dead owner's TID waits for itself, and the others behind it" \
    tid-self '            :: vo == me -> d = dead[vo] /* MUTANT */'

# --- fx_cond with fx_rmutex waiters (models/cond_rmutex.pml, src/cond.c) ----

mutation cond-rm-no-drive cond_rmutex.pml \
    "W7 omitted for rmutex waiters: a waiter parked by a broadcast is never woken" \
    rm-drive '    :: flagged -> skip /* MUTANT */'

mutation cond-rm-requeue-owner cond_rmutex.pml \
    "W7 requeues the parked rmutex waiters onto the owner word: they sleep there without the liveness re-check" \
    rm-drive '    :: flagged -> atomic { futex_move_all(QPARK, QOWN) } /* MUTANT */'

mutation cond-rm-requeue-keep-w cond_rmutex.pml \
    "the requeue onto the owner word, with W6 keeping W from its first step: no lost wake-up, but a requeued waiter never notices its owner's death" \
    rm-drive '    :: flagged -> atomic { futex_move_all(QPARK, QOWN) } /* MUTANT */' \
    rm-relock '    slept = 1; due = 0; do :: rm_step(saved); if :: r == R_BUSY -> rm_futex_wait() :: else -> break fi od; slept = 0; /* MUTANT */'

mutation cond-rm-slept-lost cond_rmutex.pml \
    "W6 starts a fresh rmutex waiter state at every step: after sleeping on the owner word it takes it without W" \
    rm-relock '    slept = 0; due = 0; do :: rm_step(saved); if :: r == R_BUSY -> slept = 0; rm_futex_wait() :: else -> break fi od; /* MUTANT */'

mutation cond-rm-depth-1 cond_rmutex.pml \
    "W6 gives the rmutex back at depth 1 instead of the saved depth" \
    rm-relock '    rm_acquire(1); /* MUTANT */'

mutation cond-rm-eownerdead-0 cond_rmutex.pml \
    "the wait reports 0 (or ETIMEDOUT) when W6 acquired with EOWNERDEAD" \
    rm-ret '    :: r != R_OK && r != R_DEAD -> ret = r /* MUTANT */'

mutation cond-rm-no-recheck cond_rmutex.pml \
    "the rmutex's sleeps on the owner word are unbounded: no liveness re-check, a dead owner is never noticed" \
    rm-recheck '    :: atomic { false -> /* MUTANT */'

only=DEATHS=1 mutation cond-rm-unbounded-sleep cond_rmutex.pml \
    "the sleeps on the cond word and on the owner word are unbounded (the liveness re-check of a dead owner kept): a Notifier killed between its advance and its wake, between its release's CAS and its wake, or after a release's wake picked it, strands a waiter whose wait or acquisition could go on (issue 11, class 7)" \
    rm-recheck-seq '          :: false -> skip /* MUTANT */' \
    rm-bounded '    :: atomic { false -> /* MUTANT */'

only=DEATHS=2 long_mutation cond-rm-unbounded-sleep-waiter cond_rmutex.pml \
    "the same unbounded sleeps, with Waiter0 killed at any step: a waiter killed after a signal's wake, or a release's wake, picked it strands the other waiter (issue 11, class 7)" \
    rm-recheck-seq '          :: false -> skip /* MUTANT */' \
    rm-bounded '    :: atomic { false -> /* MUTANT */'

long_equivalent cond-rm-relock-keeps-w cond_rmutex.pml \
    "W6 keeps W from its first step (fxi_rmutex_reacquire): correct, only a needless FUTEX_WAKE at the next unlock (tests/test_cond.c measures that cost)" \
    rm-relock '    slept = 1; due = 0; do :: rm_step(saved); if :: r == R_BUSY -> rm_futex_wait() :: else -> break fi od; slept = 0; /* MUTANT */'

# --- the waiting engine (models/engine.pml, src/sleep.c) --------------------

mutation engine-pass-no-tell engine.pml \
    "pass_role makes the first listed sleeper the prober without moving or waking its tell word: asleep, it never learns that it holds the role, and nobody looks again" \
    pass-tell '    :: nlisted > 0 -> n = e[0]; list_unlink(n); st[n] = PROBER; n = 0 /* MUTANT: neither moved nor woken */'

mutation engine-tell-no-move engine.pml \
    "tell() wakes the sleeper without moving its tell word: one told on its way to futex_waitv, after its link, sleeps on (as the prober, or with its owner dead)" \
    tell-move '    skip; /* MUTANT: the tell word not moved */'

mutation engine-tell-no-wake engine.pml \
    "tell() moves the tell word without waking the sleeper: one already asleep in futex_waitv is never told" \
    tell-wake '    skip /* MUTANT: no FUTEX_WAKE of the tell word */'

mutation engine-look-no-values engine.pml \
    "the look checks only the owners (the old prober's look): a listed sleeper whose word changed without a wake is never told" \
    look-values '        :: WORD(e[i]) != ex[e[i]] -> i++ /* MUTANT: a changed word is not told */'

mutation engine-look-owned-by-owner engine.pml \
    "the value check is dropped in favour of the owner check for the words that name an owner: a PROBED owner that released its word and was killed before its wake leaves its sleeper asleep" \
    look-values '        :: e[i] != 2 && WORD(e[i]) != ex[e[i]] -> n = e[i]; tell(n, TOLD) /* MUTANT: owned words judged by their owner only */'

mutation engine-look-no-owners engine.pml \
    "the look checks only the values: a listed sleeper whose PROBED owner died (its word unchanged) is never told" \
    look-owners '    :: false -> /* MUTANT: no owner probed */'

only='ltl' mutation engine-look-own-unprobed engine.pml \
    "the prober never probes the owner named in its own word: a prober whose PROBED owner died sleeps on for good" \
    look-own '        :: id -> skip /* MUTANT: the own owner not probed */'

mutation engine-deadline-skips-look engine.pml \
    "a prober whose deadline fell on the tick takes the tick (next_look moved on) and returns ETIMEDOUT without the look (the old repair-bound defect): the look of that tick is made by nobody" \
    due '           :: due && nowexp -> due = 0; lookit = 0 /* MUTANT: the tick taken, its look skipped */ :: due && !nowexp -> due = 0; looking = 1; lookit = 1; look_values()'

mutation engine-told-prober-no-pass engine.pml \
    "a listed sleeper told PROBER whose own sleep ended (its word changed, its deadline) returns without passing the role on: the role is held by nobody" \
    listed-leave '            :: else -> if :: st[me] == LISTED -> list_unlink(me) :: else -> skip fi; st[me] = OUT; returns() /* MUTANT: a told prober leaves without pass_role */'

only=CANCEL mutation engine-cancel-keeps-role engine.pml \
    "the cleanup of a call cancelled in its sleep takes a listed sleeper's entry away but never passes the prober's role on: a prober cancelled in its bounded sleep leaves the role held by nobody" \
    cancel-leave '    atomic { asleep[me] = 0; if :: st[me] == LISTED -> list_unlink(me) :: else -> skip fi; st[me] = OUT; check_inv() }; /* MUTANT */'

# --- equivalent mutations: changes the checks must ACCEPT -------------------
# Each documents a freedom of the design, found with the model; the run fails
# if such a mutation is caught (then the comment in the source is right and
# this claim is wrong).

long_equivalent waiter-registers-late counter.pml \
    "the waiter reads the value (R2) before registering (R1): harmless, because it sleeps on the value it read and FUTEX_WAIT compares it (EAGAIN if a writer changed it); R1 need only be visible before that compare" \
    R1 '    atomic { v = value }; /* MUTANT: R2 first */' \
    R2 '    atomic { waiters++ }; /* MUTANT: then R1 */'

long_equivalent cond-clear-b-early cond.pml \
    "W8 runs with the mutex held, nobody can register meanwhile" \
    bclear '       :: (s & B) -> /* MUTANT */'

long_equivalent cond-arm-before-count cond.pml \
    "W1 runs under the mutex" \
    W1a '    atomic { seq = seq | A; v = seq }; /* MUTANT */' \
    W1b '    nw++; /* MUTANT */'

long_equivalent engine-deadline-first engine.pml \
    "a prober whose deadline has passed returns ETIMEDOUT before the look that is due, leaving the tick due: harmless, because next_look is the process's and the role's next holder looks at once" \
    due '           :: due && !nowexp -> due = 0; looking = 1; lookit = 1; look_values() /* MUTANT: the deadline first, the tick left due */'

# ---------------------------------------------------------------------------

keep=0 full=0 jobs=${FX_SPIN_JOBS:-1} selected=()
while [ $# -gt 0 ]; do
    a=$1
    case "$a" in
    --list)
        for n in "${names[@]}"; do
            kind=${EXPECT[$n]}
            [ "${LONG[$n]}" = 0 ] || kind="$kind,long"
            printf '%-26s %-12s %-14s %s\n' "$n" "${MODEL[$n]}" "$kind" "${DESC[$n]}"
        done
        exit 0 ;;
    --full) full=1 ;;
    --long) full=2 ;;
    -j) jobs=$2; shift ;;
    -j[0-9]*) jobs=${a#-j} ;;
    -k) keep=1 ;;
    -*) echo "mutate.sh: unknown option $a" >&2; exit 2 ;;
    *) [ -n "${MODEL[$a]+x}" ] || { echo "mutate.sh: no mutation $a" >&2; exit 2; }
       selected+=("$a") ;;
    esac
    shift
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "mutate.sh: bad job count '$jobs'" >&2; exit 2; }
skipped=()
if [ ${#selected[@]} -eq 0 ]; then
    for n in "${names[@]}"; do
        if [ "${LONG[$n]}" = 1 ] && [ $full -eq 0 ]; then
            skipped+=("$n")
        elif [ "${LONG[$n]}" = 1 ] || [ $full -ne 2 ]; then
            selected+=("$n")
        fi
    done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fxmutate.XXXXXX")

# One mutation, in $work/<name>: writes its table row to $work/<name>/row.
run_mutation() {
    local n=$1 model=${MODEL[$1]} base dir status="" tag repl count t0 t1 secs by="-"
    base=${model%.pml}
    dir="$work/$n"
    mkdir -p "$dir"
    cp "$here/$model" "$dir/$model"
    while IFS=$'\t' read -r tag repl; do
        [ -n "$tag" ] || continue
        count=$(grep -cF "[M:$tag]" "$dir/$model")
        if [ "$count" -ne 1 ]; then
            status="BROKEN (tag [M:$tag] found $count times in $model)"
            break
        fi
        awk -v tag="[M:$tag]" -v repl="$repl" 'index($0, tag) { print repl; next } { print }' \
            "$dir/$model" >"$dir/$model.new" && mv "$dir/$model.new" "$dir/$model"
    done <<<"${SUBS[$n]}"
    t0=$(date +%s.%N)
    local onlyarg=()
    # A mutation aimed at named checks runs them even when they are long:
    # the mutant fails fast, the restriction keeps the rest out.
    [ -z "${ONLY[$n]}" ] || onlyarg=(--only "${ONLY[$n]}" --long)
    if [ -z "$status" ]; then
        TMPDIR="$dir" FX_SPIN_JOBS=1 "$here/check.sh" --quiet --no-source-check --stop-on-fail \
            "${onlyarg[@]}" --tsv "$dir/result.tsv" "$dir/$model" >"$dir/check.log" 2>&1
        # Caught: some check found a violation (not a build error, not a
        # check that is meant to fail anyway).
        by=$(awk -F'\t' '$3 == "FAIL" { print $2; exit }' "$dir/result.tsv")
        if [ -n "$by" ]; then
            status=CAUGHT
        elif awk -F'\t' '$3 == "ERROR" || $3 == "INCOMPLETE" { f = 1 } END { exit !f }' "$dir/result.tsv"; then
            status="BROKEN (see $dir/check.log)"
            by="-"
        else
            status=SURVIVED
            by="-"
        fi
    fi
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
    printf '%s\t%s\t%s\t%s\t%s\n' "$status" "$base" "$by" "$secs" "${EXPECT[$n]}" >"$dir/row"
}

for n in "${selected[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n
    done
    run_mutation "$n" &
done
wait

rows=() caught=0 bad=0
for n in "${selected[@]}"; do
    IFS=$'\t' read -r status base by secs expect <"$work/$n/row"
    if [ "$status" = "$expect" ]; then
        [ "$status" != CAUGHT ] || caught=$((caught + 1))
    else
        bad=$((bad + 1))
        keep=1
        echo "$n: $status, expected $expect"
    fi
    rows+=("$(printf '%-26s %-8s %-9s %-9s %-40s %6s' "$n" "$base" "$expect" "${status%% *}" "$by" "$secs")")
done

printf '%-26s %-8s %-9s %-9s %-40s %6s\n' mutation model expected result "caught by" "time(s)"
printf '%s\n' "${rows[@]}"
nexp=0
for n in "${selected[@]}"; do [ "${EXPECT[$n]}" != CAUGHT ] || nexp=$((nexp + 1)); done
echo "$caught of $nexp mutations caught; $((${#selected[@]} - nexp)) equivalent mutation(s) checked; $bad unexpected result(s)"
[ ${#skipped[@]} -eq 0 ] ||
    echo "not run (long; models/mutate.sh --full): ${skipped[*]}"
if [ $keep -eq 1 ]; then
    echo "mutated models and logs: $work"
else
    rm -rf "$work"
fi
[ $bad -eq 0 ]
