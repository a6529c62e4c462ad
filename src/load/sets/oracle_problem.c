/* oracle_problem: an oracle reply turned into kscore's problem model (oracle.h,
 * ks_oracle_problem). */
#include "load/sets/oracle.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One argument of a call as the problem model sees it: a tensor, an int scalar or a constant. */
typedef struct {
	char *name;          /* the path with '.' as '_': "a0", "k_out", "r_1" */
	const char *path;    /* borrowed from the reply */
	const char *key;     /* a keyword argument's keyword; NULL: positional or returned */
	const ks_oval *v;
	ks_role role;
	int scalar;          /* an int argument */
	char *json;          /* a constant: its JSON text */
	int ret;             /* part of the return value */
} leaf;

typedef struct {
	leaf *v;
	size_t n, cap;
} leaves;

static void leaves_clear(leaves *l)
{
	size_t i;
	for (i = 0; i < l->n; i++) {
		ks_free(l->v[i].name);
		ks_free(l->v[i].json);
	}
	ks_free(l->v);
	memset(l, 0, sizeof(*l));
}

static char *arg_name(const char *path)
{
	char *s = ks_strdup(path), *p;
	for (p = s; *p; p++)
		if (*p == '.' || *p == ':' || *p == '-')
			*p = '_';
	return s;
}

static int has(char *const *v, size_t n, const char *s)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

/* A constant's JSON text, or NULL with the reason in *why. */
static char *const_json(const ks_oval *v, char **why, const char *where)
{
	cJSON *j = NULL;
	char *out, *copy;
	switch (v->kind) {
	case KS_OVAL_NONE: return ks_strdup("null");
	case KS_OVAL_BOOL: return ks_strdup(v->ival ? "true" : "false");
	case KS_OVAL_FLOAT:
		if (!isfinite(v->fval)) {
			*why = ks_asprintf("%s is a float that is not finite", where);
			return NULL;
		}
		return ks_asprintf("%.17g", v->fval);
	case KS_OVAL_STR:
		j = cJSON_CreateString(v->sval ? v->sval : "");
		out = cJSON_PrintUnformatted(j);
		cJSON_Delete(j);
		copy = out ? ks_strdup(out) : NULL; /* kscore's allocator owns what it frees */
		free(out);
		return copy;
	case KS_OVAL_DTYPE:
		*why = ks_asprintf("%s passes the torch dtype %s, which kscore's Python entry cannot pass", where,
				   v->dtype ? v->dtype : "?");
		return NULL;
	default:
		*why = ks_asprintf("%s is a %s, which kscore's Python entry cannot pass", where,
				   v->kind == KS_OVAL_OTHER && v->sval ? v->sval : "container");
		return NULL;
	}
}

static void add(leaves *l, leaf x)
{
	l->v = ks_grow(l->v, sizeof(leaf), &l->cap, l->n + 1);
	l->v[l->n++] = x;
}

static int tensor_ok(const ks_oval *v, char **why)
{
	ks_dtype dt;
	size_t i;
	int64_t expect = 1;
	if (ks_dtype_parse(&dt, v->dtype) < 0) {
		ks_error_clear();
		*why = ks_asprintf("%s has dtype %s, which kscore's problem model does not hold", v->path, v->dtype);
		return -1;
	}
	for (i = v->ndim; i-- > 0;) {
		if (v->shape[i] != 1 && v->strides[i] != expect)
			break;
		expect *= v->shape[i];
	}
	if (i != (size_t)-1 || v->offset != 0) {
		*why = v->offset ? ks_asprintf("%s is a view at storage offset %lld; kscore's problem model holds "
					       "contiguous tensors", v->path, (long long)v->offset)
				 : ks_asprintf("%s is a strided view (its strides are not its shape's row-major ones); "
					       "kscore's problem model holds contiguous tensors", v->path);
		return -1;
	}
	return 0;
}

/* The return value's tensors (any nesting) as outputs; None items are left out. */
static int flatten_ret(leaves *l, const ks_oval *v, char **why)
{
	size_t i;
	if (v->kind == KS_OVAL_TENSOR) {
		if (tensor_ok(v, why) < 0)
			return -1;
		add(l, (leaf){ .name = arg_name(v->path), .path = v->path, .v = v, .role = KS_ROLE_OUT, .ret = 1 });
		return 0;
	}
	if (v->kind == KS_OVAL_NONE)
		return 0;
	if (v->kind != KS_OVAL_TUPLE && v->kind != KS_OVAL_LIST && v->kind != KS_OVAL_DICT) {
		*why = ks_strdup("it returns a value other than tensors in tuples, lists or dicts");
		return -1;
	}
	for (i = 0; i < v->nitems; i++)
		if (flatten_ret(l, &v->items[i], why) < 0)
			return -1;
	return 0;
}

