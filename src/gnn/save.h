#include "../alone.h" /* (this file alone: src/alone.h) */
/* Save / load spec + parameters (framed, versioned, checksummed). Loading
 * replaces m only on success; m must be zeroed or hold a model. The stored
 * spec is validated, and the size of the parameter set it implies compared
 * with the bytes that follow, before anything is built: a forged file
 * (the checksum is no defence) is FGL_ERR_FORMAT, never a large
 * allocation. */
FGLDEF int fgl_model_save(const fgl_model *m, const char *path, fgl_error *err);
FGLDEF int fgl_model_load(fgl_model *m, const char *path, fgl_error *err);
FGLDEF void fgl_model_write(const fgl_model *m, fgl_bytes *b);
FGLDEF int fgl_model_read(fgl_model *m, fgl_reader *r, fgl_error *err);

/* fgl:private */
#include "../alone.h"
#define FGL__MODEL_VERSION 4u /* 2: parameter values in grouped memory order; 3: + norm_rep; 4: + residual, norm
                                 (after the floats; 2 and 3 still read) */
/* fgl:implementation */
#include "../alone.h"
/* --- save / load ---------------------------------------------------------------- */

#define FGL__MODEL_MAGIC "FGLM"


static void fgl__put_f(fgl_bytes *b, float v) { fgl_bytes_put_f32s(b, &v, 1); }

FGLDEF void fgl_model_write(const fgl_model *m, fgl_bytes *b) {
    const fgl_model_spec *s = &m->spec;
    int ints[16], i;
    ints[0] = s->arch; ints[1] = s->task; ints[2] = s->in_dim; ints[3] = s->hidden; ints[4] = s->out_dim;
    ints[5] = s->layers; ints[6] = s->readout; ints[7] = s->head; ints[8] = s->input_proj; ints[9] = s->batch_norm;
    ints[10] = s->learn_eps; ints[11] = s->heads; ints[12] = s->sgc_hops; ints[13] = s->pe_dim; ints[14] = s->masked;
    ints[15] = s->norm_rep;
    for (i = 0; i < 16; i++) fgl_bytes_put_u32(b, (uint32_t)ints[i]);
    fgl__put_f(b, s->dropout);
    fgl__put_f(b, s->input_dropout);
    fgl__put_f(b, s->gcnii_alpha);
    fgl__put_f(b, s->gcnii_lambda);
    fgl__put_f(b, s->mask_prune);
    fgl__put_f(b, s->bn_momentum);
    fgl__put_f(b, s->bn_eps);
    fgl_bytes_put_u32(b, (uint32_t)s->residual);
    fgl_bytes_put_u32(b, (uint32_t)s->norm);
    fgl_params_write(&m->params, b);
}

/* Reads a model written as file format `version` (2 has no norm_rep, 2 and
 * 3 no residual and norm: 0).
 * Everything the spec says is checked before the model is built (its flags,
 * floats and fgl_model_spec_check), then the parameter set it implies is
 * counted without allocating and compared with the bytes left: only a spec
 * the payload can back is built. m is replaced only on success. */
