#include "trace/cupti/drvrec.h"
#include "trace/cupti/drvsha.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the longest line: a launch's block in hex (64 KiB) and its layout, with room to spare */
#define MAX_LINE (1u << 20)
#define FLUSH_AT (64u << 10)
#define MAX_MODULES 65536u
#define MAX_HANDLES 65536u

typedef struct {
	char *p;
	size_t len, cap;
	int bad; /* out of memory or over MAX_LINE: the line is dropped */
} line;

typedef struct {
	uint64_t handle;
	int idx;
} handle_bind;

struct ks_drvrec {
	pthread_mutex_t lock;
	int dirfd, fd;
	ks_drvrec_limits lim;
	ks_drvmap map;
	line out;  /* whole lines not yet written */
	line cur;  /* the line being built */
	uint64_t records, launches, bytes, files, next_alloc, tmpn;
	int recording, stopped, finished, overflowed;
	char (*mods)[65];
	size_t nmods, capmods;
	handle_bind *binds;
	size_t nbinds, capbinds;
};

/* ---- the line being built (JSON with ASCII output: other bytes as \u00XX) */

static void put(line *l, const char *s, size_t n)
{
	if (l->bad)
		return;
	if (l->len + n + 1 > l->cap) {
		size_t nc = l->cap ? l->cap : 4096;
		char *np;
		while (nc < l->len + n + 1)
			nc *= 2;
		if (nc > MAX_LINE + FLUSH_AT + 1 || !(np = realloc(l->p, nc))) {
			l->bad = 1;
			return;
		}
		l->p = np;
		l->cap = nc;
	}
	memcpy(l->p + l->len, s, n);
	l->len += n;
	l->p[l->len] = 0;
}

static void puts_(line *l, const char *s)
{
	put(l, s, strlen(s));
}

static void putf(line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(line *l, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		l->bad = 1;
	else
		put(l, tmp, (size_t)n);
}

/* ,"key": */
static void key(line *l, const char *k)
{
	putf(l, ",\"%s\":", k);
}

static void jstr(line *l, const char *s, size_t max)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;
	if (!s) {
		puts_(l, "null");
		return;
	}
	put(l, "\"", 1);
	for (i = 0; s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			put(l, e, 2);
		} else if (c < 0x20 || c >= 0x7f) {
			char e[6] = { '\\', 'u', '0', '0', digits[c >> 4], digits[c & 15] };
			put(l, e, 6);
		} else {
			put(l, (const char *)&c, 1);
		}
	}
	put(l, "\"", 1);
}

static void kstr(line *l, const char *k, const char *s)
{
	key(l, k);
	jstr(l, s, 4096);
}

static void ku64(line *l, const char *k, uint64_t v)
{
	key(l, k);
	putf(l, "%llu", (unsigned long long)v);
}

/* addresses and handles as hex strings: a JSON number is exact only below 2^53 */
static void khex(line *l, const char *k, uint64_t v)
{
	key(l, k);
	putf(l, "\"0x%llx\"", (unsigned long long)v);
}

static void kbytes(line *l, const char *k, const unsigned char *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char chunk[128];
	size_t i, o = 0;
	key(l, k);
	put(l, "\"", 1);
	for (i = 0; i < n; i++) {
		chunk[o++] = digits[b[i] >> 4];
		chunk[o++] = digits[b[i] & 15];
		if (o == sizeof(chunk)) {
			put(l, chunk, o);
			o = 0;
		}
	}
	put(l, chunk, o);
	put(l, "\"", 1);
}

static void ku32v(line *l, const char *k, const uint32_t *v, size_t n)
{
	size_t i;
	key(l, k);
	put(l, "[", 1);
	for (i = 0; i < n; i++)
		putf(l, i ? ",%u" : "%u", v[i]);
	put(l, "]", 1);
}

static void ku64v(line *l, const char *k, const uint64_t *v, size_t n)
{
	size_t i;
	key(l, k);
	put(l, "[", 1);
	for (i = 0; i < n; i++)
		putf(l, i ? ",%llu" : "%llu", (unsigned long long)v[i]);
	put(l, "]", 1);
}

static void ki32v(line *l, const char *k, const int32_t *v, size_t n)
{
	size_t i;
	key(l, k);
	put(l, "[", 1);
	for (i = 0; i < n; i++)
		putf(l, i ? ",%d" : "%d", (int)v[i]);
	put(l, "]", 1);
}

