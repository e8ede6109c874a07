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
 * is sound). The adaptive spin before sleeping (wait_round, barrier.c:119-128:
 * at most a thread-local budget of acquire loads of the word, struct fxi_spin
 * of src/internal/spin.h, returning 0 as soon as the round number changed)
 * only reads: each of its loads is the first look of the sleeping loop
 * (barrier.c:130-132) without the S update, so a run that leaves during the
 * spin is a run that leaves at that first look, and the spin is left out.
 * The budget bookkeeping (fxi_spin_start/won/lost) is thread-private.
 *
 * Every step names the line(s) of src/barrier.c it mirrors as
 * "barrier.c:LINE".
 */
//@source src/barrier.c sha256=1777e37145529e3da191f7b4c0fa17ad45c58087ca85dbc1deeb3456c01a99f7
//@check safety

#define N 3               /* parties */
#define ROUNDS 3
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

proctype party(byte me; bool timed; byte signals)
{
    int s; byte mine; byte r; byte round = 0; bit serial; bit wake;
    do
    :: round < ROUNDS ->
arrive: /* barrier_wait, barrier.c:156-194: one arrival (CAS loop, barrier.c:165-189) */
        atomic {
            s = st;
            assert((s & AMASK) < N);                           /* barrier.c:167-169 */
            arrived[me]++;
            if
            :: (s & AMASK) + 1 == N ->                         /* barrier.c:170-175 last, CAS */
                st = ((s / G + 1) % GENS) * G;
                serial = 1; wake = (s & SB) != 0;
                serials[round]++
            :: else ->
                st = s + 1; mine = s / G; serial = 0           /* barrier.c:187-190 */
            fi
        };
        if
        :: serial ->
            if
            :: wake ->                                         /* barrier.c:176-177 [M:wake] */
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
look:   /* wait_round, barrier.c:129-139: the round still ours? set S */
        atomic {
            s = st;
            if
            :: s / G != mine -> r = WOKEN                      /* barrier.c:130-132: passed */
            :: else ->
                if
                :: (s & SB) == 0 -> st = s | SB; s = s | SB    /* barrier.c:133-139 [M:sleepers] */
                :: else -> skip
                fi;
                r = SLEEPING
            fi
        };
        if
        :: r == WOKEN -> goto passed
        :: else -> skip
        fi;
        atomic {                                               /* futex wait, barrier.c:140 */
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
            fi
        :: else -> skip
        fi;
        if
        :: r != ETIMEDOUT -> r = 0; goto look                  /* barrier.c:141-142 */
        :: else -> skip
        fi;
        atomic {                                               /* withdraw, barrier.c:143-152 */
            s = st;
            if
            :: s / G != mine -> r = WOKEN                      /* barrier.c:145-147: passed [M:withdraw-check] */
            :: else -> st = s - 1; arrived[me]--; r = ETIMEDOUT /* barrier.c:150-151 */
            fi
        };
        if
        :: r == WOKEN -> r = 0; goto passed
        :: else -> r = 0; goto arrive    /* the caller tries the same round again */
        fi;
passed:
        /* Everyone has arrived in this round: nobody is left behind. */
        assert(arrived[0] > round && arrived[1] > round && arrived[2] > round);
        round++; s = 0; mine = 0; serial = 0; wake = 0
    :: else -> break
    od
}

init {
    atomic {
        run party(0, 0, 1);       /* me, timed, signals */
        run party(1, 1, 0);
        run party(2, 0, 0)
    };
    (_nr_pr == 1);
    assert(serials[0] == 1 && serials[1] == 1 && serials[2] == 1);
    assert(st == (ROUNDS % GENS) * G);
    assert(!q[0] && !q[1] && !q[2])
}
