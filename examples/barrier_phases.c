/*
 * barrier_phases - a phased parallel computation: 4 threads smooth a 4096-point
 * signal for 400 steps (each point becomes the mean of itself and its two
 * neighbours), each thread owning a quarter of the points.
 *
 * Step s reads buffer s % 2 and writes buffer (s + 1) % 2, so a thread may
 * start step s + 1 only when every thread has finished step s: one fx_barrier
 * wait per step. The thread the barrier names serial (FX_BARRIER_SERIAL_THREAD)
 * counts the step, so every step must be counted exactly once.
 *
 * Expected: the result equals, bit for bit, the same steps computed by one
 * thread, and the serial count equals the number of steps.
 */
#define _GNU_SOURCE
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 4
#define POINTS 4096
#define STEPS 400

static double grid[2][POINTS];
static double reference[2][POINTS];
static fx_barrier phase = FX_BARRIER_INIT; /* zero: no init call */
static int serial_steps;                   /* written by the serial thread only */
static int errors;

static void smooth(const double *in, double *out, int from, int to)
{
    for (int i = from; i < to; i++) {
        double left = in[i > 0 ? i - 1 : i];
        double right = in[i < POINTS - 1 ? i + 1 : i];
        out[i] = (left + in[i] + right) / 3.0;
    }
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    int from = id * (POINTS / THREADS), to = from + POINTS / THREADS;
    for (int s = 0; s < STEPS; s++) {
        smooth(grid[s % 2], grid[(s + 1) % 2], from, to);
        int r = fx_barrier_wait(&phase, THREADS);
        if (r == FX_BARRIER_SERIAL_THREAD)
            serial_steps++; /* the barrier orders it with the other steps */
        else if (r != 0)
            __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

int main(void)
{
    for (int i = 0; i < POINTS; i++)
        grid[0][i] = reference[0][i] = (i % 64 < 32) ? 1.0 : -1.0; /* a square wave */

    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
            perror("pthread_create");
            return 1;
        }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);

    for (int s = 0; s < STEPS; s++)
        smooth(reference[s % 2], reference[(s + 1) % 2], 0, POINTS);
    int differ = memcmp(grid[STEPS % 2], reference[STEPS % 2], sizeof grid[0]) != 0;
    double energy = 0;
    for (int i = 0; i < POINTS; i++)
        energy += grid[STEPS % 2][i] * grid[STEPS % 2][i];

    int ok = !differ && serial_steps == STEPS && errors == 0;
    printf("barrier_phases: %d threads x %d steps on %d points: %s the one-thread result "
           "(energy %.3f of %d), %d serial steps, %d errors %s\n",
           THREADS, STEPS, POINTS, differ ? "DIFFERS FROM" : "equals", energy, POINTS,
           serial_steps, errors, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
