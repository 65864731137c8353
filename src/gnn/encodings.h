/* FedStar's structure embedding of every node of a graph set: s->pe =
 * [DSE | RWSE] (k_dse + k_rwse columns; docs/algorithms.md: 16+16), computed
 * once on the set's block-diagonal adjacency. */
FGLDEF int fgl_structure_encodings(fgl_graph_set *s, int k_dse, int k_rwse, fgl_error *err);

/* fgl:implementation */
/* --- structure encodings ----------------------------------------------------------- */

FGLDEF int fgl_structure_encodings(fgl_graph_set *s, int k_dse, int k_rwse, fgl_error *err) {
    size_t n = (size_t)s->n_nodes, i;
    int w = k_dse + k_rwse, rc = FGL_OK, j;
    float *dse, *rwse, *pe;
    if (k_dse < 0 || k_rwse < 0 || w <= 0)
        return fgl_error_set(err, FGL_ERR_ARG, "structure encodings: widths %d + %d", k_dse, k_rwse);
    dse = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n * (size_t)k_dse, 1));
    rwse = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n * (size_t)k_rwse, 1));
    pe = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n * (size_t)w, 1));
    if (!dse || !rwse || !pe) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for structure encodings", s->name);
        goto done;
    }
    if ((k_dse && (rc = fgl_dse(&s->adj, k_dse, dse))) || (k_rwse && (rc = fgl_rwse(&s->adj, k_rwse, rwse)))) {
        fgl_error_set(err, rc, "%s: structure encodings failed (%s)", s->name, fgl_result_name(rc));
        goto done;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < k_dse; j++) pe[i * w + j] = dse[i * k_dse + j];
        for (j = 0; j < k_rwse; j++) pe[i * w + k_dse + j] = rwse[i * k_rwse + j];
    }
    FGL_FREE(s->pe);
    s->pe = pe;
    s->n_pe = w;
    pe = NULL;
done:
    FGL_FREE(dse);
    FGL_FREE(rwse);
    FGL_FREE(pe);
    return rc;
}

