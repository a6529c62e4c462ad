#define ZLIB_CONST
#include "submission.h"
#include "buf.h"
#include "errors.h"
#include "extract.h"
#include "fsutil.h"
#include "hash.h"
#include "jsonutil.h"
#include "mem.h"

#include <limits.h>
#include <stdint.h>
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
 * output passes max bytes: a few kilobytes of zeros must not expand into gigabytes. */
static int gunzip(char **out, size_t *outlen, const unsigned char *data, size_t len, size_t max,
		  const char *name)
{
	ks_buf b = KS_BUF_INIT(max);
	unsigned char chunk[65536];
	z_stream zs;
	size_t left = len;
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
		if (ks_buf_put(&b, chunk, sizeof(chunk) - zs.avail_out) < 0) {
			rc = ks_error_set(KS_ELIMIT, "%s: decompresses to more than %zu bytes, "
					  "the limit", name, max);
			goto done;
		}
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

static char *opt_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? ks_strdup(v->valuestring) : NULL;
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
	e->instruction = opt_str(o, "instruction");
	e->label = opt_str(o, "label");
	e->test_code = opt_str(o, "test_code");
	if ((rc = ks_json_str(&file, o, "file", 1)) < 0)
		return rc;
	if (!*file)
		return ks_error_set(KS_EINVALID, "field \"file\" is empty");
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

static void entry_init(ks_entry *e, const cJSON *o, size_t index, const char *name,
		       const ks_submission_limits *lim)
{
	ks_sha256 *h;

	memset(e, 0, sizeof(*e));
	e->index = index;
	e->difficulty = -1;
	if (entry_fill(e, o, lim) < 0)
		e->error = ks_asprintf("%s: entry %zu: %s", name, index, ks_error_msg());
	if (!e->predict)
		e->predict = ks_strdup("");
	if (!e->error)
		ks_extract_code(&e->code, &e->extract_note, e->predict);
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

static int parse_array(ks_pass *pass, const char *text, size_t len, const char *name,
		       const ks_submission_limits *lim)
{
	cJSON *root = NULL, *item;
	size_t n, i = 0;
	int rc;

	if ((rc = ks_json_parse(&root, text, len, lim->max_depth, name)) < 0)
		return rc;
	n = (size_t)cJSON_GetArraySize(root);
	if (n > lim->max_entries) {
		rc = ks_error_set(KS_ELIMIT, "%s: %zu entries, over the limit of %zu", name, n,
				  lim->max_entries);
		goto done;
	}
	pass->entries = ks_calloc(n, sizeof(*pass->entries));
	cJSON_ArrayForEach(item, root) {
		entry_init(&pass->entries[i], item, i, name, lim);
		i++;
	}
	pass->nentries = n;
done:
	cJSON_Delete(root);
	return rc;
}

/* JSON's whitespace: a blank line of a JSON Lines file holds only these */
static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int is_blank(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && is_ws(s[i]))
		i++;
	return i == n;
}

/* One JSON Lines line is parsed on its own, so ks_json_parse reports it as line 1 of `name`;
 * this moves that position to the line's place in the file. */
static char *line_error(const char *name, size_t lineno)
{
	const char *m = ks_error_msg();
	size_t n = strlen(name);

	if (!strncmp(m, name, n) && !strncmp(m + n, ":1:", 3))
		return ks_asprintf("%s:%zu:%s", name, lineno, m + n + 3);
	return ks_asprintf("%s:%zu: %s", name, lineno, m);
}

static int parse_jsonl(ks_pass *pass, const char *text, size_t len, const char *name,
		       const ks_submission_limits *lim)
{
	size_t off = 0, lineno = 0, cap = 0;
	char *why = NULL;
	cJSON *v = NULL;
	int rc = 0;

	while (off < len) {
		const char *line = text + off, *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off;
		off += n + 1;
		lineno++;
		if (is_blank(line, n))
			continue;
		if (pass->nentries == lim->max_entries) {
			rc = ks_error_set(KS_ELIMIT, "%s: more than %zu entries, the limit", name,
					  lim->max_entries);
			goto done;
		}
		if ((rc = ks_json_parse(&v, line, n, lim->max_depth, name)) < 0) {
			/* a file holding one pretty-printed object is one entry */
			why = line_error(name, lineno);
			if (pass->nentries == 0 &&
			    ks_json_parse(&v, text, len, lim->max_depth, name) == 0 &&
			    cJSON_IsObject(v)) {
				rc = 0;
				off = len;
			} else {
				rc = ks_error_set(rc, "%s", why);
				goto done;
			}
		}
		pass->entries = ks_grow(pass->entries, sizeof(*pass->entries), &cap,
					pass->nentries + 1);
		entry_init(&pass->entries[pass->nentries], v, pass->nentries, name, lim);
		pass->nentries++;
		cJSON_Delete(v);
		v = NULL;
	}
done:
	cJSON_Delete(v);
	ks_free(why);
	return rc;
}

void ks_pass_parse(ks_pass *pass, const char *name, const void *data, size_t len,
		   const ks_submission_limits *limits)
{
	const unsigned char *bytes = data;
	const char *text = data;
	char *plain = NULL;
	size_t i = 0, tlen = len;
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
	if (len >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) {
		pass->gzip = 1;
		rc = gunzip(&plain, &tlen, bytes, len, limits->max_decompressed_bytes, name);
		if (rc < 0)
			goto done;
		text = plain;
	}
	if (tlen >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		tlen -= 3;
	}
	while (i < tlen && is_ws(text[i]))
		i++;
	if (i == tlen) {
		rc = ks_error_set(KS_EINVALID,
				  "%s: empty file (expected a JSON array or JSON Lines)", name);
	} else if (text[i] == '[') {
		rc = parse_array(pass, text, tlen, name, limits);
	} else if (text[i] == '{') {
		pass->jsonl = 1;
		rc = parse_jsonl(pass, text, tlen, name, limits);
	} else {
		rc = ks_error_set(KS_EINVALID, "%s: expected a JSON array of entries or JSON "
				  "Lines of objects", name);
	}
done:
	if (rc < 0) {
		pass->error = ks_strdup(ks_error_msg());
		free_entries(pass);
	}
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
					  ".json.gz or .jsonl.gz file", path);
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
