#define ZLIB_CONST
#include "load/submission.h"
#include "util/buf.h"
#include "util/errors.h"
#include "load/extract.h"
#include "load/kbruns.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/jscan.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static const ks_submission_limits default_limits = KS_SUBMISSION_LIMITS_INIT;
static const char *const pass_suffixes[] = { ".json", ".jsonl", ".json.gz", ".jsonl.gz" };

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

static char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return ks_strdup(slash ? slash + 1 : path);
}

/* Inflates every gzip member of data (concatenated members are valid gzip), failing as soon as the
 * output passes max bytes: a few kilobytes of zeros must not expand into gigabytes. Each piece goes
 * through the scanner as it comes out, so a file that breaks a count or a structure rule stops
 * inflating there (an array of a million zeros stops after its first max_entries). */
static int gunzip(char **out, size_t *outlen, const unsigned char *data, size_t len, size_t max,
		  const char *name, ks_jscan *scan)
{
	ks_buf b = KS_BUF_INIT(max);
	unsigned char chunk[65536];
	z_stream zs;
	size_t left = len, got;
	int zrc, rc = 0;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + 15) != Z_OK)
		return ks_error_set(KS_ERROR, "%s: cannot start zlib", name);
	zs.next_in = data;
	for (;;) {
		if (!zs.avail_in && left) {
			/* avail_in is 32 bits: feed big inputs in slices */
			zs.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
			left -= zs.avail_in;
		}
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zrc = inflate(&zs, Z_NO_FLUSH);
		got = sizeof(chunk) - zs.avail_out;
		if (ks_buf_put(&b, chunk, got) < 0) {
			rc = ks_error_set(KS_ELIMIT, "%s: decompresses to more than %zu bytes, "
					  "the limit", name, max);
			goto done;
		}
		if ((rc = ks_jscan_feed(scan, chunk, got)) < 0)
			goto done;
		if (zrc == Z_STREAM_END && !zs.avail_in && !left)
			break;
		if (zrc == Z_STREAM_END) {
			inflateReset(&zs); /* another member follows */
		} else if (zrc == Z_BUF_ERROR && !zs.avail_in && !left) {
			rc = ks_error_set(KS_EINVALID, "%s: gzip data is truncated", name);
			goto done;
		} else if (zrc != Z_OK) {
			rc = ks_error_set(KS_EINVALID, "%s: bad gzip data (%s)", name,
					  zs.msg ? zs.msg : "inflate failed");
			goto done;
		}
	}
	*out = ks_buf_take(&b, outlen);
done:
	inflateEnd(&zs);
	ks_buf_free(&b);
	return rc;
}

/* Reads the fields of one entry. Returns a negative code with the reason when the entry cannot be
 * scored; what was read before the problem stays, so reports can still name the entry's file. */
static int entry_fill(ks_entry *e, const cJSON *o, const ks_submission_limits *lim)
{
	const char *file = NULL, *predict = "";
	const cJSON *launch;
	int64_t difficulty = -1;
	char *compact;
	int rc;

	if (!cJSON_IsObject(o))
		return ks_error_set(KS_EINVALID, "not a JSON object");
	e->instruction = ks_json_strdup(o, "instruction");
	e->label = ks_json_strdup(o, "label");
	e->test_code = ks_json_strdup(o, "test_code");
	if ((rc = ks_json_str(&file, o, "file", 1)) < 0)
		return rc;
	if (!*file)
		return ks_error_set(KS_EINVALID, "field \"file\" is empty");
	/* it names the entry in every message and report line */
	if (strlen(file) > lim->max_file_field_bytes)
		return ks_error_set(KS_ELIMIT, "field \"file\" is %zu bytes, over the limit of %zu",
				    strlen(file), lim->max_file_field_bytes);
	e->file = ks_strdup(file);
	e->problem = ks_path_stem(file);
	if (!*e->problem)
		return ks_error_set(KS_EINVALID, "field \"file\" names no problem");
	/* optional fields: absent or null (1) leaves the default */
	if ((rc = ks_json_str(&predict, o, "predict", 0)) < 0)
		return rc;
	e->predict = ks_strdup(predict);
	launch = cJSON_GetObjectItemCaseSensitive(o, "launch");
	if (launch && !cJSON_IsNull(launch)) {
		if (!cJSON_IsObject(launch))
			return ks_error_set(KS_EINVALID, "field \"launch\" must be a JSON object");
		if (!(compact = cJSON_PrintUnformatted(launch)))
			return ks_error_set(KS_ERROR, "cannot serialise field \"launch\"");
		e->launch_json = ks_strdup(compact);
		cJSON_free(compact);
	}
	if ((rc = ks_json_int(&difficulty, o, "difficulty", 0)) < 0)
		return rc;
	if (difficulty < INT_MIN || difficulty > INT_MAX)
		return ks_error_set(KS_EINVALID, "field \"difficulty\" is out of range");
	e->difficulty = (int)difficulty;
	if (strlen(e->predict) > lim->max_code_bytes)
		return ks_error_set(KS_ELIMIT,
				    "field \"predict\" is %zu bytes, over the limit of %zu",
				    strlen(e->predict), lim->max_code_bytes);
	return 0;
}

