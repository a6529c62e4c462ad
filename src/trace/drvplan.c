/* drvplan: a driver trace of one forward turned into buffers, steps and modules (drvplan.h). */
#include "trace/drvplan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/image.h"
#include "util/errors.h"
#include "util/mem.h"

const char *ks_drvbuf_role_name(ks_drvbuf_role r)
{
	switch (r) {
	case KS_DRVBUF_INPUT:
		return "input";
	case KS_DRVBUF_OUTPUT:
		return "output";
	case KS_DRVBUF_CONST:
		return "constant";
	case KS_DRVBUF_SCRATCH:
		return "scratch";
	}
	return "?";
}

const char *ks_drvstep_kind_name(ks_drvstep_kind k)
{
	switch (k) {
	case KS_DRVSTEP_LAUNCH:
		return "launch";
	case KS_DRVSTEP_FILL:
		return "fill";
	case KS_DRVSTEP_FILL_BYTES:
		return "fill-bytes";
	case KS_DRVSTEP_COPY:
		return "copy";
	}
	return "?";
}

/* the building state */
typedef struct {
	ks_drvplan *p;
	const ks_drvtrace *t;
	const ks_drvplan_limits *lim;
	size_t ntensors;
	size_t capb, caps, capm;
	uint64_t total;
	uint64_t *lo, *hi; /* every recorded allocation by start, and the highest end up to each */
} bld;

static int by_base(const void *x, const void *y)
{
	const ks_drvtrace_alloc *a = *(const ks_drvtrace_alloc *const *)x, *c = *(const ks_drvtrace_alloc *const *)y;
	return a->base < c->base ? -1 : a->base > c->base;
}

/* the ranges of every allocation the trace recorded, live or not, for ever_allocated */
static void index_allocs(bld *b)
{
	const ks_drvtrace_alloc **v;
	size_t i, n = b->t->nallocs;
	v = ks_malloc((n ? n : 1) * sizeof(*v));
	b->lo = ks_malloc((n ? n : 1) * sizeof(*b->lo));
	b->hi = ks_malloc((n ? n : 1) * sizeof(*b->hi));
	for (i = 0; i < n; i++)
		v[i] = &b->t->allocs[i];
	qsort(v, n, sizeof(*v), by_base);
	for (i = 0; i < n; i++) {
		b->lo[i] = v[i]->base;
		b->hi[i] = v[i]->base + v[i]->size;
		if (i && b->hi[i - 1] > b->hi[i])
			b->hi[i] = b->hi[i - 1];
	}
	ks_free(v);
}

/* whether a lies in an allocation the trace recorded at some time (a value word that does, was not
 * live at its launch: a pointer the replay could not relocate) */
static int ever_allocated(const bld *b, uint64_t a)
{
	size_t l = 0, r = b->t->nallocs;
	while (l < r) { /* the first start above a */
		size_t m = l + (r - l) / 2;
		if (b->lo[m] <= a)
			l = m + 1;
		else
			r = m;
	}
	return l > 0 && b->hi[l - 1] > a;
}

static void refusef(bld *b, const char *fmt, ...) KS_PRINTF(2, 3);
static void refusef(bld *b, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	if (b->p->refused)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	b->p->refused = ks_strdup(buf);
}

static int add_bytes(bld *b, uint64_t n)
{
	if (n > b->lim->max_bytes - b->total)
		return ks_error_set(KS_ELIMIT, "the plan's buffers hold more than %llu bytes, the limit",
				    (unsigned long long)b->lim->max_bytes);
	b->total += n;
	return 0;
}

static int add_buf(bld *b, const ks_drvplan_buf *nb)
{
	int rc;
	if (b->p->nbufs >= b->lim->max_bufs)
		return ks_error_set(KS_ELIMIT, "more than %zu buffers, the limit", b->lim->max_bufs);
	if ((rc = add_bytes(b, nb->bytes)) < 0)
		return rc;
	b->p->bufs = ks_grow(b->p->bufs, sizeof(*b->p->bufs), &b->capb, b->p->nbufs + 1);
	b->p->bufs[b->p->nbufs++] = *nb;
	return 0;
}

static ks_drvplan_step *add_step(bld *b, uint64_t seq)
{
	ks_drvplan_step *s;
	if (b->p->nsteps >= b->lim->max_steps) {
		ks_error_set(KS_ELIMIT, "more than %zu steps, the limit", b->lim->max_steps);
		return NULL;
	}
	b->p->steps = ks_grow(b->p->steps, sizeof(*b->p->steps), &b->caps, b->p->nsteps + 1);
	s = &b->p->steps[b->p->nsteps++];
	memset(s, 0, sizeof(*s));
	s->seq = seq;
	return s;
}

