/* fglrun/plots.c - part of examples/fglrun.c (included by it): SVG plots. */
#include "fglrun.h"

/* ======================================================================================= */
/* --- plots: standalone SVG in --out DIR --------------------------------------------------- */
/*
 * curves.svg   mean client validation and test accuracy per round, one line
 *              per algorithm (the mean over seeds) and a band from the lowest
 *              to the highest seed;
 * clients.svg  each client's test accuracy at the last round (mean over
 *              seeds, a whisker from the lowest to the highest seed), and the
 *              same sorted, worst client first (fairness); under --dp only
 *              with --per-client-records;
 * bytes.svg    megabytes sent (up + down) so far, per round, per algorithm;
 * ALGO_seedS_matrix.svg  an algorithm's client-to-client matrix (heatmap).
 * tests/test_plots.sh renders each in headless Chromium and checks that no
 * text leaves the picture or overlaps other text. Each SVG has a viewBox
 * and width 100%: it scales to the window (or page) that shows it. Lines
 * of different algorithms differ in colour, dash and width (the later
 * ones narrower), so that two identical curves stay visible: the dashed
 * narrower one over the wider one, which shows on both sides. When each
 * client is one dataset (--split per-dataset), clients are named by it.
 */

static const char *plot_colour(int i) {
    static const char *c[] = {"#1f5fbf", "#d2452b", "#2a9d4b", "#8e44ad", "#e08a00",
                              "#1a9aa8", "#c2378a", "#5b6770", "#7a8f00", "#8c5a2b"};
    return c[i % 10];
}

/* The line style of series i, so that lines lying on each other stay
 * visible (NULL: solid). */
static const char *plot_dash(int i) {
    static const char *d[] = {NULL, "9 4", "3 3", "12 3 3 3"};
    return d[i % 4];
}

/* The line width of series i of n: the first widest (3.5), the last 2, so
 * that a line lying on an earlier one leaves it showing on both sides. */
static double plot_width(int i, int n) { return n > 1 ? 3.5 - 1.5 * i / (n - 1) : 2; }

/* Width of s in pixels at font size px: a generous estimate for common
 * sans-serif fonts by classes of characters (the layout leaves room for
 * it; tests/test_plots.sh measures the real text in Chromium). */
static double text_w(const char *s, double px) {
    double em = 0;
    for (; *s; s++) {
        if (strchr("ijlt.,:;!|'()[] ", *s)) em += 0.36;
        else if (strchr("mwMW%", *s)) em += 0.95;
        else if (*s >= 'A' && *s <= 'Z') em += 0.74;
        else em += 0.64;
    }
    return em * px;
}

/* Text content, escaped for XML. */
/* Text for XML: the markup characters escaped, and what XML 1.0 cannot
 * hold (control characters, bytes that are not well-formed UTF-8) replaced
 * by U+FFFD, so that a plot of a file name in another encoding stays a
 * well-formed document. */
static void svg_esc(FILE *f, const char *s) {
    const unsigned char *end = (const unsigned char *)s + strlen(s);
    while (*s) {
        unsigned char c = (unsigned char)*s;
        int n = c < 0x80 ? 1 : utf8_len((const unsigned char *)s, end);
        if (c == '&') fputs("&amp;", f);
        else if (c == '<') fputs("&lt;", f);
        else if (c == '>') fputs("&gt;", f);
        else if (c == '"') fputs("&quot;", f);
        else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || !n) fputs("\xef\xbf\xbd", f);
        else fwrite(s, 1, (size_t)n, f);
        s += n ? n : 1;
    }
}

static void svg_text(FILE *f, double x, double y, const char *anchor, double px, const char *extra, const char *s) {
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%g\"%s%s>", x, y, anchor, px, extra ? " " : "",
            extra ? extra : "");
    svg_esc(f, s);
    fputs("</text>\n", f);
}

/* The root element: a viewBox of w x h user units at width 100%, so that
 * the picture scales to whatever shows it; a white background. */
static void svg_begin(FILE *f, int w, int h) {
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100%%\" viewBox=\"0 0 %d %d\" "
               "preserveAspectRatio=\"xMidYMid meet\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
               "fill=\"#222\">\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h, w, h);
}

/* One SVG is written at a time, to a temporary file that svg_close renames
 * over the plot (fglrun/files.c). */
static outfile svg_out;

