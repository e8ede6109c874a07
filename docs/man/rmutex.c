/* docs/man/rmutex.c - the EXAMPLE of the fx_rmutex pages: a lock whose owner
 * may die, with the state it protects repaired by the next owner. */
#include <futexsync.h>
#include <stdio.h>

struct account {
    fx_rmutex lock;
    int balance; /* protected by lock; put the struct in MAP_SHARED memory */
};

static int deposit(struct account *a, int amount)
{
    int r = fx_rmutex_lock(&a->lock);
    if (r == EOWNERDEAD) {
        /* The previous owner died holding the lock: repair, then mark it. */
        if (a->balance < 0)
            a->balance = 0;
        r = fx_rmutex_consistent(&a->lock);
    }
    if (r != 0) {
        fprintf(stderr, "lock: error %d\n", r);
        return r;
    }
    a->balance += amount;
    return fx_rmutex_unlock(&a->lock);
}

int main(void)
{
    struct account a = { FX_RMUTEX_INIT, 0 };
    if (deposit(&a, 10) != 0 || deposit(&a, 5) != 0)
        return 1;
    printf("balance %d\n", a.balance);
    return a.balance == 15 ? 0 : 1;
}
