#include "trace/drvtrace.h"
#include "trace/cupti/drvmap.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <stdio.h>
#include <string.h>

#define FORMAT "kscore.drvtrace/1"
#define MAX_LINE (2u << 20)
#define MAX_BLOCK 32768u
#define MAX_PARAMS 4096u
#define MAX_ATTRS 32u
#define MAX_NAME 4096u

const char *ks_drvword_kind_name(ks_drvword_kind k)
{
	switch (k) {
	case KS_DRVWORD_VALUE:
		return "value";
	case KS_DRVWORD_POINTER:
		return "pointer";
	case KS_DRVWORD_TMAP:
		return "tmap";
	}
	return "?";
}

/* the reading state: the trace, the live allocations and where the parse is */
typedef struct {
	ks_drvtrace *t;
	const ks_drvtrace_options *o;
	ks_drvmap live; /* address -> index into t->allocs (as the range's id) */
	size_t line, total_bytes;
	int recording;
	size_t capm, capa, capl, capc, capt, capr;
} rd;

static int bad(const rd *r, const char *fmt, const char *what)
{
	return ks_error_set(KS_EINVALID, "line %zu: %s%s", r->line, fmt, what ? what : "");
}

static int hexnum(uint64_t *out, const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	const char *s;
	uint64_t x = 0;
	size_t i;
	if (!cJSON_IsString(v) || strncmp(s = v->valuestring, "0x", 2) != 0 || !s[2] || strlen(s) > 18)
		return ks_error_set(KS_EINVALID, "\"%s\" is not a hex string \"0x...\" of at most 16 digits", key);
	for (i = 2; s[i]; i++) {
		char c = s[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : 99;
		if (d > 15)
			return ks_error_set(KS_EINVALID, "\"%s\" is not a hex string \"0x...\"", key);
		x = x << 4 | d;
	}
	*out = x;
	return 0;
}

static int u64(uint64_t *out, const cJSON *o, const char *key, uint64_t hi)
{
	int64_t v = 0;
	int rc = ks_json_int_in(&v, o, key, 1, 0, (int64_t)(hi > (uint64_t)INT64_MAX ? INT64_MAX : hi));
	*out = 0;
	if (rc == 0)
		*out = (uint64_t)v;
	return rc < 0 ? rc : 0;
}

static int u32arr(uint32_t *out, size_t *n, const cJSON *o, const char *key, size_t max, size_t exact)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *e;
	size_t i = 0;
	if (!cJSON_IsArray(a))
		return ks_error_set(KS_EINVALID, "\"%s\" is not an array", key);
	cJSON_ArrayForEach(e, a)
	{
		int64_t v;
		if (i >= max)
			return ks_error_set(KS_EINVALID, "\"%s\" has more than %zu numbers", key, max);
		if (!cJSON_IsNumber(e) || ks_json_d2i(&v, e->valuedouble, 0, UINT32_MAX) < 0)
			return ks_error_set(KS_EINVALID, "\"%s\"[%zu] is not a 32-bit unsigned number", key, i);
		out[i++] = (uint32_t)v;
	}
	if (exact && i != exact)
		return ks_error_set(KS_EINVALID, "\"%s\" has %zu numbers, not %zu", key, i, exact);
	if (n)
		*n = i;
	return 0;
}

static int hexbytes(unsigned char *out, size_t *n, const cJSON *o, const char *key, size_t max)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	size_t len, i;
	if (!cJSON_IsString(v) || (len = strlen(v->valuestring)) % 2 || len / 2 > max)
		return ks_error_set(KS_EINVALID, "\"%s\" is not a string of at most %zu hex bytes", key, max);
	for (i = 0; i < len; i++) {
		char c = v->valuestring[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 99;
		if (d > 15)
			return ks_error_set(KS_EINVALID, "\"%s\" holds a character that is not a hex digit", key);
		if (i % 2 == 0)
			out[i / 2] = (unsigned char)(d << 4);
		else
			out[i / 2] |= (unsigned char)d;
	}
	*n = len / 2;
	return 0;
}

