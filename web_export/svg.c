#include "web_export/svg.h"
#include "util/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One axis: a domain mapped onto a range of user units, linear or log10. */
typedef struct {
	double d0, d1, r0, r1;
	int log;
} scale;

static double map(const scale *s, double v)
{
	double t;
	if (s->log) {
		if (!(v > 0))
			return s->r0;
		t = (log10(v) - log10(s->d0)) / (log10(s->d1) - log10(s->d0));
	} else {
		t = (v - s->d0) / (s->d1 - s->d0);
	}
	if (t < -0.02)
		t = -0.02;
	if (t > 1.02)
		t = 1.02;
	return s->r0 + t * (s->r1 - s->r0);
}

void ks_svg_num(char *out, size_t size, double v, int digits)
{
	if (isnan(v)) {
		snprintf(out, size, "n/a");
		return;
	}
	if (v == 0) {
		snprintf(out, size, "0");
		return;
	}
	if (fabs(v) >= pow(10, digits) && fabs(v) < 1e15)
		snprintf(out, size, "%.0f", v);
	else
		snprintf(out, size, "%.*g", digits, v);
}

/* A value a chart can place: finite, and far from overflowing once scaled. */
static int placeable(double v)
{
	return isfinite(v) && fabs(v) < 1e100;
}