/* Fills e from its parsed object o (NULL when it could not be parsed). `why`, when set, is a
 * problem found before parsing, of kind `fault`; it wins over what entry_fill finds. */
/* The answer's code in the language it is written in: CUDA C++ (a __global__ function), else a
 * Triton answer (Python with a triton.jit kernel). The note says what was taken. */
static void extract_any(ks_entry *e)
{
	const char *lang;
	ks_extract_code(&e->code, &e->extract_note, e->predict);
	if (e->code) {
		e->language = KS_LANG_CUDA;
		return;
	}
	lang = ks_extract_foreign_language(e->predict);
	if (lang && !strncmp(lang, "Triton", 6)) {
		char *code = NULL, *note = NULL;
		ks_extract_triton(&code, &note, e->predict);
		if (code) {
			ks_free(e->extract_note);
			e->code = code;
			e->extract_note = note;
			e->language = KS_LANG_TRITON;
			return;
		}
		ks_free(note);
	}
}

static void entry_init(ks_entry *e, const cJSON *o, const char *name, const ks_submission_limits *lim,
		       ks_entry_fault fault, const char *why)
{
	ks_sha256 *h;

	if (o && entry_fill(e, o, lim) < 0 && !why) {
		e->error = ks_asprintf("%s: entry %zu: %s", name, e->index, ks_error_msg());
		e->fault = KS_ENTRY_MALFORMED;
	}
	if (why) {
		e->error = ks_asprintf("%s: entry %zu: %s", name, e->index, why);
		e->fault = fault;
	}
	if (!e->predict)
		e->predict = ks_strdup("");
	if (!e->error)
		extract_any(e);
	h = ks_sha256_new();
	ks_sha256_update_str(h, e->predict);
	ks_sha256_update_str(h, e->launch_json);
	ks_sha256_final(h, e->sha256);
}

