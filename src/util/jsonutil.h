/* jsonutil: cJSON with the limits untrusted input needs, and typed getters that fail with a
 * message instead of returning garbage. */
#ifndef KS_JSONUTIL_H
#define KS_JSONUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>

/* Parses exactly one JSON value from text[0..len). Fails with KS_ELIMIT if nesting is deeper than
 * max_depth (checked before cJSON sees the text), KS_EINVALID with the line and column of a syntax
 * error. `what` names the input in messages. Caller frees *out with cJSON_Delete. */
int ks_json_parse(cJSON **out, const char *text, size_t len, int max_depth, const char *what);

/* Typed field access. Each returns 0 on success; 1 if an optional field is absent or null (*out
 * keeps its value); KS_EINVALID with a message if a required field is missing or the type is
 * wrong. So `< 0` means "bad input" and `== 0` means "present". */
int ks_json_str(const char **out, const cJSON *obj, const char *key, int required);
int ks_json_num(double *out, const cJSON *obj, const char *key, int required);
int ks_json_int(int64_t *out, const cJSON *obj, const char *key, int required);
int ks_json_bool(int *out, const cJSON *obj, const char *key, int required);

/* Lenient field access, for reading back records where a missing or mistyped field is no error
 * (a hand-edited file may hold anything). obj may be NULL. ks_json_num_or: obj[key] as a number,
 * dflt when it is not one; ks_json_numval: the same with NaN. ks_json_strdup: a copy of the string
 * obj[key], NULL when it is not one (caller frees with ks_free). ks_json_str_copy: the string
 * obj[key] into dst[n], cut to fit, returning 1; 0, with dst untouched, when it is not one. */
double ks_json_num_or(const cJSON *obj, const char *key, double dflt);
double ks_json_numval(const cJSON *obj, const char *key);
char *ks_json_strdup(const cJSON *obj, const char *key);
int ks_json_str_copy(char *dst, size_t n, const cJSON *obj, const char *key);

/* The largest integer magnitude a JSON number carries exactly (2^53): every double->integer
 * conversion of input data goes through the checked helpers below, never through a cast (a cast
 * of 1e40 to an integer type is undefined behaviour). */
#define KS_JSON_MAX_EXACT_INT 9007199254740992.0

/* Converts d to an integer if it is one: finite, integral and within [lo, hi] (the range is also
 * clipped to +-2^53). Returns 0, or KS_EINVALID with a message ("1e+40 is not an integer of
 * magnitude at most 2^53", "2.5 is not an integer from 0 to 8") that the caller wraps with the
 * field's name. */
int ks_json_d2i(int64_t *out, double d, int64_t lo, int64_t hi);

/* ks_json_int restricted to [lo, hi]: same return values, and KS_EINVALID naming the field and the
 * range for a value outside it. */
int ks_json_int_in(int64_t *out, const cJSON *obj, const char *key, int required, int64_t lo,
		   int64_t hi);

/* Prints v (formatted when pretty) as valid UTF-8 whatever bytes its strings hold: invalid
 * sequences become U+FFFD (DESIGN §4.9). Every JSON text kscore writes or prints goes through here.
 * Returns NULL when cJSON cannot print; caller frees with ks_free. */
char *ks_json_print(const cJSON *v, int pretty);

/* Prints v with ks_json_print, adds a trailing newline and writes it atomically to path. */
int ks_json_write_file(const char *path, const cJSON *v, int pretty);

/* Adds string v, or null when v is NULL (an optional field keeps its key). Returns the added
 * item, NULL when cJSON cannot allocate. */
cJSON *ks_json_add_str(cJSON *obj, const char *key, const char *v);

/* Adds a number that may be NaN/Inf as null (JSON has no NaN). */
cJSON *ks_json_add_num(cJSON *obj, const char *key, double v);

#endif