static int flatten_arg(leaves *l, const ks_oracle_case *c, const ks_oval *v, const char *key, size_t pos, char **why)
{
	char where[160];
	leaf x = { .key = key, .v = v };
	if (key)
		snprintf(where, sizeof(where), "keyword argument %s", key);
	else
		snprintf(where, sizeof(where), "argument %zu", pos);
	if (v->kind == KS_OVAL_TENSOR) {
		if (tensor_ok(v, why) < 0)
			return -1;
		x.path = v->path;
		x.name = arg_name(v->path);
		x.role = has(c->writes, c->nwrites, v->path) ? KS_ROLE_INOUT : KS_ROLE_IN;
	} else if (v->kind == KS_OVAL_INT) {
		if (v->sval) {
			*why = ks_asprintf("%s is an int beyond 2^53", where);
			return -1;
		}
		x.name = key ? ks_asprintf("k_%s", key) : ks_asprintf("a%zu", pos);
		x.role = KS_ROLE_SCALAR;
		x.scalar = 1;
	} else if (!(x.json = const_json(v, why, where))) {
		return -1;
	} else {
		x.name = key ? ks_asprintf("k_%s", key) : ks_asprintf("a%zu", pos);
		x.role = KS_ROLE_SCALAR;
	}
	add(l, x);
	return 0;
}

static int flatten(leaves *l, const ks_oracle_case *c, char **why)
{
	size_t i;
	for (i = 0; i < c->nargs; i++)
		if (flatten_arg(l, c, &c->args[i], NULL, i, why) < 0)
			return -1;
	for (i = 0; i < c->nkwargs; i++)
		if (flatten_arg(l, c, &c->kwargs[i], c->kwargs[i].key, i, why) < 0)
			return -1;
	return flatten_ret(l, &c->ret, why);
}

/* NULL when case l matches the base's argument list, else why not (caller frees). */
static char *differs(const leaves *base, const leaves *l)
{
	size_t i;
	if (base->n != l->n)
		return ks_asprintf("it passes or returns %zu values where the first case has %zu", l->n, base->n);
	for (i = 0; i < l->n; i++) {
		const leaf *a = &base->v[i], *b = &l->v[i];
		if (strcmp(a->name, b->name) || a->role != b->role || a->scalar != b->scalar || !a->json != !b->json)
			return ks_asprintf("%s is not passed as in the first case (another kind of value, or written "
					   "where the first case only read it)", b->name);
		if (a->json && strcmp(a->json, b->json))
			return ks_asprintf("%s is the constant %s where the first case passes %s", b->name, b->json, a->json);
		if (a->v->kind == KS_OVAL_TENSOR) {
			if (strcmp(a->v->dtype, b->v->dtype))
				return ks_asprintf("%s has dtype %s where the first case has %s", b->name, b->v->dtype,
						   a->v->dtype);
			if (a->v->ndim != b->v->ndim)
				return ks_asprintf("%s has %zu dimensions where the first case has %zu", b->name,
						   b->v->ndim, a->v->ndim);
		}
	}
	return NULL;
}

static void refuse(ks_oracle_refusal **v, size_t *n, size_t *cap, size_t index, char *reason)
{
	*v = ks_grow(*v, sizeof(ks_oracle_refusal), cap, *n + 1);
	(*v)[*n].index = index;
	(*v)[(*n)++].reason = reason;
}

void ks_oracle_refusals_free(ks_oracle_refusal *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		ks_free(v[i].reason);
	ks_free(v);
}

/* The entry most cases call (the first of those tied). */
static const char *main_entry(const ks_oracle_reply *r)
{
	const char *best = NULL;
	size_t i, j, most = 0;
	for (i = 0; i < r->ncases; i++) {
		size_t n = 0;
		for (j = 0; j < r->ncases; j++)
			n += !strcmp(r->cases[i].entry, r->cases[j].entry);
		if (n > most) {
			most = n;
			best = r->cases[i].entry;
		}
	}
	return best;
}

static double tolerance(ks_set_format f, const char *dtype)
{
	if (f != KS_SET_KERNELBENCH)
		return KS_ORACLE_TRITONBENCH_ATOL;
	return strcmp(dtype, "float32") && strcmp(dtype, "float64") ? 1e-2 : 1e-4;
}