static FILE *svg_open(const char *dir, const char *name, int w, int h) {
    char path[1200];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = out_open(&svg_out, path))) return NULL;
    svg_begin(f, w, h);
    return f;
}

/* A plot area: pixels (px, py, pw, ph) showing data x0..x1, y0..y1
 * (ylog: decades). */
typedef struct chart {
    FILE *f;
    double px, py, pw, ph, x0, x1, y0, y1;
    int ylog;
} chart;

static double ch_x(const chart *c, double x) { return c->px + (x - c->x0) / (c->x1 - c->x0) * c->pw; }

static double ch_y(const chart *c, double y) {
    double t = c->ylog ? (log10(y) - log10(c->y0)) / (log10(c->y1) - log10(c->y0)) : (y - c->y0) / (c->y1 - c->y0);
    return c->py + c->ph - t * c->ph;
}

static double nice_step(double span, int n) {
    double raw = span / n, mag, f;
    if (!(raw > 0)) return 1;
    mag = pow(10, floor(log10(raw)));
    f = raw / mag;
    return (f <= 1.2 ? 1 : f <= 2.5 ? 2 : f <= 6 ? 5 : 10) * mag;
}

static void fmt_tick(char *out, size_t cap, double v, double step) {
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    snprintf(out, cap, "%.*f", dec > 6 ? 6 : dec, fabs(v) < step * 1e-6 ? 0.0 : v);
}

/* Frame, grid, ticks, axis labels and the panel title. */
static void ch_axes(chart *c, const char *xlabel, const char *ylabel, const char *title, int integer_x) {
    FILE *f = c->f;
    char buf[64];
    double s, v;
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbfbfb\" stroke=\"#bbb\"/>\n", c->px, c->py,
            c->pw, c->ph);
    s = nice_step(c->x1 - c->x0, (int)(c->pw / 70) > 2 ? (int)(c->pw / 70) : 2);
    if (integer_x && s < 1) s = 1;
    for (v = ceil(c->x0 / s - 1e-9) * s; v <= c->x1 + s * 1e-9; v += s) {
        double x = ch_x(c, v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x, c->py, x, c->py + c->ph);
        fmt_tick(buf, sizeof buf, v, s);
        svg_text(f, x, c->py + c->ph + 15, "middle", 11, NULL, buf);
    }
    if (c->ylog) {
        for (v = pow(10, ceil(log10(c->y0) - 1e-9)); v <= c->y1 * (1 + 1e-9); v *= 10) {
            double y = ch_y(c, v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", c->px, y, c->px + c->pw, y);
            fmt_tick(buf, sizeof buf, v, v);
            svg_text(f, c->px - 6, y + 4, "end", 11, NULL, buf);
        }
    } else {
        s = nice_step(c->y1 - c->y0, 5);
        for (v = ceil(c->y0 / s - 1e-9) * s; v <= c->y1 + s * 1e-9; v += s) {
            double y = ch_y(c, v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", c->px, y, c->px + c->pw, y);
            fmt_tick(buf, sizeof buf, v, s);
            svg_text(f, c->px - 6, y + 4, "end", 11, NULL, buf);
        }
    }
    svg_text(f, c->px + c->pw / 2, c->py + c->ph + 34, "middle", 12, NULL, xlabel);
    fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">",
            c->px - 44, c->py + c->ph / 2);
    svg_esc(f, ylabel);
    fputs("</text>\n", f);
    if (title) svg_text(f, c->px, c->py - 8, "start", 13, "font-weight=\"bold\"", title);
}

