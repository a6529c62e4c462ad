/* submission: loads what a team submits (DESIGN §2): a JSON array of GEAK entries, JSON Lines,
 * either one gzip-compressed (detected by magic bytes, not by name), or a folder of such files,
 * each file being one pass for pass@k.
 *
 * Loading never stops at the first bad entry: a malformed entry is kept with its `error` set (so the
 * reports can name it), and a file that cannot be read or parsed becomes a pass with its `error`
 * set and no entries. Only a path that does not exist (or an empty folder) fails the whole load. */
#ifndef KS_SUBMISSION_H
#define KS_SUBMISSION_H

#include <stddef.h>
#include "load/extract.h"

/* Why an entry is not scored; its `error` says it in words. */
typedef enum {
	KS_ENTRY_OK = 0,
	KS_ENTRY_MALFORMED,     /* not an entry kscore can use (reported as bad_entry) */
	KS_ENTRY_BAD_ENCODING,  /* a string holds what text cannot: bytes that are not UTF-8, a NUL
				 * character, an unpaired surrogate (reported as bad_encoding) */
	KS_ENTRY_DUPLICATE      /* an earlier entry of the file names the same problem (duplicate) */
} ks_entry_fault;

typedef struct {
	size_t index;        /* position in its file, from 0 */
	char *file;          /* the entry's "file" field as given ("sin_kernel.py"); NULL if missing */
	char *problem;       /* the problem key: stem of `file` ("sin_kernel"); NULL if no file */
	char *predict;       /* the generated text as given; "" if absent */
	char *code;          /* the code extracted from predict (see extract.h); NULL if none */
	ks_language language; /* what code is: CUDA C++, or a Triton answer (Python) */
	char *extract_note;  /* what extraction did, for reports ("1 ```cuda block") */
	char *instruction;   /* kept, never trusted; NULL if absent */
	char *label;
	char *test_code;
	int difficulty;      /* -1 when absent */
	char *launch_json;   /* the entry's "launch" field, compact JSON; NULL if absent */
	char *error;         /* non-NULL: the entry is not scored; says why (names file and entry) */
	ks_entry_fault fault;     /* what kind of problem `error` is; KS_ENTRY_OK when none */
	size_t first;        /* KS_ENTRY_DUPLICATE: index of the entry that counts for the problem */
	char sha256[65];     /* of predict + launch_json: identifies this candidate for caches/resume */
} ks_entry;

typedef struct {
	char *path;          /* the file's path */
	char *name;          /* its basename */
	char sha256[65];     /* of the file's bytes as stored (compressed or not); "" if unreadable */
	int gzip;            /* was gzip-compressed */
	int jsonl;           /* was JSON Lines */
	ks_entry *entries;
	size_t nentries;
	char *error;         /* non-NULL: the whole file could not be used; says why (names the file) */
} ks_pass;

typedef struct {
	char *path;          /* as given */
	int is_folder;
	ks_pass *passes;     /* one per file; a single file is one pass */
	size_t npasses;
	char sha256[65];     /* of the passes' sha256 values, in order: the submission's fingerprint */
} ks_submission;

/* Counts and sizes are checked while the text is scanned, before any JSON tree is built, and each
 * entry is then parsed on its own: memory stays proportional to what is accepted (the text, one
 * entry's tree, the entries' strings). docs/submission-format.md gives the measured peaks. */
typedef struct {
	size_t max_file_bytes;          /* a file as stored */
	size_t max_decompressed_bytes;  /* after gunzip (zip-bomb guard) */
	size_t max_code_bytes;          /* one entry's predict */
	size_t max_entries;             /* entries per file */
	size_t max_passes;              /* files per folder */
	int max_depth;                  /* JSON nesting */
	size_t max_entry_bytes;         /* one entry's JSON text */
	size_t max_entry_values;        /* JSON values and field names in one entry */
	size_t max_file_field_bytes;    /* one entry's "file" field */
} ks_submission_limits;

