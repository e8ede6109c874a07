// Accepted by clang++ -Wthread-safety -Werror: the C++ types are capabilities
// like the C ones.
#include <futexsync.hpp>

static futexsync::mutex m;
static int x FX_GUARDED_BY(m);
static futexsync::shared_mutex l;
static int y FX_GUARDED_BY(l);

static void add_locked(int d) FX_REQUIRES(m)
{
    x += d;
}

int main()
{
    {
        futexsync::lock_guard<futexsync::mutex> g(m);
        add_locked(1);
    }
    if (m.try_lock()) {
        x++;
        m.unlock();
    }
    int sum = 0;
    l.lock_shared();
    sum += y;
    l.unlock_shared();
    l.lock();
    y++;
    l.unlock();
    m.lock();
    sum += x;
    m.unlock();
    return sum == 0;
}
