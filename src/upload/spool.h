/* spool: upload's record on disk of what it sent and what it could not send (docs/upload.md).
 *
 *   <spool>/sent/<key>.json      "kscore.upload-sent/1": where and when a result was sent, one
 *                                entry per (endpoint, mode), so it is never sent there twice
 *   <spool>/pending/<key>.json   "kscore.upload-pending/1": a payload that failed, with its target,
 *                                attempts and last error, for `score upload --pending`
 *   <spool>/.lock                held while pending files are being sent
 *
 * A target is an endpoint URL and a mode name ("native" or "gradio"); `key` is the upload's
 * idempotency key (64 hex digits). The token is never written here. Files are written atomically;
 * every read is capped. */
#ifndef KS_SPOOL_H
#define KS_SPOOL_H

#include <stddef.h>
#include <cJSON.h>

/* $XDG_STATE_HOME/kscore/spool, else ~/.local/state/kscore/spool. Caller frees. */
char *ks_spool_default_dir(void);

/* Creates <spool>/<sub> (mode 0700) and its parents. KS_EIO with a message. */
int ks_spool_mkdir(const char *spool, const char *sub);

/* Reads and parses a spool file (at most 64 MiB). Caller frees *out with cJSON_Delete. */
int ks_spool_read(cJSON **out, const char *path);

/* 1 when <spool>/sent/<key>.json lists this target, with the time of that upload in when;
 * 0 when not (or when the record cannot be read). */
int ks_spool_sent_find(char when[32], const char *spool, const char *key, const char *endpoint,
		       const char *mode);

/* Adds this target, now, to <spool>/sent/<key>.json (created from the payload's team and
 * submission when missing). */
int ks_spool_sent_add(const char *spool, const char *key, const cJSON *payload,
		      const char *endpoint, const char *mode, long status, int attempts);

/* Where the pending copy for (key, target) lives: <key>.json, unless that file holds the same
 * result bound for another target; then <key>-<8 hex of the target>.json. Caller frees. */
char *ks_spool_pending_path(const char *spool, const char *key, const char *endpoint,
			    const char *mode);

/* Writes or updates the pending file at path. `prev` is the pending record being retried (NULL
 * for a new failure): its first failure time, attempts and source carry over. */
int ks_spool_pending_write(const char *path, const cJSON *prev, const cJSON *payload,
			   const char *key, const char *endpoint, const char *mode,
			   const char *source, int attempts, long status, const char *error);

/* Removes the pending copies of key bound for this target (after a success). */
void ks_spool_pending_remove(const char *spool, const char *key, const char *endpoint,
			     const char *mode);

/* Takes <spool>/.lock without waiting, so two senders of the pending files never run at once.
 * *fd is the lock (close it to release). KS_EIO with a message when another process holds it. */
int ks_spool_lock(int *fd, const char *spool);

#endif
