#!/usr/bin/env bash
# tests/genmc/mutate.sh - memory-order mutations of the real C code: each
# mutation below weakens ONE memory order on a handshake path of src/ to the
# next weaker one (seq_cst -> acq_rel for a read-modify-write, -> acquire
# for a load, -> release for a store; acq_rel -> acquire or release;
# acquire, release -> relaxed), and the GenMC checks of tests/genmc/ that
# cover that path must then FAIL. A mutation that survives means either the
# order is stronger than needed (then the code says why the weaker order is
# enough, and uses it) or the checks are too weak to see the bug; the table
# of docs/verification.md records which.
#
# A mutation names the line by an anchor: a fixed string that occurs exactly
# once in the file (a "@step" comment, or the statement's own text); the
# first line from there on holding the order is changed (the success order
# of a CAS, which comes first). An anchor that is missing or doubled is
# reported BROKEN, never skipped.
#
# A `textual` mutation (below) is no order: a step of the protocol left out
# or changed (one take-over wins, a release wakes the sleepers, the kernel's
# mark wakes one). FILE may also be tests/genmc/model.h, the model of the
# kernel: each mutation runs on a copy of src/, include/ and tests/genmc/.
#
# usage: tests/genmc/mutate.sh [--list] [-j N] [-k] [name-regex]
#   -j N  checks of one mutation at a time (default 2); -k keep the trees
# Exit 0: every mutation as expected; 1: one survived or broke; 77: no GenMC.
set -u -o pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

names=()
declare -A FILE ANCHOR FROM TO ONLY EXPECT
# mutation NAME FILE ANCHOR FROM TO CHECKS-REGEX
mutation() {
    names+=("$1")
    FILE[$1]=$2 ANCHOR[$1]=$3 FROM[$1]=$4 TO[$1]=$5 ONLY[$1]=$6
    EXPECT[$1]=${expect:-CAUGHT}
}
# survives NAME ...: a weakening the checks accept; kept in the table, with
# the reason in docs/verification.md (not yet applied to the code).
survives() { expect=SURVIVED mutation "$@"; }
# textual NAME FILE ANCHOR FROM TO CHECKS: not an order but a statement:
# the fixed text FROM, on the first line from the anchor holding it, becomes
# TO (a step of the protocol left out).
declare -A TEXT
textual() { mutation "$@"; TEXT[$1]=1; }

# --- fx_mutex (src/mutex.c) --------------------------------------------------
mutation mutex-fast-acquire       src/mutex.c '@step mutex.acquire.fast */'          ACQUIRE RELAXED '^mutex_2/rc11$'
mutation mutex-spun-acquire       src/mutex.c '@step mutex.lock_contended.cas */'    ACQUIRE RELAXED '^mutex_2/rc11$'
mutation mutex-slept-acquire      src/mutex.c '@step mutex.acquire_step.take */'     ACQUIRE RELAXED '^mutex_2/rc11$'
mutation mutex-trylock-acquire    src/mutex.c '@step mutex.trylock.cas */'           ACQUIRE RELAXED '^mutex_try/rc11$'
mutation mutex-unlock-release     src/mutex.c '@step mutex.unlock.cas */'            RELEASE RELAXED '^mutex_2/rc11$'
mutation mutex-unlock-slow-release src/mutex.c '@step mutex.unlock_slow.cas */'      RELEASE RELAXED '^mutex_2/rc11$'

# --- fx_sem (src/sem.c, src/internal/waiters.h) --------------------------------
mutation sem-post-add-sc          src/sem.c   '@step sem.post.add */'               SEQ_CST ACQ_REL '^sem_1p1w/rc11$'
mutation sem-post-waiters-sc      src/sem.c   '@step sem.post.wake */'              SEQ_CST ACQUIRE '^sem_1p1w/rc11$'
mutation sem-post-waiters-relaxed src/sem.c   '@step sem.post.wake */'              SEQ_CST RELAXED '^sem_1p1w/rc11$'
mutation sem-take-acquire         src/sem.c   'static inline int sem_take(fx_sem *s)'    ACQUIRE RELAXED '^sem_1p1w/rc11$'
mutation sem-slow-take-acquire    src/sem.c   '@step sem.wait_slow.take */'         ACQUIRE RELAXED '^sem_1p1w/rc11$'

