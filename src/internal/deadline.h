/*
 * src/internal/deadline.h - checks on the absolute CLOCK_MONOTONIC deadlines
 * that every timed operation takes.
 */
#ifndef FX_INTERNAL_DEADLINE_H
#define FX_INTERNAL_DEADLINE_H

#include <errno.h>
#include <stdbool.h>
#include <time.h>

/* EINVAL when a deadline is given and its tv_nsec is outside [0, 999999999];
 * callers ask only when they are about to block (POSIX: an acquire that can
 * succeed at once succeeds whatever the deadline). */
static inline int fx_deadline_check(const struct timespec *deadline)
{
    if (deadline != NULL && (deadline->tv_nsec < 0 || deadline->tv_nsec > 999999999L))
        return EINVAL;
    return 0;
}

/* True once the (checked) deadline has passed on CLOCK_MONOTONIC. */
bool fx_deadline_passed(const struct timespec *deadline);

#endif /* FX_INTERNAL_DEADLINE_H */