static double nice_step(double span)
{
	double raw = span / 5, mag, f;
	if (!(raw > 0))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* Tick values of an axis, at most max. */
static size_t ticks(double *out, size_t max, const scale *s)
{
	size_t n = 0;
	if (s->log) {
		int e0 = (int)floor(log10(s->d0) + 1e-9), e1 = (int)ceil(log10(s->d1) - 1e-9), e, m;
		int fine = e1 - e0 <= 2;
		for (e = e0; e <= e1 && n < max; e++)
			for (m = 1; m <= 5 && n < max; m += fine ? (m == 1 ? 1 : 3) : 9) {
				double v = m * pow(10, e);
				if (v >= s->d0 * 0.999 && v <= s->d1 * 1.001)
					out[n++] = v;
			}
	} else {
		double step = nice_step(s->d1 - s->d0), v;
		for (v = ceil(s->d0 / step) * step; v <= s->d1 + step * 1e-9 && n < max; v += step)
			out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

static void open_svg(ks_html *h, double w, double ht, const char *title)
{
	ks_html_rawf(h, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"", w, ht);
	ks_html_text(h, title);
	ks_html_raw(h, "\" xmlns=\"http://www.w3.org/2000/svg\"><title>");
	ks_html_text(h, title);
	ks_html_raw(h, "</title>");
}

/* Vertical grid lines at the ticks of the x axis s, from y0 to y1, each labelled at label_y with
 * its value and then unit (never NULL). */
static void x_grid(ks_html *h, const scale *s, double y0, double y1, double label_y, const char *unit)
{
	double tk[40];
	size_t i, nt = ticks(tk, 40, s);
	char num[64];
	for (i = 0; i < nt; i++) {
		double x = map(s, tk[i]);
		ks_svg_num(num, sizeof(num), tk[i], 3);
		ks_html_rawf(h, "<line class=\"c-grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			     "<text class=\"c-tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s%s</text>",
			     x, x, y0, y1, x, label_y, num, unit);
	}
}

/* A label cut to fit a column, whole in a tooltip. */
static void label(ks_html *h, double x, double y, const char *anchor, const char *text, size_t max,
		  const char *href)
{
	if (href)
		ks_html_rawf(h, "<a href=\"%s\">", href);
	ks_html_rawf(h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"c-label\"><title>", x, y, anchor);
	ks_html_text(h, text);
	ks_html_raw(h, "</title>");
	ks_html_text_cut(h, text, max);
	ks_html_raw(h, "</text>");
	if (href)
		ks_html_raw(h, "</a>");
}

void ks_svg_bars(ks_html *h, const ks_svg_bar *bars, size_t n, const ks_svg_bars_opts *o)
{
	const double W = 760, LW = 200, X0 = 210, X1 = 630, ROW = 24, TOP = 10;
	double vmin = INFINITY, vmax = -INFINITY, ht = TOP + ROW * (double)n + 34, base;
	scale s;
	size_t i;
	char num[64];

	for (i = 0; i < n; i++) {
		double v = bars[i].value;
		if (!placeable(v))
			continue;
		if (v > 0 || o->log == 0) {
			vmin = fmin(vmin, v);
			vmax = fmax(vmax, v);
		}
	}
	if (placeable(o->ref)) {
		vmin = fmin(vmin, o->ref);
		vmax = fmax(vmax, o->ref);
	}
	s.r0 = X0;
	s.r1 = X1;
	s.log = o->log == 1 || (o->log == -1 && vmin > 0 && placeable(vmin) && vmax / vmin > 20);
	if (!placeable(vmin)) {
		vmin = 0;
		vmax = 1;
	}
	if (s.log) {
		s.d0 = pow(10, floor(log10(vmin)));
		s.d1 = pow(10, ceil(log10(vmax)));
		if (s.d1 <= s.d0)
			s.d1 = s.d0 * 10;
		base = placeable(o->ref) ? o->ref : s.d0;
	} else {
		s.d0 = fmin(0, vmin);
		s.d1 = vmax > s.d0 ? vmax * 1.05 : s.d0 + 1;
		base = 0;
	}
	open_svg(h, W, ht, o->title);
	x_grid(h, &s, TOP - 4, TOP + ROW * (double)n, TOP + ROW * (double)n + 16, o->unit);
	for (i = 0; i < n; i++) {
		const ks_svg_bar *b = &bars[i];
		double y = TOP + ROW * (double)i, xa = map(&s, base), xb, xe;
		label(h, LW, y + 16, "end", b->label ? b->label : "", 28, b->href);
		if (placeable(b->value) && (!s.log || b->value > 0)) {
			xb = map(&s, b->value);
			ks_html_rawf(h, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\"><title>",
				     b->cls ? b->cls : "c-bar", fmin(xa, xb), y + 4, fmax(fabs(xb - xa), 1.0));
			ks_html_text(h, b->label);
			ks_svg_num(num, sizeof(num), b->value, o->digits);
			ks_html_rawf(h, ": %s%s</title></rect>", num, o->unit);
			xe = fmax(xa, xb);
		} else {
			xe = X0;
			snprintf(num, sizeof(num), "n/a");
		}
		ks_html_rawf(h, "<text class=\"c-value\" x=\"%.1f\" y=\"%.1f\">%s%s", xe + 5, y + 16, num,
			     placeable(b->value) ? o->unit : "");
		if (b->note) {
			ks_html_raw(h, " ");
			ks_html_text_cut(h, b->note, 16);
		}
		ks_html_raw(h, "</text>");
	}
	if (placeable(o->ref)) {
		double x = map(&s, o->ref);
		ks_html_rawf(h, "<line class=\"c-ref\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x,
			     TOP - 6, TOP + ROW * (double)n + 2);
		if (o->ref_label) {
			ks_html_rawf(h, "<text class=\"c-reflabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x,
				     ht - 3);
			ks_html_text(h, o->ref_label);
			ks_html_raw(h, "</text>");
		}
	}
	if (s.log)
		ks_html_rawf(h, "<text class=\"c-tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">log scale</text>", W - 4,
			     ht - 3);
	ks_html_raw(h, "</svg>\n");
}

double ks_svg_fastp_at(const ks_svg_series *s, double p)
{
	size_t i, c = 0;
	if (!s->total)
		return NAN;
	for (i = 0; i < s->n; i++)
		c += s->speedups[i] > p;
	return (double)c / (double)s->total;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void ks_svg_fastp(ks_html *h, const ks_svg_series *s, size_t n, const char *title)
{
	const double W = 760, L = 56, R = 740, T = 14, B = 230, LEG = 20;
	double pmax = 2, ht;
	scale sx = { 0, 0, L, R, 0 }, sy = { 0, 1, B, T, 0 };
	size_t i, j, rows = (n + 1) / 2;

	for (i = 0; i < n; i++)
		for (j = 0; j < s[i].n; j++)
			if (placeable(s[i].speedups[j]))
				pmax = fmax(pmax, s[i].speedups[j]);
	sx.d1 = ceil(pmax * 1.05 / nice_step(pmax)) * nice_step(pmax);
	ht = B + 40 + LEG * (double)rows;
	open_svg(h, W, ht, title);
	x_grid(h, &sx, T, B, B + 15, "");
	for (i = 0; i <= 4; i++) {
		double y = map(&sy, i / 4.0);
		ks_html_rawf(h, "<line class=\"c-grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			     "<text class=\"c-tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%zu%%</text>", L, R, y, y,
			     L - 5, y + 4, i * 25);
	}
	for (i = 1; i <= 2; i++) {
		double x = map(&sx, (double)i);
		ks_html_rawf(h, "<line class=\"c-ref\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			     "<text class=\"c-reflabel\" x=\"%.1f\" y=\"%.1f\">fast_%zu</text>", x, x, T, B, x + 3,
			     T + 10, i);
	}
	ks_html_rawf(h, "<text class=\"c-tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">p (speedup over the "
		     "golden kernel)</text>", (L + R) / 2, B + 32);
	for (i = 0; i < n; i++) {
		double *v = ks_calloc(s[i].n + 1, sizeof(*v)), prev;
		size_t m = 0;
		if (!s[i].total) {
			ks_free(v);
			continue;
		}
		for (j = 0; j < s[i].n; j++)
			if (placeable(s[i].speedups[j]))
				v[m++] = s[i].speedups[j];
		qsort(v, m, sizeof(*v), cmp_dbl);
		ks_html_rawf(h, "<polyline class=\"c-line c-s%zu\" points=\"", i % 8);
		/* a step function: it drops at each speedup, counting kernels strictly faster than p */
		prev = ks_svg_fastp_at(&s[i], 0);
		ks_html_rawf(h, "%.1f,%.1f", map(&sx, 0), map(&sy, prev));
		for (j = 0; j < m; j++) {
			double f;
			if (v[j] <= 0 || (j > 0 && v[j] == v[j - 1]))
				continue;
			f = ks_svg_fastp_at(&s[i], v[j]);
			ks_html_rawf(h, " %.1f,%.1f %.1f,%.1f", map(&sx, v[j]), map(&sy, prev), map(&sx, v[j]),
				     map(&sy, f));
			prev = f;
		}
		ks_html_rawf(h, " %.1f,%.1f\"><title>", R, map(&sy, prev));
		ks_html_text(h, s[i].name);
		ks_html_rawf(h, ": fast_1 %.3g, fast_2 %.3g</title></polyline>", ks_svg_fastp_at(&s[i], 1),
			     ks_svg_fastp_at(&s[i], 2));
		ks_free(v);
	}
	for (i = 0; i < n; i++) {
		double x = L + (i % 2) * 340, y = B + 52 + LEG * (double)(i / 2);
		ks_html_rawf(h, "<line class=\"c-line c-s%zu\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", i % 8,
			     x, x + 22, y - 4, y - 4);
		label(h, x + 28, y, "start", s[i].name ? s[i].name : "", 40, NULL);
	}
	ks_html_raw(h, "</svg>\n");
}

/* Pure data movement: GB/s of the kernel and of the golden kernel, case by case, against the
 * measured bandwidth. */
static void roofline_bandwidth(ks_html *h, const ks_svg_roof_point *p, size_t n, double bw, const char *title)
{
	ks_svg_bar *bars = ks_calloc(2 * n + 1, sizeof(*bars));
	char **labels = ks_calloc(2 * n + 1, sizeof(*labels));
	ks_svg_bars_opts o = KS_SVG_BARS_OPTS_INIT;
	size_t i, m = 0;
	for (i = 0; i < n; i++) {
		labels[m] = ks_asprintf("%s", p[i].label ? p[i].label : "?");
		bars[m].label = labels[m];
		bars[m].value = p[i].bytes / p[i].ms / 1e6;
		bars[m].cls = "c-bar";
		bars[m].note = "this kernel";
		m++;
		labels[m] = ks_strdup("");
		bars[m].label = labels[m];
		bars[m].value = p[i].bytes / p[i].golden_ms / 1e6;
		bars[m].cls = "c-gold";
		bars[m].note = "golden";
		m++;
	}
	o.title = title;
	o.unit = " GB/s";
	o.ref = bw > 0 ? bw : NAN;
	o.ref_label = "measured bandwidth";
	o.digits = 4;
	ks_svg_bars(h, bars, m, &o);
	ks_free_strv(labels, m);
	ks_free(bars);
}

/* A timed case with numbers a chart can place (a hand-edited file may hold anything). */
static int usable(const ks_svg_roof_point *p)
{
	return p->ms > 1e-9 && p->ms < 1e9 && p->bytes > 0 && p->bytes < 1e30 && !(p->flops > 1e30) &&
	       (isnan(p->golden_ms) || p->golden_ms > 1e-9);
}

/* Attainable TFLOP/s at intensity x (FLOP/byte): bandwidth-bound, or the compute ceiling. */
static double roof(double bw, double peak, double x)
{
	double b = bw * x / 1000;
	return peak > 0 && peak < b ? peak : b;
}

void ks_svg_roofline(ks_html *h, const ks_svg_roof_point *p, size_t n, double bw, const char *id,
		     const char *title)
{
	const double W = 760, L = 64, R = 740, T = 14, B = 260;
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY, peak = 0, tk[40];
	scale sx = { 0, 0, L, R, 1 }, sy = { 0, 0, B, T, 1 };
	size_t i, nt, timed = 0;
	int flops = 1;
	char num[64];

	for (i = 0; i < n; i++) {
		if (!usable(&p[i]))
			continue;
		timed++;
		flops &= p[i].flops > 0 && isfinite(p[i].flops);
	}
	if (!timed)
		return;
	if (!flops || !(bw > 0)) {
		roofline_bandwidth(h, p, n, bw, title);
		return;
	}
	for (i = 0; i < n; i++) {
		double ai, y;
		if (!usable(&p[i]))
			continue;
		ai = p[i].flops / p[i].bytes;
		xmin = fmin(xmin, ai);
		xmax = fmax(xmax, ai);
		y = p[i].flops / p[i].ms / 1e9;
		ymin = fmin(ymin, y);
		ymax = fmax(ymax, y);
		if (p[i].golden_ms > 0 && isfinite(p[i].golden_ms)) {
			y = p[i].flops / p[i].golden_ms / 1e9;
			ymin = fmin(ymin, y);
			ymax = fmax(ymax, y);
		}
		/* a floor above the bandwidth time is set by the arithmetic ceiling */
		if (p[i].floor_ms > 0 && isfinite(p[i].floor_ms) && p[i].floor_ms > p[i].bytes / (bw * 1e6) * 1.001)
			peak = fmax(peak, p[i].flops / p[i].floor_ms / 1e9);
	}
	/* show the ridge point (where the bandwidth line meets the compute roof) when there is one */
	if (peak > 0) {
		xmin = fmin(xmin, peak * 1000 / bw / 2);
		xmax = fmax(xmax, peak * 1000 / bw * 2);
	}
	sx.d0 = pow(10, floor(log10(xmin)) - (xmin == xmax ? 1 : 0));
	sx.d1 = pow(10, ceil(log10(xmax)) + (xmin == xmax ? 1 : 0));
	if (sx.d1 <= sx.d0)
		sx.d1 = sx.d0 * 10;
	ymin = fmin(ymin, roof(bw, peak, sx.d0));
	ymax = fmax(ymax, peak > 0 ? peak : fmin(bw * sx.d1 / 1000, ymax * 10));
	sy.d0 = pow(10, floor(log10(ymin)));
	sy.d1 = pow(10, ceil(log10(ymax * 1.2)));
	if (sy.d1 <= sy.d0)
		sy.d1 = sy.d0 * 10;
	open_svg(h, W, B + 60, title);
	ks_html_rawf(h, "<clipPath id=\"clip-%s\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>"
		     "</clipPath>", id, L, T, R - L, B - T);
	x_grid(h, &sx, T, B, B + 15, "");
	nt = ticks(tk, 40, &sy);
	for (i = 0; i < nt; i++) {
		double y = map(&sy, tk[i]);
		ks_svg_num(num, sizeof(num), tk[i], 3);
		ks_html_rawf(h, "<line class=\"c-grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			     "<text class=\"c-tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", L, R, y, y,
			     L - 5, y + 4, num);
	}
	ks_html_rawf(h, "<text class=\"c-tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">arithmetic intensity "
		     "(FLOP/byte), log scale</text>", (L + R) / 2, B + 32);
	ks_html_rawf(h, "<text class=\"c-tick\" x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
		     "text-anchor=\"middle\">TFLOP/s</text>", (T + B) / 2, (T + B) / 2);
	{
		/* the roof: bandwidth * intensity up to the compute ceiling */
		double knee = peak > 0 ? peak * 1000 / bw : sx.d1;
		ks_html_rawf(h, "<polyline class=\"c-roof\" clip-path=\"url(#clip-%s)\" points=\"%.1f,%.1f", id,
			     map(&sx, sx.d0), map(&sy, roof(bw, peak, sx.d0)));
		if (knee > sx.d0 && knee < sx.d1)
			ks_html_rawf(h, " %.1f,%.1f", map(&sx, knee), map(&sy, peak));
		ks_html_rawf(h, " %.1f,%.1f\"/>", map(&sx, sx.d1), map(&sy, roof(bw, peak, sx.d1)));
	}
	for (i = 0; i < n; i++) {
		double x, y, yg;
		if (!usable(&p[i]))
			continue;
		x = map(&sx, p[i].flops / p[i].bytes);
		y = map(&sy, p[i].flops / p[i].ms / 1e9);
		if (p[i].golden_ms > 0 && isfinite(p[i].golden_ms)) {
			yg = map(&sy, p[i].flops / p[i].golden_ms / 1e9);
			ks_html_rawf(h, "<rect class=\"c-goldpt\" x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\"><title>golden, ",
				     x + 3, yg - 4.5);
			ks_html_text(h, p[i].label);
			ks_html_rawf(h, ": %.4g TFLOP/s</title></rect>", p[i].flops / p[i].golden_ms / 1e9);
		}
		ks_html_rawf(h, "<circle class=\"c-pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"><title>this kernel, ", x - 3, y);
		ks_html_text(h, p[i].label);
		ks_html_rawf(h, ": %.4g TFLOP/s</title></circle>", p[i].flops / p[i].ms / 1e9);
		ks_html_rawf(h, "<text class=\"c-value\" x=\"%.1f\" y=\"%.1f\">%zu</text>", x - 14, y + 4, i + 1);
	}
	ks_html_rawf(h, "<circle class=\"c-pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"/><text class=\"c-tick\" x=\"%.1f\" "
		     "y=\"%.1f\">this kernel (case number)</text>", L + 10, B + 48, L + 20, B + 52);
	ks_html_rawf(h, "<rect class=\"c-goldpt\" x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\"/><text "
		     "class=\"c-tick\" x=\"%.1f\" y=\"%.1f\">golden kernel</text>", L + 200, B + 43.5, L + 214, B + 52);
	ks_svg_num(num, sizeof(num), bw, 4);
	ks_html_rawf(h, "<line class=\"c-roof\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><text class=\"c-tick\" "
		     "x=\"%.1f\" y=\"%.1f\">measured roof: %s GB/s", L + 340, L + 364, B + 48, B + 48, L + 370, B + 52,
		     num);
	if (peak > 0) {
		ks_svg_num(num, sizeof(num), peak, 4);
		ks_html_rawf(h, ", %s TFLOP/s", num);
	}
	ks_html_raw(h, "</text></svg>\n");
}