/* A polyline through the finite points (x[i], y[i]). */
static void ch_line(chart *c, const double *x, const double *y, int n, const char *colour, double width, const char *dash) {
    int i, first = 1;
    fprintf(c->f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%g\" stroke-linejoin=\"round\"%s%s%s d=\"", colour, width,
            dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
    for (i = 0; i < n; i++) {
        if (!(y[i] == y[i]) || (c->ylog && !(y[i] > 0))) continue;
        fprintf(c->f, "%s%.1f %.1f", first ? "M" : " L", ch_x(c, x[i]), ch_y(c, y[i]));
        first = 0;
    }
    fprintf(c->f, "\"/>\n");
}

/* A translucent band between lo and hi (points where both are finite). */
static void ch_band(chart *c, const double *x, const double *lo, const double *hi, int n, const char *colour) {
    int i, first = 1;
    fprintf(c->f, "<path fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" d=\"", colour);
    for (i = 0; i < n; i++) {
        if (!(lo[i] == lo[i]) || !(hi[i] == hi[i])) continue;
        fprintf(c->f, "%s%.1f %.1f", first ? "M" : " L", ch_x(c, x[i]), ch_y(c, hi[i]));
        first = 0;
    }
    for (i = n - 1; i >= 0; i--) {
        if (!(lo[i] == lo[i]) || !(hi[i] == hi[i])) continue;
        fprintf(c->f, " L%.1f %.1f", ch_x(c, x[i]), ch_y(c, lo[i]));
    }
    fprintf(c->f, "%s\"/>\n", first ? "" : " Z");
}

/* Legend entries laid out in rows from (x, y) within width w, entry i in
 * the colour and dash of series which[i]; returns the y below the last row. */
static double legend(FILE *f, double x, double y, double w, char labels[][160], const int *which, int n, int markers) {
    double cx = x;
    int i;
    for (i = 0; i < n; i++) {
        double iw = 30 + text_w(labels[i], 12) + 18;
        int s = which[i];
        if (cx > x && cx + iw > x + w) {
            cx = x;
            y += 20;
        }
        if (markers)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", cx + 12, y - 4, plot_colour(s));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"%s%s%s/>\n", cx,
                y - 4, cx + 24, y - 4, plot_colour(s), plot_dash(s) ? " stroke-dasharray=\"" : "",
                plot_dash(s) ? plot_dash(s) : "", plot_dash(s) ? "\"" : "");
        svg_text(f, cx + 30, y, "start", 12, NULL, labels[i]);
        cx += iw;
    }
    return y + 20;
}

/* Per-round mean, lowest and highest over the seeds of v (seeds x R). */
static void over_seeds(const double *v, int n, int R, double *mean, double *lo, double *hi) {
    int r, s;
    for (r = 0; r < R; r++) {
        double sum = 0;
        int k = 0;
        lo[r] = hi[r] = NAN;
        for (s = 0; s < n; s++) {
            double x = v[(size_t)s * R + r];
            if (!(x == x)) continue;
            sum += x;
            if (!k || x < lo[r]) lo[r] = x;
            if (!k || x > hi[r]) hi[r] = x;
            k++;
        }
        mean[r] = k ? sum / k : NAN;
    }
}

/* The title, and the subtitle on one line or, if it is too wide for W, two. */
static void plot_header(FILE *f, int W, const char *title, const char *sub) {
    char line[600];
    size_t n = strlen(sub), cut = n;
    svg_text(f, 16, 24, "start", 16, "font-weight=\"bold\"", title);
    while (cut > 0 && 16 + text_w(sub, 12) * cut / n > W - 16) { /* the last space that fits */
        do cut--;
        while (cut > 0 && sub[cut] != ' ');
    }
    if (cut == 0 || cut >= n) {
        svg_text(f, 16, 44, "start", 12, "fill=\"#555\"", sub);
        return;
    }
    snprintf(line, sizeof line, "%.*s", (int)cut, sub);
    svg_text(f, 16, 44, "start", 12, "fill=\"#555\"", line);
    svg_text(f, 16, 60, "start", 12, "fill=\"#555\"", sub + cut + 1);
}

