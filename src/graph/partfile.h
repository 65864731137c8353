#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Partition files: METIS's graph input and its part-id output              */
/* ------------------------------------------------------------------------ */

/* Write the graph adj in the METIS graph format (what gpmetis reads): a
 * header line "n m" (m the undirected edges), then line i (1-based) lists
 * the neighbours of node i - 1 as 1-based ids. Self loops are left out (METIS
 * refuses them); adj must be symmetric (the graph contract of node data).
 * Node i of the file is row i of adj: write the graph that will be
 * partitioned (after taking the largest component, if the protocol does),
 * so that the part file gpmetis makes lines up with it. */
FGLDEF int fgl_write_metis_graph(const fgl_csr *adj, const char *path, fgl_error *err);
/* Read a partition as gpmetis writes it (GRAPH.part.K): one integer part
 * id per line, line i the part of node i (0-based node order of the graph
 * written). n: the graph's nodes; the file must have exactly n lines. k > 0:
 * the ids must lie in 0..k-1 and every part must hold a node; k == 0: the
 * parts are 0..max id, each holding a node. *k_out (may be NULL) gets the
 * number of parts. Blank lines, signs other than a leading '-', text after
 * the number and ids outside the range are errors naming the line. All or
 * nothing: part (n ints) is written only when the whole file is valid.
 * Only a regular file is read (a directory, device or FIFO is FGL_ERR_IO,
 * told before it is opened), of at most 64 bytes a line: a file longer than
 * 64 n bytes (or fgl_file_max()) is FGL_ERR_RANGE before a byte is read,
 * and a line is refused at its 64th character, so what is read is bounded
 * by n even where the length is not known. */
FGLDEF int fgl_read_partition(const char *path, int n, int k, int *part, int *k_out, fgl_error *err);

/* fgl:private */
#include "../alone.h"
/* fgl:implementation */
#include "../alone.h"
/* --- partition files ------------------------------------------------------------ */

FGLDEF int fgl_write_metis_graph(const fgl_csr *adj, const char *path, fgl_error *err) {
    FILE *f;
    long entries = 0;
    int i, k, bad = 0;
    if (!adj || !path) return fgl_error_set(err, FGL_ERR_ARG, "write_metis_graph: no graph or path");
    for (i = 0; i < adj->rows; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) entries += adj->indices[k] != i;
    if (entries % 2) return fgl_error_set(err, FGL_ERR_ARG, "write_metis_graph: the graph is not symmetric");
    if (!(f = fopen(path, "w"))) return fgl_error_set(err, FGL_ERR_IO, "cannot write '%s'", path);
    bad |= fprintf(f, "%d %ld\n", adj->rows, entries / 2) < 0;
    for (i = 0; i < adj->rows && !bad; i++) {
        int first = 1;
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            if (adj->indices[k] == i) continue;
            bad |= fprintf(f, first ? "%d" : " %d", adj->indices[k] + 1) < 0;
            first = 0;
        }
        bad |= fputc('\n', f) == EOF;
    }
    bad |= fclose(f) != 0;
    return bad ? fgl_error_set(err, FGL_ERR_IO, "cannot write '%s' (disk full?)", path) : FGL_OK;
}