/* The buffer and offset of [addr, addr + len) in recorded allocation a: a tensor's when it starts
 * in one (a pointer one past a tensor's end is taken as the next memory's: a caching allocator
 * puts tensors end to end), else the allocation's own buffer (made on first use). 1 found, 0
 * refused (b's reason set), < 0 error. */
static int locate(uint32_t *buf, uint64_t *off, bld *b, int64_t a, uint64_t addr, uint64_t len, const char *what)
{
	ks_drvplan *p = b->p;
	const ks_drvtrace_alloc *al;
	ks_drvplan_buf nb;
	size_t i;
	int rc;
	if (a < 0 || (size_t)a >= b->t->nallocs) {
		refusef(b, "%s: 0x%llx lies in no recorded allocation", what, (unsigned long long)addr);
		return 0;
	}
	al = &b->t->allocs[a];
	if (addr < al->base || addr - al->base > al->size || len > al->size - (addr - al->base)) {
		refusef(b, "%s: %llu bytes at 0x%llx overrun their allocation (%llu bytes at 0x%llx)", what,
			(unsigned long long)len, (unsigned long long)addr, (unsigned long long)al->size,
			(unsigned long long)al->base);
		return 0;
	}
	for (i = 0; i < b->ntensors; i++) {
		ks_drvplan_buf *tb = &p->bufs[i];
		if (addr < tb->base || addr - tb->base >= tb->bytes || len > tb->bytes - (addr - tb->base))
			continue;
		if (tb->alloc >= 0 && tb->alloc != a) {
			refusef(b, "%s: tensor %zu lies in two recorded allocations (its address was reused)", what, i);
			return 0;
		}
		if (tb->base < al->base || tb->bytes > al->size - (tb->base - al->base)) {
			refusef(b, "%s: tensor %zu (%llu bytes at 0x%llx) is not inside its allocation", what, i,
				(unsigned long long)tb->bytes, (unsigned long long)tb->base);
			return 0;
		}
		tb->alloc = a;
		*buf = (uint32_t)i;
		*off = addr - tb->base;
		return 1;
	}
	for (i = 0; len && i < b->ntensors; i++) {
		const ks_drvplan_buf *tb = &p->bufs[i];
		if (addr < tb->base + tb->bytes && tb->base < addr + len) {
			refusef(b, "%s: %llu bytes at 0x%llx cross tensor %zu's range", what, (unsigned long long)len,
				(unsigned long long)addr, i);
			return 0;
		}
	}
	for (i = b->ntensors; i < p->nbufs; i++)
		if (p->bufs[i].alloc == a)
			break;
	if (i == p->nbufs) {
		nb.role = KS_DRVBUF_SCRATCH;
		nb.tensor = -1;
		nb.alloc = a;
		nb.base = al->base;
		nb.bytes = al->size;
		if ((rc = add_buf(b, &nb)) < 0)
			return rc;
	}
	*buf = (uint32_t)i;
	*off = addr - al->base;
	return 1;
}

static int module_index(uint32_t *out, bld *b, size_t m)
{
	size_t i;
	for (i = 0; i < b->p->nmodules; i++)
		if (b->p->modules[i] == m)
			break;
	if (i == b->p->nmodules) {
		b->p->modules = ks_grow(b->p->modules, sizeof(*b->p->modules), &b->capm, b->p->nmodules + 1);
		b->p->modules[b->p->nmodules++] = m;
	}
	*out = (uint32_t)i;
	return 0;
}

static int add_reloc(ks_drvplan_step *s, size_t *cap, const ks_drvplan_reloc *r)
{
	s->relocs = ks_grow(s->relocs, sizeof(*s->relocs), cap, s->nrelocs + 1);
	s->relocs[s->nrelocs++] = *r;
	return 0;
}

/* whether the 8 bytes at off lie in one parameter of 8 bytes or more (a pointer, or a struct that
 * may hold one): bytes that span smaller parameters are values, whatever they read as */
static int in_wide_param(const ks_drvtrace_launch *l, uint32_t off)
{
	size_t i;
	for (i = 0; i < l->nparams; i++)
		if (l->sizes[i] >= 8 && off >= l->offsets[i] && off - l->offsets[i] <= l->sizes[i] - 8)
			return 1;
	return 0;
}

