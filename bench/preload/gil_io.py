"""Threads doing small I/O under CPython's GIL, for futexsync-bench's
programs workload (bench/preload/README.md).

usage: python3 gil_io.py THREADS ITERATIONS

Each thread loops ITERATIONS times over four calls that each release and
retake the GIL: a 1-byte os.write to its own pipe, the os.read of it, an
os.read of 64 bytes of /dev/zero and time.sleep(0). The GIL is a mutex and a
condition variable (pthread_mutex_t, pthread_cond_t with CLOCK_MONOTONIC
timed waits), so its handovers run through whatever implements them.
Exits 1 if a thread saw a short read.
"""
import os
import sys
import threading
import time


def worker(iterations, errors):
    r, w = os.pipe()
    z = os.open("/dev/zero", os.O_RDONLY)
    try:
        for _ in range(iterations):
            os.write(w, b"x")
            if os.read(r, 1) != b"x" or len(os.read(z, 64)) != 64:
                errors.append(1)
                return
            time.sleep(0)
    finally:
        os.close(r)
        os.close(w)
        os.close(z)


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    errors = []
    ts = [threading.Thread(target=worker, args=(iterations, errors)) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
