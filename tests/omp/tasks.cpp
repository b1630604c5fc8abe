// C++ under OpenMP (g++ -fopenmp): a task-parallel quicksort on std::vector equal to
// std::sort's result; `parallel for schedule(runtime)` over a std::vector (index and
// range-for forms) with reductions, a user-declared reduction (GCC combines it under
// GOMP_atomic_start/end); objects with non-trivial copy constructors captured firstprivate
// in tasks (GCC passes a copy function; the runtime must run it and the destructor: every
// copy constructed is destroyed, each task sees an intact copy); exceptions thrown and
// caught inside a task.
//
// The team size comes from OMP_NUM_THREADS. Exits 1 with a message on the first failure.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

static const char *what = "start";
static std::atomic<long> checks{0};

[[noreturn]] static void fail(const std::string &msg) {
    std::fprintf(stderr, "tasks-cpp: FAIL in [%s] (thread %d): %s\n", what, omp_get_thread_num(),
                 msg.c_str());
    std::exit(1);
}
static void check(bool ok, const std::string &msg) {
    checks++;
    if (!ok)
        fail(msg);
}

// --- Quicksort with tasks ----------------------------------------------------------------

static void quicksort(std::vector<int> &v, long lo, long hi) { // sorts v[lo, hi)
    while (hi - lo > 1) {
        if (hi - lo < 64) {
            std::sort(v.begin() + lo, v.begin() + hi);
            return;
        }
        int pivot = v[lo + (hi - lo) / 2];
        long i = lo, j = hi - 1;
        while (i <= j) { // Hoare partition
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j)
                std::swap(v[i++], v[j--]);
        }
        // Left part in a task, right part in this one.
#pragma omp task shared(v) firstprivate(lo, j)
        quicksort(v, lo, j + 1);
        lo = i;
    }
}
static void sorting() {
    what = "quicksort";
    for (int round = 0; round < 5; round++) {
        std::vector<int> v(200000 + 1234 * round);
        unsigned x = 12345u + round;
        for (auto &e : v) {
            x = x * 1103515245u + 12345u;
            e = static_cast<int>((x >> 8) % (round % 2 ? 1000u : 100000000u)); // many duplicates in odd rounds
        }
        std::vector<int> want = v;
        std::sort(want.begin(), want.end());
#pragma omp parallel
#pragma omp single
        {
            quicksort(v, 0, static_cast<long>(v.size()));
#pragma omp taskwait
        }
        // The last taskwait waits for children only; the region's end waits for the rest.
        check(v == want, "round " + std::to_string(round) + ": the task quicksort differs from std::sort");
    }
}

// --- Loops over std::vector ----------------------------------------------------------------

struct Pair {
    long a = 0;
    long b = 0;
};
#pragma omp declare reduction(pairsum:Pair : omp_out.a += omp_in.a, omp_out.b += omp_in.b) \
    initializer(omp_priv = Pair())

static void vector_loops() {
    what = "parallel for over std::vector";
    const long n = 300000;
    std::vector<long> v(n);
    std::iota(v.begin(), v.end(), 1);
    std::vector<int> hits(n, 0);

    long sum = 0;
    long mx = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum) reduction(max : mx)
    for (long i = 0; i < n; i++) {
        sum += v[i] * 3;
        mx = std::max(mx, v[i] % 1000);
        __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
    }
    check(sum == 3 * n * (n + 1) / 2, "sum " + std::to_string(sum));
    check(mx == 999, "max " + std::to_string(mx));
    for (long i = 0; i < n; i++)
        if (hits[i] != 1)
            fail("iteration " + std::to_string(i) + " ran " + std::to_string(hits[i]) + " times");

    // Range-for (OpenMP 5.0, random-access iterators) with a user-declared reduction.
    Pair p;