/* The problem's args, dims and Python entry from the base case's leaves. */
static void build_signature(ks_problem *p, const leaves *b, ks_set_format format, const char *entry)
{
	size_t i, d, nd = 0, na = 0;
	ks_python_entry *e = &p->python;
	for (i = 0; i < b->n; i++)
		nd += b->v[i].scalar ? 1 : b->v[i].json ? 0 : b->v[i].v->ndim;
	p->dims = ks_calloc(nd + 1, sizeof(char *));
	p->args = ks_calloc(b->n + 1, sizeof(ks_arg));
	e->entry = ks_strdup(entry);
	e->args = ks_calloc(b->n + 1, sizeof(ks_pyarg));
	e->kwargs = ks_calloc(b->n + 1, sizeof(ks_pyarg));
	for (i = 0; i < b->n; i++) {
		const leaf *x = &b->v[i];
		ks_pyarg *pa;
		if (!x->ret) {
			pa = x->key ? &e->kwargs[e->nkwargs++] : &e->args[e->nargs++];
			pa->key = x->key ? ks_strdup(x->key) : NULL;
			pa->kind = x->json ? KS_PYARG_CONST : KS_PYARG_NAME;
			if (x->json)
				pa->json = ks_strdup(x->json);
			else
				pa->ref = ks_strdup(x->name);
		} else if (!e->returns) {
			e->returns = ks_strdup(x->name);
		}
		if (x->json)
			continue;
		{
			ks_arg *a = &p->args[na++];
			a->name = ks_strdup(x->name);
			a->role = x->role;
			if (x->scalar) {
				a->dtype = KS_DT_I64;
				p->dims[p->ndims++] = ks_asprintf("%s_v", x->name);
				a->value = ks_strdup(p->dims[p->ndims - 1]);
				continue;
			}
			(void)ks_dtype_parse(&a->dtype, x->v->dtype);
			a->ndim = x->v->ndim;
			a->shape = ks_calloc(a->ndim + 1, sizeof(char *));
			for (d = 0; d < a->ndim; d++) {
				p->dims[p->ndims++] = ks_asprintf("%s_d%zu", x->name, d);
				a->shape[d] = ks_strdup(p->dims[p->ndims - 1]);
			}
			if (a->role != KS_ROLE_IN)
				a->atol = a->rtol = tolerance(format, x->v->dtype);
			if (a->role != KS_ROLE_IN && format != KS_SET_KERNELBENCH)
				a->rtol = KS_ORACLE_TRITONBENCH_RTOL;
		}
	}
	p->nargs = na;
}

/* One case of the problem from a case of the reply that matches the signature. */
static void build_case(ks_case *kc, const ks_problem *p, const leaves *l, const ks_oracle_case *c, size_t index)
{
	size_t i, d, na = 0, nd = 0;
	kc->label = ks_asprintf("%s %s %zu", c->entry, c->perf ? "perf call" : "call", c->index);
	kc->dims = ks_calloc(p->ndims + 1, sizeof(char *));
	kc->dist = ks_calloc(p->nargs + 1, sizeof(ks_dist));
	kc->seeds = 2;
	kc->perf = c->perf;
	kc->index = index;
	kc->outside = -1;
	for (i = 0; i < l->n; i++) {
		const leaf *x = &l->v[i];
		if (x->json)
			continue;
		if (x->scalar) {
			kc->dims[nd++] = ks_asprintf("%lld", (long long)x->v->ival);
		} else {
			for (d = 0; d < x->v->ndim; d++)
				kc->dims[nd++] = ks_asprintf("%lld", (long long)x->v->shape[d]);
			/* an input's values, an output's expected values (in the outputs folder): one name */
			kc->dist[na].file = ks_asprintf("c%zu.%s.bin", c->index, x->path);
			if (x->role != KS_ROLE_OUT)
				kc->dist[na].kind = KS_DIST_DATA;
		}
		na++;
	}
}