static void plot_curves(const options *o, const progress *pg, const char *what) {
    int A = pg->n_algos, R = pg->rounds, a, r, p, nl = 0, seeds = 1, gaps = o->eval_every > 1;
    double *x = (double *)malloc(sizeof(double) * R), *m = (double *)malloc(sizeof(double) * R),
           *lo = (double *)malloc(sizeof(double) * R), *hi = (double *)malloc(sizeof(double) * R);
    double ymin = 100, ymax = 0;
    char labels[MAX_ITEMS][160], sub[600], ylabel[64], title[64];
    const char *metric = o->task == FGL_TASK_LINK ? "AUC" : "accuracy"; /* --task link: the run's accuracy is the AUC */
    int W = 1000, H = 470, which[MAX_ITEMS];
    FILE *f;
    chart c[2];
    if (!x || !m || !lo || !hi) goto done;
    for (r = 0; r < R; r++) x[r] = r + 1;
    for (a = 0; a < A; a++) { /* a common accuracy range for both panels */
        const curves *cv = &pg->cv[a];
        if (!cv->n) continue;
        if (cv->n > seeds) seeds = cv->n;
        for (p = 0; p < 2; p++) {
            over_seeds(p ? cv->test : cv->val, cv->n, R, m, lo, hi);
            for (r = 0; r < R; r++) {
                if (lo[r] == lo[r] && 100 * lo[r] < ymin) ymin = 100 * lo[r];
                if (hi[r] == hi[r] && 100 * hi[r] > ymax) ymax = 100 * hi[r];
            }
        }
    }
    if (ymax < ymin) ymin = 0, ymax = 100;
    {
        double s = nice_step(ymax - ymin > 1 ? ymax - ymin : 1, 5);
        ymin = floor(ymin / s) * s;
        ymax = ceil(ymax / s) * s;
        if (ymax <= ymin) ymax = ymin + s;
        if (ymin < 0) ymin = 0;
        if (ymax > 100) ymax = 100;
    }
    if (!(f = svg_open(o->out_dir, "curves.svg", W, H))) goto done;
    snprintf(sub, sizeof sub, "%s. Mean client %s each round; line: mean over %d %s%s%s%s", what, metric, seeds,
             o->folds ? "run" : "seed", seeds > 1 ? "s" : "", seeds > 1 ? ", band: lowest to highest " : "",
             seeds > 1 ? (o->folds ? "run" : "seed") : "");
    plot_header(f, W, "Learning curves", sub);
    for (p = 0; p < 2; p++) {
        c[p].f = f;
        c[p].px = 80 + p * 470;
        c[p].py = 88;
        c[p].pw = 400;
        c[p].ph = 280;
        c[p].x0 = 1;
        c[p].x1 = R > 1 ? R : 2;
        c[p].y0 = ymin - 0.03 * (ymax - ymin); /* a margin: lines at the extremes stay off the frame */
        c[p].y1 = ymax + 0.03 * (ymax - ymin);
        c[p].ylog = 0;
        snprintf(ylabel, sizeof ylabel, "%s %s (%%)", p ? "test" : "validation", metric);
        snprintf(title, sizeof title, "%s %s", p ? "Test" : "Validation", metric);
        ch_axes(&c[p], "round", ylabel, title, 1);
        if (!p && o->folds) /* cross-validation keeps no validation set */
            svg_text(f, c[p].px + c[p].pw / 2, c[p].py + c[p].ph / 2, "middle", 12, "fill=\"#555\"",
                     "no validation set (--folds: cross-validation)");
        for (a = 0; a < A; a++) {
            const curves *cv = &pg->cv[a];
            if (!cv->n) continue;
            over_seeds(p ? cv->test : cv->val, cv->n, R, m, lo, hi);
            for (r = 0; r < R; r++) m[r] *= 100, lo[r] *= 100, hi[r] *= 100;
            if (cv->n > 1) ch_band(&c[p], x, lo, hi, R, plot_colour(a));
            ch_line(&c[p], x, m, R, plot_colour(a), plot_width(a, A), plot_dash(a));
            if (gaps)
                for (r = 0; r < R; r++)
                    if (m[r] == m[r])
                        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", ch_x(&c[p], x[r]),
                                ch_y(&c[p], m[r]), plot_colour(a));
        }
    }
    for (a = 0; a < A; a++) {
        double bm, bs;
        if (!pg->res[a].n) continue; /* not run (a run failed) */
        mean_std(o->folds ? pg->res[a].last : pg->res[a].best, pg->res[a].n, &bm, &bs); /* folds: no validation set */
        which[nl] = a;
        snprintf(labels[nl++], sizeof labels[0], "%s: test %.2f%% (%s)", o->labels[a], 100 * bm,
                 o->folds ? "at the last round" : "at the best-validation round");
    }
    legend(f, 80, 420, W - 100, labels, which, nl, 0);
    fprintf(f, "</svg>\n");
    out_commit(&svg_out);
