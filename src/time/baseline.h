/* baseline: stored golden-kernel times per device, for the optional two-step flow of seed 000
 * (`score baseline` measures and stores them; `score --baseline` uses them so a participant can
 * re-score quickly). The default stays the live co-run, where the golden kernel is timed in the
 * same session as each candidate. A stored time is used only on the device it was measured on
 * (same UUID and driver) and for the same problem spec (sha256); anything else is timed live. */
#ifndef KS_BASELINE_H
#define KS_BASELINE_H

/* The schema of a stored baseline file (score baseline --out). */
#define KS_BASELINE_SCHEMA "kscore.baseline/1"

#include <stddef.h>
#include "run/device.h"
#include "load/problem.h"
#include "time/stats.h"

typedef struct ks_baseline ks_baseline;

int ks_baseline_load(ks_baseline **out, const char *path);
void ks_baseline_free(ks_baseline *b);

/* 1 when b was measured on this device with this driver. */
int ks_baseline_matches(const ks_baseline *b, const ks_device_info *dev);
/* Where the baseline was measured and when, for score.json. Static storage of b. */
const char *ks_baseline_describe(const ks_baseline *b);

/* The stored golden statistics of p's perf case ci, or NULL (not stored, or p changed). */
const ks_stats *ks_baseline_find(const ks_baseline *b, const ks_problem *p, size_t ci);

/* The default file of a device: <cache>/baselines/<uuid>-<driver>.json. Caller frees. */
char *ks_baseline_default_path(const char *cache_dir, const ks_device_info *dev);

#endif