# --- fx_rwlock (src/rwlock.c) ------------------------------------------------
mutation rw-rd-fast-acquire       src/rwlock.c '@step rwlock.rdlock.cas */'          ACQUIRE RELAXED '^rwlock_1r1w/rc11$'
mutation rw-rd-slow-acquire       src/rwlock.c '@step rwlock.rdlock_slow.enter */'   ACQUIRE RELAXED '^rwlock_1r1w/rc11$'
mutation rw-wr-fast-acquire       src/rwlock.c '@step rwlock.wracquire.fast */'      ACQUIRE RELAXED '^rwlock_(1r1w|2w)/rc11$'
mutation rw-wr-slow-acquire       src/rwlock.c '@step rwlock.wrlock_slow.take */'    ACQUIRE RELAXED '^rwlock_(1r1w|2w)/rc11$'
mutation rw-unlock-release        src/rwlock.c 'if (cas_state(l, &e, 0, __ATOMIC_RELEASE))' RELEASE RELAXED '^rwlock_(1r1w|2w)/rc11$'
mutation rw-rd-release-more       src/rwlock.c '@step rwlock.reader_release.sub */'  RELEASE RELAXED '^rwlock_1r1w/rc11$'
mutation rw-wr-release-more       src/rwlock.c '@step rwlock.writer_release.sub */'  RELEASE RELAXED '^rwlock_(1r1w|2w)/rc11$'
mutation rw-wake-writer-seq       src/rwlock.c '@step rwlock.wake_writer.seq */'     RELEASE RELAXED '^rwlock_(1r1w|2w)/rc11$'
mutation rw-wr-seq-acquire        src/rwlock.c '@step rwlock.wrlock_slow.seq */'     ACQUIRE RELAXED '^rwlock_(1r1w|2w)/rc11$'
mutation rw-rdunlock-release       src/rwlock.c '@step rwlock.rdunlock.sub */'        RELEASE RELAXED '^rwlock_split/rc11$'
mutation rw-wrunlock-release       src/rwlock.c '@step rwlock.wrunlock.cas */'        RELEASE RELAXED '^rwlock_split/rc11$'
# The timed locks that time out (rwlock_timed_rd, _wr): the reader's slow
# acquire after a sleep that could have timed out, and a writer's give-up
# that keeps its intent (WP, WW left set: the next readers kept out).
mutation rw-rd-timed-acquire      src/rwlock.c '@step rwlock.rdlock_slow.enter */'   ACQUIRE RELAXED '^rwlock_timed_rd/rc11$'
textual rw-giveup-keeps-intent src/rwlock.c '@step rwlock.writer_give_up.clear_wp */' \
    '(int32_t)~(WP | WW)' '(int32_t)~0u' '^rwlock_timed_wr/rc11$'

# --- fx_cond (src/cond.c) ----------------------------------------------------
mutation cond-W1-sc               src/cond.c  '@step cond.wait_core.W1 */'          SEQ_CST ACQ_REL '^cond_bind/rc11$'
mutation cond-bind-load-sc         src/cond.c  'int32_t t = __atomic_load_n(&c->mutex' SEQ_CST ACQUIRE '^cond_bind/rc11$'
mutation cond-bind-xchg-sc         src/cond.c  't = __atomic_exchange_n(&c->mutex'  SEQ_CST ACQ_REL '^cond_bind/rc11$'
mutation cond-bind-count-sc        src/cond.c  'if (!first || __atomic_load_n'    SEQ_CST ACQUIRE '^cond_bind/rc11$'
mutation cond-W2-arm-release       src/cond.c  '@step cond.wait_core.W2 */'          RELEASE RELAXED '^cond_depart/rc11$'
mutation cond-W8-load-acquire      src/cond.c  '@step cond.depart.load */'           ACQUIRE RELAXED '^cond_depart/rc11$'

