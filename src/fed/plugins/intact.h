#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- the intact plug-in: an aggregate hook of the program's own leaves the uploads as sent --- */
/* The accepted uploads' checksums are taken as they are checked
 * (fgl__upload_sums); after the hook they must be unchanged (src/fed/intact.h
 * says why; the client hooks' checks sit around those hooks in run.h). */

static int fgl__intact_on(const fgl_run *run) { return (run->intact.user_hooks & FGL__HOOK_AGGREGATE) != 0; }

static int fgl__intact_after(fgl_run *run) {
    int rc = run->algo.aggregate ? fgl__uploads_intact(run) : FGL_OK;
    return rc ? fgl__server_error(run, rc, "aggregation") : FGL_OK;
}

static fgl__plugin fgl__plugin_intact(void) {
    fgl__plugin p;
    memset(&p, 0, sizeof p);
    p.name = "intact";
    p.on = fgl__intact_on;
    p.after = fgl__intact_after;
    return p;
}
#include "../../alone.h"