static int sha_field(char sha[65], const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	size_t i;
	if (!cJSON_IsString(v) || strlen(v->valuestring) != 64)
		return ks_error_set(KS_EINVALID, "\"%s\" is not a SHA-256 in hex", key);
	for (i = 0; i < 64; i++) {
		char c = v->valuestring[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return ks_error_set(KS_EINVALID, "\"%s\" is not a SHA-256 in lowercase hex", key);
	}
	memcpy(sha, v->valuestring, 65);
	return 0;
}

static char *str_or_null(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? ks_strndup(v->valuestring, strnlen(v->valuestring, MAX_NAME)) : NULL;
}

/* a file beside the trace, checked against the hash that names it */
static int verified(rd *r, char **data, size_t *len, const char *sha, const char *ext)
{
	char got[65];
	int rc;
	if (!r->o->read_file)
		return ks_error_set(KS_EINVALID, "no reader for the files beside the trace");
	if ((rc = r->o->read_file(r->o->ctx, data, len, sha, ext, r->o->max_file_bytes)) < 0)
		return rc;
	ks_sha256_hex(got, *data, *len);
	if (strcmp(got, sha) != 0) {
		ks_free(*data);
		*data = NULL;
		return ks_error_set(KS_EINVALID, "%s.%s: its content hashes to %s", sha, ext, got);
	}
	return 0;
}

static int rec_module(rd *r, const cJSON *o)
{
	ks_drvtrace *t = r->t;
	ks_drvtrace_module *m;
	uint64_t idx;
	int rc;
	if ((rc = u64(&idx, o, "module", SIZE_MAX)) < 0)
		return rc;
	if (idx != t->nmodules)
		return ks_error_set(KS_EINVALID, "module %llu out of order (expected %zu)", (unsigned long long)idx,
				    t->nmodules);
	t->modules = ks_grow(t->modules, sizeof(*t->modules), &r->capm, t->nmodules + 1);
	m = &t->modules[t->nmodules];
	memset(m, 0, sizeof(*m));
	if ((rc = sha_field(m->sha, o, "sha256")) < 0 || (rc = verified(r, &m->bytes, &m->len, m->sha, "cubin")) < 0)
		return rc;
	t->nmodules++;
	r->total_bytes += m->len;
	if (r->total_bytes > r->o->max_total_bytes)
		return ks_error_set(KS_ELIMIT, "the CUBINs hold more than %zu bytes, the limit", r->o->max_total_bytes);
	m->elf = m->len >= 4 && memcmp(m->bytes, "\x7f" "ELF", 4) == 0;
	return 0;
}

static int hostish(const char *via)
{
	return strcmp(via, "host") == 0 || strncmp(via, "cuMemHostAlloc", 14) == 0 ||
	       strncmp(via, "cuMemAllocHost", 14) == 0;
}

static int rec_alloc(rd *r, const cJSON *o)
{
	ks_drvtrace *t = r->t;
	ks_drvtrace_alloc a = { 0 };
	int rc;
	if (t->nallocs >= r->o->max_allocs)
		return ks_error_set(KS_ELIMIT, "more than %zu allocations, the limit", r->o->max_allocs);
	if ((rc = u64(&a.id, o, "id", UINT64_MAX)) < 0 || (rc = hexnum(&a.base, o, "base")) < 0 ||
	    (rc = u64(&a.size, o, "size", UINT64_MAX)) < 0)
		return rc;
	if (a.size == 0 || a.base + a.size < a.base)
		return ks_error_set(KS_EINVALID, "an allocation of %llu bytes at 0x%llx", (unsigned long long)a.size,
				    (unsigned long long)a.base);
	ks_json_str_copy(a.via, sizeof(a.via), o, "via");
	a.managed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "managed"));
	a.host = hostish(a.via);
	if (ks_drvmap_add(&r->live, a.base, a.size, t->nallocs) < 0)
		return ks_error_set(KS_ELIMIT, "more than %zu live allocations", r->o->max_allocs);
	t->allocs = ks_grow(t->allocs, sizeof(*t->allocs), &r->capa, t->nallocs + 1);
	t->allocs[t->nallocs++] = a;
	return 0;
}

static int rec_free(rd *r, const cJSON *o)
{
	uint64_t base, idx;
	int rc;
	if ((rc = hexnum(&base, o, "base")) < 0)
		return rc;
	if (ks_drvmap_remove(&idx, &r->live, base) == 0)
		r->t->allocs[idx].freed = 1;
	return 0;
}

/* whether b (128 bytes of a block) is tensor map m: equal but for one bit of word 1, which Triton
 * clears after encoding on some drivers */
