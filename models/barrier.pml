/*
 * models/barrier.pml - the fx_barrier protocol of src/barrier.c, with the
 * futex.
 *
 * Three parties pass three rounds. One party uses the timed wait and may
 * time out at any moment, withdrawing its arrival and arriving again (as a
 * caller retrying after ETIMEDOUT would); another may be hit by a signal
 * (EINTR) once. The round number is kept modulo 2 (one bit instead of 16),
 * so every second round reuses a round number: the wrap-around at its
 * tightest. Checked:
 *   - nobody passes round r before every party has arrived in round r (and
 *     not withdrawn): assertion when a party leaves the wait;
 *   - exactly one party per round is told it is the serial one;
 *   - no lost wake-up: every run ends with every party finished (one left
 *     asleep is an invalid end state, and init then blocks too);
 *   - the word ends as (round 3 mod 2, nobody arrived, no sleepers).
 *
 * Futex semantics as in models/sem.pml: compare-and-queue in one step, then
 * leave by a wake (dequeued by the waker), a timeout (timed party) or a
 * signal. A CAS loop is one atomic step (see models/rwlock.pml for why this
 * is sound). The adaptive spin before sleeping (wait_round, @barrier.wait_round.spin:
 * at most a thread-local budget of acquire loads of the word, struct fxi_spin
 * of src/internal/spin.h, returning 0 as soon as the round number changed)
 * only reads: each of its loads is the first look of the sleeping loop
 * (@barrier.wait_round.look) without the S update, so a run that leaves during the
 * spin is a run that leaves at that first look, and the spin is left out.
 * The budget bookkeeping (fxi_spin_start/won/lost) is thread-private.
 *
 * Every step names the step tag of src/barrier.c it mirrors as
 * "@barrier.<step>" (an "@step barrier.<step>" comment in the C).
 */
//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wake_raw sha256=dce47033ca72a3d7606308724ad4fe8606ac00a881241bc263cbeef98f2b76b6
//@mirrors src/sleep.c fxi_futex_sleep sleep_call sleep_bounded recheck_scope engine_wait engine_sleep engine_probe engine_look sha256=053a3384bf224e4143db68cd791354c640abd749aafc1d70e438e53279c51442
//@mirrors src/barrier.c barrier_wait wait_round sha256=61f68ac6a1cea765e20ecf930021cacf606a97c2a8aeb18d15034eebdbaeb1c4
//@check safety
//@check ltl late_pass -DDEATHS=1

#ifndef DEATHS
#define DEATHS 0          /* parties killed in a run, at most */
#endif
#ifndef BOUNDED
#define BOUNDED (DEATHS > 0) /* the sleeps end at a recheck (fxi_futex_sleep); off, it
                                is also a private object, whose sleeps have
                                no recheck once their scope is known */
#endif
#define N 3               /* parties */
#if DEATHS
#define ROUNDS 1
#else
#define ROUNDS 3
#endif
#define GENS 2            /* round numbers kept modulo 2 */
#define AMASK 31          /* arrivals: bits 0..4 */
#define SB 32             /* FX_BARRIER_SLEEPERS */
#define G 64              /* one round: the round number is st / G */

#define WOKEN 0
#define SLEEPING 1
#define EAGAIN 2
#define ETIMEDOUT 3
#define EINTR 4

int st = 0;               /* fx_barrier.state */
bool q[N];                /* the futex queue of &state */
byte arrived[N];          /* rounds party p has arrived in, not withdrawn (observer) */
byte serials[ROUNDS];     /* serial parties per round (observer) */

/* Death (DEATHS > 0; the fix on branch wake, f1260f2): a killer SIGKILLs at
 * most DEATHS parties, each at any step: in particular the last arrival
 * between its CAS that opens the next round and its FUTEX_WAKE (the notifier
 * side). The kernel drops a dying party from the futex queue. A party killed
 * before it arrives keeps the others out of that round for good, rightly;
 * the property is about the rounds that did end: late_pass (weak fairness),
 * a live party still waiting in a round that has ended eventually passes.
 * Every sleep is bounded (fxi_futex_sleep): the recheck, always enabled for a
 * sleeper, ends it. The mutation barrier-no-recheck is caught. In shared
 * memory the bound is the process's waiting engine (src/sleep.c): a sleep
 * ends at a look that finds the word no longer the value slept on
 * (models/engine.pml shows that every sleeper whose word changed is told),
 * and not otherwise. A recheck at any time is exact for that: a party whose
 * sleep ends with the word unchanged finds its round still open and S
 * already set, and sleeps on the same value again, which changes nothing.
 * (Checked 2026-12-07: with the recheck enabled only while the word differs
 * from the value slept on, late_pass passes too.) No timeouts
 * or signals in this scenario (the safety check has them). */
byte deaths = DEATHS;
bool doom[N];             /* the killer chose party p: it dies */
bool killable[N];         /* (observer) party p is alive and not done */
byte waitgen[N];          /* (observer) 1 + the round number party p waits in, 0: none */
#define LATE(p) (waitgen[p] != 0 && waitgen[p] != st / G + 1)

