#include "judge/roofline.h"
#include "util/buf.h"
#include "util/mem.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

double ks_roofline_floor_ms(double bytes, double flops, double bandwidth_gbps, double peak_tflops)
{
	double mem = bandwidth_gbps > 0 ? bytes / (bandwidth_gbps * 1e9) : 0;
	double math = peak_tflops > 0 ? flops / (peak_tflops * 1e12) : 0;
	return 1e3 * (mem > math ? mem : math);
}

static void add_why(char **why, const char *fmt, ...) KS_PRINTF(2, 3);

static void add_why(char **why, const char *fmt, ...)
{
	char line[256];
	char *n;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = *why ? ks_asprintf("%s; %s", *why, line) : ks_strdup(line);
	ks_free(*why);
	*why = n;
}

void ks_judge_kernel(ks_kernel_result *r, const ks_problem *p, const ks_ceilings *c, const ks_config *cfg)
{
	double sum_g = 0, sum_c = 0, sum_floor = 0, logsum = 0, sum_b = 0, sum_bc = 0;
	double peak = c ? ks_ceilings_peak(c, p->peak) : 0;
	size_t i, nlog = 0;
	ks_buf whys = KS_BUF_INIT(4096);

	if (!r->timed || r->nperf == 0) {
		r->score = 0;
		return;
	}
	for (i = 0; i < r->nperf; i++) {
		ks_perf_result *pc = &r->perf[i];
		pc->gbps = pc->ms > 0 ? pc->bytes / (pc->ms * 1e-3) / 1e9 : 0;
		pc->tflops = pc->ms > 0 ? pc->flops / (pc->ms * 1e-3) / 1e12 : 0;
		pc->speedup_golden = pc->ms > 0 ? pc->golden_ms / pc->ms : 0;
		/* over the reference: only where it has a time (refbase.h) */
		pc->speedup = !r->over_reference ? pc->speedup_golden
			      : pc->ms > 0 && pc->reference_ms > 0 ? pc->reference_ms / pc->ms : 0;
		pc->floor_ms = c ? ks_roofline_floor_ms(pc->bytes, pc->flops, c->bandwidth_gbps, peak) : 0;
		pc->roofline_fraction = pc->ms > 0 && pc->floor_ms > 0 ? pc->floor_ms / pc->ms : 0;
		if (pc->floor_ms > 0 && pc->ms < pc->floor_ms * (1.0 - cfg->roofline_margin))
			add_why(&pc->why, "%.4g ms is below the roofline floor of %.4g ms by more than the "
				"%.0f%% margin", pc->ms, pc->floor_ms, 100 * cfg->roofline_margin);
		if (pc->ms * 1e3 < cfg->timer_floor_us)
			add_why(&pc->why, "%.3g us is below the event-timer floor of %.3g us", pc->ms * 1e3,
				cfg->timer_floor_us);
		/* the bound is on the golden kernel, whatever baseline the score is over: a slow
		 * reference makes no honest answer suspicious */
		if (pc->speedup_golden > cfg->max_speedup)
			add_why(&pc->why, "a speedup of %.3gx over the golden kernel is above the bound of %.3gx",
				pc->speedup_golden, cfg->max_speedup);
		if (pc->why) {
			pc->suspicious = 1;
			r->suspicious = 1;
			ks_buf_printf(&whys, "%s%s: %s", whys.len ? "; " : "", pc->label, pc->why);
		}
		sum_g += pc->golden_ms;
		sum_c += pc->ms;
		if (!r->over_reference || pc->reference_ms > 0) {
			sum_b += r->over_reference ? pc->reference_ms : pc->golden_ms;
			sum_bc += pc->ms;
		}
		sum_floor += pc->floor_ms;
		if (pc->speedup > 0) {
			logsum += log(pc->speedup);
			nlog++;
		}
	}
	r->speedup_golden = sum_c > 0 ? sum_g / sum_c : 0;
	r->speedup = sum_bc > 0 ? sum_b / sum_bc : 0;
	r->speedup_geomean = nlog ? exp(logsum / (double)nlog) : 0;
	r->roofline_fraction = sum_c > 0 && sum_floor > 0 ? sum_floor / sum_c : 0;
	if (r->suspicious) {
		ks_free(r->suspicious_why);
		r->suspicious_why = ks_buf_take(&whys, NULL);
	}
	ks_buf_free(&whys);
	r->score = r->exec && !r->suspicious ? r->speedup : 0;
}