static int tmap_match(const unsigned char *b, const ks_drvtrace_tmap *m)
{
	size_t i;
	int diff = 0;
	for (i = 0; i < 128; i++) {
		unsigned x = b[i] ^ m->bytes[i];
		if (!x)
			continue;
		if (i < 8 || i >= 16 || (x & (x - 1)) || diff)
			return 0;
		diff = 1;
	}
	return 1;
}

/* the index of the live allocation that holds address a, or -1 */
static int64_t live_alloc(const rd *r, uint64_t a)
{
	const ks_drvmap_range *rg = a ? ks_drvmap_find(&r->live, a) : NULL;
	return rg ? (int64_t)rg->id : -1;
}

static void refuse(ks_drvtrace_launch *l, const char *why)
{
	if (!l->refused)
		l->refused = ks_strdup(why);
}

static void classify(rd *r, ks_drvtrace_launch *l)
{
	size_t off, i;
	l->nwords = l->nargs / 8;
	l->words = ks_calloc(l->nwords ? l->nwords : 1, sizeof(*l->words));
	for (off = 0; off + 8 <= l->nargs; off += 8) {
		ks_drvtrace_word *w = &l->words[off / 8];
		const ks_drvmap_range *rg;
		uint64_t v;
		w->offset = (uint32_t)off;
		if (w->kind == KS_DRVWORD_TMAP)
			continue;
		if (off % 64 == 0 && off + 128 <= l->nargs) {
			for (i = r->t->ntmaps; i-- > 0;)
				if (tmap_match(l->args + off, &r->t->tmaps[i]))
					break;
			if (i != (size_t)-1) {
				size_t k;
				for (k = 0; k < 16; k++) {
					l->words[off / 8 + k].offset = (uint32_t)(off + 8 * k);
					l->words[off / 8 + k].kind = KS_DRVWORD_TMAP;
					l->words[off / 8 + k].tmap = i;
				}
				continue;
			}
		}
		memcpy(&v, l->args + off, 8);
		if (v && (rg = ks_drvmap_find(&r->live, v)) != NULL) {
			const ks_drvtrace_alloc *a = &r->t->allocs[rg->id];
			w->kind = KS_DRVWORD_POINTER;
			w->alloc = (size_t)rg->id;
			w->alloc_off = v - rg->base;
			if (a->managed)
				refuse(l, "a parameter points into managed memory");
			else if (a->host)
				refuse(l, "a parameter points into host memory");
		}
	}
}

/* the module of a launch the recorder could not name: the one CUBIN whose strings hold its name */
static int module_by_name(const ks_drvtrace *t, const char *name)
{
	size_t i, n = strlen(name);
	int found = -1;
	for (i = 0; i < t->nmodules; i++) {
		const char *p = t->modules[i].bytes, *end = p + t->modules[i].len;
		while (p && (size_t)(end - p) > n + 1) {
			const char *q = memchr(p, 0, (size_t)(end - p));
			if (!q || (size_t)(end - q) < n + 2)
				break;
			if (memcmp(q + 1, name, n) == 0 && q[n + 1] == 0) {
				if (found >= 0 && found != (int)i)
					return -2;
				found = (int)i;
				break;
			}
			p = q + 1;
		}
	}
	return found;
}

