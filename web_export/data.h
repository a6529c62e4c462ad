/* data: the site's downloads (docs/export.md): data/leaderboard.json and .csv (the ranked teams),
 * data/kernels.json and .csv (every kernel, with its perf cases in the JSON). Strings are made
 * valid UTF-8; numbers that were not measured are null in JSON and empty in CSV; CSV is RFC 4180
 * with a quote mark before text a spreadsheet would run as a formula. */
#ifndef KS_EXPORT_DATA_H
#define KS_EXPORT_DATA_H

#include "util/buf.h"
#include "web_export/model.h"
#include <cJSON.h>

cJSON *ks_export_data_leaderboard(const ks_export_model *m);
cJSON *ks_export_data_kernels(const ks_export_model *m);
/* Append the CSV text to b; return KS_ELIMIT when b's cap is reached. */
int ks_export_csv_leaderboard(ks_buf *b, const ks_export_model *m);
int ks_export_csv_kernels(ks_buf *b, const ks_export_model *m);

/* One RFC 4180 field (quoted when needed, formula prefix, invalid UTF-8 replaced). */
void ks_export_csv_field(ks_buf *b, const char *s);

/* Prints v as JSON text in valid UTF-8 (invalid input bytes become U+FFFD). Caller frees. */
char *ks_export_json_text(const cJSON *v);

#endif