static int launch_step(bld *b, size_t li)
{
	const ks_drvtrace_launch *l = &b->t->launches[li];
	const ks_drvtrace *t = b->t;
	ks_drvplan_step *s;
	size_t i, cap = 0;
	char what[160];
	int rc;
	if (!(s = add_step(b, l->seq)))
		return KS_ELIMIT;
	s->kind = KS_DRVSTEP_LAUNCH;
	if (l->module < 0 || (size_t)l->module >= t->nmodules || !l->name) {
		refusef(b, "launch %zu (%s): its %s", li, l->name ? l->name : "?",
			l->name ? "module is unknown" : "function has no name to find it by in its module");
		return 0;
	}
	module_index(&s->module, b, (size_t)l->module);
	s->name = l->name;
	memcpy(s->grid, l->grid, sizeof(s->grid));
	memcpy(s->block, l->block, sizeof(s->block));
	s->smem = l->smem;
	s->attrs = l->attrs;
	s->nattrs = l->nattrs;
	s->params = ks_malloc(l->nargs ? l->nargs : 1);
	if (l->nargs)
		memcpy(s->params, l->args, l->nargs);
	s->nparams = l->nargs;
	for (i = 0; i < l->nwords; i++) {
		const ks_drvtrace_word *w = &l->words[i];
		ks_drvplan_reloc r = { 0 };
		snprintf(what, sizeof(what), "launch %zu (%s), parameter byte %u", li, l->name ? l->name : "?", w->offset);
		if (w->kind != KS_DRVWORD_TMAP && !in_wide_param(l, w->offset))
			continue;
		if (w->kind == KS_DRVWORD_POINTER) {
			uint64_t addr = w->alloc < t->nallocs ? t->allocs[w->alloc].base + w->alloc_off : 0;
			if ((rc = locate(&r.buf, &r.off, b, w->alloc < t->nallocs ? (int64_t)w->alloc : -1, addr, 0,
					 what)) <= 0)
				return rc;
			r.kind = KS_DRVREL_POINTER;
			r.offset = w->offset;
			memset(s->params + w->offset, 0, 8);
			add_reloc(s, &cap, &r);
		} else if (w->kind == KS_DRVWORD_TMAP) {
			const ks_drvtrace_tmap *m;
			if (w->tmap >= t->ntmaps || w->offset % 64 || (size_t)w->offset + 128 > l->nargs) {
				refusef(b, "%s: a tensor map the reader did not align", what);
				return 0;
			}
			m = &t->tmaps[w->tmap];
			if ((rc = locate(&r.buf, &r.off, b, m->alloc, m->addr, 0, what)) <= 0)
				return rc;
			r.kind = KS_DRVREL_TMAP;
			r.offset = w->offset;
			r.tmap = w->tmap;
			memset(s->params + w->offset, 0, 128);
			add_reloc(s, &cap, &r);
			i += 15; /* the reader marks the map's 16 words */
		} else {
			uint64_t v;
			memcpy(&v, l->args + w->offset, 8);
			if (v && ever_allocated(b, v)) {
				refusef(b, "%s: 0x%llx lies in a recorded allocation that was not live at the launch "
					   "(freed before it, or allocated after)", what, (unsigned long long)v);
				return 0;
			}
		}
	}
	return 0;
}

/* a copy or set as a step: in the forward (setup 0) or before it (setup 1: only into a buffer the
 * forward touched that is no tensor) */
