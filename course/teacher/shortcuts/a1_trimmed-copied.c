/* A shortcut submission for assignment 1: the library's own trimmed mean
 * (fgl_fed.h's robust rules) copied into the file under other names; it
 * calls nothing withheld. The grader finds the lines it shares with fgl's
 * source.
 * expect: a1=0 */
#include "course.h"

/* A source of a robust mixture: its value at one coordinate and its client
 * (ties in value go to the lower client: deterministic orders). */
typedef struct wval {
    double v;
    int j;
} wval;

static int cmp_wval(const void *a, const void *b) {
    const wval *x = (const wval *)a, *y = (const wval *)b;
    if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
    return (x->j > y->j) - (x->j < y->j);
}

/* The weighted median (t < 0) or trimmed mean (t >= 0) of the sorted values
 * col[0..c-1] under the weights w[col[q].j] (zero weights skipped): of the
 * n sources of positive weight, the min(t, (n - 1) / 2) smallest and as
 * many largest dropped (the most that leaves one), the weighted mean of the
 * rest (t = 0, or n <= 2: of them all). Equal positive weights, whatever
 * their value, count as 1 each: the plain median (the two middle values
 * averaged) and the plain trimmed mean, bit for bit (running sums of 0.1
 * would miss the exact half, and a v / (4 a) is not the mean of v); so
 * with equal weights a trim cut to (n - 1) / 2 is their median. */
static double order_stat(const wval *col, int c, const double *w, int t) {
    int q, npos = 0, seen = 0, equal = 1;
    double total = 0, cum = 0, sum = 0, wsum = 0, first = 0;
    for (q = 0; q < c; q++)
        if (w[col[q].j] > 0) {
            if (!npos) first = w[col[q].j];
            equal &= w[col[q].j] == first;
            total += w[col[q].j];
            npos++;
        }
    if (equal) total = npos;
    if (t >= 0 && npos > 0) { /* trimmed: the middle npos - 2 t, weighted (t cut to leave one) */
        if (2 * t >= npos) t = (npos - 1) / 2;
        for (q = 0; q < c; q++) {
            double a = w[col[q].j];
            if (!(a > 0)) continue;
            seen++;
            if (seen <= t || seen > npos - t) continue;
            if (equal) a = 1.0;
            sum += a * col[q].v;
            wsum += a;
        }
        return sum / wsum;
    }
    for (q = 0; q < c; q++) { /* the first value where the cumulative weight reaches half the total */
        double a = w[col[q].j];
        if (!(a > 0)) continue;
        cum += equal ? 1.0 : a;
        if (2 * cum < total) continue;
        if (2 * cum == total) { /* exactly half: the midpoint with the next value of positive weight */
            int r;
            for (r = q + 1; r < c; r++)
                if (w[col[r].j] > 0) return 0.5 * (col[q].v + col[r].v);
        }
        return col[q].v;
    }
    return 0; /* no positive weight (the caller refuses such rows) */
}

static int trimmed_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global");
    int K = s->n_clients, t = (int)fgl_get(s->set, "trim"), c, j, n = 0;
    wval *col = (wval *)fgl_scratch(&s->store, sizeof(wval) * (size_t)K);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    size_t k;
    if (!col || !w) return FGL_ERR_NOMEM;
    for (j = 0; j < K; j++) n += (w[j] = fgl_upload(s, j, "theta") ? 1.0 : 0.0) > 0;
    if (n == 0) return FGL_OK;
    if (2 * t >= n) return fgl_server_fail(s, FGL_ERR_ARG, "trimmed: trim=%d leaves nothing of %d uploads", t, n);
    for (k = 0; k < s->n_shared; k++) {
        for (j = c = 0; j < K; j++)
            if (fgl_upload(s, j, "theta")) {
                col[c].v = (double)fgl_upload(s, j, "theta")[k];
                col[c++].j = j;
            }
        qsort(col, (size_t)c, sizeof(wval), cmp_wval);
        global[k] = (float)order_stat(col, c, w, t);
    }
    return FGL_OK;
}

int a1_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    a.name = "trimmed";
    a.summary = "a shortcut";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "uploads dropped at each end, per coordinate");
    a.aggregate = trimmed_aggregate;
    return fgl_algo_register(&a);
}
