/* errors: the error codes every kscore function returns, and the message that explains the last one.
 *
 * Convention (as in libgit2): a function returns 0 on success and a negative KS_E* code on failure,
 * after setting a human-readable message with ks_error_set(). The message is per thread and stays
 * until the next ks_error_set() or ks_error_clear(). */
#ifndef KS_ERRORS_H
#define KS_ERRORS_H

#include <stdarg.h>

enum {
	KS_OK = 0,
	KS_ERROR = -1,     /* generic failure */
	KS_EINVALID = -2,  /* malformed input: the message names the file, entry and reason */
	KS_ENOTFOUND = -3, /* a file, problem or key does not exist */
	KS_ELIMIT = -4,    /* a size, depth or count limit was exceeded */
	KS_EIO = -5,       /* a read or write of the filesystem failed */
	KS_ETIMEOUT = -6,  /* a child process ran past its time limit */
	KS_ECHILD = -7,    /* a child process crashed or broke its protocol */
	KS_EUNSUPPORTED = -8 /* the machine lacks what is needed (GPU, sandbox, ...) */
};

#if defined(__GNUC__)
#define KS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KS_PRINTF(a, b)
#endif

/* Sets the thread's error message and returns `code`, so that callers can write
 * `return ks_error_set(KS_EINVALID, "...")`. */
int ks_error_set(int code, const char *fmt, ...) KS_PRINTF(2, 3);

/* Prepends "prefix: " to the current message (used to add the file or entry name as an error
 * travels up). Returns `code`. */
int ks_error_wrap(int code, const char *fmt, ...) KS_PRINTF(2, 3);

/* The last message set on this thread; never NULL ("" when none). Owned by the module. */
const char *ks_error_msg(void);

void ks_error_clear(void);

#endif
