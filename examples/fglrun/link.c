/* fglrun/link.c - part of examples/fglrun.c (included by it): --task link,
 * link prediction on a node dataset's clients (src/gnn/link.h).
 *
 * The data and its split into clients are the node task's (--split metis
 * ...); each client's subgraph then gets its edge split (fgl_link_split_make
 * from the split seed + the client's index: the same split for every
 * algorithm and every run seed) and its model becomes the link task's
 * encoder: the spec model_spec makes for --task link (fgl_model_spec_default
 * of FGL_TASK_LINK: no head; --decoder mlp: an MLP head) with task
 * FGL_TASK_LINK and --link-dim outputs (the MLP decoder: one). The rest of fglrun runs
 * it as a node task: the run's "accuracy" is the AUC (mean over clients
 * weighted by their test edges), and the results add Hits@K.
 */
#include "fglrun.h"

static fgl_link_split *link_splits; /* the clients' edge splits (borrowed by the runs' client data) */
static int link_n;

FGLRUN_SHARED void link_free(void) {
    int i;
    for (i = 0; i < link_n; i++) fgl_link_split_free(&link_splits[i]);
    free(link_splits);
    link_splits = NULL;
    link_n = 0;
}

/* The link task on the node clients cd[0 .. sc->n_clients - 1]. */
FGLRUN_SHARED int link_clients(const options *o, const fgl_scenario *sc, fgl_client_data *cd, fgl_error *err) {
    fgl_link_config lo = fgl_link_default();
    int i, K = sc->n_clients;
    link_free();
    if (!sc->node) return fgl_error_set(err, FGL_ERR_ARG, "--task link needs a node dataset (one graph split into "
                                                          "subgraphs), not graph sets");
    lo.val = o->link_val;
    lo.test = o->link_test;
    lo.eval_neg = o->link_neg;
    lo.hits_k = o->hits_k;
    if (!(link_splits = (fgl_link_split *)calloc((size_t)(K > 0 ? K : 1), sizeof(fgl_link_split))))
        return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
    for (i = 0; i < K; i++) {
        fgl_model_spec *sp = &cd[i].spec;
        char msg[FGL_ERROR_MSG_LEN];
        if (fgl_link_split_make(cd[i].node, &lo, o->split_seed + (uint64_t)i, &link_splits[i], err)) {
            snprintf(msg, sizeof msg, "%s", err->msg);
            link_free();
            return fgl_error_set(err, err->code, "client %d's edges: %s", i, msg);
        }
        link_n = i + 1;
        cd[i].link = &link_splits[i];
        sp->task = FGL_TASK_LINK;
        if (o->decoder == 1) { /* the head (model_spec: MLP unless --head says otherwise) is the decoder */
            if (sp->head != FGL_HEAD_MLP)
                return fgl_error_set(err, FGL_ERR_ARG, "--decoder mlp is the MLP head: --head %s contradicts it",
                                     sp->head == FGL_HEAD_NONE ? "none" : "linear");
            sp->out_dim = 1;
        } else { /* model_spec gave the link default: no head (GCNII: its linear output map) */
            if (sp->head == FGL_HEAD_MLP)
                return fgl_error_set(err, FGL_ERR_ARG, "--head mlp with --decoder dot: the MLP decoder is the MLP "
                                                       "head (--decoder mlp)");
            sp->out_dim = o->link_dim;
        }
    }
    return 0;
}

/* The results' Hits@K: the table's extra rows and the JSON members. */
FGLRUN_SHARED void link_table(const options *o, const result *res) {
    int a;
    printf("Hits@%d:\n", o->hits_k);
    for (a = 0; a < o->n_algos; a++) {
        double bm, bs, lm, ls;
        if (res[a].n == 0) continue;
        mean_std(res[a].hits, res[a].n, &bm, &bs);
        mean_std(res[a].hits_last, res[a].n, &lm, &ls);
        if (res[a].n == 1) printf("%-10s %10.2f%9s %10.2f\n", o->labels[a], 100 * bm, "", 100 * lm);
        else printf("%-10s %10.2f +- %5.2f %10.2f +- %5.2f\n", o->labels[a], 100 * bm, 100 * bs, 100 * lm, 100 * ls);
    }
}

FGLRUN_SHARED void link_json(FILE *f, const options *o, const result *res) {
    fprintf(f, ", \"task\": \"link\", \"metric\": \"auc\", \"hits_k\": %d, \"decoder\": \"%s\"", o->hits_k,
            o->decoder == 1 ? "mlp" : "dot");
    json_mean_std(f, "test_hits", o->folds ? res->hits_last : res->hits, res->n);
    json_mean_std(f, "last_hits", res->hits_last, res->n);
}