static int rec_launch(rd *r, const cJSON *o, uint64_t seq)
{
	ks_drvtrace *t = r->t;
	ks_drvtrace_launch *l;
	const cJSON *mod = cJSON_GetObjectItemCaseSensitive(o, "module"), *at = cJSON_GetObjectItemCaseSensitive(o, "attrs");
	const cJSON *lay = cJSON_GetObjectItemCaseSensitive(o, "layout");
	uint64_t v;
	size_t i, n;
	int rc;
	if (!r->recording)
		return ks_error_set(KS_EINVALID, "a launch while recording was off");
	if (t->nlaunches >= r->o->max_launches)
		return ks_error_set(KS_ELIMIT, "more than %zu launches, the limit", r->o->max_launches);
	t->launches = ks_grow(t->launches, sizeof(*t->launches), &r->capl, t->nlaunches + 1);
	l = &t->launches[t->nlaunches++];
	memset(l, 0, sizeof(*l));
	l->seq = seq;
	l->module = -1;
	l->api = str_or_null(o, "api");
	l->runtime = str_or_null(o, "runtime");
	l->name = str_or_null(o, "name");
	if (!l->api)
		return ks_error_set(KS_EINVALID, "a launch without \"api\"");
	if ((rc = u32arr(l->grid, NULL, o, "grid", 3, 3)) < 0 || (rc = u32arr(l->block, NULL, o, "block", 3, 3)) < 0 ||
	    (rc = u64(&v, o, "smem", UINT32_MAX)) < 0)
		return rc;
	l->smem = (uint32_t)v;
	if ((rc = hexnum(&l->stream, o, "stream")) < 0)
		return rc;
	if (cJSON_IsNumber(mod)) {
		int64_t m;
		if (ks_json_d2i(&m, mod->valuedouble, 0, (int64_t)t->nmodules - 1) < 0)
			return ks_error_set(KS_EINVALID, "\"module\" names no recorded module");
		l->module = (int)m;
	} else if (mod && !cJSON_IsNull(mod)) {
		return ks_error_set(KS_EINVALID, "\"module\" is neither a number nor null");
	}
	if (at) {
		uint32_t tmp[4];
		const cJSON *e;
		if (!cJSON_IsArray(at) || (size_t)cJSON_GetArraySize(at) > MAX_ATTRS)
			return ks_error_set(KS_EINVALID, "\"attrs\" is not an array of at most %u", MAX_ATTRS);
		l->attrs = ks_calloc((size_t)cJSON_GetArraySize(at) + 1, sizeof(*l->attrs));
		cJSON_ArrayForEach(e, at)
		{
			if ((rc = u64(&v, e, "id", UINT32_MAX)) < 0 || (rc = u32arr(tmp, NULL, e, "v", 3, 3)) < 0)
				return ks_error_wrap(rc, "attrs[%zu]", l->nattrs);
			l->attrs[l->nattrs].id = (uint32_t)v;
			memcpy(l->attrs[l->nattrs++].v, tmp, sizeof(l->attrs[0].v));
		}
	}
	l->args = ks_malloc(MAX_BLOCK);
	if ((rc = hexbytes(l->args, &l->nargs, o, "args", MAX_BLOCK)) < 0)
		return rc;
	l->extra = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "extra"));
	l->refused = str_or_null(o, "refused"); /* the recorder's own reason comes first */
	if (cJSON_IsString(lay)) {
		size_t ns;
		l->offsets = ks_calloc(MAX_PARAMS, sizeof(uint32_t));
		l->sizes = ks_calloc(MAX_PARAMS, sizeof(uint32_t));
		if ((rc = u32arr(l->offsets, &n, o, "offsets", MAX_PARAMS, 0)) < 0 ||
		    (rc = u32arr(l->sizes, &ns, o, "sizes", MAX_PARAMS, n ? n : 0)) < 0)
			return rc;
		if (ns != n)
			return ks_error_set(KS_EINVALID, "\"offsets\" and \"sizes\" differ in length");
		l->layout = 1;
		l->nparams = n;
		for (i = 0; i < n; i++)
			if ((uint64_t)l->offsets[i] + l->sizes[i] > l->nargs)
				refuse(l, "a parameter lies outside the recorded block");
	} else if (lay && !cJSON_IsNull(lay)) {
		return ks_error_set(KS_EINVALID, "\"layout\" is neither a string nor null");
	}
	if (!l->layout && !l->extra && l->nargs)
		refuse(l, "the driver gave no parameter layout");
	if (l->module < 0 && l->name && (l->module = module_by_name(t, l->name)) >= 0)
		l->module_by_name = 1;
	if (l->module < 0) {
		refuse(l, l->module == -2 ? "its function's name is in several recorded modules" : "its module was not recorded");
		l->module = -1;
	}
	classify(r, l);
	return 0;
}

