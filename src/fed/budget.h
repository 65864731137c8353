#include "../alone.h" /* (this file alone: src/alone.h) */
/* --- the memory a run needs, estimated before anything is built ------------------- */
/* fgl_run_check (run.h) refuses a run whose models would not fit
 * (cfg.mem_limit) before it allocates the first of them. */

/* fgl:implementation */
#include "../alone.h"
/* The machine's memory in bytes, or 0 where it cannot be told. */
static double fgl__machine_memory(void) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) return (double)pages * (double)size;
#endif
    return 0;
}

/* A lower bound of the memory a run's models need, checked against
 * cfg.mem_limit before any model is built (a model of --hidden 1000000 on
 * Cora, 5.7 GB a client, was being initialised for minutes): every client's
 * parameters four times (values, gradients, two optimizer moments), counted
 * as the fewest a model of its widths has (a linear map per layer: in x
 * hidden, hidden x hidden for each further one, hidden x out; SGC in x out),
 * and the widest client's activations (its nodes x hidden x layers). */
static int fgl__memory_check(fgl_run *run, const fgl_model_spec *specs) {
    double limit = run->cfg.mem_limit > 0 ? run->cfg.mem_limit : fgl__machine_memory(), params = 0, acts = 0,
           widest = 0;
    int i;
    if (!(limit > 0)) return FGL_OK;
    for (i = 0; i < run->n_clients; i++) {
        const fgl_model_spec *sp = &specs[i];
        double in = sp->in_dim, h = sp->hidden, out = sp->out_dim, L = sp->layers, p, a;
        p = sp->arch == FGL_ARCH_SGC ? in * out : in * h + (L > 1 ? (L - 1) * h * h : 0) + h * out;
        a = (double)run->n_nodes[i] * (sp->arch == FGL_ARCH_SGC ? out : h) * L;
        params += p;
        if (p > widest) widest = p;
        if (a > acts) acts = a;
    }
    if (4.0 * (4 * params + acts) <= limit) return FGL_OK;
    return fgl_error_set(&run->err, FGL_ERR_NOMEM,
                         "run: the models need at least %.3g GB (%d clients' parameters four times over, the largest "
                         "model %.3g floats, and the widest client's activations), above the limit of %.3g GB "
                         "(cfg.mem_limit%s; fglrun --mem-limit): use a smaller model or fewer clients",
                         4.0 * (4 * params + acts) / 1e9, run->n_clients, widest, limit / 1e9,
                         run->cfg.mem_limit > 0 ? "" : ": this machine's memory");
}
#include "../alone.h"
