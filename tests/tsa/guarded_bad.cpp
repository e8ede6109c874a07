// Rejected by clang++ -Wthread-safety -Werror: y is written under the shared
// (read) hold of l only.
#include <futexsync.hpp>

static futexsync::shared_mutex l;
static int y FX_GUARDED_BY(l);

int main()
{
    l.lock_shared();
    y++; /* needs l exclusively */
    l.unlock_shared();
    return 0;
}