int ks_oracle_problem(ks_problem **out, ks_oracle_refusal **refused, size_t *nrefused, const ks_set_problem *sp,
		      ks_set_format format, const ks_oracle_reply *r)
{
	ks_problem *p = NULL;
	leaves base = { 0 }, *all = NULL;
	size_t i, cap = 0, ncorr = 0, nperf = 0;
	char *why = NULL, **reason = NULL;
	const char *entry;
	const char *slash;
	int rc = 0, have_base = 0;

	*out = NULL;
	*refused = NULL;
	*nrefused = 0;
	if (r->status != KS_ORACLE_OK)
		return ks_error_set(KS_EINVALID, "%s: the oracle made no cases: %s", sp->path,
				    r->reason ? r->reason : ks_oracle_status_name(r->status));
	entry = main_entry(r);
	all = ks_calloc(r->ncases + 1, sizeof(leaves));
	reason = ks_calloc(r->ncases + 1, sizeof(char *));
	for (i = 0; i < r->ncases; i++) {
		const ks_oracle_case *c = &r->cases[i];
		if (strcmp(c->entry, entry)) {
			reason[i] = ks_asprintf("it calls %s; the problem's entry is %s, which most cases call", c->entry, entry);
			continue;
		}
		why = NULL;
		if (flatten(&all[i], c, &why) < 0) {
			reason[i] = why;
			continue;
		}
		if (!have_base) {
			base = all[i];
			memset(&all[i], 0, sizeof(all[i]));
			flatten(&all[i], c, &why); /* a copy the case keeps, as every other case has its own */
			have_base = 1;
		} else if ((reason[i] = differs(&base, &all[i])) != NULL) {
			continue;
		}
		if (c->perf)
			nperf++;
		else
			ncorr++;
	}
	for (i = 0; i < r->ncases; i++)
		if (reason[i])
			refuse(refused, nrefused, &cap, r->cases[i].index, reason[i]);
	if (!have_base || ncorr + nperf == 0)
		goto done;
	p = ks_calloc(1, sizeof(*p));
	p->name = ks_strdup(sp->name);
	p->suite = ks_strdup(sp->suite);
	slash = strrchr(sp->path, '/');
	p->dir = slash ? ks_strndup(sp->path, (size_t)(slash - sp->path)) : ks_strdup(".");
	p->oracle = 1;
	p->atol = tolerance(format, "float32");
	p->rtol = format == KS_SET_KERNELBENCH ? p->atol : KS_ORACLE_TRITONBENCH_RTOL;
	p->peak = ks_strdup("none");
	p->sm_count = KS_PROBLEM_DEFAULT_SM_COUNT;
	build_signature(p, &base, format, entry);
	p->correctness = ks_calloc(ncorr + 1, sizeof(ks_case));
	p->perf = ks_calloc(nperf + 1, sizeof(ks_case));
	for (i = 0; i < r->ncases; i++) {
		const ks_oracle_case *c = &r->cases[i];
		if (reason[i])
			continue;
		if (c->perf)
			build_case(&p->perf[p->nperf], p, &all[i], c, p->nperf), p->nperf++;
		else
			build_case(&p->correctness[p->ncorrectness], p, &all[i], c, p->ncorrectness), p->ncorrectness++;
	}
	*out = p;
done:
	for (i = 0; i < r->ncases; i++)
		leaves_clear(&all[i]);
	ks_free(all);
	ks_free(reason); /* the reasons now belong to *refused */
	leaves_clear(&base);
	return rc;
}

int ks_oracle_arg_bytes(uint64_t *out, const ks_problem *p, const ks_case *c, size_t ai)
{
	ks_env env = KS_ENV_INIT;
	uint64_t count = 0;
	int rc;
	*out = 0;
	if (ai >= p->nargs || p->args[ai].role == KS_ROLE_SCALAR)
		return ks_error_set(KS_EINVALID, "%s: argument %zu is not a tensor", p->name, ai);
	if ((rc = ks_problem_env(&env, p, c)) == 0 && (rc = ks_problem_arg_count(&count, p, &p->args[ai], &env)) == 0)
		*out = count * ks_dtype_size(p->args[ai].dtype);
	ks_env_free(&env);
	return rc;
}

int ks_oracle_read_tensor(void **out, size_t *n, const ks_problem *p, const ks_case *c, size_t ai,
			  const char *dir)
{
	const char *file = ai < p->nargs ? c->dist[ai].file : NULL;
	uint64_t want = 0;
	char *path = NULL, *data = NULL;
	struct stat st;
	int fd = -1, rc = 0;
	size_t got = 0;
	*out = NULL;
	*n = 0;
	if (!file || strchr(file, '/') || file[0] == '.')
		return ks_error_set(KS_EINVALID, "%s: argument %zu of case %s has no oracle file", p->name, ai, c->label);
	if ((rc = ks_oracle_arg_bytes(&want, p, c, ai)) < 0)
		return rc;
	path = ks_path_join(dir, file);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = ks_error_set(KS_EINVALID, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
		goto done;
	}
	if ((uint64_t)st.st_size != want) {
		rc = ks_error_set(KS_EINVALID, "%s: %lld bytes where case %s's shape gives %llu", path,
				  (long long)st.st_size, c->label, (unsigned long long)want);
		goto done;
	}
	data = ks_malloc(want ? (size_t)want : 1);
	while (got < want) {
		ssize_t r = read(fd, data + got, (size_t)want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = ks_error_set(KS_EIO, "%s: %s", path, r < 0 ? strerror(errno) : "shorter than it was");
			goto done;
		}
		got += (size_t)r;
	}
	*out = data;
	*n = got;
	data = NULL;
done:
	if (fd >= 0)
		close(fd);
	ks_free(data);
	ks_free(path);
	return rc;
}
