/*
 * Sparse matrix-vector product y = A x over a CSR matrix, one loop iteration per row,
 * schedule(runtime). A is synthetic: row lengths follow a power law (min_len * u^(-1/alpha),
 * u uniform on (0, 1], at most `cols`), columns uniform without order, values uniform on
 * [-1, 1), seeded, as magpie_apps::spmv::power_law draws them; x is uniform on [-1, 1).
 * The same product runs `steps` times at the same call site (so adaptive schedules can
 * learn from the earlier steps).
 *
 * Parameters: rows, cols (default: rows), min_len, alpha, steps, seed. Every row is summed
 * left to right, so every step's y must equal a sequential product's bit for bit (checked
 * after each step, untimed). Check: a hash of y's bits.
 */
#include "common.h" /* first: it defines _GNU_SOURCE */
#include <math.h>

static int cmp_u32(const void *a, const void *b) {
    uint32_t p = *(const uint32_t *)a, q = *(const uint32_t *)b;
    return (p > q) - (p < q);
}

/* The matrix (CSR), the vector, the product and the sequential product. */
static long rows, *ptr;
static uint32_t *col;
static double *val, *x, *y, *ref;

static inline double row_product(long r) {
    double s = 0.0;
    for (long k = ptr[r]; k < ptr[r + 1]; k++)
        s += val[k] * x[col[k]];
    return s;
}

static void check_step(long s) { bench_same_bits(s, y, ref, rows, "row", "product"); }

BENCH_STEP_LOOP(long, r, rows, y[r] = row_product(r))

int main(int argc, char **argv) {
    bench_args(argc, argv, "spmv", NULL);
    rows = arg_long("rows", 400000, 20000, 1);
    long cols = arg_long("cols", rows, rows, 1);
    long min_len = arg_long("min_len", 4, 4, 1);
    double alpha = arg_double("alpha", 1.5, 1.5);
    long steps = arg_long("steps", 25, 3, 1);
    uint64_t seed = (uint64_t)arg_long("seed", 42, 42, 0);
    bench_args_done();
    if (cols > 4294967296L)
        bench_fail("cols=%ld: at most 2^32 columns", cols);

    /* The matrix, row by row (its arrays grow as needed). */
    ptr = bench_alloc(sizeof(long) * (size_t)(rows + 1));
    size_t cap = (size_t)rows * (size_t)min_len * 4 + 16, nnz = 0;
    col = bench_alloc(sizeof(uint32_t) * cap);
    val = bench_alloc(sizeof(double) * cap);
    uint64_t rng = seed;
    ptr[0] = 0;
    for (long r = 0; r < rows; r++) {
        double u = 1.0 - splitmix64_f64(&rng);
        double l = (double)min_len * pow(u, -1.0 / alpha);
        size_t len = (size_t)(l < (double)cols ? l : (double)cols);
        if (nnz + len > cap) {
            while (nnz + len > cap)
                cap *= 2;
            col = realloc(col, sizeof(uint32_t) * cap);
            val = realloc(val, sizeof(double) * cap);
            if (col == NULL || val == NULL)
                bench_fail("out of memory for %zu entries", cap);
        }
        for (size_t k = 0; k < len; k++)
            col[nnz + k] = (uint32_t)(splitmix64(&rng) % (uint64_t)cols);
        qsort(col + nnz, len, sizeof(uint32_t), cmp_u32);
        for (size_t k = 0; k < len; k++)
            val[nnz + k] = 2.0 * splitmix64_f64(&rng) - 1.0;
        nnz += len;
        ptr[r + 1] = (long)nnz;
    }
    x = bench_alloc(sizeof(double) * (size_t)cols);
    y = bench_alloc(sizeof(double) * (size_t)rows);
    ref = bench_alloc(sizeof(double) * (size_t)rows);
    rng = seed ^ 0x5eed;
    for (long c = 0; c < cols; c++)
        x[c] = 2.0 * splitmix64_f64(&rng) - 1.0;
    for (long r = 0; r < rows; r++)
        ref[r] = row_product(r);

    /* y cleared to NaN before each step: a row not written shows. */
    double seconds = bench_steps(steps, y, sizeof(double) * (size_t)rows, 0xff, step, check_step);

    uint64_t hash = 0;
    for (long r = 0; r < rows; r++) {
        uint64_t bits;
        memcpy(&bits, &y[r], sizeof bits);
        hash += bits * (2 * (uint64_t)r + 1);
    }
    char check[32], extra[32];
    snprintf(check, sizeof check, "%#018llx", (unsigned long long)hash);
    snprintf(extra, sizeof extra, "\"nnz\":%zu", nnz);
    bench_report_steps(seconds, check, extra);
    return 0;
}
