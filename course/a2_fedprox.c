/* Assignment 2 - FedProx's proximal term, and a protocol where it matters.
 *
 * FedProx (Li et al. 2020) adds mu/2 ||theta - theta_g||^2 to each client's
 * local loss, theta_g being the model the client received this round. It
 * keeps clients that train many local steps from drifting far from the
 * global model. Its gradient is mu (theta - theta_g): add it to the
 * gradient of every trainable shared parameter before each optimizer step.
 *
 * Your algorithm is FedAvg with the training hook `grad` (called after the
 * backward pass, before the optimizer step) written by you. What you have
 * (fgl_fed.h, "The two sides"):
 *   fgl_get(c->set, "mu")     the proximal weight (--set mu=0.1)
 *   s->model->params          the model being trained: .data (values) and
 *                             .grad (gradients), both of .size floats
 *   c->span[k], k < c->n_span the shared parameters, as runs of floats: run k
 *                             is params.data[offset .. offset + len - 1] and
 *                             entries packed .. packed + len - 1 of the model
 *                             the client received; .trainable is 0 for runs
 *                             that are not trained (leave those alone)
 *   fgl_received(c)           the model received this round, packed (n_shared
 *                             floats), or NULL before anything was received
 * Write the term yourself: do not call the library's FedProx (the grader
 * checks which functions the file uses: course/README.md, "What you may use").
 *
 * Before you start, run
 *   ./course/build/fglrun --algo myprox,fedavg --data synthetic --set myprox.mu=1 --json
 * with the skeleton and with your solution: under fglrun's default node
 * protocol (one full-batch local step a round) FedProx and FedAvg are
 * identical to the bit. Why? Find a protocol where they differ (see
 * --local-epochs) and explain it in your report.
 *
 * Grade it: make -C course grade
 */
#include "course.h"

static int myprox_grad(fgl_client *c, const fgl_step *s) {
    /* TODO: your code here */
    (void)c;
    (void)s;
    return FGL_OK;
}

int a2_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    int i;
    a.name = "myprox";
    a.summary = "FedAvg plus a proximal term mu/2 ||theta - theta_g||^2 (assignment 2)";
    for (i = 0; i < a.n_params; i++) /* FedAvg already declares mu (0): FedProx's default is 0.01 */
        if (!strcmp(a.params[i].name, "mu")) a.params[i].def = 0.01;
    a.train.grad = myprox_grad;
    return fgl_algo_register(&a);
}
