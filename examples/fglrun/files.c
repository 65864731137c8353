/* --- the files fglrun writes: whole or not at all, every failure said ------------------ */
#include "fglrun.h"

/* Every file fglrun writes under --out (result.json, config, progress.json,
 * the CSVs, the SVGs) and every checkpoint goes first to a temporary file
 * beside it (NAME.tmp.PID), is flushed, fsync'ed and closed, and only then
 * renamed over NAME (and the directory fsync'ed): a reader, or a run killed
 * at any moment, sees the previous complete file or the new complete one,
 * never part of one. A write that fails (a full disk, a file-size limit, a
 * directory gone) removes the temporary file, leaves the previous one, is
 * said on stderr, and makes the command fail (exit status 1) once the rest
 * is written. The per-round CSV of a run in progress is the exception: it
 * grows a line a round so that it can be read while the run goes on, and a
 * failed write to it stops the run; the final one replaces it atomically.
 *
 * Two fglruns writing one --out directory or one --checkpoint would mix
 * their files or lose a checkpoint: each takes an advisory lock (fcntl) on
 * DIR/.fglrun.lock and on CHECKPOINT.lock for as long as it runs, and the
 * second is refused, naming the first's process. (The lock files stay; a
 * lock dies with its process, so a killed run leaves none held.) */

FGLRUN_SHARED int write_errors; /* files that could not be written */

FGLRUN_SHARED void write_failed(const char *path, const char *why) {
    if (write_errors++ < 8) fprintf(stderr, "fglrun: cannot write %s: %s\n", path, why);
    else if (write_errors == 9) fprintf(stderr, "fglrun: (more files could not be written)\n");
}

/* fsync the directory holding path, so that a rename into it lasts. */
FGLRUN_SHARED void sync_dir_of(const char *path) {
    char dir[1300];
    const char *slash = strrchr(path, '/');
    int fd;
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if ((fd = open(dir, O_RDONLY)) >= 0) {
        (void)fsync(fd); /* some file systems refuse a directory's fsync: the rename is done either way */
        close(fd);
    }
}

/* Opens path's temporary file for writing: its FILE, or NULL (said and counted). */
FGLRUN_SHARED FILE *out_open(outfile *w, const char *path) {
    w->f = NULL;
    if (snprintf(w->path, sizeof w->path, "%s", path) >= (int)sizeof w->path ||
        snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof w->tmp)
        write_failed(path, "the path is too long");
    else if (!(w->f = fopen(w->tmp, "w")))
        write_failed(path, strerror(errno));
    return w->f;
}

/* Flushes a stream to the disk: 0, or the errno of the first failure (EIO when none is set). */
FGLRUN_SHARED int flush_to_disk(FILE *f) {
    errno = 0;
    if (fflush(f) != 0 || ferror(f)) return errno ? errno : EIO;
    if (fsync(fileno(f)) != 0 && errno != EINVAL) return errno; /* (EINVAL: a file that cannot be synced, a pipe) */
    return 0;
}

/* Flushes, syncs and closes the temporary file, then renames it over the
 * path: 0, or -1 with the temporary file removed, the old file left, the
 * failure said and counted. */
FGLRUN_SHARED int out_commit(outfile *w) {
    int e;
    if (!w->f) return -1;
    e = flush_to_disk(w->f);
    if (fclose(w->f) != 0 && !e) e = errno ? errno : EIO;
    w->f = NULL;
    if (!e && rename(w->tmp, w->path) != 0) e = errno;
    if (e) {
        remove(w->tmp);
        write_failed(w->path, strerror(e));
        return -1;
    }
    sync_dir_of(w->path);
    return 0;
}

/* A whole text into path, atomically: 0 or -1 (said and counted). */
FGLRUN_SHARED int out_text(const char *path, const char *text) {
    outfile w;
    if (!out_open(&w, path)) return -1;
    fputs(text, w.f);
    return out_commit(&w);
}

/* An advisory lock on path for the rest of the process (the descriptor is
 * kept open: closing any descriptor of the file would release it). 0, or 1
 * when another process holds it (said, with its process id and `what`). */
FGLRUN_SHARED int take_lock(const char *path, const char *what) {
    struct flock fl;
    int fd = open(path, O_RDWR | O_CREAT, 0666);
    if (fd < 0) {
        fprintf(stderr, "fglrun: %s: cannot create the lock %s (%s)\n", what, path, strerror(errno));
        return 1;
    }
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &fl) == 0) return 0; /* held until the process ends */
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
        fprintf(stderr, "fglrun: %s is in use by another fglrun (process %ld): refused (nothing was run)\n", what,
                (long)fl.l_pid);
    else
        fprintf(stderr, "fglrun: %s: cannot lock %s (%s): refused (nothing was run)\n", what, path, strerror(errno));
    close(fd);
    return 1;
}

/* SIGINT and SIGTERM: the run stops after the round in progress, writes
 * what it has (progress.json says "interrupted", a checkpoint resumes it)
 * and exits with 128 + the signal; a second signal ends it at once. */
FGLRUN_SHARED volatile sig_atomic_t fglrun_signal;

#ifndef FGL_MPI /* (under MPI, mpirun forwards signals to every rank: their default action ends the job) */
FGLRUN_SHARED void on_stop_signal(int sig) {
    static const char msg[] = "\nfglrun: stopping after this round (a second signal stops at once)\n";
    fglrun_signal = sig;
    signal(sig, SIG_DFL);
    if (write(2, msg, sizeof msg - 1) < 0) fglrun_signal = sig; /* (nothing to do if stderr is gone) */
}
#endif