FGLDEF int fgl_read_partition(const char *path, int n, int k, int *part, int *k_out, fgl_error *err) {
    FILE *f;
    int *tmp, *count = NULL, line = 0, c = 0, maxid = -1, rc = FGL_OK, i;
    char buf[64];
    if (!path || n < 1 || k < 0 || !part)
        return fgl_error_set(err, FGL_ERR_ARG, "read_partition: no file, %d nodes, %d parts", n, k);
#if defined(__unix__) || defined(__APPLE__)
    { /* a FIFO would block fopen, a device never end: regular files only, bounded by n lines of 64 bytes */
        struct stat st;
        double most = 64.0 * (double)n, cap = (double)fgl_file_max();
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return fgl_error_set(err, FGL_ERR_IO, "partition file '%s' is not a regular file (%s)", path,
                                 S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
        if (stat(path, &st) == 0 && ((double)st.st_size > most || (cap > 0 && (double)st.st_size > cap)))
            return fgl_error_set(err, FGL_ERR_RANGE, "partition file '%s' has %.0f bytes, more than %d lines (the "
                                 "graph's nodes) of at most 64 bytes%s", path, (double)st.st_size, n,
                                 (double)st.st_size > most ? "" : " or the FGL_MAX_FILE_BYTES bound");
    }
#endif
    if (!(f = fopen(path, "r"))) return fgl_error_set(err, FGL_ERR_IO, "partition file '%s' cannot be opened", path);
    tmp = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
    if (!tmp) {
        fclose(f);
        return fgl_error_set(err, FGL_ERR_NOMEM, "read_partition: out of memory");
    }
    while (c != EOF) { /* one line at a time, at most sizeof buf - 1 characters of it */
        size_t len = 0;
        long v;
        char *end;
        while ((c = fgetc(f)) != EOF && c != '\n')
            if (len + 1 < sizeof buf) buf[len++] = (char)c;
            else {
                len = sizeof buf; /* too long: the mark of a bad line, told now (the line may never end) */
                break;
            }
        if (c == EOF && len == 0) break; /* the end, after the last newline */
        line++;
        if (len > 0 && len < sizeof buf && buf[len - 1] == '\r') len--; /* a file written on Windows */
        if (len >= sizeof buf) {
            rc = fgl_error_set(err, FGL_ERR_PARSE, "partition file '%s', line %d: too long for one part id", path,
                               line);
            break;
        }
        buf[len] = 0;
        if (line > n) {
            rc = fgl_error_set(err, FGL_ERR_SHAPE, "partition file '%s' has more lines than the graph's %d nodes "
                               "(one part id per node, as gpmetis writes)", path, n);
            break;
        }
        v = strtol(buf, &end, 10);
        while (*end == ' ' || *end == '\t') end++;
        if (len == 0 || end == buf || *end || !((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '-' || buf[0] == ' ')) {
            rc = fgl_error_set(err, FGL_ERR_PARSE, "partition file '%s', line %d: '%s' is not a part id (an integer)",
                               path, line, buf);
            break;
        }
        if (v < 0 || (k > 0 && v >= k) || v > 100000000L) {
            if (k > 0)
                rc = fgl_error_set(err, FGL_ERR_RANGE, "partition file '%s', line %d: part %ld is outside 0..%d "
                                   "(%d clients)", path, line, v, k - 1, k);
            else
                rc = fgl_error_set(err, FGL_ERR_RANGE, "partition file '%s', line %d: part %ld is not a part id "
                                   "(0 or more)", path, line, v);
            break;
        }
        tmp[line - 1] = (int)v;
        if ((int)v > maxid) maxid = (int)v;
    }
    if (!rc && ferror(f)) rc = fgl_error_set(err, FGL_ERR_IO, "partition file '%s' cannot be read", path);
    fclose(f);
    if (!rc && line != n)
        rc = fgl_error_set(err, line ? FGL_ERR_SHAPE : FGL_ERR_EMPTY, "partition file '%s' has %d lines, the graph %d "
                           "nodes (one part id per node, line i the part of node i)", path, line, n);
    if (!rc) {
        int parts = k > 0 ? k : maxid + 1;
        if (!(count = (int *)FGL_MALLOC(sizeof(int) * (size_t)parts))) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "read_partition: out of memory");
        } else {
            memset(count, 0, sizeof(int) * (size_t)parts);
            for (i = 0; i < n; i++) count[tmp[i]]++;
            for (i = 0; i < parts && !rc; i++)
                if (count[i] == 0)
                    rc = fgl_error_set(err, FGL_ERR_EMPTY, "partition file '%s': part %d of 0..%d holds no node "
                                       "(every client needs one)", path, i, parts - 1);
            if (!rc) {
                memcpy(part, tmp, sizeof(int) * (size_t)n);
                if (k_out) *k_out = parts;
            }
        }
    }
    FGL_FREE(count);
    FGL_FREE(tmp);
    return rc;
}
#include "../alone.h"
