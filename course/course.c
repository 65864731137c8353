/* course.c - what the course adds to fgl (course.h): the tables the
 * assignments start from. The grader and the course's fglrun link it; it is
 * not a student's file. */
#include "course.h"

#include <stdio.h>

/* Set by the grader (grade.c): 1 while grading. A student's file cannot
 * refer to it (the grader checks which symbols each file uses). */
int course_grading;
/* The first name course_algo_base refused, for the grader ("" if none). */
char course_refused[64];

/* FedAvg's aggregate, checked: under the grader the run's aggregation
 * settings must be plain FedAvg's, so an algorithm cannot switch on the
 * library's robust rules (by writing through s->fed or pointing it at a
 * configuration of its own) and call this to have them computed. */
static int course_avg_aggregate(fgl_server *s) {
    const fgl_fed_config *f = s->fed;
    const fgl_algo *avg = fgl_algo_find("fedavg");
    if (course_grading && (f->robust.rule != FGL_ROBUST_MEAN || f->dp.clip > 0 || f->secagg.on))
        return fgl_server_fail(s, FGL_ERR_ARG,
                               "course: the run's aggregation settings were changed during the run (robust rule %s): "
                               "the grader's runs use FedAvg's plain mean; write the rule yourself",
                               fgl_robust_name(f->robust.rule));
    if (!avg || !avg->aggregate) return fgl_server_fail(s, FGL_ERR_ARG, "course: the library has no fedavg");
    return avg->aggregate(s);
}

static int course_refuse(fgl_server *s) {
    return fgl_server_fail(s, FGL_ERR_ARG, "course: this algorithm was built from a table the course does not give "
                                           "(course_algo_base(\"%s\"))", course_refused);
}

fgl_algo course_algo_base(const char *name) {
    fgl_algo a;
    if (name && !strcmp(name, "fedavg")) {
        a = fgl_algo_base("fedavg");
        a.train.grad = NULL; /* the library's FedAvg trains with FedProx's hook (mu 0): not in the course's */
        a.aggregate = course_avg_aggregate;
        return a;
    }
    if (name && !strcmp(name, "local")) return fgl_algo_base("local");
    if (!course_refused[0]) snprintf(course_refused, sizeof course_refused, "%s", name ? name : "(null)");
    fprintf(stderr, "course_algo_base(\"%s\"): refused; the assignments start from \"fedavg\" or \"local\" "
                    "(course/README.md)\n", name ? name : "(null)");
    a = fgl_algo_new("refused", "a table course_algo_base refused");
    a.aggregate = course_refuse;
    return a;
}