static int rec_copy(rd *r, const cJSON *o, uint64_t seq, int set)
{
	ks_drvtrace *t = r->t;
	ks_drvtrace_copy c = { 0 };
	uint64_t v;
	int rc;
	c.seq = seq;
	if (set) {
		snprintf(c.kind, sizeof(c.kind), "set");
		if ((rc = hexnum(&c.dst, o, "dst")) < 0 || (rc = u64(&v, o, "elem", 4)) < 0)
			return rc;
		if (v != 1 && v != 2 && v != 4)
			return ks_error_set(KS_EINVALID, "\"elem\" is %llu, not 1, 2 or 4", (unsigned long long)v);
		c.elem = (unsigned)v;
		if ((rc = u64(&v, o, "value", UINT32_MAX)) < 0)
			return rc;
		c.value = (uint32_t)v;
		if ((rc = u64(&v, o, "count", UINT64_MAX / 4)) < 0)
			return rc;
		c.bytes = v * c.elem;
	} else {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "dir");
		if (!cJSON_IsString(d) || (strcmp(d->valuestring, "htod") && strcmp(d->valuestring, "dtoh") &&
					   strcmp(d->valuestring, "dtod") && strcmp(d->valuestring, "htoh")))
			return ks_error_set(KS_EINVALID, "\"dir\" is not htod, dtoh, dtod or htoh");
		snprintf(c.kind, sizeof(c.kind), "%s", d->valuestring);
		if ((rc = hexnum(&c.dst, o, "dst")) < 0 || (rc = hexnum(&c.src, o, "src")) < 0 ||
		    (rc = u64(&c.bytes, o, "bytes", UINT64_MAX)) < 0)
			return rc;
		if (cJSON_GetObjectItemCaseSensitive(o, "data")) {
			char *data;
			size_t len;
			if ((rc = sha_field(c.data, o, "data")) < 0 || (rc = verified(r, &data, &len, c.data, "bin")) < 0)
				return rc;
			ks_free(data);
			if (len != c.bytes)
				return ks_error_set(KS_EINVALID, "%s.bin holds %zu bytes, the copy %llu", c.data, len,
						    (unsigned long long)c.bytes);
		}
		c.cut = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "cut"));
	}
	if ((rc = hexnum(&c.stream, o, "stream")) < 0)
		return rc;
	c.api = str_or_null(o, "api");
	c.dst_alloc = strcmp(c.kind, "dtoh") && strcmp(c.kind, "htoh") ? live_alloc(r, c.dst) : -1;
	c.src_alloc = !strcmp(c.kind, "dtoh") || !strcmp(c.kind, "dtod") ? live_alloc(r, c.src) : -1;
	c.recording = r->recording;
	t->copies = ks_grow(t->copies, sizeof(*t->copies), &r->capc, t->ncopies + 1);
	t->copies[t->ncopies++] = c;
	return 0;
}

static int rec_tmap(rd *r, const cJSON *o, uint64_t seq)
{
	ks_drvtrace *t = r->t;
	ks_drvtrace_tmap m = { 0 };
	uint64_t v;
	size_t n;
	int rc;
	m.seq = seq;
	if ((rc = hexnum(&m.addr, o, "addr")) < 0 || (rc = u64(&v, o, "rank", 5)) < 0 ||
	    (rc = hexbytes(m.bytes, &n, o, "bytes", 128)) < 0)
		return rc;
	if (n != 128)
		return ks_error_set(KS_EINVALID, "\"bytes\" holds %zu bytes, not 128", n);
	m.rank = (uint32_t)v;
	m.api = str_or_null(o, "api");
	m.alloc = live_alloc(r, m.addr);
	t->tmaps = ks_grow(t->tmaps, sizeof(*t->tmaps), &r->capt, t->ntmaps + 1);
	t->tmaps[t->ntmaps++] = m;
	return 0;
}

static int rec_refusal(rd *r, const cJSON *o, uint64_t seq)
{
	ks_drvtrace *t = r->t;
	ks_drvtrace_refusal f;
	f.seq = seq;
	f.what = str_or_null(o, "what");
	f.why = str_or_null(o, "why");
	f.recording = r->recording;
	if (!f.what || !f.why) {
		ks_free(f.what);
		ks_free(f.why);
		return ks_error_set(KS_EINVALID, "an untraceable record without \"what\" and \"why\"");
	}
	t->refusals = ks_grow(t->refusals, sizeof(*t->refusals), &r->capr, t->nrefusals + 1);
	t->refusals[t->nrefusals++] = f;
	return 0;
}

