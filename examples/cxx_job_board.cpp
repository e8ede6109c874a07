// cxx_job_board - futexsync.hpp in shared memory: a job board for processes
// that survives a worker killed in the middle of an update.
//
// The parent posts 1000 numbered jobs on a board in MAP_SHARED memory; 3
// forked worker processes take them with std::unique_lock and
// futexsync::condition_variable, "run" each (square it) and add the result
// to a total. One worker is killed (SIGKILL) in the middle of recording a
// result, holding the board's futexsync::robust_mutex, with the total
// updated and the count of finished jobs not. Whoever acquires the mutex
// next (a lock, or a condition-variable wait returning) finds
// inconsistent() true and repairs the board from the record the dead worker
// wrote before it began (a redo log), then calls consistent(). The parent
// waits with a deadline for the last result and checks the total.
//
// The pattern: after every acquisition, `if (m.inconsistent()) repair()`.
// A program that skipped it would unlock an inconsistent mutex, which makes
// it not recoverable: every later lock throws futexsync::not_recoverable,
// so nobody could go on with a half-updated board.
//
// The parent reaps each worker as it ends, from a thread blocked in wait():
// a dead worker left a zombie would keep the mutex where the library's
// liveness check cannot tell a zombie from a live process (where
// process_vm_readv is refused: some sandboxes, qemu-user; see rmutex.h).
//
// The zero-filled mapping is already an unlocked mutex, two condition
// variables nobody waits on and an empty board: the C++ types have the C
// objects' layout, so a C program could share the same board.
#include <futexsync.hpp>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

constexpr int kWorkers = 3;
constexpr std::int64_t kJobs = 1000;
constexpr std::int64_t kCrashAt = 400; // the job whose recording is cut short

struct board {
    futexsync::robust_mutex lock;
    futexsync::condition_variable posted; // a job arrived, or the board closed
    futexsync::condition_variable done;   // a job finished
    std::int64_t next = 0, posted_jobs = 0, finished = 0, total = 0;
    bool closed = false;
    bool crashed = false; // the crash happened (one worker only)
    int repairs = 0;
    // The redo record of the update in progress: what total and finished
    // become once the result is in.
    bool recording = false;
    std::int64_t total_after = 0, finished_after = 0;
};

// Called with the lock held after every acquisition.
void repair_if_needed(board &b)
{
    if (!b.lock.inconsistent())
        return;
    if (b.recording) { // redo the cut update
        b.total = b.total_after;
        b.finished = b.finished_after;
        b.recording = false;
    }
    b.repairs++;
    if (b.finished == kJobs)
        b.done.notify_all();
    b.lock.consistent();
}

int worker(board &b)
{
    std::unique_lock<futexsync::robust_mutex> l(b.lock);
    repair_if_needed(b);
    for (;;) {
        while (b.next == b.posted_jobs && !b.closed) {
            b.posted.wait(l);
            repair_if_needed(b);
        }
        if (b.next == b.posted_jobs)
            return 0; // closed and empty
        std::int64_t job = b.next++;
        l.unlock();
        std::int64_t result = job * job; // the work, outside the lock
        l.lock();
        repair_if_needed(b);
        b.total_after = b.total + result;
        b.finished_after = b.finished + 1;
        b.recording = true;
        b.total = b.total_after;
        if (job == kCrashAt && !b.crashed) {
            b.crashed = true;
            raise(SIGKILL); // dies holding the lock, finished not updated
        }
        b.finished = b.finished_after;
        b.recording = false;
        if (b.finished == kJobs)
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
    int exited = 0, killed = 0;
    std::thread reaper([&exited, &killed] {
        for (int i = 0; i < kWorkers; i++) {
            int status;
            if (wait(&status) < 0)
                break;
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                exited++;
            else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
                killed++;
        }
    });
    for (std::int64_t i = 0; i < kJobs; i++) {
        std::lock_guard<futexsync::robust_mutex> g(b.lock);
        repair_if_needed(b);
        b.posted_jobs++;
        b.posted.notify_one();
    }
    bool all;
    std::int64_t total;
    int repairs;
    {
        std::unique_lock<futexsync::robust_mutex> l(b.lock);
        repair_if_needed(b);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (b.finished != kJobs &&
               b.done.wait_until(l, deadline) == std::cv_status::no_timeout)
            repair_if_needed(b);
        all = b.finished == kJobs;
        b.closed = true;
        b.posted.notify_all();
        total = b.total;
        repairs = b.repairs;
    }
    reaper.join();
    const std::int64_t want = (kJobs - 1) * kJobs * (2 * kJobs - 1) / 6;
    bool ok = all && exited == kWorkers - 1 && killed == 1 && repairs == 1 && total == want;
    std::printf("cxx_job_board: %d workers (%d killed mid-update, %d repair) ran %lld jobs, "
                "total %lld (want %lld): %s\n",
                kWorkers, killed, repairs, static_cast<long long>(kJobs),
                static_cast<long long>(total), static_cast<long long>(want),
                ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