static void free_entries(ks_pass *pass)
{
	size_t i;

	for (i = 0; i < pass->nentries; i++) {
		ks_entry *e = &pass->entries[i];
		ks_free(e->file);
		ks_free(e->problem);
		ks_free(e->predict);
		ks_free(e->code);
		ks_free(e->extract_note);
		ks_free(e->instruction);
		ks_free(e->label);
		ks_free(e->test_code);
		ks_free(e->launch_json);
		ks_free(e->error);
	}
	ks_free(pass->entries);
	pass->entries = NULL;
	pass->nentries = 0;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Line and column in the file of byte `rel` of an entry. */
static void entry_pos(const ks_jscan_entry *je, const char *text, size_t rel, size_t *line, size_t *col)
{
	size_t i;

	*line = je->line;
	*col = je->col;
	for (i = 0; i < rel; i++) {
		if (text[je->start + i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* What the scanner found that code cannot hold, for the entry's error. */
static char *describe_bad(const ks_jscan_entry *je, const char *name)
{
	char where[96], what[160];

	if (je->bad_in_key)
		snprintf(where, sizeof(where), "a field name");
	else if (je->bad_field[0])
		snprintf(where, sizeof(where), "field \"%s\"", je->bad_field);
	else
		snprintf(where, sizeof(where), "a string");
	if (je->bad == KS_JSCAN_BAD_UTF8)
		snprintf(what, sizeof(what), "a byte that is not UTF-8 (0x%02X)", je->code);
	else if (je->bad == KS_JSCAN_BAD_NUL)
		snprintf(what, sizeof(what), "a NUL character");
	else
		snprintf(what, sizeof(what), "an unpaired UTF-16 surrogate (\\u%04X)", je->code);
	return ks_asprintf("%s holds %s at byte offset %zu, line %zu, column %zu of its text (%s:%zu:%zu); "
			   "entries must be UTF-8 text without NUL characters", where, what, je->bad_offset,
			   je->bad_line, je->bad_col, name, je->bad_file_line, je->bad_file_col);
}

/* Parses one entry from its bytes; fails only when they are not valid JSON (the file's error). */
static int parse_entry(ks_entry *e, const char *text, const ks_jscan_entry *je, size_t index,
		       const char *name, const ks_submission_limits *lim)
{
	const char *t = text + je->start, *end = NULL, *p;
	size_t len = je->end - je->start, line, col;
	ks_entry_fault fault = KS_ENTRY_OK;
	char *why = NULL;
	cJSON *v = NULL;

	memset(e, 0, sizeof(*e));
	e->index = index;
	e->difficulty = -1;
	if (je->over == KS_JSCAN_OVER_BYTES) {
		why = ks_asprintf("the entry is over %zu bytes of JSON, the limit", lim->max_entry_bytes);
		fault = KS_ENTRY_MALFORMED;
	} else if (je->over == KS_JSCAN_OVER_VALUES) {
		why = ks_asprintf("the entry holds more than %zu JSON values, the limit", lim->max_entry_values);
		fault = KS_ENTRY_MALFORMED;
	} else if (je->bad == KS_JSCAN_BAD_SURROGATE) {
		/* cJSON refuses the escape: the entry is reported without its fields */
		why = describe_bad(je, name);
		fault = KS_ENTRY_BAD_ENCODING;
	} else {
		v = cJSON_ParseWithLengthOpts(t, len, &end, 0);
		if (!v) {
			entry_pos(je, text, end && end >= t && end <= t + len ? (size_t)(end - t) : 0, &line, &col);
			return ks_error_set(KS_EINVALID, "%s:%zu:%zu: invalid JSON", name, line, col);
		}
		for (p = end ? end : t + len; p < t + len && is_ws(*p); p++)
			;
		if (p < t + len) {
			cJSON_Delete(v);
			entry_pos(je, text, (size_t)(p - t), &line, &col);
			return ks_error_set(KS_EINVALID, "%s:%zu:%zu: unexpected text after the JSON value", name,
					    line, col);
		}
		if (je->bad) {
			why = describe_bad(je, name);
			fault = KS_ENTRY_BAD_ENCODING;
		}
	}
	entry_init(e, v, name, lim, fault, why);
	cJSON_Delete(v);
	ks_free(why);
	return 0;
}

typedef struct {
	const char *key;
	size_t index;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The first entry naming a problem is the problem's entry; the later ones are duplicates: they are
 * neither compiled nor counted, so that copies of one kernel cannot multiply its score. */
static void mark_duplicates(ks_pass *pass, const char *name)
{
	keyed *k = ks_calloc(pass->nentries + 1, sizeof(*k));
	size_t n = 0, i, first = 0;

	for (i = 0; i < pass->nentries; i++) {
		if (pass->entries[i].problem) {
			k[n].key = pass->entries[i].problem;
			k[n++].index = i;
		}
	}
	qsort(k, n, sizeof(*k), keyed_cmp);
	for (i = 0; i < n; i++) {
		ks_entry *e;
		if (i == 0 || strcmp(k[i].key, k[i - 1].key)) {
			first = k[i].index;
			continue;
		}
		e = &pass->entries[k[i].index];
		ks_free(e->error);
		e->error = ks_asprintf("%s: entry %zu: duplicate of entry %zu, which names the same problem "
				       "\"%s\": only the first entry for a problem in a file counts (several "
				       "attempts belong in several files, for pass@k)",
				       name, e->index, first, e->problem);
		e->fault = KS_ENTRY_DUPLICATE;
		e->first = first;
		ks_free(e->code);
		e->code = NULL;
	}
	ks_free(k);
}

/* A file that is one JSON object holding the entries in an array ({"submissions": [...]}), without
 * "file" or "predict" of its own, would read as JSON Lines of one entry without a "file": say
 * what was expected instead. Returns 0 or KS_EINVALID. */
static int check_not_wrapped(const char *text, const ks_jscan_entry *je, const char *name)
{
	const cJSON *m, *list = NULL;
	cJSON *v;
	int rc = 0;

	if (je->over != KS_JSCAN_FITS || je->bad == KS_JSCAN_BAD_SURROGATE)
		return 0;
	v = cJSON_ParseWithLength(text + je->start, je->end - je->start);
	if (!cJSON_IsObject(v) || cJSON_GetObjectItemCaseSensitive(v, "file") ||
	    cJSON_GetObjectItemCaseSensitive(v, "predict"))
		goto done;
	cJSON_ArrayForEach(m, v)
		if (cJSON_IsArray(m) && !list)
			list = m;
	if (list)
		rc = ks_error_set(KS_EINVALID, "%s: the file is one JSON object whose \"%.64s\" holds an array, "
				  "not a list of entries: an array of entries was expected ([{\"file\": ..., "
				  "\"predict\": ...}, ...], or JSON Lines, one entry per line); write that "
				  "array alone", name, list->string);
done:
	cJSON_Delete(v);
	return rc;
}

static int parse_entries(ks_pass *pass, const char *text, const ks_jscan *scan, const char *name,
			 const ks_submission_limits *lim)
{
	size_t n, i;
	const ks_jscan_entry *je = ks_jscan_entries(scan, &n);
	int rc;

	if (pass->jsonl && n == 1 && (rc = check_not_wrapped(text, &je[0], name)) < 0)
		return rc;

	pass->entries = ks_calloc(n + 1, sizeof(*pass->entries));
	for (i = 0; i < n; i++) {
		if ((rc = parse_entry(&pass->entries[i], text, &je[i], i, name, lim)) < 0)
			return rc;
		pass->nentries = i + 1;
	}
	mark_duplicates(pass, name);
	return 0;
}

void ks_pass_parse(ks_pass *pass, const char *name, const void *data, size_t len,
		   const ks_submission_limits *limits)
{
	const unsigned char *bytes = data;
	const char *text = data;
	ks_jscan_limits jl;
	ks_jscan *scan = NULL;
	char *plain = NULL;
	size_t tlen = len;
	int rc = 0;

	memset(pass, 0, sizeof(*pass));
	if (!limits)
		limits = &default_limits;
	pass->path = ks_strdup(name);
	pass->name = base_name(name);
	ks_sha256_hex(pass->sha256, data, len);
	if (len > limits->max_file_bytes) {
		rc = ks_error_set(KS_ELIMIT, "%s: file is %zu bytes, over the limit of %zu", name,
				  len, limits->max_file_bytes);
		goto done;
	}
	jl.max_entries = limits->max_entries;
	jl.max_entry_bytes = limits->max_entry_bytes;
	jl.max_entry_values = limits->max_entry_values;
	jl.max_depth = limits->max_depth;
	scan = ks_jscan_new(&jl, name);
	if (len >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) {
		pass->gzip = 1;
		rc = gunzip(&plain, &tlen, bytes, len, limits->max_decompressed_bytes, name, scan);
		text = plain;
	} else {
		rc = ks_jscan_feed(scan, data, len);
	}
	if (rc == 0)
		rc = ks_jscan_finish(scan);
	if (rc < 0)
		goto done;
	pass->jsonl = ks_jscan_kind(scan) == KS_JSCAN_LINES;
	rc = parse_entries(pass, text, scan, name, limits);
done:
	if (rc < 0) {
		pass->error = ks_strdup(ks_error_msg());
		free_entries(pass);
	}
	ks_jscan_free(scan);
	ks_free(plain);
}

static void load_pass(ks_pass *pass, const char *path, const ks_submission_limits *lim)
{
	char *data = NULL;
	size_t len = 0;

	if (ks_fs_read(&data, &len, path, lim->max_file_bytes) < 0) {
		/* no bytes to fingerprint: sha256 stays "" */
		memset(pass, 0, sizeof(*pass));
		pass->path = ks_strdup(path);
		pass->name = base_name(path);
		pass->error = ks_strdup(ks_error_msg());
		return;
	}
	ks_pass_parse(pass, path, data, len, lim);
	ks_free(data);
}

/* One answer file of KernelBench's runs layout as an entry: `file` is the problem's key
 * ("level_1_problem_2.py", which ks_set_find maps), `predict` the file's text, capped and checked
 * as the predict of any entry. The entry's messages name the file. */
static void kb_entry(ks_entry *e, ks_sha256 *pass_hash, const ks_kbruns_file *f, size_t index,
		     const ks_submission_limits *lim)
{
	size_t cap = lim->max_code_bytes < lim->max_file_bytes ? lim->max_code_bytes : lim->max_file_bytes;
	char *data = NULL, hex[65] = "";
	size_t len = 0;
	ks_sha256 *h;

	memset(e, 0, sizeof(*e));
	e->index = index;
	e->difficulty = -1;
	e->file = ks_asprintf("level_%d_problem_%d.py", f->level, f->problem);
	e->problem = ks_path_stem(e->file);
	if (ks_fs_read(&data, &len, f->path, cap) < 0) {
		e->error = ks_asprintf("%s: %s", f->path, ks_error_msg());
		e->fault = KS_ENTRY_MALFORMED;
	} else if (ks_extract_check_text(data, len) < 0) {
		e->error = ks_asprintf("%s: %s; answers must be UTF-8 text without NUL characters",
				       f->path, ks_error_msg());
		e->fault = KS_ENTRY_BAD_ENCODING;
	} else {
		ks_sha256_hex(hex, data, len);
		e->predict = data;
		data = NULL;
		extract_any(e);
	}
	if (!e->predict)
		e->predict = ks_strdup("");
	ks_free(data);
	ks_sha256_update_str(pass_hash, f->name);
	ks_sha256_update_str(pass_hash, hex);
	h = ks_sha256_new();
	ks_sha256_update_str(h, e->predict);
	ks_sha256_update_str(h, e->launch_json);
	ks_sha256_final(h, e->sha256);
}

/* The passes of a KernelBench runs folder: one per sample, holding that sample's files in problem
 * order, then one failed pass per file whose name does not parse. */
static int load_kbruns(ks_submission *s, const ks_kbruns *r, const ks_submission_limits *lim)
{
	size_t nbad = 0, i = 0, j, n;

	while (nbad < r->nfiles && r->files[r->nfiles - 1 - nbad].error)
		nbad++;
	if (r->nsamples + nbad > lim->max_passes)
		return ks_error_set(KS_ELIMIT, "%s: %zu samples and %zu misnamed files, over the limit of "
				    "%zu passes", r->dir, r->nsamples, nbad, lim->max_passes);
	s->passes = ks_calloc(r->nsamples + nbad + 1, sizeof(*s->passes));
	while (i < r->nfiles && !r->files[i].error) {
		ks_pass *p = &s->passes[s->npasses++];
		ks_sha256 *h = ks_sha256_new();
		for (n = 0; i + n < r->nfiles && !r->files[i + n].error &&
			    r->files[i + n].sample == r->files[i].sample; n++)
			;
		p->path = ks_strdup(r->dir);
		p->name = ks_asprintf("sample_%d", r->files[i].sample);
		if (n > lim->max_entries) {
			p->error = ks_asprintf("%s: sample %d has %zu answer files, over the limit of %zu "
					       "entries", r->dir, r->files[i].sample, n, lim->max_entries);
		} else {
			p->entries = ks_calloc(n + 1, sizeof(*p->entries));
			for (j = 0; j < n; j++)
				kb_entry(&p->entries[j], h, &r->files[i + j], j, lim);
			p->nentries = n;
		}
		ks_sha256_final(h, p->sha256);
		i += n;
	}
	for (; i < r->nfiles; i++) {
		ks_pass *p = &s->passes[s->npasses++];
		p->path = ks_strdup(r->files[i].path);
		p->name = ks_strdup(r->files[i].name);
		p->error = ks_strdup(r->files[i].error);
	}
	return 0;
}

static int is_pass_file(const char *dir, const char *name)
{
	struct stat st;
	char *path;
	size_t k;
	int ok = 0;

	for (k = 0; k < sizeof(pass_suffixes) / sizeof(pass_suffixes[0]); k++)
		ok |= has_suffix(name, pass_suffixes[k]);
	if (!ok)
		return 0;
	/* regular files only: reading a FIFO someone left there would block */
	path = ks_path_join(dir, name);
	ok = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	ks_free(path);
	return ok;
}

int ks_submission_load(ks_submission **out, const char *path, const ks_submission_limits *limits)
{
	ks_submission *s = NULL;
	ks_kbruns runs = { 0 };
	ks_sha256 *h;
	char **names = NULL, *file;
	size_t nnames = 0, kept = 0, i;
	int rc = 0;

	*out = NULL;
	if (!limits)
		limits = &default_limits;
	if (!ks_fs_exists(path))
		return ks_error_set(KS_ENOTFOUND, "%s: no such file or folder", path);
	s = ks_calloc(1, sizeof(*s));
	s->path = ks_strdup(path);
	s->is_folder = ks_fs_is_dir(path);
	if (!s->is_folder) {
		s->passes = ks_calloc(1, sizeof(*s->passes));
		s->npasses = 1;
		load_pass(&s->passes[0], path, limits);
	} else if ((rc = ks_kbruns_scan(&runs, path)) != 0) {
		if (rc < 0 || (rc = load_kbruns(s, &runs, limits)) < 0)
			goto done;
	} else {
		if ((rc = ks_fs_list(&names, &nnames, path, 0)) < 0)
			goto done;
		for (i = 0; i < nnames; i++) {
			if (is_pass_file(path, names[i]))
				names[kept++] = names[i];
			else
				ks_free(names[i]);
		}
		nnames = kept;
		if (!nnames) {
			rc = ks_error_set(KS_EINVALID, "%s: folder holds no .json, .jsonl, "
					  ".json.gz or .jsonl.gz file, nor KernelBench answers "
					  "(level_<L>_problem_<P>_sample_<S>_kernel.py) in it or in one "
					  "subfolder", path);
			goto done;
		}
		if (nnames > limits->max_passes) {
			rc = ks_error_set(KS_ELIMIT, "%s: %zu submission files, over the "
					  "limit of %zu passes", path, nnames, limits->max_passes);
			goto done;
		}
		s->passes = ks_calloc(nnames, sizeof(*s->passes));
		for (; s->npasses < nnames; s->npasses++) {
			file = ks_path_join(path, names[s->npasses]);
			load_pass(&s->passes[s->npasses], file, limits);
			ks_free(file);
		}
	}
	h = ks_sha256_new();
	for (i = 0; i < s->npasses; i++)
		ks_sha256_update_str(h, s->passes[i].sha256);
	ks_sha256_final(h, s->sha256);
	*out = s;
	s = NULL;
done:
	ks_kbruns_clear(&runs);
	ks_free_strv(names, nnames);
	ks_submission_free(s);
	return rc;
}

void ks_pass_clear(ks_pass *pass)
{
	if (!pass)
		return;
	free_entries(pass);
	ks_free(pass->path);
	ks_free(pass->name);
	ks_free(pass->error);
	memset(pass, 0, sizeof(*pass));
}

void ks_submission_free(ks_submission *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->npasses; i++)
		ks_pass_clear(&s->passes[i]);
	ks_free(s->passes);
	ks_free(s->path);
	ks_free(s);
}