# --- fx_counter (src/counter.c, src/internal/counter_wait.h) --------------------
mutation counter-W1-add-sc        src/counter.c '@step counter.add.W1 */'           SEQ_CST ACQ_REL '^counter_(1w2a|2w1a)/rc11$'
mutation counter-W2-waiters-sc    src/counter.c '@step counter.wake_waiters.W2 */'  SEQ_CST ACQUIRE '^counter_(1w2a|2w1a)/rc11$'
mutation counter-R2-look-acquire  src/internal/counter_wait.h '@step counter.waiter_look.load */' ACQUIRE RELAXED '^counter_(1w2a|2w1a)/rc11$'
mutation counter-fast-acquire     src/counter.c '@step counter.wait.fast_load */'   ACQUIRE RELAXED '^counter_(1w2a|2w1a)/rc11$'
mutation counter-load-acquire     src/counter.c '@step counter.load.acquire */'     ACQUIRE RELAXED '^counter_(load|store)/rc11$'
mutation counter-store-sc         src/counter.c '@step counter.store.W1 */'         SEQ_CST RELEASE '^counter_store/rc11$'

# --- fx_barrier (src/barrier.c) ----------------------------------------------
mutation barrier-last-to-acquire  src/barrier.c '(s & ROUND) + ROUND_1, __ATOMIC_ACQ_REL' ACQ_REL ACQUIRE '^barrier_2x2/rc11$'
mutation barrier-last-to-release  src/barrier.c '(s & ROUND) + ROUND_1, __ATOMIC_ACQ_REL' ACQ_REL RELEASE '^barrier_2x2/rc11$'
mutation barrier-arrive-release    src/barrier.c '@step barrier.arrive.cas */'      RELEASE RELAXED '^barrier_2x2/rc11$'
mutation barrier-look-acquire     src/barrier.c '@step barrier.wait_round.look */'  ACQUIRE RELAXED '^barrier_2x2/rc11$'
mutation barrier-spin-acquire     src/barrier.c '@step barrier.wait_round.spin */'  ACQUIRE RELAXED '^barrier_spin/rc11$'

# --- fx_rmutex (src/rmutex.c) ------------------------------------------------
mutation rmutex-fast-acquire      src/rmutex.c '@step rmutex.lock.fast */'           ACQUIRE RELAXED '^rmutex_2/rc11$'
mutation rmutex-spun-acquire      src/rmutex.c '@step rmutex.lock_contended.cas */'  ACQUIRE RELAXED '^rmutex_2/rc11$'
mutation rmutex-slept-acquire     src/rmutex.c '@step rmutex.step.take */'           ACQUIRE RELAXED '^rmutex_2/rc11$'
mutation rmutex-unlock-release    src/rmutex.c '@step rmutex.unlock.fast */'         RELEASE RELAXED '^rmutex_2/rc11$'
mutation rmutex-unlock-slow-release src/rmutex.c '@step rmutex.release.cas */'       RELEASE RELAXED '^rmutex_2/rc11$'

# --- fx_once (src/once.c) ----------------------------------------------------
mutation once-finish-release      src/once.c  'int32_t old = __atomic_exchange_n(&o->state, to,' RELEASE RELAXED '^once_2/rc11$'
mutation once-fast-acquire        src/once.c  'if (__atomic_load_n(&o->state, __ATOMIC_ACQUIRE) == DONE &&' ACQUIRE RELAXED '^once_2/rc11$'
# The slow path's looks and the failure orders of its CASes are relaxed; one
# acquire re-read where DONE is seen orders them all (no failure order is
# relied on: GenMC reads a CAS with its success order).
mutation once-done-acquire        src/once.c  '@step once.slow.done_acquire */'    ACQUIRE RELAXED '^once_(2|3)/rc11$'

