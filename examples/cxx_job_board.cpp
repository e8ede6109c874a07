// cxx_job_board - futexsync.hpp in shared memory: a job board for processes.
//
// The parent posts 1000 numbered jobs on a board in MAP_SHARED memory; 3
// forked worker processes take them with std::unique_lock and
// futexsync::condition_variable, "run" each (square it) and add the result
// to a total. The parent waits with a deadline for the last result and checks
// the total. The zero-filled mapping is already an unlocked mutex, two
// condition variables nobody waits on and an empty board: the C++ types have
// the C objects' layout, so a C program could share the same board.
#include <futexsync.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

constexpr int kWorkers = 3;
constexpr std::int64_t kJobs = 1000;

struct board {
    futexsync::mutex lock;
    futexsync::condition_variable posted; // a job arrived, or the board closed
    futexsync::condition_variable done;   // a job finished
    std::int64_t next = 0, posted_jobs = 0, finished = 0, total = 0;
    bool closed = false;
};

int worker(board &b)
{
    std::unique_lock<futexsync::mutex> l(b.lock);
    for (;;) {
        b.posted.wait(l, [&] { return b.next < b.posted_jobs || b.closed; });
        if (b.next == b.posted_jobs)
            return 0; // closed and empty
        std::int64_t job = b.next++;
        l.unlock();
        std::int64_t result = job * job; // the work, outside the lock
        l.lock();
        b.total += result;
        if (++b.finished == kJobs)
            b.done.notify_all();
    }
}

} // namespace

int main()
{
    void *mem = mmap(nullptr, sizeof(board), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return 1;
    board &b = *new (mem) board; // the same bytes as the zero-filled mapping
    for (int i = 0; i < kWorkers; i++)
        if (fork() == 0)
            _exit(worker(b));
    for (std::int64_t i = 0; i < kJobs; i++) {
        std::lock_guard<futexsync::mutex> g(b.lock);
        b.posted_jobs++;
        b.posted.notify_one();
    }
    bool all;
    std::int64_t total;
    {
        std::unique_lock<futexsync::mutex> l(b.lock);
        all = b.done.wait_for(l, std::chrono::seconds(30), [&] { return b.finished == kJobs; });
        b.closed = true;
        b.posted.notify_all();
        total = b.total;
    }
    int failed = 0;
    for (int i = 0; i < kWorkers; i++) {
        int status;
        if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    }
    const std::int64_t want = (kJobs - 1) * kJobs * (2 * kJobs - 1) / 6;
    bool ok = all && failed == 0 && total == want;
    std::printf("cxx_job_board: %d workers ran %lld jobs, total %lld (want %lld): %s\n",
                kWorkers, static_cast<long long>(kJobs), static_cast<long long>(total),
                static_cast<long long>(want), ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
