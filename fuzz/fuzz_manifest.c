/* fuzz_manifest: a `score batch` manifest through ks_manifest_parse; for a manifest that
 * parses without teams (pull-request mode), pull requests made up from its own maps go through
 * ks_manifest_add_pull_teams, and every team must end with a name and a result folder of its own.
 * Nothing is fetched: the parser only reads the text. */
#include "batch/batch.h"
#include "fuzz.h"

#include <ctype.h>
#include <strings.h>

#define MAX_PRS 32

static void check_teams(const ks_manifest *m)
{
	size_t i, j;
	for (i = 0; i < m->nteams; i++) {
		const ks_manifest_team *t = &m->teams[i];
		const char *c;
		FZ_CHECK(t->name && *t->name && t->repo && t->ref && *t->ref, "team %zu incomplete", i);
		FZ_CHECK(t->folder && *t->folder && t->folder[0] != '-' && strlen(t->folder) <= 128,
			 "team %s: folder \"%s\"", t->name, t->folder);
		for (c = t->folder; *c; c++)
			FZ_CHECK(isalnum((unsigned char)*c) || *c == '-' || *c == '_',
				 "team %s: folder \"%s\"", t->name, t->folder);
		for (j = 0; j < i; j++)
			FZ_CHECK(strcasecmp(t->folder, m->teams[j].folder),
				 "teams \"%s\" and \"%s\" share the folder \"%s\"", m->teams[j].name,
				 t->name, t->folder);
	}
}

/* Pull requests numbered and titled after the manifest's own maps and exclusions, so that the
 * mapping, exclusion and same-name paths all run. */
static void pull_teams(ks_manifest *m)
{
	ks_repo_pull prs[MAX_PRS];
	size_t n = 0, i;

	memset(prs, 0, sizeof(prs));
	for (i = 0; i < m->nmap_numbers && n < MAX_PRS; i++, n++) {
		prs[n].number = strtoul(m->map_numbers[i], NULL, 10);
		prs[n].subject = m->nmap_subjects ? m->map_subjects[i % m->nmap_subjects] : "Fix";
	}
	for (i = 0; i < m->nmap_subjects && n < MAX_PRS; i++, n++) {
		prs[n].number = 1000 + i;
		prs[n].subject = m->map_subjects[i];
	}
	for (i = 0; i < m->nexclude && n < MAX_PRS; i++, n++) {
		prs[n].number = m->exclude[i];
		prs[n].subject = "excluded";
	}
	for (i = 0; i < 3 && n < MAX_PRS; i++, n++) {
		prs[n].number = 2000 + i;
		prs[n].subject = i < 2 ? "Same title" : m->nmap_subjects ? m->map_subject_names[0] : "";
	}
	ks_manifest_add_pull_teams(m, prs, n, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ks_manifest *m = NULL;
	int rc = ks_manifest_parse(&m, (const char *)data, size, "manifest.json", "hackathon");

	fz_check_error(rc);
	if (rc == 0) {
		FZ_CHECK(m != NULL, "no manifest");
		check_teams(m);
		if (m->deadline != KS_MANIFEST_NO_DEADLINE && m->deadline >= 0 &&
		    m->deadline <= 253402300799LL) {
			char text[32];
			int64_t back = 0;
			ks_manifest_format_time(text, m->deadline);
			FZ_CHECK(ks_manifest_parse_time(&back, text) == 0 && back == m->deadline,
				 "the deadline %lld prints as %s", (long long)m->deadline, text);
		}
		if (!m->nteams) {
			/* as `--pull-requests REPO` does when the manifest names no repository */
			if (!m->pull_repo)
				m->pull_repo = ks_strdup("https://example.invalid/hackathon.git");
			pull_teams(m);
			check_teams(m);
		}
		ks_manifest_free(m);
	} else {
		FZ_CHECK(!m, "a failed parse returned a manifest");
	}
	ks_error_clear();
	return 0;
}
