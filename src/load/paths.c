/* paths: see src/load/paths.h. */
#include "load/paths.h"
#include "util/fsutil.h"
#include "util/version.h"
#include "util/mem.h"

#include <stdlib.h>

char *ks_paths_find_refs(const char *given)
{
	static const char *const beside[] = { "../share/kscore/reference_tests", "../reference_tests",
					      "../../reference_tests" };
	const char *env = getenv("KSCORE_REFS");
	char *exe, *found = NULL;
	size_t i;

	if (given)
		return ks_strdup(given);
	if (env && *env)
		return ks_strdup(env);
	if (ks_fs_is_dir("reference_tests"))
		return ks_strdup("reference_tests");
	exe = ks_exe_dir();
	for (i = 0; exe && !found && i < sizeof(beside) / sizeof(beside[0]); i++) {
		char *c = ks_path_join(exe, beside[i]);
		if (ks_fs_is_dir(c))
			found = c;
		else
			ks_free(c);
	}
	ks_free(exe);
	/* a program that embeds libkscore lies anywhere: the installed problems last */
	if (!found && ks_fs_is_dir(KS_DATADIR "/reference_tests"))
		found = ks_strdup(KS_DATADIR "/reference_tests");
	return found;
}

char *ks_paths_default_cache(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	if (x && *x)
		return ks_asprintf("%s/kscore", x);
	if (h && *h)
		return ks_asprintf("%s/.cache/kscore", h);
	return NULL;
}
