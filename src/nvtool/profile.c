#include "nvtool/profile.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *ncu, *key, *words;
} metric_def;

/* Names as Nsight Compute spells them on Hopper (sm_90); the stall reasons are the WarpStateStats
 * section's, as cycles per issued instruction. Every one was checked on an H100 with ncu 2025.3.1
 * (CUDA 13): each is a column of the raw page with a number in it (tests/fixtures/nvtools/). The
 * launch__ metrics and sm__maximum_warps_per_active_cycle_pct are not listed by
 * `ncu --query-metrics` (they come from the launch, not from a counter) but are collected all the
 * same. */
static const metric_def g_metrics[KS_PM_COUNT] = {
	{ "gpu__time_duration.sum", "duration_ns", NULL },
	{ "dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_pct", NULL },
	{ "sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_pct", NULL },
	{ "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory_pct", NULL },
	{ "smsp__issue_active.avg.pct_of_peak_sustained_active", "issue_pct", NULL },
	{ "sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy_pct", NULL },
	{ "sm__maximum_warps_per_active_cycle_pct", "theoretical_occupancy_pct", NULL },
	{ "launch__occupancy_limit_registers", "blocks_limit_registers", NULL },
	{ "launch__occupancy_limit_shared_mem", "blocks_limit_shared", NULL },
	{ "launch__occupancy_limit_warps", "blocks_limit_warps", NULL },
	{ "launch__occupancy_limit_blocks", "blocks_limit_blocks", NULL },
	{ "launch__registers_per_thread", "registers", NULL },
	{ "launch__block_size", "block_size", NULL },
	{ "launch__grid_size", "grid_size", NULL },
	{ "launch__shared_mem_per_block_static", "shared_static_bytes", NULL },
	{ "launch__shared_mem_per_block_dynamic", "shared_dynamic_bytes", NULL },
	{ "launch__waves_per_multiprocessor", "waves", NULL },
	{ "l1tex__t_sector_hit_rate.pct", "l1_hit_pct", NULL },
	{ "lts__t_sector_hit_rate.pct", "l2_hit_pct", NULL },
	{ "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "load_sectors", NULL },
	{ "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "load_requests", NULL },
	{ "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "store_sectors", NULL },
	{ "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "store_requests", NULL },
	{ "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "load_sector_use_pct", NULL },
	{ "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", "store_sector_use_pct", NULL },
	{ "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "tensor_pct", NULL },
	{ "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "stall_barrier",
	  "waiting at a block-wide barrier (__syncthreads)" },
	{ "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio", "stall_branch_resolving",
	  "waiting for branch targets" },
	{ "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio", "stall_dispatch",
	  "held back by the dispatcher" },
	{ "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio", "stall_drain",
	  "draining stores at exit" },
	{ "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio", "stall_imc_miss",
	  "waiting on constant-cache misses" },
	{ "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio", "stall_lg_throttle",
	  "waiting for the global-memory instruction queue (too many memory instructions)" },
	{ "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "stall_long_scoreboard",
	  "waiting for global or local memory (long scoreboard)" },
	{ "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", "stall_math_pipe",
	  "waiting for a busy math pipe" },
	{ "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio", "stall_membar",
	  "waiting at memory fences" },
	{ "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", "stall_mio_throttle",
	  "waiting for the shared-memory queue (MIO throttle)" },
	{ "smsp__average_warps_issue_stalled_misc_per_issue_active.ratio", "stall_misc", "on miscellaneous stalls" },
	{ "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio", "stall_no_instruction",
	  "waiting for instructions (instruction-cache misses)" },
	{ "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", "stall_not_selected",
	  "ready but not picked (enough other warps issue)" },
	{ "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", "stall_selected", NULL },
	{ "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", "stall_short_scoreboard",
	  "waiting for shared memory or special-function results (short scoreboard)" },
	{ "smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio", "stall_sleeping", "sleeping" },
	{ "smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio", "stall_tex_throttle",
	  "waiting for the texture queue" },
	{ "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "stall_wait",
	  "on fixed-latency dependencies (wait)" },
};

#define STALL_SELECTED (KS_PM_STALL_FIRST + 13)

const char *ks_profile_ncu_name(int m)
{
	return m >= 0 && m < KS_PM_COUNT ? g_metrics[m].ncu : NULL;
}

const char *ks_profile_key(int m)
{
	return m >= 0 && m < KS_PM_COUNT ? g_metrics[m].key : NULL;
}

const char *ks_profile_stall_words(int m)
{
	return m >= 0 && m < KS_PM_COUNT ? g_metrics[m].words : NULL;
}

char *ks_profile_metric_list(const unsigned char *skip)
{
	ks_buf b = KS_BUF_INIT(1u << 16);
	int m;
	for (m = 0; m < KS_PM_COUNT; m++) {
		if (skip && skip[m])
			continue;
		ks_buf_printf(&b, "%s%s", b.len ? "," : "", g_metrics[m].ncu);
	}
	return ks_buf_take(&b, NULL);
}

static int metric_index(const char *name)
{
	int m;
	for (m = 0; m < KS_PM_COUNT; m++)
		if (!strcmp(name, g_metrics[m].ncu))
			return m;
	return -1;
}

/* ---- CSV */

#define MAX_FIELDS 1024

/* Splits one CSV line in place (fields quoted with "" as the escape, or bare). Returns the number
 * of fields, or -1 when the line is malformed or has more than maxf fields. */
static int csv_split(char *line, char **f, int maxf)
{
	char *p = line;
	int n = 0;
	for (;;) {
		char *out;
		if (n == maxf)
			return -1;
		if (*p == '"') {
			out = ++p;
			f[n++] = out;
			for (;;) {
				if (!*p)
					return -1;
				if (*p == '"' && p[1] == '"') {
					*out++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else
					*out++ = *p++;
			}
			*out = 0; /* out <= p - 1, so this never clobbers what follows */
			if (*p == ',') {
				p++;
				continue;
			}
			return *p ? -1 : n;
		}
		f[n++] = p;
		while (*p && *p != ',')
			p++;
		if (!*p)
			return n;
		*p++ = 0;
	}
}

/* A number as ncu prints it ("1,234.5", "12.3", "n/a"); NAN when it is none. */
static double parse_num(const char *s)
{
	char tmp[64], *end;
	size_t k = 0;
	double v;
	while (*s == ' ')
		s++;
	for (; *s && k + 1 < sizeof(tmp); s++) {
		if (*s == ',')
			continue; /* thousands separators */
		if (!isdigit((unsigned char)*s) && !strchr("+-.eE ", *s))
			return NAN;
		tmp[k++] = *s;
	}
	if (*s || !k)
		return NAN;
	tmp[k] = 0;
	v = strtod(tmp, &end);
	while (*end == ' ')
		end++;
	return *end || end == tmp ? NAN : v;
}

/* Scales a value to kscore's units (ns for times, bytes for sizes) given ncu's unit. */
static double scale_unit(double v, const char *unit)
{
	static const struct {
		const char *u;
		double f;
	} t[] = { { "ns", 1 },        { "nsecond", 1 },   { "us", 1e3 },      { "usecond", 1e3 },
		  { "ms", 1e6 },      { "msecond", 1e6 }, { "s", 1e9 },       { "second", 1e9 },
		  { "Kbyte", 1e3 },   { "Mbyte", 1e6 },   { "Gbyte", 1e9 },   { "KB", 1e3 },
		  { "MB", 1e6 },      { "GB", 1e9 },      { "Kibyte", 1024 }, { "Mibyte", 1048576 },
		  { "KiB", 1024 },    { "MiB", 1048576 } };
	size_t i;
	if (!unit || isnan(v))
		return v;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(unit, t[i].u))
			return v * t[i].f;
	return v;
}

static void set_name(ks_profile_launch *l, const char *s)
{
	size_t i;
	for (i = 0; s[i] && i + 1 < sizeof(l->name); i++)
		l->name[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	l->name[i] = 0;
}

static ks_profile_launch *new_launch(ks_profile_data *d, size_t *cap)
{
	ks_profile_launch *l;
	int m;
	if (d->n >= KS_PROFILE_MAX_LAUNCHES)
		return NULL;
	d->launches = ks_grow(d->launches, sizeof(*d->launches), cap, d->n + 1);
	l = &d->launches[d->n++];
	memset(l, 0, sizeof(*l));
	for (m = 0; m < KS_PM_COUNT; m++)
		l->v[m] = NAN;
	return l;
}

static int find_col(char **f, int n, const char *name)
{
	int i;
	for (i = 0; i < n; i++)
		if (!strcmp(f[i], name))
			return i;
	return -1;
}

int ks_profile_parse(ks_profile_data *out, const char *text, size_t len)
{
	char *line = ks_malloc(KS_PROFILE_MAX_LINE + 1), **f = ks_calloc(MAX_FIELDS, sizeof(char *));
	int *colmetric = NULL, ncols = 0, kcol = -1, idcol = -1, mname = -1, munit = -1, mval = -1;
	char **units = NULL, lastid[32] = "";
	size_t pos = 0, cap = 0;
	ks_profile_launch *cur = NULL;

	memset(out, 0, sizeof(*out));
	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - s) : len - pos;
		int n, i;
		pos += ll + (nl ? 1 : 0);
		if (ll && s[ll - 1] == '\r')
			ll--;
		if (ll == 0 || ll > KS_PROFILE_MAX_LINE || s[0] != '"' || memchr(s, 0, ll))
			continue;
		memcpy(line, s, ll);
		line[ll] = 0;
		if ((n = csv_split(line, f, MAX_FIELDS)) < 1)
			continue;
		if (!out->format && !strcmp(f[0], "ID") && (kcol = find_col(f, n, "Kernel Name")) >= 0) {
			idcol = 0;
			mname = find_col(f, n, "Metric Name");
			munit = find_col(f, n, "Metric Unit");
			mval = find_col(f, n, "Metric Value");
			if (mname >= 0 && mval >= 0) {
				out->format = 2;
				continue;
			}
			out->format = 1;
			ncols = n;
			colmetric = ks_calloc((size_t)n, sizeof(int));
			units = ks_calloc((size_t)n, sizeof(char *));
			for (i = 0; i < n; i++)
				colmetric[i] = metric_index(f[i]);
			continue;
		}
		if (out->format == 1) {
			if (n != ncols)
				continue;
			if (!f[idcol][0]) { /* the units row */
				for (i = 0; i < n; i++) {
					ks_free(units[i]);
					units[i] = ks_strndup(f[i], 32);
				}
				continue;
			}
			if (!(cur = new_launch(out, &cap)))
				break;
			set_name(cur, f[kcol]);
			for (i = 0; i < n; i++)
				if (colmetric[i] >= 0)
					cur->v[colmetric[i]] = scale_unit(parse_num(f[i]), units[i]);
		} else if (out->format == 2) {
			int m;
			if (n <= mname || n <= mval || n <= kcol)
				continue;
			if (!cur || strncmp(lastid, f[idcol], sizeof(lastid) - 1)) {
				if (!(cur = new_launch(out, &cap)))
					break;
				snprintf(lastid, sizeof(lastid), "%s", f[idcol]);
				set_name(cur, f[kcol]);
			}
			if ((m = metric_index(f[mname])) >= 0)
				cur->v[m] = scale_unit(parse_num(f[mval]), munit >= 0 && munit < n ? f[munit] : NULL);
		}
	}
	if (units)
		ks_free_strv(units, (size_t)ncols);
	ks_free(colmetric);
	ks_free(line);
	ks_free(f);
	return 0;
}

void ks_profile_data_clear(ks_profile_data *d)
{
	ks_free(d->launches);
	memset(d, 0, sizeof(*d));
}

const ks_profile_launch *ks_profile_pick(const ks_profile_data *d, char *const *names, size_t n)
{
	const ks_profile_launch *best = NULL;
	size_t i, j;
	for (i = 0; i < d->n; i++) {
		const ks_profile_launch *l = &d->launches[i];
		int match = names == NULL;
		for (j = 0; !match && j < n; j++)
			match = names[j] && !strcmp(names[j], l->name);
		if (!match)
			continue;
		if (!best || (!isnan(l->v[KS_PM_DURATION]) &&
			      (isnan(best->v[KS_PM_DURATION]) || l->v[KS_PM_DURATION] > best->v[KS_PM_DURATION])))
			best = l;
	}
	return best;
}

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* name (or its first n bytes) occurs in line as a whole word: not inside a longer name. */
static int mentions(const char *line, const char *name, size_t n, int dot_ends)
{
	const char *at = line;
	while ((at = strstr(at, name)) != NULL) {
		char next = at[n];
		if (strncmp(at, name, n)) {
			at++;
			continue;
		}
		if ((at == line || !ident_char(at[-1])) &&
		    !(isalnum((unsigned char)next) || next == '_' || (!dot_ends && next == '.')))
			return 1;
		at += n;
	}
	return 0;
}

int ks_profile_failed_metrics(unsigned char *skip, const char *text, size_t len)
{
	size_t pos = 0;
	int found = 0, m;
	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - s) : len - pos;
		char *line;
		pos += ll + (nl ? 1 : 0);
		if (ll < 9 || ll > KS_PROFILE_MAX_LINE || strncmp(s, "==ERROR==", 9))
			continue;
		line = ks_strndup(s, ll);
		for (m = 0; m < KS_PM_COUNT; m++) {
			/* the full name, or its base (ncu may name a metric without its suffix) */
			char *base = ks_strndup(g_metrics[m].ncu, strcspn(g_metrics[m].ncu, "."));
			if (mentions(line, g_metrics[m].ncu, strlen(g_metrics[m].ncu), 0) ||
			    mentions(line, base, strlen(base), 1)) {
				if (!skip[m])
					found++;
				skip[m] = 1;
			}
			ks_free(base);
		}
		ks_free(line);
	}
	return found;
}

/* ---- diagnosis */

static int have(const ks_profile_launch *l, int m)
{
	return l && !isnan(l->v[m]);
}

typedef struct {
	char **v;
	size_t n, cap;
} lines;

static void add_line(lines *ls, const char *fmt, ...) KS_PRINTF(2, 3);
static void add_line(lines *ls, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	if (ls->n >= KS_PROFILE_MAX_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ls->v = ks_grow(ls->v, sizeof(char *), &ls->cap, ls->n + 2);
	ls->v[ls->n++] = ks_strdup(buf);
	ls->v[ls->n] = NULL;
}

static void bound_line(lines *ls, const ks_profile_launch *k, const ks_profile_launch *g)
{
	double d = k->v[KS_PM_DRAM_PCT], s = k->v[KS_PM_SM_PCT];
	char gold[128] = "";
	if (isnan(d) || isnan(s))
		return;
	if (have(g, KS_PM_DRAM_PCT) && have(g, KS_PM_SM_PCT))
		snprintf(gold, sizeof(gold), " (the golden kernel: %.0f%% of DRAM bandwidth, %.0f%% of SM throughput)",
			 g->v[KS_PM_DRAM_PCT], g->v[KS_PM_SM_PCT]);
	/* the busier side bounds it; when neither is busy, waiting does */
	if (d < 30 && s < 30)
		add_line(ls, "latency-bound: only %.0f%% of DRAM bandwidth and %.0f%% of SM throughput are used, "
			 "so the GPU mostly waits%s", d, s, gold);
	else if (d >= s)
		add_line(ls, "memory-bound at %.0f%% of DRAM bandwidth%s", d, gold);
	else
		add_line(ls, "compute-bound at %.0f%% of SM throughput%s", s, gold);
}

static double ratio(const ks_profile_launch *l, int num, int den)
{
	if (!have(l, num) || !have(l, den) || l->v[den] <= 0)
		return NAN;
	return l->v[num] / l->v[den];
}

static void access_line(lines *ls, const ks_profile_launch *k, const ks_profile_launch *g, int store)
{
	const char *what = store ? "global stores" : "global loads";
	int sec = store ? KS_PM_ST_SECTORS : KS_PM_LD_SECTORS, req = store ? KS_PM_ST_REQUESTS : KS_PM_LD_REQUESTS;
	int use = store ? KS_PM_ST_SECTOR_USE : KS_PM_LD_SECTOR_USE;
	double spr = ratio(k, sec, req), gspr = ratio(g, sec, req);
	char gold[160] = "";
	if (isnan(spr))
		return;
	if (!isnan(gspr) && have(g, use))
		snprintf(gold, sizeof(gold), "; the golden kernel uses %.0f%% with %.1f per request", g->v[use], gspr);
	else if (!isnan(gspr))
		snprintf(gold, sizeof(gold), "; the golden kernel needs %.1f per request", gspr);
	/* a request that moves one sector cannot be coalesced any better: a store by one lane of each
	 * block (rowsum's result) uses 4 bytes of its sector and is no access-pattern problem */
	if (have(k, use) && k->v[use] < 60 && spr >= 1.5)
		add_line(ls, "%s are uncoalesced: they use only %.0f%% of the bytes of each 32-byte sector they "
			 "move (%.1f sectors per request%s)", what, k->v[use], spr, gold);
	else if (!have(k, use) && !isnan(gspr) && spr > 4.5 && spr > 1.5 * gspr)
		add_line(ls, "%s use %.1f sectors per request where the golden kernel uses %.1f (uncoalesced)", what,
			 spr, gspr);
}

static void occupancy_line(lines *ls, const ks_profile_launch *k, const ks_profile_launch *g)
{
	static const int lim[] = { KS_PM_LIMIT_REGISTERS, KS_PM_LIMIT_SHARED, KS_PM_LIMIT_WARPS, KS_PM_LIMIT_BLOCKS };
	double theo = k->v[KS_PM_OCC_THEORETICAL], ach = k->v[KS_PM_OCC_ACHIEVED], best = INFINITY;
	int which = -1;
	size_t i;
	char gold[96] = "", why[160];
	if (isnan(theo) || isnan(ach))
		return;
	if (have(g, KS_PM_OCC_ACHIEVED))
		snprintf(gold, sizeof(gold), "; the golden kernel achieves %.0f%%", g->v[KS_PM_OCC_ACHIEVED]);
	for (i = 0; i < sizeof(lim) / sizeof(lim[0]); i++)
		if (have(k, lim[i]) && k->v[lim[i]] < best) {
			best = k->v[lim[i]];
			which = lim[i];
		}
	if (theo < 50 && which >= 0) {
		if (which == KS_PM_LIMIT_REGISTERS && have(k, KS_PM_REGISTERS))
			snprintf(why, sizeof(why), "%.0f registers per thread", k->v[KS_PM_REGISTERS]);
		else if (which == KS_PM_LIMIT_SHARED)
			snprintf(why, sizeof(why), "shared memory (%.0f bytes per block)",
				 (have(k, KS_PM_SHARED_STATIC) ? k->v[KS_PM_SHARED_STATIC] : 0) +
					 (have(k, KS_PM_SHARED_DYNAMIC) ? k->v[KS_PM_SHARED_DYNAMIC] : 0));
		else if (which == KS_PM_LIMIT_WARPS && have(k, KS_PM_BLOCK_SIZE))
			snprintf(why, sizeof(why), "the block size (%.0f threads)", k->v[KS_PM_BLOCK_SIZE]);
		else if (which == KS_PM_LIMIT_BLOCKS && have(k, KS_PM_BLOCK_SIZE))
			snprintf(why, sizeof(why), "the blocks-per-SM cap (blocks of %.0f threads are too small)",
				 k->v[KS_PM_BLOCK_SIZE]);
		else
			snprintf(why, sizeof(why), "%s", ks_profile_key(which));
		add_line(ls, "occupancy limited by %s: %.0f block%s per SM, theoretical %.0f%%, achieved %.0f%%%s", why,
			 best, best == 1 ? "" : "s", theo, ach, gold);
	} else if (ach < 0.5 * theo)
		add_line(ls, "achieved occupancy %.0f%% of a theoretical %.0f%%: warps finish unevenly or too few "
			 "blocks are in flight%s", ach, theo, gold);
	if (have(k, KS_PM_WAVES) && k->v[KS_PM_WAVES] < 0.5 && have(k, KS_PM_GRID_SIZE))
		add_line(ls, "the grid is too small to fill the GPU: %.0f blocks make %.2f waves", k->v[KS_PM_GRID_SIZE],
			 k->v[KS_PM_WAVES]);
}

static void stall_line(lines *ls, const ks_profile_launch *k, const ks_profile_launch *g)
{
	double total = 0, gtotal = 0;
	int top[2] = { -1, -1 }, gtop = -1, m;
	for (m = KS_PM_STALL_FIRST; m < KS_PM_COUNT; m++) {
		if (m == STALL_SELECTED)
			continue;
		if (have(g, m)) {
			gtotal += g->v[m];
			if (gtop < 0 || g->v[m] > g->v[gtop])
				gtop = m;
		}
		if (!have(k, m))
			continue;
		total += k->v[m];
		if (top[0] < 0 || k->v[m] > k->v[top[0]]) {
			top[1] = top[0];
			top[0] = m;
		} else if (top[1] < 0 || k->v[m] > k->v[top[1]])
			top[1] = m;
	}
	if (top[0] < 0 || total <= 0)
		return;
	{
		char second[200] = "", gold[200] = "";
		double s0 = 100 * k->v[top[0]] / total;
		if (top[1] >= 0 && 100 * k->v[top[1]] / total >= 15)
			snprintf(second, sizeof(second), ", then %s (%.0f%%)", g_metrics[top[1]].words,
				 100 * k->v[top[1]] / total);
		if (gtop >= 0 && gtop != top[0] && gtotal > 0)
			snprintf(gold, sizeof(gold), "; the golden kernel's warps mostly stall %s (%.0f%%)",
				 g_metrics[gtop].words, 100 * g->v[gtop] / gtotal);
		add_line(ls, "warps mostly stall %s (%.0f%% of stall cycles, %.1f cycles per instruction)%s%s",
			 g_metrics[top[0]].words, s0, k->v[top[0]], second, gold);
	}
}

static void cache_line(lines *ls, const ks_profile_launch *k, const ks_profile_launch *g, int m, const char *name)
{
	if (have(k, m) && have(g, m) && k->v[m] + 20 < g->v[m])
		add_line(ls, "%s hit rate %.0f%% where the golden kernel gets %.0f%% (less data reuse)", name, k->v[m],
			 g->v[m]);
}

static void tensor_line(lines *ls, const ks_profile_launch *k, const ks_profile_launch *g)
{
	if (!have(k, KS_PM_TENSOR_PCT))
		return;
	if (k->v[KS_PM_TENSOR_PCT] < 5 && (!have(g, KS_PM_TENSOR_PCT) || g->v[KS_PM_TENSOR_PCT] >= 10)) {
		if (have(g, KS_PM_TENSOR_PCT))
			add_line(ls, "tensor cores nearly idle (%.1f%% busy) while the golden kernel keeps them %.0f%% busy",
				 k->v[KS_PM_TENSOR_PCT], g->v[KS_PM_TENSOR_PCT]);
		else
			add_line(ls, "tensor cores nearly idle (%.1f%% busy) on a problem whose peak is a tensor-core "
				 "peak", k->v[KS_PM_TENSOR_PCT]);
	} else if (have(g, KS_PM_TENSOR_PCT))
		add_line(ls, "tensor cores %.0f%% busy (the golden kernel: %.0f%%)", k->v[KS_PM_TENSOR_PCT],
			 g->v[KS_PM_TENSOR_PCT]);
}

void ks_profile_diagnose(char ***out, size_t *n, const ks_profile_launch *k, const ks_profile_launch *g,
			 int tensor_peak)
{
	lines ls = { NULL, 0, 0 };
	if (k) {
		bound_line(&ls, k, g);
		access_line(&ls, k, g, 0);
		access_line(&ls, k, g, 1);
		occupancy_line(&ls, k, g);
		stall_line(&ls, k, g);
		cache_line(&ls, k, g, KS_PM_L2_HIT, "L2");
		cache_line(&ls, k, g, KS_PM_L1_HIT, "L1");
		if (tensor_peak)
			tensor_line(&ls, k, g);
	}
	if (!ls.v)
		ls.v = ks_calloc(1, sizeof(char *));
	*out = ls.v;
	*n = ls.n;
}

cJSON *ks_profile_launch_json(const ks_profile_launch *l)
{
	cJSON *o = cJSON_CreateObject(), *m = NULL;
	int i;
	cJSON_AddStringToObject(o, "name", l->name);
	m = cJSON_AddObjectToObject(o, "metrics");
	for (i = 0; i < KS_PM_COUNT; i++)
		ks_json_add_num(m, g_metrics[i].key, l->v[i]);
	return o;
}
