/* libFuzzer harness of the heterophilous sets' reader: fgl_load_npz on the
 * input as a whole .npz file (zip central directory, DEFLATE, .npy
 * members), and fgl_inflate on the input as a raw DEFLATE stream (so that
 * the mutations reach the Huffman decoder without having to build a zip
 * around it). An error leaves the output zeroed and says why; a dataset
 * that loads passes the node-data validator, and its splits give every node
 * a known role. */
#include "fuzz.h"

static const char *const files[1] = {"F.npz"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fgl_node_data d;
    fgl_error e;
    unsigned char *splits = NULL, out[4096];
    int rc, n_splits = -1;
    /* the raw stream: whatever it decodes to, a bounded buffer and a message on failure */
    memset(&e, 0, sizeof e);
    rc = fgl_inflate(data, size, out, sizeof out, "fuzz", &e);
    if (rc) FZ_CHECK(e.msg[0], "inflate failed without a message (%s)", fgl_result_name(rc));
    /* the whole file */
    fz_write(files[0], data, size);
    memset(&d, 0x5a, sizeof d);
    memset(&e, 0, sizeof e);
    rc = fgl_load_npz(fz_path(files[0]), &d, &splits, &n_splits, &e);
    if (rc) {
        fz_check_error(rc, &e, &d, sizeof d);
        FZ_CHECK(splits == NULL, "splits held after %s", fgl_result_name(rc));
    } else {
        int s, i;
        FZ_CHECK(fgl_node_data_validate(&d, &e) == FGL_OK, "loaded data invalid: %s", e.msg);
        FZ_CHECK(n_splits >= 0 && (n_splits == 0) == (splits == NULL), "%d splits, array %p", n_splits, (void *)splits);
        for (s = 0; s < n_splits; s++)
            for (i = 0; i < d.n_nodes; i++)
                FZ_CHECK(splits[(size_t)s * (size_t)d.n_nodes + (size_t)i] <= 3, "split %d node %d: role %d", s, i,
                         splits[(size_t)s * (size_t)d.n_nodes + (size_t)i]);
        FGL_FREE(splits);
        fgl_node_data_free(&d);
    }
    fz_remove_all(files, 1);
    return 0;
}