proctype party(byte me; bool timed; byte signals)
{
    int s; byte mine; byte r; byte round = 0; bit serial; bit wake;
#if DEATHS
    killable[me] = 1;
    {
#endif
    do
    :: round < ROUNDS ->
arrive: /* barrier_wait, barrier.c: one arrival (CAS loop, @barrier.arrive.load) */
        atomic {
            s = st;
            assert((s & AMASK) < N);                           /* @barrier.arrive.count */
            arrived[me]++;
            if
            :: (s & AMASK) + 1 == N ->                         /* @barrier.arrive.last last, CAS */
                st = ((s / G + 1) % GENS) * G;
                serial = 1; wake = (s & SB) != 0;
                serials[round]++
            :: else ->
                st = s + 1; mine = s / G; serial = 0;          /* @barrier.arrive.cas */
#if DEATHS
                waitgen[me] = mine + 1
#else
                skip
#endif
            fi
        };
        if
        :: serial ->
            if
            :: wake ->                                         /* @barrier.arrive.wake [M:wake] */
                atomic {
                    if :: q[0] -> q[0] = 0 :: else -> skip fi;
                    if :: q[1] -> q[1] = 0 :: else -> skip fi;
                    if :: q[2] -> q[2] = 0 :: else -> skip fi
                }
            :: else -> skip
            fi;
            goto passed
        :: else -> skip
        fi;
look:   /* wait_round, @barrier.wait_round.loop: the round still ours? set S */
        atomic {
            s = st;
            if
            :: s / G != mine -> r = WOKEN                      /* @barrier.wait_round.look: passed */
            :: else ->
                if
                :: (s & SB) == 0 -> st = s | SB; s = s | SB    /* @barrier.wait_round.mark_sleepers [M:sleepers] */
                :: else -> skip
                fi;
                r = SLEEPING
            fi
        };
        if
        :: r == WOKEN -> goto passed
        :: else -> skip
        fi;
        atomic {                                               /* futex wait, @barrier.wait_round.sleep */
            if
            :: st != s -> r = EAGAIN
            :: else -> q[me] = 1; r = SLEEPING
            fi
        };
        if
        :: r == SLEEPING ->
            if
            :: atomic { !q[me] -> r = WOKEN }
            :: timed -> atomic {
                   if
                   :: q[me] -> q[me] = 0; r = ETIMEDOUT
                   :: else -> r = WOKEN
                   fi }
            :: atomic { signals > 0 && q[me] -> q[me] = 0; signals--; r = EINTR }
            :: atomic { BOUNDED && q[me] -> q[me] = 0; r = WOKEN } /* recheck [M:recheck] */
            fi
        :: else -> skip
        fi;
        if
        :: r != ETIMEDOUT -> r = 0; goto look                  /* @barrier.wait_round.woken */
        :: else -> skip
        fi;
        atomic {                                               /* withdraw, @barrier.wait_round.timed_out */
            s = st;
            if
            :: s / G != mine -> r = WOKEN                      /* @barrier.wait_round.withdraw_look: passed [M:withdraw-check] */
            :: else -> st = s - 1; arrived[me]--; r = ETIMEDOUT /* @barrier.wait_round.withdraw */
            fi
        };
        if
        :: r == WOKEN -> r = 0; goto passed
        :: else -> r = 0; goto arrive    /* the caller tries the same round again */
        fi;
passed:
        /* Everyone has arrived in this round: nobody is left behind. */
        assert(arrived[0] > round && arrived[1] > round && arrived[2] > round);
        atomic { round++; s = 0; mine = 0; serial = 0; wake = 0;
#if DEATHS
            waitgen[me] = 0
#else
            skip
#endif
        }
    :: else -> break
    od;
#if DEATHS
    killable[me] = 0
    } unless {
        atomic { doom[me] -> q[me] = 0; waitgen[me] = 0 }
    }
#endif
}

#if DEATHS
#define KILL(p) :: atomic { deaths > 0 && killable[p] -> doom[p] = 1; killable[p] = 0; deaths-- }
active proctype killer()
{
end:
    do
    KILL(0)
    KILL(1)
    KILL(2)
    od
}

ltl late_pass { [] ((LATE(0) || LATE(1) || LATE(2)) -> <> !(LATE(0) || LATE(1) || LATE(2))) }
#endif

init {
    atomic {
#if DEATHS
        run party(0, 0, 0);       /* me, timed, signals */
        run party(1, 0, 0);
#else
        run party(0, 0, 1);       /* me, timed, signals */
        run party(1, 1, 0);
#endif
        run party(2, 0, 0)
    };
#if DEATHS
    skip
#else
    (_nr_pr == 1);
    assert(serials[0] == 1 && serials[1] == 1 && serials[2] == 1);
    assert(st == (ROUNDS % GENS) * G);
    assert(!q[0] && !q[1] && !q[2])
#endif
}
