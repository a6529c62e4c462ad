/* numparse: strict parsing of the unsigned numbers people type (option values, manifest fields),
 * where strtoull's leniency would accept "-1", " 7" or "7x". */
#ifndef KS_NUMPARSE_H
#define KS_NUMPARSE_H

#include <stdint.h>

/* Parses an unsigned number: digits only (no sign, no spaces: strtoull would take "-1" as
 * 2^64-1), decimal or, where hex is set, 0x-hexadecimal; no wrap-around; at most max. Returns 0,
 * or -1 with *out unchanged. */
int ks_numparse_u64(uint64_t *out, const char *s, uint64_t max, int hex);

#endif
