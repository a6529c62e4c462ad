/* tracelog: KSCORE_TRACE=1 timing lines on stderr, for finding where a run's wall time goes
 * (bench/trace-report.py, docs/benchmarks.md). Never on by default; costs one branch when off. */
#ifndef KS_TRACELOG_H
#define KS_TRACELOG_H

/* Whether KSCORE_TRACE is set (and not "0"); read once, safe from any thread. */
int ks_tracelog_on(void);

/* Milliseconds on the monotonic clock, the time base of every trace line. */
double ks_tracelog_ms(void);

/* When tracing, prints "kscore-span: START_MS DURATION_MS THREAD WHAT DETAIL" for a span that began
 * at t0_ms (ks_tracelog_ms) and ends now. THREAD tells apart the lane threads; WHAT is one word,
 * DETAIL may be NULL. */
void ks_tracelog_span(const char *what, const char *detail, double t0_ms);

#endif