# --- owner death (tests/genmc/rmutex_death.c, once_death.c) ------------------
# The acquisitions after a death must see what the dead thread wrote (the
# kernel's mark, the probe's verdict or fx_*_recover published it): a race
# on the dead owner's data otherwise.
mutation rmutex-orphaned-acquire  src/rmutex.c '@step rmutex.step.take */'           ACQUIRE RELAXED '^rmutex_death_kernel/rc11$'
mutation rmutex-recover-release   src/rmutex.c '@step rmutex.recover.cas */'         ACQ_REL ACQUIRE '^rmutex_recover/rc11$'
mutation rmutex-recover-release-k src/rmutex.c '@step rmutex.recover.cas */'         ACQ_REL ACQUIRE '^rmutex_recover_kernel/rc11$'
mutation once-abandoned-acquire   src/once.c  '/* Acquire on success: a re-run sees' ACQUIRE RELAXED '^once_death/rc11$'
mutation once-recover-release     src/once.c  '@step once.recover.cas */'           ACQ_REL ACQUIRE '^once_recover/rc11$'
# The take-over from a dead PROBED owner as a store after the verdict, not a
# CAS from the value judged: both waiters take the word (two EOWNERDEAD).
textual rmutex-takeover-store src/rmutex.c '@step rmutex.step.take_over */' \
    'if (__atomic_compare_exchange_n(fxi_rmutex_word(m), &v, self | (v & WAITERS) | keep, false,' \
    'if ((__atomic_store_n(fxi_rmutex_word(m), self | (v & WAITERS) | keep, __ATOMIC_RELAXED), 1) || __atomic_compare_exchange_n(fxi_rmutex_word(m), &v, self | (v & WAITERS) | keep, false,' \
    '^rmutex_death_probed/rc11$'
# The NOTRECOVERABLE release without its wake of every sleeper: a waiter
# asleep on the inconsistent owner's word stays asleep.
textual rmutex-notrec-no-wake src/rmutex.c '@step rmutex.release.wake_all */' \
    'fxi_futex_wake_raw(&m->owner, INT32_MAX, FXI_BITSET_ANY);' '(void)0;' '^rmutex_notrec/rc11$'
# An event-loop waiter that gives up after a wait passes on no wake: the
# wake it may have consumed (an unlock's) is lost to the next sleeper.
textual rmutex-abandon-no-wake src/rmutex.c '@step rmutex.abandon_wait.wake */' \
    'fxi_futex_wake_raw(&m->owner, 1, FXI_BITSET_ANY)' '(void)0' '^rmutex_abandon/rc11$'
# A condition wait on an inconsistent rmutex that does not release it: the
# word stays the taker's, never NOTRECOVERABLE.
textual cond-inconsistent-kept src/cond.c '@step cond.rmutex_check.release_all */' \
    'int r = fxi_rmutex_release_all(m, &depth);' 'int r = 0;' '^rmutex_notrec_cond/rc11$'
# The model's kernel marks a dead owner's word without waking a sleeper: the
# waiter asleep on it must hang (the check depends on the kernel's wake).
textual kernel-mark-no-wake tests/genmc/model.h 'if (v & 0x80000000u) /* FUTEX_WAITERS */' \
    'fxi_futex_wake_raw(word, 1, FXI_BITSET_ANY);' '(void)0;' '^rmutex_death_kernel/rc11$'

# --- the waiting engine (src/sleep.c): its table's lock, which orders every
# plain field of the table and of the listed nodes ------------------------------
# The checks run the engine's lock sections one thread at a time (their
# sleepers enter it at different ticks; together, GenMC needs more than
# 5 minutes): the table's plain fields are ordered by the model's kernel
# too, and a weakened lock survives (docs/verification.md, "The waiting
# engine").
survives engine-lock-acquire      src/sleep.c 'if (__atomic_compare_exchange_n(l, &c, 1, false,' ACQUIRE RELAXED '^engine_2w/rc11$'
survives engine-unlock-release    src/sleep.c 'if (__atomic_exchange_n(&engine.lock, 0,'  RELEASE RELAXED '^engine_2w/rc11$'
# The look that does not tell a listed sleeper whose word changed; the
# passing of the role that does not wake the first listed sleeper.
textual engine-look-no-tell       src/sleep.c '@step sleep.look.values */' 'tell(e->node, TOLD);' 'i++;' '^engine_2w/rc11$'
textual engine-pass-no-tell       src/sleep.c '@step sleep.role.pass */' 'tell(listed.e[0].node, PROBER);' '(void)0;' '^engine_handoff/rc11$'