done:
    free(x);
    free(m);
    free(lo);
    free(hi);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void plot_clients(const options *o, const progress *pg, const char *what) {
    int A = pg->n_algos, K = pg->K, a, i, s, nl = 0, seeds = 1, dots = K <= 40;
    double *mean = (double *)calloc((size_t)A * K, sizeof(double)), *lo = (double *)calloc((size_t)A * K, sizeof(double)),
           *hi = (double *)calloc((size_t)A * K, sizeof(double)), *xs = (double *)calloc((size_t)K, sizeof(double)),
           *ys = (double *)calloc((size_t)K, sizeof(double));
    double ymin = 100, ymax = 0, step, name_w = 0, extra = 0;
    char labels[MAX_ITEMS][160], sub[600], buf[96], ylabel[64];
    const char *metric = o->task == FGL_TASK_LINK ? "AUC" : "accuracy"; /* --task link: the run's accuracy is the AUC */
    int W = 1000, H = 480, which[MAX_ITEMS], vertical = 0;
    const char *const *names = dots ? pg->names : NULL; /* clients that are datasets: named by them */
    FILE *f;
    chart c[2];
    if (!mean || !lo || !hi || !xs || !ys) goto done;
    for (i = 0; names && i < K; i++)
        if (text_w(names[i], 11) > name_w) name_w = text_w(names[i], 11);
    if (names && name_w > 400.0 / K - 4) { /* too wide side by side: upright labels, the picture grows */
        vertical = 1;
        extra = name_w + 8 - 15;
        H += (int)ceil(extra);
    }
    for (a = 0; a < A; a++) {
        const curves *cv = &pg->cv[a];
        if (cv->n > seeds) seeds = cv->n;
        for (i = 0; i < K; i++) {
            double sum = 0;
            int k = 0;
            lo[a * K + i] = hi[a * K + i] = mean[a * K + i] = NAN;
            for (s = 0; s < cv->n && cv->K == K; s++) {
                double v = 100 * cv->client[(size_t)s * K + i];
                if (!(v == v)) continue;
                sum += v;
                if (!k || v < lo[a * K + i]) lo[a * K + i] = v;
                if (!k || v > hi[a * K + i]) hi[a * K + i] = v;
                k++;
            }
            if (k) mean[a * K + i] = sum / k;
            if (k && lo[a * K + i] < ymin) ymin = lo[a * K + i];
            if (k && hi[a * K + i] > ymax) ymax = hi[a * K + i];
        }
    }
    if (ymax < ymin) ymin = 0, ymax = 100;
    step = nice_step(ymax - ymin > 1 ? ymax - ymin : 1, 5);
    ymin = floor(ymin / step) * step;
    ymax = ceil(ymax / step) * step;
    if (ymax <= ymin) ymax = ymin + step;
    if (ymin < 0) ymin = 0;
    if (ymax > 100) ymax = 100;
    if (!(f = svg_open(o->out_dir, "clients.svg", W, H))) goto done;
    snprintf(sub, sizeof sub, "%s. Test %s of each client at the last round; mean over %d %s%s%s%s", what, metric,
             seeds, o->folds ? "run" : "seed", seeds > 1 ? "s" : "", seeds > 1 ? ", whisker: lowest to highest " : "",
             seeds > 1 ? (o->folds ? "run" : "seed") : "");
    snprintf(ylabel, sizeof ylabel, "Per-client %s (fairness)", metric);
    plot_header(f, W, ylabel, sub);
    snprintf(ylabel, sizeof ylabel, "test %s (%%)", metric);
    for (i = 0; i < 2; i++) {
        c[i].f = f;
        c[i].px = 80 + i * 470;
        c[i].py = 88;
        c[i].pw = 400;
        c[i].ph = 280;
        c[i].y0 = ymin - 0.03 * (ymax - ymin);
        c[i].y1 = ymax + 0.03 * (ymax - ymin);
        c[i].ylog = 0;
    }
    /* left: by client */
    c[0].x0 = -0.5;
    c[0].x1 = K - 0.5;
    if (dots) {
        double slot = c[0].pw / K, off;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbfbfb\" stroke=\"#bbb\"/>\n", c[0].px,
                c[0].py, c[0].pw, c[0].ph);
        step = nice_step(ymax - ymin, 5);
        {
            double v;
            for (v = ceil(ymin / step - 1e-9) * step; v <= ymax + step * 1e-9; v += step) {
                double y = ch_y(&c[0], v);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", c[0].px, y,
                        c[0].px + c[0].pw, y);
                fmt_tick(buf, sizeof buf, v, step);
                svg_text(f, c[0].px - 6, y + 4, "end", 11, NULL, buf);
            }
        }
        for (i = 0; i < K; i++) {
            int every = names || slot >= 16 ? 1 : slot >= 8 ? 2 : 5;
            if (i % 2) fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f0f0f0\"/>\n",
                               ch_x(&c[0], i - 0.5), c[0].py, slot, c[0].ph);
            if (i % every) continue;
            snprintf(buf, sizeof buf, "%s", names ? names[i] : "");
            if (!names) snprintf(buf, sizeof buf, "%d", i);
            if (vertical) { /* read upwards, ending under the client's column */
                fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"end\" font-size=\"11\">",
                        ch_x(&c[0], i) + 4, c[0].py + c[0].ph + 6);
                svg_esc(f, buf);
                fputs("</text>\n", f);
            } else {
                svg_text(f, ch_x(&c[0], i), c[0].py + c[0].ph + 15, "middle", 11, NULL, buf);
            }
        }
        for (a = 0; a < A; a++)
            for (i = 0; i < K; i++) {
                double x;
                if (!(mean[a * K + i] == mean[a * K + i])) continue;
                off = A > 1 ? (a - (A - 1) / 2.0) * (0.7 / A) : 0;
                x = ch_x(&c[0], i + off);
                if (hi[a * K + i] > lo[a * K + i])
                    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", x,
                            ch_y(&c[0], lo[a * K + i]), x, ch_y(&c[0], hi[a * K + i]), plot_colour(a));
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\">"
                           "<title>%s, client %d%s%s%s: %.2f%%</title></circle>\n",
                        x, ch_y(&c[0], mean[a * K + i]), slot / A >= 7 ? 3.5 : 2.5, plot_colour(a), o->labels[a], i,
                        names ? " (" : "", names ? names[i] : "", names ? ")" : "", mean[a * K + i]);
            }
        svg_text(f, c[0].px + c[0].pw / 2, c[0].py + c[0].ph + 34 + extra, "middle", 12, NULL,
                 names ? "client (its dataset)" : "client");
        fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">",
                c[0].px - 44, c[0].py + c[0].ph / 2);
        svg_esc(f, ylabel);
        fputs("</text>\n", f);
        svg_text(f, c[0].px, c[0].py - 8, "start", 13, "font-weight=\"bold\"", "By client");
    } else { /* too many clients to tell apart: the sorted view takes the whole width */
        c[1].px = 80;
        c[1].pw = 870;
    }
    /* right: sorted, worst first */
    c[1].x0 = 1;
    c[1].x1 = K > 1 ? K : 2;
    ch_axes(&c[1], "client rank (worst first)", ylabel, "Sorted, worst client first", 1);
    for (i = 0; i < K; i++) xs[i] = i + 1;
    for (a = 0; a < A; a++) {
        double sum = 0, sq = 0;
        int k = 0;
        for (i = 0; i < K; i++)
            if (mean[a * K + i] == mean[a * K + i]) ys[k++] = mean[a * K + i];
        if (!k) continue;
        qsort(ys, (size_t)k, sizeof(double), cmp_double);
        ch_line(&c[1], xs, ys, k, plot_colour(a), plot_width(a, A), plot_dash(a));
        if (k <= 40)
            for (i = 0; i < k; i++)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", ch_x(&c[1], xs[i]), ch_y(&c[1], ys[i]),
                        plot_colour(a));
        for (i = 0; i < k; i++) sum += ys[i];
        for (i = 0; i < k; i++) sq += (ys[i] - sum / k) * (ys[i] - sum / k);
        which[nl] = a;
        snprintf(labels[nl++], sizeof labels[0], "%s: mean %.1f%%, worst %.1f%%, std %.1f", o->labels[a], sum / k,
                 ys[0], k > 1 ? sqrt(sq / (k - 1)) : 0.0);
    }
    legend(f, 80, 430 + extra, W - 100, labels, which, nl, 1);
    fprintf(f, "</svg>\n");
    out_commit(&svg_out);