/* ---- writing, caps and the overflow record (all with the lock held) */

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void flush_locked(ks_drvrec *r)
{
	if (r->out.len && r->fd >= 0 && write_all(r->fd, r->out.p, r->out.len) < 0)
		r->stopped = 1; /* nothing more can be written: the reader sees no end record */
	r->out.len = 0;
}

/* starts record kind k in r->cur */
static void begin(ks_drvrec *r, const char *k)
{
	r->cur.len = 0;
	r->cur.bad = 0;
	putf(&r->cur, "{\"seq\":%llu,\"k\":\"%s\"", (unsigned long long)r->records, k);
}

static void overflow_locked(ks_drvrec *r, const char *what, uint64_t limit)
{
	if (r->stopped)
		return;
	r->overflowed = 1;
	begin(r, "overflow");
	kstr(&r->cur, "what", what);
	ku64(&r->cur, "limit", limit);
	puts_(&r->cur, "}\n");
	if (!r->cur.bad) {
		put(&r->out, r->cur.p, r->cur.len);
		r->records++;
	}
	r->stopped = 1;
	flush_locked(r);
}

/* reserves `more` bytes of files beside the trace; 0 when the caps allow it */
static int room_locked(ks_drvrec *r, uint64_t more, int file)
{
	if (file && r->files >= r->lim.max_files) {
		overflow_locked(r, "files", r->lim.max_files);
		return -1;
	}
	if (r->bytes + more > r->lim.max_bytes) {
		overflow_locked(r, "bytes", r->lim.max_bytes);
		return -1;
	}
	return 0;
}

/* ends the record in r->cur and queues it */
static void commit(ks_drvrec *r)
{
	puts_(&r->cur, "}\n");
	if (r->cur.bad) {
		overflow_locked(r, "memory", MAX_LINE);
		return;
	}
	if (r->records + 1 >= r->lim.max_records) {
		overflow_locked(r, "records", r->lim.max_records);
		return;
	}
	if (room_locked(r, r->cur.len, 0) < 0)
		return;
	put(&r->out, r->cur.p, r->cur.len);
	if (r->out.bad) {
		r->out.bad = 0;
		r->out.len = 0;
		overflow_locked(r, "memory", FLUSH_AT);
		return;
	}
	r->records++;
	r->bytes += r->cur.len;
	if (r->out.len >= FLUSH_AT)
		flush_locked(r);
}

/* whether nothing may be recorded any more; takes the lock when it returns 0 */
static int enter(ks_drvrec *r)
{
	if (!r)
		return 1;
	pthread_mutex_lock(&r->lock);
	if (r->stopped || r->finished) {
		pthread_mutex_unlock(&r->lock);
		return 1;
	}
	return 0;
}

static void leave(ks_drvrec *r)
{
	pthread_mutex_unlock(&r->lock);
}

