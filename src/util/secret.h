/* secret: credentials in memory and in messages. One place for the three things every module that
 * holds a secret needs: reading it without leaving it in the environment, blanking it out of text
 * that may quote it, and clearing its bytes before the memory is reused.
 *
 * Users: upload (the leaderboard's bearer token) and repos (user information in a repository URL).
 * A scrubbed secret reads KS_SECRET_MARKER in every message. */
#ifndef KS_SECRET_H
#define KS_SECRET_H

#include <stddef.h>

/* What a scrubbed secret reads in a message. */
#define KS_SECRET_MARKER "[token]"

/* Overwrites n bytes at p with zeros in a way the compiler may not drop (the memory is usually
 * about to be freed). NULL with n == 0 is fine. */
void ks_secret_wipe(void *p, size_t n);

/* Wipes the string's bytes, then frees it. NULL is fine. */
void ks_secret_free(char *s);

/* Takes msg (owned; NULL is fine) and returns it with every occurrence of secret replaced by
 * KS_SECRET_MARKER: the same pointer when secret is NULL, empty or absent, else a new string
 * (the old one is wiped and freed). A message longer than KS_SECRET_MSG_MAX is cut there. Caller
 * frees the result. */
#define KS_SECRET_MSG_MAX (1u << 20)
char *ks_secret_scrub(char *msg, const char *secret);

/* Reads a secret from `file` (when not NULL: its first line, trimmed) or else from the
 * environment variable env_name, and removes env_name from the environment in every case, so no
 * child process started later inherits it. *out is NULL when there is none (not an error); *loose
 * is set to 1 when the file can be read by group or others (the caller warns).
 *
 * Fails with KS_EINVALID (the file is empty, not a regular file, or the secret holds characters
 * that cannot go in an HTTP header; the secret is never quoted), KS_ENOTFOUND or KS_EIO; a file
 * over 16 KiB is refused. Caller frees *out with ks_secret_free. */
int ks_secret_load(char **out, int *loose, const char *file, const char *env_name);

#endif