done:
    free(mean);
    free(lo);
    free(hi);
    free(xs);
    free(ys);
}

static void plot_bytes(const options *o, const progress *pg, const char *what) {
    int A = pg->n_algos, R = pg->rounds, a, r, nl = 0, ylog;
    double *x = (double *)malloc(sizeof(double) * R), *m = (double *)malloc(sizeof(double) * R),
           *lo = (double *)malloc(sizeof(double) * R), *hi = (double *)malloc(sizeof(double) * R);
    double top = 0, small = 1e300;
    char labels[MAX_ITEMS][160], sub[600];
    int W = 760, H = 470, which[MAX_ITEMS];
    FILE *f;
    chart c;
    if (!x || !m || !lo || !hi) goto done;
    for (r = 0; r < R; r++) x[r] = r + 1;
    for (a = 0; a < A; a++) {
        const curves *cv = &pg->cv[a];
        if (!cv->n) continue;
        over_seeds(cv->mb, cv->n, R, m, lo, hi);
        for (r = 0; r < R; r++) {
            if (hi[r] > top) top = hi[r];
            if (m[r] > 0 && m[r] < small) small = m[r];
        }
    }
    ylog = top > 0 && small < 1e300 && top / small > 100; /* totals far apart: decades */
    if (!(f = svg_open(o->out_dir, "bytes.svg", W, H))) goto done;
    snprintf(sub, sizeof sub, "%s. Megabytes sent so far (uploads + downloads, round 1 with the initial model)%s", what,
             ylog ? "; log scale" : "");
    plot_header(f, W, "Communication", sub);
    c.f = f;
    c.px = 90;
    c.py = 88;
    c.pw = 620;
    c.ph = 280;
    c.x0 = 1;
    c.x1 = R > 1 ? R : 2;
    c.ylog = ylog;
    if (ylog) {
        c.y0 = pow(10, floor(log10(small)));
        c.y1 = pow(10, ceil(log10(top)));
    } else {
        double s = nice_step(top > 0 ? top : 1, 5);
        c.y0 = 0;
        c.y1 = ceil((top > 0 ? top : 1) / s) * s;
    }
    ch_axes(&c, "round", "MB sent (cumulative)", NULL, 1);
    for (a = 0; a < A; a++) {
        const curves *cv = &pg->cv[a];
        double last = 0;
        if (!cv->n) continue;
        over_seeds(cv->mb, cv->n, R, m, lo, hi);
        last = m[R - 1];
        if (last > 0) ch_line(&c, x, m, R, plot_colour(a), plot_width(a, A), plot_dash(a));
        which[nl] = a;
        snprintf(labels[nl++], sizeof labels[0], last > 0 ? "%s: %.1f MB" : "%s: nothing sent", o->labels[a], last);
    }
    legend(f, 90, 420, W - 110, labels, which, nl, 0);
    fprintf(f, "</svg>\n");
    out_commit(&svg_out);
done:
    free(x);
    free(m);
    free(lo);
    free(hi);
}

