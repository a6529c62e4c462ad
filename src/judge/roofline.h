/* roofline: the "judge" stage (DESIGN §4.7, §5). Turns timings into throughput, the fraction of
 * the measured roofline reached, verdicts and the kernel's speedup and score. A perf case is
 * suspicious when its time is below the roofline floor max(bytes / bandwidth, FLOPs / peak) by more
 * than the configured margin, below the event-timer floor, or its speedup over the golden kernel is
 * above the configured bound; a suspicious kernel scores 0 but keeps every number as evidence. */
#ifndef KS_ROOFLINE_H
#define KS_ROOFLINE_H

#include "time/calibrate.h"
#include "time/config.h"
#include "load/problem.h"
#include "run/result.h"

/* The floor in ms of a case moving `bytes` and doing `flops` under the given ceilings (GB/s and
 * TFLOP/s; a zero ceiling is ignored). */
double ks_roofline_floor_ms(double bytes, double flops, double bandwidth_gbps, double peak_tflops);

/* Fills the throughput, floor and verdict fields of r->perf and the kernel's aggregates (speedup,
 * geomean, roofline fraction, suspicious, score). ceilings may be NULL (no floor verdicts). The
 * speedups and the score are over the golden kernel, or with r->over_reference over the reference's
 * medians in r->perf[].reference_ms (session/refbase.h), counting only the cases it has one for;
 * speedup_golden is over the golden kernel either way. */
void ks_judge_kernel(ks_kernel_result *r, const ks_problem *p, const ks_ceilings *ceilings,
		     const ks_config *cfg);

#endif
