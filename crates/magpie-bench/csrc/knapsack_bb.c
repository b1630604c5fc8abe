/* A minimal depth-first branch and bound for the 0/1 knapsack problem: the C peer of
 * magpie's knapsack search (crates/magpie-bench/src/knapsack_c.rs).
 *
 * Items come sorted by non-increasing profit/weight. A call decides item i: it includes it
 * first (if it fits), then excludes it. The Dantzig bound (greedy fill of items i..n-1, then
 * the fraction of the first item that does not fit, rounded down) is found by a binary
 * search over prefix sums of the weights. A child is entered only when its profit plus its
 * bound is above the best profit so far; the best is updated on entry. This is the same
 * tree, the same order and the same pruning rule as magpie's KnapNode generator under the
 * Sequential skeleton, so the number of calls equals magpie's expanded-node count. */
#include <stddef.h>
#include <stdint.h>

struct kp {
    size_t n;
    uint64_t cap;
    const uint64_t *p, *w;   /* sorted by ratio */
    const uint64_t *pp, *pw; /* prefix sums, n + 1 entries */
    uint64_t best;
    uint64_t calls;
};

static uint64_t dantzig(const struct kp *k, size_t i, uint64_t cap) {
    uint64_t base = k->pw[i];
    /* Largest j in [i, n] with pw[j] - base <= cap. */
    size_t lo = i, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (k->pw[mid] - base <= cap)
            lo = mid;
        else
            hi = mid - 1;
    }
    uint64_t b = k->pp[lo] - k->pp[i];
    if (lo < k->n) {
        uint64_t left = cap - (k->pw[lo] - base);
        /* 64-bit arithmetic when the product fits, as magpie's bound does. */
        uint64_t prod;
        if (!__builtin_mul_overflow(left, k->p[lo], &prod))
            b += prod / k->w[lo];
        else
            b += (uint64_t)((unsigned __int128)left * k->p[lo] / k->w[lo]);
    }
    return b;
}

static void bb(struct kp *k, size_t i, uint64_t p, uint64_t w) {
    k->calls++;
    if (p > k->best)
        k->best = p;
    if (i == k->n)
        return;
    if (w + k->w[i] <= k->cap) {
        uint64_t cp = p + k->p[i], cw = w + k->w[i];
        if (cp + dantzig(k, i + 1, k->cap - cw) > k->best)
            bb(k, i + 1, cp, cw);
    }
    if (p + dantzig(k, i + 1, k->cap - w) > k->best)
        bb(k, i + 1, p, w);
}

/* Solves the instance (items already sorted by ratio, prefix sums given); returns the
 * optimum and stores the number of calls (search-tree nodes) in *calls. */
uint64_t knapsack_bb(size_t n, uint64_t cap, const uint64_t *p, const uint64_t *w,
                     const uint64_t *pp, const uint64_t *pw, uint64_t *calls) {
    struct kp k = {n, cap, p, w, pp, pw, 0, 0};
    bb(&k, 0, 0, 0);
    *calls = k.calls;
    return k.best;
}