FGLRUN_SHARED void write_plots(const options *o, const progress *pg) {
    char what[400];
    if (!o->out_dir || !pg || !pg->cv) return;
    snprintf(what, sizeof what, "%s, %s split, %d clients, %d rounds", pg->ds->label,
             o->public_split ? "public" : fgl_part_name(pg->split), pg->K, pg->rounds);
    plot_curves(o, pg, what);
    if (per_client_out(o)) plot_clients(o, pg, what); /* under --dp, only with --per-client-records */
    plot_bytes(o, pg, what);
}

/* The colour of t in [0, 1]: light (low) to dark (high), through three
 * anchors, readable in grey too. */
static void heat_colour(double t, int *r, int *g, int *b) {
    static const double a[3][3] = {{250, 247, 232}, {94, 170, 190}, {22, 42, 110}};
    int k = t < 0.5 ? 0 : 1;
    double u = t < 0.5 ? t / 0.5 : (t - 0.5) / 0.5;
    if (!(t >= 0)) t = 0, k = 0, u = 0;
    if (t > 1) k = 1, u = 1;
    *r = (int)(a[k][0] + (a[k + 1][0] - a[k][0]) * u + 0.5);
    *g = (int)(a[k][1] + (a[k + 1][1] - a[k][1]) * u + 0.5);
    *b = (int)(a[k][2] + (a[k + 1][2] - a[k][2]) * u + 0.5);
}

/* A K x K matrix m (row-major) as a heatmap: row i, column j at display
 * position i, j of order (a permutation of the clients; NULL: 0..K-1), axis
 * labels (rows "id:label" when dom gives each client's dominant label), a
 * colour bar, and a constant matrix drawn in the middle colour. */