/* writes data as the file <sha>.<ext> beside the trace unless it is there; sha into hex */
static int blob_locked(ks_drvrec *r, char hex[65], const void *data, size_t len, const char *ext)
{
	char name[96], tmp[96];
	struct stat st;
	int fd;
	ks_drvsha_hex(hex, data, len);
	snprintf(name, sizeof(name), "%s.%s", hex, ext);
	if (fstatat(r->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (room_locked(r, len, 1) < 0)
		return -1;
	snprintf(tmp, sizeof(tmp), ".tmp-%ld-%llu", (long)getpid(), (unsigned long long)r->tmpn++);
	fd = openat(r->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		overflow_locked(r, "file create", 0);
		return -1;
	}
	if (write_all(fd, data, len) < 0 || close(fd) < 0 || renameat(r->dirfd, tmp, r->dirfd, name) < 0) {
		unlinkat(r->dirfd, tmp, 0);
		overflow_locked(r, "file write", 0);
		return -1;
	}
	r->files++;
	r->bytes += len;
	return 0;
}

/* ---- limits and the file */

static int parse_u64(uint64_t *out, const char *s)
{
	uint64_t v = 0;
	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int ks_drvrec_limits_read(ks_drvrec_limits *lim, const char *(*get)(const char *name))
{
	static const struct {
		const char *name;
		size_t off;
	} vars[] = {
		{ "KSCORE_DRVTRACE_MAX_LAUNCHES", offsetof(ks_drvrec_limits, max_launches) },
		{ "KSCORE_DRVTRACE_MAX_RECORDS", offsetof(ks_drvrec_limits, max_records) },
		{ "KSCORE_DRVTRACE_MAX_BYTES", offsetof(ks_drvrec_limits, max_bytes) },
		{ "KSCORE_DRVTRACE_MAX_FILES", offsetof(ks_drvrec_limits, max_files) },
		{ "KSCORE_DRVTRACE_MAX_COPY_BYTES", offsetof(ks_drvrec_limits, max_copy_bytes) },
		{ "KSCORE_DRVTRACE_MAX_ALLOCS", offsetof(ks_drvrec_limits, max_allocs) },
	};
	size_t i;
	int ignored = 0;
	const char *v;
	uint64_t n;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		if (!(v = get(vars[i].name)))
			continue;
		if (parse_u64(&n, v) == 0)
			memcpy((char *)lim + vars[i].off, &n, sizeof(n));
		else
			ignored++;
	}
	if ((v = get("KSCORE_DRVTRACE_RECORD")) != NULL) {
		if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
			lim->record = v[0] == '1';
		else
			ignored++;
	}
	return ignored;
}

ks_drvrec *ks_drvrec_open(const char *dir, const ks_drvrec_limits *lim)
{
	char name[64];
	ks_drvrec *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = -1;
	r->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0)
		goto fail;
	snprintf(name, sizeof(name), "trace-%ld.jsonl", (long)getpid());
	r->fd = openat(r->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (r->fd < 0)
		goto fail;
	pthread_mutex_init(&r->lock, NULL);
	r->lim = *lim;
	r->map.max = (size_t)(lim->max_allocs ? lim->max_allocs : 1);
	r->recording = lim->record;
	r->next_alloc = 1;
	begin(r, "header");
	kstr(&r->cur, "format", KS_DRVREC_FORMAT);
	ku64(&r->cur, "pid", (uint64_t)getpid());
	key(&r->cur, "caps");
	putf(&r->cur, "{\"launches\":%llu,\"records\":%llu,\"bytes\":%llu,\"files\":%llu,\"copy_bytes\":%llu,"
		      "\"allocs\":%llu}",
	     (unsigned long long)lim->max_launches, (unsigned long long)lim->max_records,
	     (unsigned long long)lim->max_bytes, (unsigned long long)lim->max_files,
	     (unsigned long long)lim->max_copy_bytes, (unsigned long long)lim->max_allocs);
	key(&r->cur, "recording");
	puts_(&r->cur, r->recording ? "true" : "false");
	commit(r);
	flush_locked(r);
	if (r->stopped)
		goto fail_locked;
	return r;
fail_locked:
	pthread_mutex_destroy(&r->lock);
fail:
	if (r->fd >= 0)
		close(r->fd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->out.p);
	free(r->cur.p);
	free(r);
	return NULL;
}

void ks_drvrec_finish(ks_drvrec *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	if (!r->finished) {
		int stopped = r->overflowed;
		r->stopped = 0; /* the end record is written after an overflow too */
		begin(r, "end");
		ku64(&r->cur, "records", r->records + 1);
		ku64(&r->cur, "launches", r->launches);
		key(&r->cur, "stopped");
		puts_(&r->cur, stopped ? "true" : "false");
		puts_(&r->cur, "}\n");
		if (!r->cur.bad) {
			put(&r->out, r->cur.p, r->cur.len);
			r->records++;
		}
		flush_locked(r);
		r->stopped = 1;
		r->finished = 1;
	}
	pthread_mutex_unlock(&r->lock);
}

void ks_drvrec_detach(ks_drvrec *r)
{
	if (!r)
		return;
	/* the lock may have been held by a thread that does not exist in this process: not taken */
	r->finished = 1;
	r->stopped = 1;
	r->out.len = 0;
	r->fd = -1;
	r->dirfd = -1;
}

void ks_drvrec_close(ks_drvrec *r)
{
	if (!r)
		return;
	ks_drvrec_finish(r);
	if (r->fd >= 0)
		close(r->fd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	pthread_mutex_destroy(&r->lock);
	ks_drvmap_clear(&r->map);
	free(r->out.p);
	free(r->cur.p);
	free(r->mods);
	free(r->binds);
	free(r);
}

int ks_drvrec_recording(ks_drvrec *r)
{
	int on;
	if (enter(r))
		return 0;
	on = r->recording;
	leave(r);
	return on;
}

void ks_drvrec_mark(ks_drvrec *r, const char *label, int on)
{
	if (enter(r))
		return;
	begin(r, "mark");
	key(&r->cur, "label");
	jstr(&r->cur, label, 200);
	key(&r->cur, "on");
	puts_(&r->cur, on ? "true" : "false");
	commit(r);
	r->recording = on != 0;
	flush_locked(r);
	leave(r);
}

void ks_drvrec_stats_get(ks_drvrec_stats *out, ks_drvrec *r)
{
	pthread_mutex_lock(&r->lock);
	out->records = r->records;
	out->launches = r->launches;
	out->bytes = r->bytes;
	out->files = r->files;
	out->modules = r->nmods;
	out->allocs = r->next_alloc - 1;
	out->stopped = r->overflowed;
	pthread_mutex_unlock(&r->lock);
}

/* ---- modules */

int ks_drvrec_module(ks_drvrec *r, const void *image, size_t len, const char *via)
{
	char hex[65];
	size_t i;
	int idx = -1;
	if (!image || !len || enter(r))
		return -1;
	if (blob_locked(r, hex, image, len, "cubin") < 0)
		goto done;
	for (i = 0; i < r->nmods; i++)
		if (strcmp(r->mods[i], hex) == 0) {
			idx = (int)i;
			goto done;
		}
	if (r->nmods >= MAX_MODULES) {
		overflow_locked(r, "modules", MAX_MODULES);
		goto done;
	}
	if (r->nmods == r->capmods) {
		size_t nc = r->capmods ? r->capmods * 2 : 16;
		char(*nm)[65] = realloc(r->mods, nc * sizeof(*nm));
		if (!nm) {
			overflow_locked(r, "memory", 0);
			goto done;
		}
		r->mods = nm;
		r->capmods = nc;
	}
	memcpy(r->mods[r->nmods], hex, 65);
	begin(r, "module");
	ku64(&r->cur, "module", r->nmods);
	kstr(&r->cur, "sha256", hex);
	ku64(&r->cur, "size", len);
	kstr(&r->cur, "via", via);
	commit(r);
	if (!r->stopped)
		idx = (int)r->nmods++;
done:
	leave(r);
	return idx;
}

void ks_drvrec_module_bind(ks_drvrec *r, uint64_t handle, int idx)
{
	size_t i;
	if (idx < 0 || enter(r))
		return;
	for (i = 0; i < r->nbinds; i++)
		if (r->binds[i].handle == handle) {
			r->binds[i].idx = idx;
			goto done;
		}
	if (r->nbinds >= MAX_HANDLES)
		goto done;
	if (r->nbinds == r->capbinds) {
		size_t nc = r->capbinds ? r->capbinds * 2 : 16;
		handle_bind *nb = realloc(r->binds, nc * sizeof(*nb));
		if (!nb)
			goto done;
		r->binds = nb;
		r->capbinds = nc;
	}
	r->binds[r->nbinds].handle = handle;
	r->binds[r->nbinds++].idx = idx;
done:
	leave(r);
}

int ks_drvrec_module_of(ks_drvrec *r, uint64_t handle)
{
	size_t i;
	int idx = -1;
	if (enter(r))
		return -1;
	for (i = r->nbinds; i-- > 0;)
		if (r->binds[i].handle == handle) {
			idx = r->binds[i].idx;
			break;
		}
	leave(r);
	return idx;
}

/* ---- allocations */

uint64_t ks_drvrec_alloc(ks_drvrec *r, uint64_t base, uint64_t size, const char *kind, int managed)
{
	uint64_t id = 0;
	if (enter(r))
		return 0;
	if (ks_drvmap_add(&r->map, base, size, r->next_alloc) < 0) {
		if (size && base + size >= base)
			overflow_locked(r, "allocs", r->lim.max_allocs);
		goto done;
	}
	begin(r, "alloc");
	ku64(&r->cur, "id", r->next_alloc);
	khex(&r->cur, "base", base);
	ku64(&r->cur, "size", size);
	kstr(&r->cur, "via", kind);
	if (managed) {
		key(&r->cur, "managed");
		puts_(&r->cur, "true");
	}
	commit(r);
	id = r->next_alloc++;
	if (managed) {
		begin(r, "untraceable");
		kstr(&r->cur, "what", kind);
		kstr(&r->cur, "why", "managed memory: its pages move between host and device");
		ku64(&r->cur, "alloc", id);
		commit(r);
	}
done:
	leave(r);
	return id;
}

void ks_drvrec_free(ks_drvrec *r, uint64_t base, const char *api)
{
	uint64_t id;
	int known;
	if (enter(r))
		return;
	known = ks_drvmap_remove(&id, &r->map, base) == 0;
	begin(r, "free");
	key(&r->cur, "id");
	if (known)
		putf(&r->cur, "%llu", (unsigned long long)id);
	else
		puts_(&r->cur, "null");
	khex(&r->cur, "base", base);
	kstr(&r->cur, "via", api);
	commit(r);
	leave(r);
}

int ks_drvrec_known(ks_drvrec *r, uint64_t a)
{
	int k;
	if (enter(r))
		return 0;
	k = ks_drvmap_find(&r->map, a) != NULL;
	leave(r);
	return k;
}

size_t ks_drvrec_unknown_words(ks_drvrec *r, uint64_t *out, size_t max, const unsigned char *block,
			       size_t len)
{
	size_t off, n = 0, i;
	if (enter(r))
		return 0;
	for (off = 0; off + 8 <= len && n < max; off += 8) {
		uint64_t w;
		memcpy(&w, block + off, 8);
		if (w < (64u << 10) || w >= (1ull << 57) || ks_drvmap_find(&r->map, w))
			continue;
		for (i = 0; i < n && out[i] != w; i++)
			;
		if (i == n)
			out[n++] = w;
	}
	leave(r);
	return n;
}

/* ---- parameter blocks (no lock: plain data) */

int ks_drvrec_pack(unsigned char *block, size_t cap, size_t *len, void *const *params,
		   const uint32_t *offsets, const uint32_t *sizes, size_t n)
{
	size_t i, end = 0;
	memset(block, 0, cap);
	for (i = 0; i < n; i++) {
		if ((uint64_t)offsets[i] + sizes[i] > cap || (!params[i] && sizes[i]))
			return -1;
		if (sizes[i])
			memcpy(block + offsets[i], params[i], sizes[i]);
		if (offsets[i] + sizes[i] > end)
			end = offsets[i] + sizes[i];
	}
	*len = end;
	return 0;
}

int ks_drvrec_extra(const void **buf, size_t *size, void *const *extra)
{
	/* CU_LAUNCH_PARAM_END, _BUFFER_POINTER, _BUFFER_SIZE (cuda.h) */
	const void *b = NULL;
	const size_t *sz = NULL;
	size_t i;
	if (!extra)
		return -1;
	for (i = 0; i + 1 < 128 && (uintptr_t)extra[i] != 0; i += 2) {
		if ((uintptr_t)extra[i] == 1)
			b = extra[i + 1];
		else if ((uintptr_t)extra[i] == 2)
			sz = extra[i + 1];
	}
	if (!b || !sz || *sz > KS_DRVREC_MAX_PARAM_BYTES)
		return -1;
	*buf = b;
	*size = *sz;
	return 0;
}

/* ---- launches, copies, sets, tensor maps, the rest */

void ks_drvrec_launch_add(ks_drvrec *r, const ks_drvrec_launch *l)
{
	size_t i;
	if (enter(r))
		return;
	if (!r->recording)
		goto done;
	if (r->launches >= r->lim.max_launches) {
		overflow_locked(r, "launches", r->lim.max_launches);
		goto done;
	}
	begin(r, "launch");
	ku64(&r->cur, "launch", r->launches);
	kstr(&r->cur, "api", l->api);
	if (l->runtime)
		kstr(&r->cur, "runtime", l->runtime);
	kstr(&r->cur, "name", l->name);
	khex(&r->cur, "func", l->func);
	key(&r->cur, "module");
	if (l->module >= 0)
		putf(&r->cur, "%d", l->module);
	else
		puts_(&r->cur, "null");
	ku32v(&r->cur, "grid", l->grid, 3);
	ku32v(&r->cur, "block", l->block, 3);
	ku64(&r->cur, "smem", l->smem);
	khex(&r->cur, "stream", l->stream);
	if (l->nattrs) {
		key(&r->cur, "attrs");
		put(&r->cur, "[", 1);
		for (i = 0; i < l->nattrs && i < KS_DRVREC_MAX_ATTRS; i++)
			putf(&r->cur, "%s{\"id\":%u,\"v\":[%u,%u,%u]}", i ? "," : "", l->attrs[i].id,
			     l->attrs[i].v[0], l->attrs[i].v[1], l->attrs[i].v[2]);
		put(&r->cur, "]", 1);
	}
	kstr(&r->cur, "layout", l->layout);
	if (l->layout) {
		size_t np = l->nparams < KS_DRVREC_MAX_PARAMS ? l->nparams : KS_DRVREC_MAX_PARAMS;
		ku32v(&r->cur, "offsets", l->offsets, np);
		ku32v(&r->cur, "sizes", l->sizes, np);
	}
	kbytes(&r->cur, "args", l->args, l->nargs < KS_DRVREC_MAX_PARAM_BYTES ? l->nargs : KS_DRVREC_MAX_PARAM_BYTES);
	if (l->extra) {
		key(&r->cur, "extra");
		puts_(&r->cur, "true");
	}
	if (l->refused)
		kstr(&r->cur, "refused", l->refused);
	commit(r);
	if (!r->stopped)
		r->launches++;
done:
	leave(r);
}

void ks_drvrec_copy(ks_drvrec *r, const char *api, const char *dir, uint64_t dst, uint64_t src,
		    uint64_t bytes, const void *host_src, uint64_t stream)
{
	char hex[65];
	int kept = 0, cut = 0;
	if (enter(r))
		return;
	if (host_src && bytes) {
		if (bytes > r->lim.max_copy_bytes)
			cut = 1;
		else if (blob_locked(r, hex, host_src, (size_t)bytes, "bin") == 0)
			kept = 1;
		else
			goto done;
	}
	begin(r, "copy");
	kstr(&r->cur, "api", api);
	kstr(&r->cur, "dir", dir);
	khex(&r->cur, "dst", dst);
	khex(&r->cur, "src", src);
	ku64(&r->cur, "bytes", bytes);
	khex(&r->cur, "stream", stream);
	if (kept)
		kstr(&r->cur, "data", hex);
	if (cut) {
		key(&r->cur, "cut");
		puts_(&r->cur, "true");
	}
	commit(r);
done:
	leave(r);
}

void ks_drvrec_set(ks_drvrec *r, const char *api, uint64_t dst, unsigned elem, uint32_t value,
		   uint64_t count, uint64_t stream)
{
	if (enter(r))
		return;
	begin(r, "set");
	kstr(&r->cur, "api", api);
	khex(&r->cur, "dst", dst);
	ku64(&r->cur, "elem", elem);
	ku64(&r->cur, "value", value);
	ku64(&r->cur, "count", count);
	khex(&r->cur, "stream", stream);
	commit(r);
	leave(r);
}

void ks_drvrec_tmap_add(ks_drvrec *r, const ks_drvrec_tmap *t)
{
	size_t rank = t->rank > 5 ? 5 : t->rank;
	if (enter(r))
		return;
	begin(r, "tmap");
	kstr(&r->cur, "api", t->api);
	ku64(&r->cur, "dtype", t->dtype);
	ku64(&r->cur, "rank", t->rank);
	khex(&r->cur, "addr", t->addr);
	if (t->dims)
		ku64v(&r->cur, "dims", t->dims, rank);
	if (t->strides && rank > 1)
		ku64v(&r->cur, "strides", t->strides, rank - 1);
	if (t->box)
		ku32v(&r->cur, "box", t->box, rank);
	if (t->estrides)
		ku32v(&r->cur, "estrides", t->estrides, rank);
	if (t->lower && t->upper) {
		ki32v(&r->cur, "lower", t->lower, t->ncorner > 3 ? 3 : t->ncorner);
		ki32v(&r->cur, "upper", t->upper, t->ncorner > 3 ? 3 : t->ncorner);
		ku64(&r->cur, "channels", t->channels);
		ku64(&r->cur, "pixels", t->pixels);
	}
	ku64(&r->cur, "interleave", t->interleave);
	ku64(&r->cur, "swizzle", t->swizzle);
	ku64(&r->cur, "l2", t->l2);
	ku64(&r->cur, "oob", t->oob);
	ku64(&r->cur, "mode", t->mode);
	kbytes(&r->cur, "bytes", t->bytes, 128);
	commit(r);
	leave(r);
}

void ks_drvrec_untraceable(ks_drvrec *r, const char *what, const char *why, uint64_t handle)
{
	if (enter(r))
		return;
	begin(r, "untraceable");
	kstr(&r->cur, "what", what);
	kstr(&r->cur, "why", why);
	if (handle)
		khex(&r->cur, "handle", handle);
	commit(r);
	leave(r);
}

void ks_drvrec_event(ks_drvrec *r, const char *kind, const char *api, uint64_t stream, uint64_t handle)
{
	if (enter(r))
		return;
	begin(r, kind);
	kstr(&r->cur, "api", api);
	khex(&r->cur, "stream", stream);
	if (handle)
		khex(&r->cur, "handle", handle);
	commit(r);
	leave(r);
}
