/*
 * The sum of a balanced binary tree of separately allocated nodes, with tasks: at every
 * inner node the left subtree is a task, the right one is summed in place, then a
 * taskwait. The tree is built untimed, its nodes numbered 0..N-1 in preorder.
 *
 * Parameters: depth (N = 2^depth - 1 nodes). Check: the sum, which must be N (N - 1) / 2.
 */
#include "common.h"

struct node {
    struct node *left, *right;
    uint64_t value;
};

static struct node *build(int depth, uint64_t *next) {
    if (depth == 0)
        return NULL;
    struct node *t = bench_alloc(sizeof *t);
    t->value = (*next)++;
    t->left = build(depth - 1, next);
    t->right = build(depth - 1, next);
    return t;
}

static uint64_t sum(const struct node *t) {
    if (t == NULL)
        return 0;
    uint64_t left, right;
#pragma omp task shared(left) firstprivate(t)
    left = sum(t->left);
    right = sum(t->right);
#pragma omp taskwait
    return t->value + left + right;
}

int main(int argc, char **argv) {
    bench_args(argc, argv, "treesum", NULL);
    int depth = (int)arg_long("depth", 19, 12, 1);
    bench_args_done();
    if (depth > 40)
        bench_fail("depth=%d: at most 40", depth);
    uint64_t nodes = 0;
    struct node *root = build(depth, &nodes);

    uint64_t got = 0;
    double seconds = BENCH_TIME_SINGLE(got = sum(root));
    uint64_t want = nodes * (nodes - 1) / 2;
    if (got != want)
        bench_fail("the %llu nodes sum to %llu, not %llu", (unsigned long long)nodes,
                   (unsigned long long)got, (unsigned long long)want);
    bench_report_count(seconds, got);
    return 0;
}
