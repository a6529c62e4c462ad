/* upload_setup: the options of an upload, merged from the command line, the upload config file
 * and the token, once per run (docs/upload.md, "Configuration"). */
#ifndef KS_UPLOAD_SETUP_H
#define KS_UPLOAD_SETUP_H

#include "upload/upload.h"

typedef struct ks_upload_setup ks_upload_setup;

/* Flags for ks_upload_setup_new. */
#define KS_UPLOAD_NEED_ENDPOINT 1u /* fail without an endpoint (and, in native mode, a token) */

/* Merges the command-line options `cli` with the JSON config file at config_path (the command line
 * wins; NULL config_path: the first of <exe>/../share/kscore/scoring/upload.json,
 * <exe>/../scoring/upload.json, <exe>/../../scoring/upload.json that exists, or none), then loads
 * the token: cli->token if given, else the token file (first line, trimmed; a warning through
 * log_fn if group or others can read it), else the environment variable. The variable is removed
 * from the environment in every case, so call this before starting any child process.
 *
 * Returns KS_EINVALID / KS_ENOTFOUND with a message naming the file and key for a bad config or
 * token file (exit code KS_EXIT_CONFIG). Caller frees with ks_upload_setup_free, which also wipes the token. */
int ks_upload_setup_new(ks_upload_setup **out, const ks_upload_options *cli, const char *config_path,
			unsigned flags);

/* The merged options; valid until ks_upload_setup_free. */
const ks_upload_options *ks_upload_setup_options(const ks_upload_setup *s);

void ks_upload_setup_free(ks_upload_setup *s);

#endif