static int fgl__model_read(fgl_model *m, fgl_reader *r, unsigned version, fgl_error *err) {
    static const char *flag_names[5] = {"input_proj", "batch_norm", "learn_eps", "masked", "norm_rep"};
    static const int flag_at[5] = {8, 9, 10, 14, 15};
    static const char *float_names[7] = {"dropout", "input_dropout", "gcnii_alpha", "gcnii_lambda",
                                         "mask_prune", "bn_momentum", "bn_eps"};
    fgl_model_spec s;
    int ints[16], i, rc, n_ints = version >= 3 ? 16 : 15, residual = 0, norm = FGL_NORM_NONE;
    float fl[7];
    fgl_model tmp;
    fgl_layer_slots scratch[2 * FGL_MAX_LAYERS];
    fgl__builder count;
    fgl_error why;
    uint64_t need;
    size_t left;
    ints[15] = 0;
    for (i = 0; i < n_ints; i++) ints[i] = (int)fgl_reader_u32(r);
    fgl_reader_f32s(r, fl, 7);
    if (version >= 4) {
        residual = (int)fgl_reader_u32(r);
        norm = (int)fgl_reader_u32(r);
    }
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "model: truncated spec");
    if ((residual != 0 && residual != 1) || norm < FGL_NORM_NONE || norm > FGL_NORM_BATCH)
        return fgl_error_set(err, FGL_ERR_FORMAT, "model: stored residual = %d (0 or 1), norm = %d (0..2)", residual,
                             norm);
    for (i = 0; i < 5; i++)
        if (ints[flag_at[i]] != 0 && ints[flag_at[i]] != 1)
            return fgl_error_set(err, FGL_ERR_FORMAT, "model: stored flag %s = %d, expected 0 or 1", flag_names[i],
                                 ints[flag_at[i]]);
    for (i = 0; i < 7; i++)
        if (!fgl_all_finite(1, &fl[i]))
            return fgl_error_set(err, FGL_ERR_FORMAT, "model: stored %s is %g, not a finite number", float_names[i],
                                 (double)fl[i]);
    memset(&s, 0, sizeof s);
    s.arch = ints[0]; s.task = ints[1]; s.in_dim = ints[2]; s.hidden = ints[3]; s.out_dim = ints[4];
    s.layers = ints[5]; s.readout = ints[6]; s.head = ints[7]; s.input_proj = ints[8]; s.batch_norm = ints[9];
    s.learn_eps = ints[10]; s.heads = ints[11]; s.sgc_hops = ints[12]; s.pe_dim = ints[13]; s.masked = ints[14];
    s.dropout = fl[0]; s.input_dropout = fl[1]; s.gcnii_alpha = fl[2]; s.gcnii_lambda = fl[3];
    s.mask_prune = fl[4]; s.bn_momentum = fl[5]; s.bn_eps = fl[6];
    s.norm_rep = ints[15];
    s.residual = residual;
    s.norm = norm;
    if (fgl_model_spec_check(&s, &why) != FGL_OK)
        return fgl_error_set(err, FGL_ERR_FORMAT, "model: invalid stored spec: %s",
                             strncmp(why.msg, "model: ", 7) == 0 ? why.msg + 7 : why.msg);
    memset(&tmp, 0, sizeof tmp);
    memset(&count, 0, sizeof count);
    tmp.spec = s;
    tmp.conv = scratch; /* counting writes the slots too */
    tmp.sconv = scratch + FGL_MAX_LAYERS;
    count.m = &tmp;
    count.count_only = 1;
    fgl__build_layout(&count);
    /* fgl_params_write: slice count, slice headers, 4 bytes per float */
    need = 4 + count.n_header_bytes + 4 * count.n_floats;
    left = r->len - r->pos;
    if (need > (uint64_t)left)
        return fgl_error_set(err, FGL_ERR_FORMAT,
                             "model: the stored spec (%s, in_dim %d, hidden %d, out_dim %d, %d layers) implies %llu "
                             "parameters (%llu bytes), but %zu bytes remain",
                             fgl_arch_name(s.arch), s.in_dim, s.hidden, s.out_dim, s.layers,
                             (unsigned long long)count.n_floats, (unsigned long long)need, left);
    if ((rc = fgl_model_init(&tmp, &s, 0, err))) return rc;
    if ((rc = fgl_params_read(&tmp.params, r, err))) {
        fgl_model_free(&tmp);
        return rc;
    }
    fgl_model_free(m);
    *m = tmp;
    return FGL_OK;
}

FGLDEF int fgl_model_read(fgl_model *m, fgl_reader *r, fgl_error *err) {
    return fgl__model_read(m, r, FGL__MODEL_VERSION, err);
}

FGLDEF int fgl_model_save(const fgl_model *m, const char *path, fgl_error *err) {
    fgl_bytes b;
    size_t mark;
    int rc;
    fgl_bytes_init(&b);
    fgl_frame_begin(&b, FGL__MODEL_MAGIC, FGL__MODEL_VERSION, &mark);
    fgl_model_write(m, &b);
    fgl_frame_end(&b, mark);
    rc = b.err ? fgl_error_set(err, b.err, "%s: out of memory serialising the model", path)
               : fgl_file_write(path, b.data, b.len, err);
    fgl_bytes_free(&b);
    return rc;
}

FGLDEF int fgl_model_load(fgl_model *m, const char *path, fgl_error *err) {
    unsigned char *data;
    size_t len;
    fgl_reader r;
    int rc = fgl_file_read(path, &data, &len, err);
    if (rc) return rc;
    rc = fgl_frame_open(data, len, FGL__MODEL_MAGIC, FGL__MODEL_VERSION, &r, path, NULL);
    if (!rc) rc = fgl__model_read(m, &r, FGL__MODEL_VERSION, err);
    else if (!fgl_frame_open(data, len, FGL__MODEL_MAGIC, 3u, &r, path, NULL)) rc = fgl__model_read(m, &r, 3u, err);
    else if (!fgl_frame_open(data, len, FGL__MODEL_MAGIC, 2u, &r, path, NULL)) rc = fgl__model_read(m, &r, 2u, err);
    else rc = fgl_frame_open(data, len, FGL__MODEL_MAGIC, FGL__MODEL_VERSION, &r, path, err); /* the error */
    if (rc && err && strncmp(err->msg, path, strlen(path)) != 0) { /* name the file */
        char msg[FGL_ERROR_MSG_LEN];
        snprintf(msg, sizeof msg, "%s", err->msg);
        fgl_error_set(err, rc, "%s: %s", path, msg);
    }
    FGL_FREE(data);
    return rc;
}

#include "../alone.h"