static int copy_step(bld *b, size_t ci, int setup)
{
	const ks_drvtrace_copy *c = &b->t->copies[ci];
	ks_drvplan_step *s;
	uint32_t buf = 0, src = 0;
	uint64_t off = 0, src_off = 0;
	char what[160];
	size_t i;
	int rc, isset = strcmp(c->kind, "set") == 0;
	snprintf(what, sizeof(what), "%s %zu (%s)", isset ? "set" : "copy", ci, c->api ? c->api : c->kind);
	if (!strcmp(c->kind, "htoh"))
		return 0;
	if (!strcmp(c->kind, "dtoh")) {
		if (!setup)
			refusef(b, "%s: %llu bytes read back to the host during the forward (what the host did with "
				   "them could steer later launches)", what, (unsigned long long)c->bytes);
		return 0;
	}
	if (setup) {
		for (i = b->ntensors; i < b->p->nbufs; i++)
			if (b->p->bufs[i].alloc == c->dst_alloc)
				break;
		if (c->dst_alloc < 0 || i == b->p->nbufs)
			return 0; /* memory the forward does not touch, or a tensor: the replay fills those */
	}
	if (!isset && !strcmp(c->kind, "htod") && (!c->data[0] || c->cut)) {
		refusef(b, "%s: the %llu bytes copied to the device %s were not kept", what,
			(unsigned long long)c->bytes, setup ? "before the forward" : "during it");
		return 0;
	}
	if (!strcmp(c->kind, "dtod") && setup) {
		refusef(b, "%s: memory the forward reads was filled by a device-to-device copy before it", what);
		return 0;
	}
	if ((rc = locate(&buf, &off, b, c->dst_alloc, c->dst, c->bytes, what)) <= 0)
		return rc;
	if (setup && buf < b->ntensors)
		return 0;
	if (!strcmp(c->kind, "dtod") && (rc = locate(&src, &src_off, b, c->src_alloc, c->src, c->bytes, what)) <= 0)
		return rc;
	if (!(s = add_step(b, c->seq)))
		return KS_ELIMIT;
	s->setup = setup;
	s->buf = buf;
	s->off = off;
	s->bytes = c->bytes;
	if (isset) {
		s->kind = KS_DRVSTEP_FILL;
		s->elem = c->elem;
		s->value = c->value;
	} else if (!strcmp(c->kind, "htod")) {
		s->kind = KS_DRVSTEP_FILL_BYTES;
		memcpy(s->data, c->data, sizeof(s->data));
		if (setup)
			b->p->bufs[buf].role = KS_DRVBUF_CONST;
	} else {
		s->kind = KS_DRVSTEP_COPY;
		s->src = src;
		s->src_off = src_off;
	}
	return 0;
}

static int check_tensors(bld *b, const ks_drvplan_tensor *ts, size_t n)
{
	size_t i, j;
	int rc;
	if (n > b->lim->max_bufs)
		return ks_error_set(KS_ELIMIT, "%zu tensors, more than the %zu buffers a plan may hold", n, b->lim->max_bufs);
	for (i = 0; i < n; i++) {
		ks_drvplan_buf nb = { .role = ts[i].role, .tensor = (int)i, .alloc = -1, .base = ts[i].ptr,
				      .bytes = ts[i].bytes };
		if (ts[i].role != KS_DRVBUF_INPUT && ts[i].role != KS_DRVBUF_OUTPUT)
			return ks_error_set(KS_EINVALID, "tensor %zu: its role is neither input nor output", i);
		if (!ts[i].bytes || !ts[i].ptr || ts[i].ptr + ts[i].bytes < ts[i].ptr)
			return ks_error_set(KS_EINVALID, "tensor %zu: %llu bytes at 0x%llx is no range", i,
					    (unsigned long long)ts[i].bytes, (unsigned long long)ts[i].ptr);
		for (j = 0; j < i; j++)
			if (ts[i].ptr < ts[j].ptr + ts[j].bytes && ts[j].ptr < ts[i].ptr + ts[i].bytes)
				return ks_error_set(KS_EINVALID, "tensors %zu and %zu overlap", j, i);
		if ((rc = add_buf(b, &nb)) < 0)
			return rc;
	}
	return 0;
}

/* the image's names: each module's launched kernels, in first use; every launch step's func */
static int name_funcs(bld *b)
{
	ks_drvplan *p = b->p;
	size_t m, i, k, cap = 0;
	p->module_names = ks_calloc(p->nmodules ? p->nmodules : 1, sizeof(*p->module_names));
	for (m = 0; m < p->nmodules; m++) {
		size_t first = p->nnames;
		for (i = 0; i < p->nsteps; i++) {
			ks_drvplan_step *s = &p->steps[i];
			if (s->kind != KS_DRVSTEP_LAUNCH || s->module != m)
				continue;
			for (k = first; k < p->nnames; k++)
				if (strcmp(p->names[k], s->name) == 0)
					break;
			if (k == p->nnames) {
				if (p->nnames >= b->lim->max_funcs)
					return ks_error_set(KS_ELIMIT, "more than %zu distinct kernels, the limit",
							    b->lim->max_funcs);
				p->names = ks_grow(p->names, sizeof(*p->names), &cap, p->nnames + 1);
				p->names[p->nnames++] = s->name;
				p->module_names[m]++;
			}
			s->func = (uint32_t)k;
		}
	}
	return 0;
}

/* the steps before the forward go first: they fill what the forward found in its memory */
static void setup_first(ks_drvplan *p, size_t first_setup)
{
	size_t nsetup = p->nsteps - first_setup, i;
	ks_drvplan_step *tmp;
	if (!nsetup || !first_setup)
		return;
	tmp = ks_malloc(p->nsteps * sizeof(*tmp));
	memcpy(tmp, p->steps + first_setup, nsetup * sizeof(*tmp));
	memcpy(tmp + nsetup, p->steps, first_setup * sizeof(*tmp));
	for (i = 0; i < p->nsteps; i++)
		p->steps[i] = tmp[i];
	ks_free(tmp);
}