FGLRUN_SHARED void svg_heatmap(const char *path, const char *algo, int round, const float *m, int K, const int *order,
                               const int *dom, const char *const *names) {
    int cell = K <= 12 ? 32 : K <= 20 ? 24 : K <= 50 ? 12 : 6, i, j, r, g, b, every = cell >= 12 ? 1 : cell >= 6 ? 5 : 10;
    int left = 74, top = 74, bar = 16, side = K * cell, W, H, pad = 0;
    float lo = 1e30f, hi = -1e30f;
    char title[256], sub[256], buf[128];
    double lw = 0;
    FILE *f;
    for (i = 0; i < K * K; i++) {
        lo = m[i] < lo ? m[i] : lo;
        hi = m[i] > hi ? m[i] : hi;
    }
    for (i = 0; (dom || names) && i < K; i++) { /* the widest row label: room between it and the axis label */
        if (names) snprintf(buf, sizeof buf, "%d:%s", i, names[i]);
        else snprintf(buf, sizeof buf, "%d:%d", i, dom[i]);
        if (text_w(buf, 10) > lw) lw = text_w(buf, 10);
    }
    if (lw > 24) pad = (int)(lw - 24) + 1;
    left += pad;
    snprintf(title, sizeof title, "%s: client-to-client matrix after round %d", algo, round);
    snprintf(sub, sizeof sub, "row i: client i's aggregation; column j: the weight it gives client j%s",
             names ? "; rows shown as id:dataset"
             : dom ? "; clients ordered by dominant label, rows shown as id:label" : "");
    W = left + side + 30 + bar + 70;
    if (W < 40 + 1.1 * text_w(title, 16)) W = (int)(40 + 1.1 * text_w(title, 16)); /* the title is bold */
    if (W < 40 + text_w(sub, 12)) W = (int)(40 + text_w(sub, 12));
    H = top + side + 56;
    if (H < top + 160) H = top + 160;
    if (!(f = out_open(&svg_out, path))) return;
    svg_begin(f, W, H);
    plot_header(f, W, title, sub);
    for (i = 0; i < K; i++) {
        int ci = order ? order[i] : i;
        if (i % every == 0) {
            if (names) snprintf(buf, sizeof buf, "%d:%s", ci, names[ci]);
            else if (dom) snprintf(buf, sizeof buf, "%d:%d", ci, dom[ci]);
            else snprintf(buf, sizeof buf, "%d", ci);
            svg_text(f, left - 5, top + i * cell + cell / 2.0 + 4, "end", 10, NULL, buf);
            snprintf(buf, sizeof buf, "%d", ci);
            svg_text(f, left + i * cell + cell / 2.0, top + side + 14, "middle", 10, NULL, buf);
        }
        for (j = 0; j < K; j++) {
            int cj = order ? order[j] : j;
            double v = m[ci * K + cj], t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
            heat_colour(t, &r, &g, &b);
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"><title>%d-%d: %.4g</title></rect>\n",
                    left + j * cell, top + i * cell, cell, cell, r, g, b, ci, cj, v);
        }
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", left, top, side, side);
    svg_text(f, left + side / 2.0, top + side + 34, "middle", 12, NULL, "client j");
    fprintf(f, "<text transform=\"translate(%d %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">client i</text>\n",
            left - 36 - pad, top + side / 2.0);
    { /* the colour bar */
        int bx = left + side + 30, bh = side > 120 ? side : 120, steps = 50;
        for (i = 0; i < steps; i++) {
            heat_colour(hi > lo ? 1 - (i + 0.5) / steps : 0.5, &r, &g, &b);
            fprintf(f, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"rgb(%d,%d,%d)\"/>\n", bx,
                    top + i * (double)bh / steps, bar, (double)bh / steps + 0.5, r, g, b);
        }
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", bx, top, bar, bh);
        if (hi > lo) {
            snprintf(buf, sizeof buf, "%.3g", hi);
            svg_text(f, bx + bar + 4, top + 10, "start", 10, NULL, buf);
            snprintf(buf, sizeof buf, "%.3g", (lo + hi) / 2);
            svg_text(f, bx + bar + 4, top + bh / 2.0 + 4, "start", 10, NULL, buf);
            snprintf(buf, sizeof buf, "%.3g", lo);
            svg_text(f, bx + bar + 4, top + bh - 2, "start", 10, NULL, buf);
        } else {
            snprintf(buf, sizeof buf, "all %.3g", hi);
            svg_text(f, bx + bar + 4, top + bh / 2.0 + 4, "start", 10, NULL, buf);
            svg_text(f, bx + bar + 4, top + bh / 2.0 + 18, "start", 10, NULL, "(constant)");
        }
    }
    fprintf(f, "</svg>\n");
    out_commit(&svg_out);
}

