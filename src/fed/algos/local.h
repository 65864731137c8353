/* fgl:implementation */
/* --- Local: no communication ------------------------------------------------------ */

/* 1 if the declaration parts[0..n-1] has a part called name. */
static int fgl__declares(const fgl_part *parts, int n, const char *name) {
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(parts[i].name, name) == 0) return 1;
    return 0;
}

static fgl_algo fgl__local(void) { return fgl_algo_new("local", "self-training: each client trains alone, nothing is sent"); }