int ks_drvplan_build(ks_drvplan *out, const ks_drvtrace *t, const ks_drvplan_tensor *tensors, size_t ntensors,
		     const ks_drvplan_limits *lim)
{
	ks_drvplan_limits dl = KS_DRVPLAN_LIMITS_INIT;
	bld b = { 0 };
	size_t li = 0, ci = 0, first_setup;
	uint64_t first = UINT64_MAX, last = 0;
	char *why = NULL;
	int rc = 0;
	memset(out, 0, sizeof(*out));
	b.p = out;
	b.t = t;
	b.lim = lim ? lim : &dl;
	b.ntensors = ntensors;
	index_allocs(&b);
	if ((rc = check_tensors(&b, tensors, ntensors)) < 0)
		goto done;
	if (!ks_drvtrace_replayable(t, &why)) {
		out->refused = why;
		goto done;
	}
	/* the forward: its launches and the copies made while launches were recorded, in record order */
	if (t->nlaunches) {
		first = t->launches[0].seq;
		last = t->launches[t->nlaunches - 1].seq;
	}
	for (ci = 0; ci < t->ncopies; ci++)
		if (t->copies[ci].recording) {
			first = t->copies[ci].seq < first ? t->copies[ci].seq : first;
			last = t->copies[ci].seq > last ? t->copies[ci].seq : last;
		}
	for (ci = 0; ci < t->ncopies; ci++)
		if (!t->copies[ci].recording && t->copies[ci].seq > first && t->copies[ci].seq < last) {
			refusef(&b, "the trace records more than one forward (copy %zu lies between two)", ci);
			goto done;
		}
	for (li = 0, ci = 0; !out->refused && (li < t->nlaunches || ci < t->ncopies);) {
		if (ci < t->ncopies && !t->copies[ci].recording) {
			ci++;
			continue;
		}
		if (li < t->nlaunches && (ci == t->ncopies || t->launches[li].seq < t->copies[ci].seq))
			rc = launch_step(&b, li++);
		else
			rc = copy_step(&b, ci++, 0);
		if (rc < 0)
			goto done;
	}
	first_setup = out->nsteps;
	for (ci = 0; !out->refused && ci < t->ncopies && t->copies[ci].seq < first; ci++)
		if (!t->copies[ci].recording && (rc = copy_step(&b, ci, 1)) < 0)
			goto done;
	setup_first(out, first_setup);
	if (!out->refused)
		rc = name_funcs(&b);
done:
	ks_free(b.lo);
	ks_free(b.hi);
	return rc;
}

int ks_drvplan_image(void **blob, size_t *len, const ks_drvplan *p, const ks_drvtrace *t)
{
	ks_image_part parts[KS_IMAGE_MAX_PARTS];
	const ks_drvtrace_module *m;
	size_t i;
	*blob = NULL;
	*len = 0;
	if (p->refused || p->nmodules == 0)
		return ks_error_set(KS_EINVALID, "no image: the plan %s", p->refused ? "was refused" : "holds no module");
	if (p->nmodules > KS_IMAGE_MAX_PARTS)
		return ks_error_set(KS_ELIMIT, "the forward launches kernels of %zu modules, more than the %d an "
					       "image holds", p->nmodules, KS_IMAGE_MAX_PARTS);
	for (i = 0; i < p->nmodules; i++) {
		if (p->modules[i] >= t->nmodules)
			return ks_error_set(KS_EINVALID, "module %zu is not the plan's trace's", p->modules[i]);
		m = &t->modules[p->modules[i]];
		parts[i].data = m->bytes;
		parts[i].len = m->len;
		parts[i].nnames = p->module_names[i];
	}
	if (p->nmodules > 1)
		return ks_image_bundle(blob, len, parts, p->nmodules);
	*blob = ks_malloc(parts[0].len ? parts[0].len : 1);
	memcpy(*blob, parts[0].data, parts[0].len);
	*len = parts[0].len;
	return 0;
}

void ks_drvplan_clear(ks_drvplan *p)
{
	size_t i;
	for (i = 0; i < p->nsteps; i++) {
		ks_free(p->steps[i].params);
		ks_free(p->steps[i].relocs);
	}
	ks_free(p->steps);
	ks_free(p->bufs);
	ks_free(p->modules);
	ks_free(p->names);
	ks_free(p->module_names);
	ks_free(p->refused);
	memset(p, 0, sizeof(*p));
}
