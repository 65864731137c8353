#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Result codes and errors                                                  */
/* ------------------------------------------------------------------------ */

enum {
    FGL_OK = 0,
    FGL_ERR_NOMEM = -1,       /* allocation failed */
    FGL_ERR_IO = -2,          /* file cannot be opened, read or written */
    FGL_ERR_PARSE = -3,       /* text that is not the number / token expected */
    FGL_ERR_RANGE = -4,       /* an id or value outside its allowed range */
    FGL_ERR_SHAPE = -5,       /* dimensions that do not agree */
    FGL_ERR_FORMAT = -6,      /* bad magic, version, checksum or truncation */
    FGL_ERR_ARG = -7,         /* invalid argument */
    FGL_ERR_NONFINITE = -8,   /* NaN or Inf where finite numbers are required */
    FGL_ERR_EMPTY = -9,       /* nothing to work on (empty file, no samples) */
    FGL_ERR_UNSUPPORTED = -10 /* a valid request this build cannot serve */
};

#define FGL_ERROR_MSG_LEN 512

typedef struct fgl_error {
    int code;                      /* FGL_OK or an FGL_ERR_* value */
    char msg[FGL_ERROR_MSG_LEN];   /* "file:line: what is wrong" where known */
} fgl_error;

/* Short name of a result code ("FGL_ERR_PARSE"). */
FGLDEF const char *fgl_result_name(int code);
/* Record an error in err (which may be NULL) and return code. */
FGLDEF int fgl_error_set(fgl_error *err, int code, const char *fmt, ...) FGL__PRINTF(3, 4);
/* Reset err to FGL_OK with an empty message. */
FGLDEF void fgl_error_clear(fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- errors ------------------------------------------------------------- */

FGLDEF const char *fgl_result_name(int code) {
    switch (code) {
    case FGL_OK: return "FGL_OK";
    case FGL_ERR_NOMEM: return "FGL_ERR_NOMEM";
    case FGL_ERR_IO: return "FGL_ERR_IO";
    case FGL_ERR_PARSE: return "FGL_ERR_PARSE";
    case FGL_ERR_RANGE: return "FGL_ERR_RANGE";
    case FGL_ERR_SHAPE: return "FGL_ERR_SHAPE";
    case FGL_ERR_FORMAT: return "FGL_ERR_FORMAT";
    case FGL_ERR_ARG: return "FGL_ERR_ARG";
    case FGL_ERR_NONFINITE: return "FGL_ERR_NONFINITE";
    case FGL_ERR_EMPTY: return "FGL_ERR_EMPTY";
    case FGL_ERR_UNSUPPORTED: return "FGL_ERR_UNSUPPORTED";
    default: return "FGL_ERR_UNKNOWN";
    }
}

FGLDEF int fgl_error_set(fgl_error *err, int code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

FGLDEF void fgl_error_clear(fgl_error *err) {
    if (err) {
        err->code = FGL_OK;
        err->msg[0] = 0;
    }
}

#include "../alone.h"