static int record(rd *r, const cJSON *o)
{
	ks_drvtrace *t = r->t;
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "k");
	uint64_t seq;
	int rc;
	if (!cJSON_IsObject(o) || !cJSON_IsString(k))
		return ks_error_set(KS_EINVALID, "not a record object with a kind \"k\"");
	if ((rc = u64(&seq, o, "seq", UINT64_MAX)) < 0)
		return rc;
	if (seq != t->records)
		return ks_error_set(KS_EINVALID, "record %llu where %llu was due", (unsigned long long)seq,
				    (unsigned long long)t->records);
	if (t->complete)
		return ks_error_set(KS_EINVALID, "a record after the end record");
	if (seq == 0) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "format");
		if (strcmp(k->valuestring, "header") || !cJSON_IsString(f))
			return ks_error_set(KS_EINVALID, "the first record is not the header");
		if (strcmp(f->valuestring, FORMAT) != 0)
			return ks_error_set(KS_EINVALID, "format \"%.64s\", not \"%s\"", f->valuestring, FORMAT);
		r->recording = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "recording"));
		{
			int64_t pid = 0;
			if (ks_json_d2i(&pid, ks_json_num_or(o, "pid", 0), 0, INT32_MAX) < 0)
				return ks_error_wrap(KS_EINVALID, "\"pid\"");
			t->pid = (uint64_t)pid;
		}
		return 0;
	}
	if (t->stopped && strcmp(k->valuestring, "end") != 0)
		return ks_error_set(KS_EINVALID, "a record after the overflow that stopped the recording");
	if (!strcmp(k->valuestring, "module"))
		return rec_module(r, o);
	if (!strcmp(k->valuestring, "alloc"))
		return rec_alloc(r, o);
	if (!strcmp(k->valuestring, "free"))
		return rec_free(r, o);
	if (!strcmp(k->valuestring, "launch"))
		return rec_launch(r, o, seq);
	if (!strcmp(k->valuestring, "copy") || !strcmp(k->valuestring, "set"))
		return rec_copy(r, o, seq, k->valuestring[0] == 's');
	if (!strcmp(k->valuestring, "tmap"))
		return rec_tmap(r, o, seq);
	if (!strcmp(k->valuestring, "untraceable"))
		return rec_refusal(r, o, seq);
	if (!strcmp(k->valuestring, "mark")) {
		r->recording = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "on"));
		t->marks++;
		return 0;
	}
	if (!strcmp(k->valuestring, "sync")) {
		t->syncs++;
		return 0;
	}
	if (!strcmp(k->valuestring, "event") || !strcmp(k->valuestring, "stream")) {
		t->events++;
		return 0;
	}
	if (!strcmp(k->valuestring, "overflow")) {
		t->stopped = 1;
		ks_free(t->overflow);
		t->overflow = ks_asprintf("the %.64s cap", cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "what"))
							       ? cJSON_GetObjectItemCaseSensitive(o, "what")->valuestring
							       : "?");
		return 0;
	}
	if (!strcmp(k->valuestring, "end")) {
		t->complete = 1;
		return 0;
	}
	return ks_error_set(KS_EINVALID, "unknown record kind \"%.32s\"", k->valuestring);
}

int ks_drvtrace_parse(ks_drvtrace *out, const char *text, size_t len, const ks_drvtrace_options *opts)
{
	ks_drvtrace_options dflt = KS_DRVTRACE_OPTIONS_INIT;
	rd r;
	size_t pos = 0;
	int rc = 0;
	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	r.t = out;
	r.o = opts ? opts : &dflt;
	r.live.max = r.o->max_allocs;
	if (len > r.o->max_trace_bytes) {
		rc = ks_error_set(KS_ELIMIT, "the trace is over %zu bytes, the limit", r.o->max_trace_bytes);
		goto done;
	}
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		cJSON *o = NULL;
		r.line++;
		if (!nl)
			break; /* cut off: the process died writing it */
		if ((size_t)(nl - (text + pos)) > MAX_LINE) {
			rc = ks_error_set(KS_ELIMIT, "line %zu: longer than %u bytes", r.line, MAX_LINE);
			goto done;
		}
		if (out->records >= r.o->max_records) {
			rc = ks_error_set(KS_ELIMIT, "more than %zu records, the limit", r.o->max_records);
			goto done;
		}
		if ((rc = ks_json_parse(&o, text + pos, (size_t)(nl - (text + pos)), 8, "record")) < 0 ||
		    (rc = record(&r, o)) < 0) {
			cJSON_Delete(o);
			rc = ks_error_wrap(rc, "line %zu", r.line);
			goto done;
		}
		cJSON_Delete(o);
		out->records++;
		pos = (size_t)(nl - text) + 1;
	}
	if (out->records == 0)
		rc = bad(&r, "no header: an empty trace", NULL);
