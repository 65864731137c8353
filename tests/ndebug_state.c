/* A state name looked up but never created, in a build with NDEBUG (where
 * the debug build's assertion is gone): the lookup returns NULL, and the
 * run fails after the hook, naming the state and the side, on the client
 * (an upload hook) and on the server (an aggregate hook); and a typed state
 * read (FGL_STATE) that no init hook made (FGL_NEW_STATE); a parameter
 * row of the wrong size (fgl_run_init refuses the table) and FGL_PARAMS
 * with a struct larger than the algorithm's (the run fails). Built and run
 * by tests/ndebug_check.sh. */
#define FGL_IMPLEMENTATION
#include "../fgl_fed.h"
#include <stdio.h>
#include <string.h>

static int failed;
static void check(int ok, const char *what, const char *msg) {
    printf("%s - %s: %s\n", ok ? "ok" : "not ok", what, msg);
    failed |= !ok;
}

static int upload_misspelt(fgl_client *c) {
    const float *x = fgl_floats(&c->store, "sttae"); /* never created */
    return x ? FGL_OK : FGL_ERR_ARG;
}

typedef struct {
    float *x;
} never_made;

static int upload_unmade(fgl_client *c) {
    never_made *st = FGL_STATE(never_made, &c->store); /* no init hook made it */
    return st ? FGL_OK : FGL_ERR_ARG;
}

typedef struct {
    int steps;
} bad_params;

typedef struct {
    double big[20]; /* larger than FedAvg's parameter struct */
} oversized_params;

static double oversized_read;

static int upload_oversized(fgl_client *c) {
    oversized_read = FGL_PARAMS(oversized_params, c->set)->big[19]; /* (within the settings' buffer) */
    return FGL_OK;
}

static int aggregate_misspelt(fgl_server *s) {
    float *g = fgl_floats(&s->store, "globl"); /* FedAvg's is "global" */
    if (!g) return FGL_ERR_ARG;
    return fgl_server_mean(s, "theta", g);
}

int main(void) {
    fgl_dataset ds;
    fgl_scenario sc;
    fgl_split_config split = fgl_split_default();
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_dataset_config o = fgl_dataset_default();
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_error err;
    int side;
    split.clients = 3;
    spec.hidden = 16;
    if (fgl_dataset_load(&ds, NULL, "synthetic", FGL_TASK_NODE, &o, 0, &err) ||
        fgl_scenario_make(&sc, &ds, &split, &err)) {
        printf("not ok - synthetic data: %s\n", err.msg);
        return 1;
    }
    if (fgl_scenario_clients(&sc, &spec, cd, 3, &err)) {
        printf("not ok - clients: %s\n", err.msg);
        return 1;
    }
    cfg.rounds = 2;
    for (side = 0; side < 3; side++) {
        fgl_algo a = fgl_algo_base("fedavg");
        fgl_run run;
        int rc;
        a.name = "misspelt";
        if (side == 0) a.upload = upload_misspelt;
        else if (side == 1) a.aggregate = aggregate_misspelt;
        else a.upload = upload_unmade;
        if (fgl_run_init(&run, &cfg, &a, cd, 3, &err)) {
            check(0, "init", err.msg);
            continue;
        }
        rc = fgl_run_round(&run);
        check(rc == FGL_ERR_ARG &&
                  strstr(run.err.msg, side == 0 ? "'sttae'" : side == 1 ? "'globl'" : "typed state (FGL_STATE)") &&
                  strstr(run.err.msg, side < 2 ? "never created" : "no init hook made") &&
                  strstr(run.err.msg, side == 1 ? "server" : "client"),
              side == 0   ? "a misspelt state on a client (upload hook)"
              : side == 1 ? "a misspelt state on the server (aggregate hook)"
                          : "a typed state read before it was made (FGL_STATE without FGL_NEW_STATE)",
              run.err.msg);
        fgl_run_free(&run);
    }
    { /* a parameter row naming a member of the wrong size (an int declared FLOAT): the debug build asserts;
       * here fgl_run_init refuses the table naming the row */
        fgl_algo a = fgl_algo_new("badrow", "a row of the wrong size");
        fgl_run run;
        FGL_ALGO_PARAM(&a, bad_params, steps, FGL_PARAM_FLOAT, 1, "an int member declared FLOAT");
        check(fgl_run_init(&run, &cfg, &a, cd, 3, &err) == FGL_ERR_ARG && strstr(err.msg, "'steps'"),
              "a parameter row of the wrong size refuses the table", err.msg);
    }
    { /* FGL_PARAMS with a struct larger than the algorithm's: the run fails after the hook */
        fgl_algo a = fgl_algo_base("fedavg");
        fgl_run run;
        a.name = "oversized";
        a.upload = upload_oversized;
        if (fgl_run_init(&run, &cfg, &a, cd, 3, &err)) check(0, "init", err.msg);
        else {
            check(fgl_run_round(&run) == FGL_ERR_ARG && strstr(run.err.msg, "FGL_PARAMS"),
                  "FGL_PARAMS with a struct larger than the algorithm's fails the run", run.err.msg);
            fgl_run_free(&run);
        }
    }
    fgl_scenario_free(&sc);
    fgl_dataset_free(&ds);
    return failed;
}
