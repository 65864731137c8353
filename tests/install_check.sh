#!/bin/sh
# `make install` into a temporary prefix, then what a user does with it: the
# pkg-config file answers, a two-file C++ program (the implementation in one
# file, the use in another) builds with `pkg-config --cflags --libs fgl`,
# warning-free, and runs; the installed fglrun runs; `make uninstall` removes
# what was installed. One "ok"/"not ok"/"skip" line each.
top=$(pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
check() { # name, command...
    name=$1; shift
    if "$@" > "$tmp/log" 2>&1; then echo "ok - $name"
    else echo "not ok - $name"; sed 's/^/#   /' "$tmp/log" | head -n 20; fi
}
# a make started from a make recipe would warn about the jobserver
check "make install PREFIX=<tmp>" env MAKEFLAGS= make -s -C "$top" install PREFIX="$prefix"
check "installed: headers, fglrun, fgl.pc" sh -c "
    for f in fgl.h fgl_graph.h fgl_gnn.h fgl_fed.h; do cmp '$top/'\$f '$prefix/include/fgl/'\$f || exit 1; done
    test -x '$prefix/bin/fglrun' && test -r '$prefix/lib/pkgconfig/fgl.pc'"
if ! command -v pkg-config > /dev/null; then
    echo "skip - pkg-config checks (pkg-config not installed)"
    exit 0
fi
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
check "pkg-config --cflags fgl names the installed headers" sh -c "
    test \"\$(echo \$(pkg-config --cflags fgl))\" = '-I$prefix/include/fgl' &&
    test \"\$(echo \$(pkg-config --libs fgl))\" = '-lm' && test \"\$(pkg-config --variable=openmp fgl)\" = '-fopenmp'"

cat > "$tmp/impl.cpp" <<'X'
// the one translation unit with fgl's implementation
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
X
cat > "$tmp/main.cpp" <<'X'
// a user's program: a GCN trained on a synthetic node dataset (100 epochs)
#include "fgl_fed.h"
#include <cstdio>
#include <vector>

int main() {
    fgl_node_data d;
    fgl_error err;
    fgl_synth_node_config sc = fgl_synth_node_default();
    sc.n_nodes = 600;
    if (fgl_synth_node(&sc, 1, &d, NULL, &err) || fgl_split_nodes_random(&d, 0.3, 0.2, 1, &err)) {
        std::printf("data: %s\n", err.msg);
        return 1;
    }
    std::vector<unsigned char> train(d.n_nodes), test(d.n_nodes);
    for (int i = 0; i < d.n_nodes; i++) {
        train[i] = d.split[i] == FGL_SPLIT_TRAIN;
        test[i] = d.split[i] == FGL_SPLIT_TEST;
    }
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, d.n_feat, d.n_classes);
    fgl_model m;
    fgl_gnn_graph g;
    if (fgl_model_init(&m, &spec, 1, &err) || fgl_gnn_graph_from_node_data(&g, &d, &spec, &err)) {
        std::printf("model: %s\n", err.msg);
        return 1;
    }
    fgl_optim o;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    oc.lr = 0.01f;
    fgl_optim_init(&o, oc, &m.params);
    fgl_tape t;
    fgl_tape_init(&t);
    fgl_rng r;
    fgl_rng_init(&r, 1, 1);
    int e;
    for (e = 0; e < 100; e++) {
        fgl_forward out;
        fgl_tape_reset(&t);
        fgl_params_zero_grad(&m.params);
        fgl_model_forward(&m, &t, &g, 1, &r, &out);
        if (fgl_tape_backward(&t, fgl_op_cross_entropy(&t, out.logits, d.y, train.data()))) {
            std::printf("backward: %s\n", t.err.msg);
            return 1;
        }
        fgl_optim_step(&o, &m.params);
    }
    std::printf("gcn epochs %d test %.3f\n", e, fgl_model_accuracy(&m, &t, &g, d.y, test.data(), NULL));
    fgl_tape_free(&t);
    fgl_optim_free(&o);
    fgl_gnn_graph_free(&g);
    fgl_model_free(&m);
    fgl_node_data_free(&d);
    return 0;
}
X
CXX=${CXX:-c++}
check "two-file C++11 program built with pkg-config (-Wall -Wextra -Werror)" sh -c "
    cd '$tmp' && $CXX -std=c++11 -O0 -Wall -Wextra -Wpedantic -Werror \$(pkg-config --cflags fgl) -c impl.cpp &&
    $CXX -std=c++11 -O0 -Wall -Wextra -Wpedantic -Werror \$(pkg-config --cflags fgl) -c main.cpp &&
    $CXX impl.o main.o -o prog \$(pkg-config --libs fgl)"
# 7 classes: 0.5 is far above chance
check "the C++ program trains a GCN to > 50% test accuracy" sh -c "
    '$tmp/prog' > '$tmp/out' ; cat '$tmp/out'; awk '\$1 == \"gcn\" && \$5 > 0.5 { ok = 1 } END { exit !ok }' '$tmp/out'"
check "installed fglrun --help" sh -c "'$prefix/bin/fglrun' --help | grep -q -- '--algo'"
check "make uninstall removes them" sh -c "
    env MAKEFLAGS= make -s -C '$top' uninstall PREFIX='$prefix' &&
    test ! -e '$prefix/bin/fglrun' && test ! -e '$prefix/include/fgl' && test ! -e '$prefix/lib/pkgconfig/fgl.pc'"