#pragma omp parallel for schedule(runtime) reduction(pairsum : p)
    for (long &e : v) {
        p.a += e;
        p.b += e % 7;
        e = -e; // each element touched once: negated exactly once
    }
    long b = 0;
    for (long i = 1; i <= n; i++)
        b += i % 7;
    check(p.a == n * (n + 1) / 2 && p.b == b, "declare reduction: a " + std::to_string(p.a) + " b " +
                                                  std::to_string(p.b));
    for (long i = 0; i < n; i++)
        if (v[i] != -(i + 1))
            fail("range-for element " + std::to_string(i) + " is " + std::to_string(v[i]));

    // Iterator loop with a dynamic schedule.
    std::vector<double> d(100000, 0.5);
    double ds = 0;
#pragma omp parallel for schedule(dynamic, 100) reduction(+ : ds)
    for (auto it = d.begin(); it < d.end(); ++it)
        ds += *it;
    check(ds == 50000.0, "iterator loop sum " + std::to_string(ds));
}

// --- Non-trivial copies captured by tasks --------------------------------------------------

static std::atomic<long> constructed{0}, destroyed{0};
struct Tracked {
    static constexpr long MAGIC = 0x5eed5eed;
    long magic;
    int id;
    std::vector<int> payload; // heap data: a shallow (memcpy) copy would share it
    std::string name;
    explicit Tracked(int i) : magic(MAGIC), id(i), payload(100, i), name("obj" + std::to_string(i)) {
        constructed++;
    }
    Tracked(const Tracked &o) : magic(o.magic), id(o.id), payload(o.payload), name(o.name) {
        constructed++;
    }
    ~Tracked() {
        destroyed++;
        magic = 0; // a use after destruction shows as a bad magic
    }
    bool intact(int want) const {
        if (magic != MAGIC || id != want || name != "obj" + std::to_string(want) ||
            payload.size() != 100)
            return false;
        for (int x : payload)
            if (x != want)
                return false;
        return true;
    }
};

static void copies() {
    what = "firstprivate objects";
    std::atomic<int> bad{0};
    std::atomic<int> ran{0};
    constructed = 0;
    destroyed = 0;
    const int tasks = 2000;
#pragma omp parallel
#pragma omp single
    {
        for (int t = 0; t < tasks; t++) {
            Tracked obj(t);
#pragma omp task firstprivate(obj) shared(bad, ran)
            {
                if (!obj.intact(obj.id) || obj.id != obj.payload[0])
                    bad++;
                obj.payload[0] = -1; // the task's own copy: the parent's is not affected
                ran++;
            }
            // obj goes out of scope here, possibly before the task runs: the task has a copy.
            if (!obj.intact(t))
                bad++;
        }
    }
    check(ran == tasks, std::to_string(ran.load()) + " tasks ran, want " + std::to_string(tasks));
    check(bad == 0, std::to_string(bad.load()) + " tasks saw a broken copy");
    check(constructed == destroyed, std::to_string(constructed.load()) + " constructed, " +
                                         std::to_string(destroyed.load()) + " destroyed");
    check(constructed >= 2 * tasks, "only " + std::to_string(constructed.load()) +
                                        " constructions: the tasks' copies were not made");
}

// --- Exceptions inside tasks ---------------------------------------------------------------

static void exceptions() {
    what = "exceptions in tasks";
    std::atomic<int> caught{0};
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 500; i++) {
#pragma omp task shared(caught) firstprivate(i)
        {
            try {
                if (i % 2 == 0)
                    throw std::runtime_error("task " + std::to_string(i));
            } catch (const std::runtime_error &e) {
                if (std::string(e.what()) == "task " + std::to_string(i))
                    caught++;
            }
        }
    }
    check(caught == 250, "caught " + std::to_string(caught.load()) + " exceptions, want 250");
}

int main() {
    if (!std::getenv("OMP_NUM_THREADS"))
        fail("set OMP_NUM_THREADS");
    sorting();
    vector_loops();
    copies();
    exceptions();
    std::printf("tasks-cpp: OK: %ld checks, %d threads\n", checks.load(), omp_get_max_threads());
    return 0;
}
