/* paths: where kscore finds its reference problems and keeps its cache. Every command and stage
 * that needs one of these folders asks here, so they are found the same way everywhere. */
#ifndef KS_PATHS_H
#define KS_PATHS_H

/* The reference problems folder: `given`, else $KSCORE_REFS, ./reference_tests, or the copy
 * installed beside the executable (<exe>/../share/kscore/reference_tests, <exe>/../reference_tests,
 * <exe>/../../reference_tests). NULL when none exists. Caller frees. */
char *ks_paths_find_refs(const char *given);

/* The cache folder: $XDG_CACHE_HOME/kscore, else ~/.cache/kscore; NULL without either. Caller
 * frees. */
char *ks_paths_default_cache(void);

#endif
