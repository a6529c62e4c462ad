#include "util/tracelog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int ks_tracelog_on(void)
{
	static _Atomic int on = -1; /* lane threads ask at once; each computes the same answer */
	if (on < 0) {
		const char *e = getenv("KSCORE_TRACE");
		on = e && *e && strcmp(e, "0") != 0;
	}
	return on;
}

double ks_tracelog_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

void ks_tracelog_span(const char *what, const char *detail, double t0_ms)
{
	if (!ks_tracelog_on())
		return;
	/* one fprintf per line: stdio locks the stream, so lines of several threads never interleave */
	fprintf(stderr, "kscore-span: %.3f %.3f %ld %s %s\n", t0_ms, ks_tracelog_ms() - t0_ms, (long)syscall(SYS_gettid),
		what, detail && *detail ? detail : "-");
}
