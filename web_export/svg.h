/* svg: the site's charts, written as inline SVG by the exporter so that they read without any
 * script: horizontal bars (score by team, speedup against the golden kernel with a 1x line, on
 * a log scale when values span a wide range), the fast_p curve (KernelBench's fraction of
 * kernels correct and faster than p times the golden kernel, p from 0 to the largest speedup),
 * and the roofline picture of a kernel (achieved throughput against the measured ceilings, the
 * golden kernel beside it). Colours come from CSS classes (c-*), so the page's light and dark
 * schemes apply. Labels are untrusted and escaped; hrefs must be the exporter's own. */
#ifndef KS_SVG_H
#define KS_SVG_H

#include <math.h>
#include <stddef.h>
#include "web_export/html.h"

typedef struct {
	const char *label;   /* untrusted; cut to fit, whole in a tooltip */
	const char *href;    /* the exporter's own page name, or NULL */
	double value;        /* NaN: no bar, "n/a" */
	const char *cls;     /* CSS class of the bar (c-bar, c-good, c-bad, c-gold, c-gray) */
	const char *note;    /* untrusted text after the value, or NULL */
} ks_svg_bar;

typedef struct {
	const char *title;   /* accessible name of the chart */
	const char *unit;    /* appended to values ("x"), may be "" */
	double ref;          /* a reference line (1 for speedups); NaN for none */
	const char *ref_label;
	int log;             /* 1 log scale, 0 linear, -1 log when max/min > 20 */
	int digits;          /* significant digits of value labels */
} ks_svg_bars_opts;

#define KS_SVG_BARS_OPTS_INIT { "chart", "", NAN, NULL, 0, 4 }

/* Horizontal bars, one row per bar. On a log scale with a reference line, bars grow from the
 * line (right: above it, left: below it). */
void ks_svg_bars(ks_html *h, const ks_svg_bar *bars, size_t n, const ks_svg_bars_opts *o);

typedef struct {
	const char *name;        /* untrusted */
	const double *speedups;  /* of the kernels that are correct and not suspicious */
	size_t n;
	size_t total;            /* every kernel of the team: the denominator */
} ks_svg_series;

/* fast_p curves, one per series: fast_p(p) = (kernels correct, not suspicious, speedup > p) /
 * total, for p from 0 to the largest speedup (at least 2), with p = 1 and p = 2 marked. */
void ks_svg_fastp(ks_html *h, const ks_svg_series *s, size_t n, const char *title);

/* fast_p(p) of one series (for tests and tables). */
double ks_svg_fastp_at(const ks_svg_series *s, double p);

typedef struct {
	const char *label;       /* the perf case; untrusted */
	double bytes, flops;     /* the problem's minimum bytes and FLOPs for the case */
	double ms, golden_ms;    /* medians; NaN when not timed */
	double floor_ms;         /* the roofline floor used for the verdict */
} ks_svg_roof_point;

/* The roofline of one kernel: with FLOPs, the classic log-log picture (arithmetic intensity
 * against TFLOP/s) under the measured bandwidth line and the compute roof the floor implies,
 * the kernel's cases as dots and the golden kernel's as squares; without FLOPs (pure data
 * movement), GB/s bars of both against the measured bandwidth. `id` makes the chart's internal
 * ids unique in the page ([A-Za-z0-9_-]). Writes nothing when no case was timed. */
void ks_svg_roofline(ks_html *h, const ks_svg_roof_point *p, size_t n, double bandwidth_gbps,
		     const char *id, const char *title);

/* Formats a number with `digits` significant digits, no exponent for ordinary magnitudes. */
void ks_svg_num(char *out, size_t size, double v, int digits);

#endif
