/* shard: a batch's teams split into N shares, so that N processes (a Slurm job array, a Kubernetes
 * Indexed Job, GNU parallel) each score one share of the same manifest.
 *
 * The assignment depends only on the set of team folders, not on the manifest's order: folders
 * are sorted bytewise and dealt round-robin, so shares differ by at most one team and a re-run of
 * shard I with the same teams scores the same teams. */
#ifndef KS_SHARD_H
#define KS_SHARD_H

#include <stddef.h>

#define KS_SHARD_MAX 10000

typedef struct {
	unsigned index;  /* 0-based, < count */
	unsigned count;  /* 1..KS_SHARD_MAX */
} ks_shard;

/* Parses "I/N" (0 <= I < N <= KS_SHARD_MAX, decimal, nothing else) into *out. Returns 0, or
 * KS_EINVALID with a message that says what is wrong. */
int ks_shard_parse(ks_shard *out, const char *spec);

/* Sets in[i] to 1 when keys[i] belongs to shard `s`, else 0, for the n keys (team folders, which
 * are unique). `in` is the caller's array of n ints. Never fails. */
void ks_shard_select(int *in, const char *const *keys, size_t n, ks_shard s);

#endif