done:
	ks_drvmap_clear(&r.live);
	return rc;
}

typedef struct {
	const char *dir;
} dir_ctx;

static int read_beside(void *ctx, char **data, size_t *len, const char *sha, const char *ext, size_t max)
{
	char *path = ks_asprintf("%s/%s.%s", ((dir_ctx *)ctx)->dir, sha, ext);
	int rc = ks_fs_read(data, len, path, max);
	ks_free(path);
	return rc;
}

static int has_prefix_suffix(const char *s, const char *pre, const char *suf)
{
	size_t n = strlen(s), a = strlen(pre), b = strlen(suf);
	return n > a + b && strncmp(s, pre, a) == 0 && strcmp(s + n - b, suf) == 0;
}

int ks_drvtrace_read(ks_drvtrace *out, const char *dir, const char *name, const ks_drvtrace_options *opts)
{
	ks_drvtrace_options o = KS_DRVTRACE_OPTIONS_INIT;
	dir_ctx ctx = { dir };
	char **names = NULL, *path = NULL, *text = NULL;
	size_t nn = 0, i, len = 0, found = 0;
	int rc;
	memset(out, 0, sizeof(*out));
	if (opts)
		o = *opts;
	if (!o.read_file) {
		o.read_file = read_beside;
		o.ctx = &ctx;
	}
	if (!name) {
		if ((rc = ks_fs_list(&names, &nn, dir, 0)) < 0)
			goto done;
		for (i = 0; i < nn; i++)
			if (has_prefix_suffix(names[i], "trace-", ".jsonl")) {
				found++;
				name = names[i];
			}
		if (found != 1) {
			rc = ks_error_set(KS_EINVALID, "%s: %zu trace files (trace-*.jsonl), not one", dir, found);
			goto done;
		}
	}
	path = ks_asprintf("%s/%s", dir, name);
	if ((rc = ks_fs_read(&text, &len, path, o.max_trace_bytes)) < 0 ||
	    (rc = ks_drvtrace_parse(out, text, len, &o)) < 0)
		rc = ks_error_wrap(rc, "%s", path);
done:
	ks_free(text);
	ks_free(path);
	ks_free_strv(names, nn);
	return rc;
}

void ks_drvtrace_clear(ks_drvtrace *t)
{
	size_t i;
	for (i = 0; i < t->nmodules; i++)
		ks_free(t->modules[i].bytes);
	for (i = 0; i < t->nlaunches; i++) {
		ks_drvtrace_launch *l = &t->launches[i];
		ks_free(l->api);
		ks_free(l->runtime);
		ks_free(l->name);
		ks_free(l->attrs);
		ks_free(l->offsets);
		ks_free(l->sizes);
		ks_free(l->args);
		ks_free(l->words);
		ks_free(l->refused);
	}
	for (i = 0; i < t->ncopies; i++)
		ks_free(t->copies[i].api);
	for (i = 0; i < t->ntmaps; i++)
		ks_free(t->tmaps[i].api);
	for (i = 0; i < t->nrefusals; i++) {
		ks_free(t->refusals[i].what);
		ks_free(t->refusals[i].why);
	}
	ks_free(t->modules);
	ks_free(t->allocs);
	ks_free(t->launches);
	ks_free(t->copies);
	ks_free(t->tmaps);
	ks_free(t->refusals);
	ks_free(t->overflow);
	memset(t, 0, sizeof(*t));
}

int ks_drvtrace_replayable(const ks_drvtrace *t, char **why)
{
	size_t i;
	*why = NULL;
	if (t->stopped)
		*why = ks_asprintf("the recording stopped at %s", t->overflow ? t->overflow : "a cap");
	else if (!t->complete)
		*why = ks_strdup("the trace is incomplete: the traced process did not finish it");
	for (i = 0; !*why && i < t->nrefusals; i++)
		if (t->refusals[i].recording)
			*why = ks_asprintf("%s: %s", t->refusals[i].what, t->refusals[i].why);
	for (i = 0; !*why && i < t->nlaunches; i++)
		if (t->launches[i].refused)
			*why = ks_asprintf("launch %zu (%s): %s", i, t->launches[i].name ? t->launches[i].name : "?",
					   t->launches[i].refused);
	if (!*why && t->nlaunches == 0)
		*why = ks_strdup("no launch was recorded");
	return *why == NULL;
}