usage() { echo "usage: $0 [--list] [-j N] [-k] [name-regex]" >&2; exit 2; }
jobs=2 keep=0 list=0 pick=""
while [ $# -gt 0 ]; do
    case "$1" in
        --list) list=1; shift ;;
        -j) jobs=$2; shift 2 ;;
        -k) keep=1; shift ;;
        -*) usage ;;
        *) pick=$1; shift ;;
    esac
done
if [ $list -eq 1 ]; then
    for n in "${names[@]}"; do
        printf '%-28s %-22s %s -> %s  (%s)\n' "$n" "${FILE[$n]}" "${FROM[$n]}" "${TO[$n]}" "${ONLY[$n]}"
    done
    exit 0
fi
"$here/build-genmc.sh" --path >/dev/null 2>&1 || {
    echo "SKIP: GenMC 0.10.3 is not built on this machine (tests/genmc/build-genmc.sh);" \
         "the memory-order mutations are not run"
    exit 77
}

root=$(mktemp -d "${TMPDIR:-/tmp}/fx-genmc-mutate.XXXXXX")
[ $keep -eq 1 ] || trap 'rm -rf "$root"' EXIT
status=0
printf '%-28s %-9s %-8s %s\n' mutation expected result time
for n in "${names[@]}"; do
    [ -n "$pick" ] && ! [[ "$n" =~ $pick ]] && continue
    t="$root/$n"
    mkdir -p "$t/tests"
    cp -r "$repo/src" "$repo/include" "$t/"
    cp -r "$here" "$t/tests/genmc"
    f="$t/${FILE[$n]}"
    count=$(grep -cF -- "${ANCHOR[$n]}" "$f")
    line=$(grep -nF -- "${ANCHOR[$n]}" "$f" | head -1 | cut -d: -f1)
    if [ "$count" != 1 ]; then
        printf '%-28s %-9s %-8s anchor found %s times\n' "$n" "${EXPECT[$n]}" BROKEN "$count"
        status=1
        continue
    fi
    # The first line at or after the anchor holding the order (the text).
    from="__ATOMIC_${FROM[$n]}" to="__ATOMIC_${TO[$n]}"
    [ -n "${TEXT[$n]:-}" ] && from="${FROM[$n]}" to="${TO[$n]}"
    target=$(awk -v from="$from" -v l="$line" \
                 'NR >= l && index($0, from) { print NR; exit }' "$f")
    if [ -z "$target" ]; then
        printf '%-28s %-9s %-8s no %s after the anchor\n' "$n" "${EXPECT[$n]}" BROKEN \
            "$from"
        status=1
        continue
    fi
    FROM_TEXT="$from" TO_TEXT="$to" perl -pi -e \
        "s/\\Q\$ENV{FROM_TEXT}\\E/\$ENV{TO_TEXT}/ if \$. == $target" "$f"
    s0=$(date +%s)
    "$t/tests/genmc/run.sh" --src "$t" --work "$t/work" --only "${ONLY[$n]}" -j "$jobs" >"$t/log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - s0 ))
    case $rc in
        0) got=SURVIVED ;;
        1) if grep -q ' FAIL' "$t/work/results.txt" 2>/dev/null; then got=CAUGHT; else got=ERROR; fi ;;
        *) got=ERROR ;;
    esac
    how=$(grep -m1 ' FAIL' "$t/work/results.txt" 2>/dev/null | sed 's/.*FAIL: //' | cut -c1-40)
    printf '%-28s %-9s %-8s %4ss  %s\n' "$n" "${EXPECT[$n]}" "$got" "$secs" "$how"
    if [ "$got" != "${EXPECT[$n]}" ]; then
        status=1
        echo "    log: $t/log (kept)"
        trap - EXIT
    fi
done
exit $status
