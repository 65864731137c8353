/* mlp.c - train a two-layer perceptron on three interleaved 2-D spirals.
 *
 * A first tour of fgl.h: a parameter set holds the weights, each training
 * step records the forward pass on a tape, backward fills the gradients, and
 * Adam updates the weights. Build with `make` and run ./build/mlp.
 */
#define FGL_IMPLEMENTATION
#include "fgl.h"

#include <math.h>
#include <stdio.h>

#define N_PER_CLASS 100
#define N (3 * N_PER_CLASS)
#define HIDDEN 64
#define STEPS 1000

/* Spiral c: points at radius r = i / N_PER_CLASS, angle 4r + 2 pi c / 3, with noise. */
static void make_spirals(float *x, int *y, fgl_rng *rng) {
    int c, i;
    for (c = 0; c < 3; c++)
        for (i = 0; i < N_PER_CLASS; i++) {
            int k = c * N_PER_CLASS + i;
            double r = (double)i / N_PER_CLASS, a = 4.0 * r + 2.0943951 * c + 0.2 * fgl_rng_normal(rng);
            x[2 * k] = (float)(r * cos(a));
            x[2 * k + 1] = (float)(r * sin(a));
            y[k] = c;
        }
}

/* logits = relu(x W1 + b1) W2 + b2: one row of 3 class scores per point. */
static fgl_node *forward(fgl_tape *t, fgl_params *ps, const float *x, int n) {
    fgl_node *h = fgl_op_const(t, x, n, 2);
    h = fgl_op_bias(t, fgl_op_matmul(t, h, fgl_op_param(t, ps, 0)), fgl_op_param(t, ps, 1));
    h = fgl_op_relu(t, h);
    return fgl_op_bias(t, fgl_op_matmul(t, h, fgl_op_param(t, ps, 2)), fgl_op_param(t, ps, 3));
}

int main(void) {
    static float x[2 * N];
    static int y[N];
    fgl_rng rng;
    fgl_params ps;
    fgl_optim opt;
    fgl_optim_config cfg;
    fgl_tape t;
    fgl_node *logits, *loss;
    int step, i, j, correct = 0;

    fgl_rng_init(&rng, 42, 0); /* the same seed gives the same run */
    make_spirals(x, y, &rng);

    /* The model: four named slices of one flat parameter buffer. */
    fgl_params_init(&ps);
    fgl_params_add(&ps, "W1", 2, HIDDEN, FGL_G_FEATURE, 1);
    fgl_params_add(&ps, "b1", 1, HIDDEN, FGL_G_FEATURE, 1);
    fgl_params_add(&ps, "W2", HIDDEN, 3, FGL_G_HEAD, 1);
    fgl_params_add(&ps, "b2", 1, 3, FGL_G_HEAD, 1);
    fgl_params_fan_in_uniform(&ps, 0, 2, &rng);
    fgl_params_fan_in_uniform(&ps, 2, HIDDEN, &rng);

    cfg = fgl_optim_default(FGL_ADAM);
    cfg.lr = 0.02f;
    if (fgl_optim_init(&opt, cfg, &ps) != FGL_OK) return 1;
    fgl_tape_init(&t);

    for (step = 0; step <= STEPS; step++) {
        fgl_tape_reset(&t);       /* forget last step's nodes, keep the memory */
        fgl_params_zero_grad(&ps); /* gradients accumulate: clear them first */
        loss = fgl_op_cross_entropy(&t, forward(&t, &ps, x, N), y, NULL);
        if (fgl_tape_backward(&t, loss) != FGL_OK) { /* errors carry a message */
            fprintf(stderr, "mlp: %s\n", t.err.msg);
            return 1;
        }
        if (step % 100 == 0) printf("step %4d  loss %.4f\n", step, loss->val[0]);
        fgl_optim_step(&opt, &ps);
    }

    /* Training accuracy: the class with the largest logit. */
    fgl_tape_reset(&t);
    logits = forward(&t, &ps, x, N);
    for (i = 0; logits && i < N; i++) {
        int best = 0;
        for (j = 1; j < 3; j++)
            if (logits->val[i * 3 + j] > logits->val[i * 3 + best]) best = j;
        correct += best == y[i];
    }
    printf("training accuracy %.1f%% (%d of %d points)\n", 100.0 * correct / N, correct, N);

    fgl_tape_free(&t);
    fgl_optim_free(&opt);
    fgl_params_free(&ps);
    return 0;
}