#define KS_SUBMISSION_DEFAULT_MAX_FILE_BYTES (64u << 20)
#define KS_SUBMISSION_DEFAULT_MAX_DECOMPRESSED_BYTES (256u << 20)
#define KS_SUBMISSION_DEFAULT_MAX_CODE_BYTES (1u << 20)
#define KS_SUBMISSION_DEFAULT_MAX_ENTRIES 10000
#define KS_SUBMISSION_DEFAULT_MAX_PASSES 1000
#define KS_SUBMISSION_DEFAULT_MAX_DEPTH 64
#define KS_SUBMISSION_DEFAULT_MAX_ENTRY_BYTES (8u << 20)
#define KS_SUBMISSION_DEFAULT_MAX_ENTRY_VALUES 10000
#define KS_SUBMISSION_DEFAULT_MAX_FILE_FIELD_BYTES 1024

#define KS_SUBMISSION_LIMITS_INIT                                                                \
	{ .max_file_bytes = KS_SUBMISSION_DEFAULT_MAX_FILE_BYTES,                                 \
	  .max_decompressed_bytes = KS_SUBMISSION_DEFAULT_MAX_DECOMPRESSED_BYTES,                 \
	  .max_code_bytes = KS_SUBMISSION_DEFAULT_MAX_CODE_BYTES,                                 \
	  .max_entries = KS_SUBMISSION_DEFAULT_MAX_ENTRIES,                                       \
	  .max_passes = KS_SUBMISSION_DEFAULT_MAX_PASSES, .max_depth = KS_SUBMISSION_DEFAULT_MAX_DEPTH, \
	  .max_entry_bytes = KS_SUBMISSION_DEFAULT_MAX_ENTRY_BYTES,                               \
	  .max_entry_values = KS_SUBMISSION_DEFAULT_MAX_ENTRY_VALUES,                             \
	  .max_file_field_bytes = KS_SUBMISSION_DEFAULT_MAX_FILE_FIELD_BYTES }

/* Loads a file or a folder. A folder's passes are its regular files whose names end in .json,
 * .jsonl, .json.gz or .jsonl.gz, in bytewise name order; other files are ignored. Within one file
 * the first entry naming a problem is that problem's entry, whatever becomes of it; later entries
 * for the same problem are marked KS_ENTRY_DUPLICATE (no code extracted), so that nothing compiles
 * or counts them: several attempts at a problem belong in several passes. Returns 0 and a
 * submission (caller frees with ks_submission_free) even when some passes or entries are bad;
 * KS_ENOTFOUND / KS_EINVALID (message set) when the path does not exist or a folder holds no
 * submission files; KS_ELIMIT when a folder holds more than max_passes of them. `limits` may be
 * NULL for KS_SUBMISSION_LIMITS_INIT.
 * A folder in KernelBench's answer layout (load/kbruns.h: level_<L>_problem_<P>_sample_<S>_kernel.py
 * files, in it or in its one run subfolder) is read instead as one pass per sample S, named
 * "sample_<S>" with path the folder of the files, each entry one file: `file`
 * "level_<L>_problem_<P>.py", `predict` the file's text (over max_code_bytes, unreadable or not
 * text: the entry's error). A file whose name does not parse is a pass of its own with its error
 * and no entries; a folder mixing the layout with other .py or GEAK files is KS_EINVALID. */
int ks_submission_load(ks_submission **out, const char *path, const ks_submission_limits *limits);

/* Parses one file's bytes (already read) into a pass; used by batch scoring, which reads files
 * from git trees. `name` becomes pass->path (its last component pass->name) and is used in
 * messages. Never fails: problems land in pass->error. `limits` may be NULL. Caller frees with
 * ks_pass_clear. */
void ks_pass_parse(ks_pass *pass, const char *name, const void *data, size_t len,
		   const ks_submission_limits *limits);

void ks_pass_clear(ks_pass *pass);
void ks_submission_free(ks_submission *s);

#endif
