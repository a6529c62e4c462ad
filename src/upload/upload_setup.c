/* upload_setup: the upload options of a run, merged from the command line, the upload config file
 * (kscore.upload-config/1, docs/upload.md) and the token (file, option or environment). The
 * upload stage (upload.h) receives the merged options. */
#include "upload/upload_setup.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/version.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/secret.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_SCHEMA "kscore.upload-config/1"
#define CONFIG_MAX (1u << 20)

struct ks_upload_setup {
	ks_upload_options opts;
	cJSON *config;
	char *config_path;
	char *token;
	char *token_file;  /* resolved against the config file's folder */
	char *ca_bundle;
	char *spool;
};

static char *find_default_config(void)
{
	static const char *const rel[] = { "../share/kscore/scoring/upload.json",
					   "../scoring/upload.json", "../../scoring/upload.json" };
	char *exe = ks_exe_dir();
	size_t i;
	if (!exe)
		return NULL;
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *p = ks_path_join(exe, rel[i]);
		if (ks_fs_exists(p)) {
			ks_free(exe);
			return p;
		}
		ks_free(p);
	}
	ks_free(exe);
	if (ks_fs_exists(KS_DATADIR "/scoring/upload.json"))
		return ks_strdup(KS_DATADIR "/scoring/upload.json");
	return NULL;
}

/* A path from the config file is relative to the config file's folder. */
static char *config_relative(const char *cfg_path, const char *p)
{
	char *d, *r;
	if (p[0] == '/')
		return ks_strdup(p);
	d = ks_path_dirname(cfg_path);
	r = ks_path_join(d, p);
	ks_free(d);
	return r;
}

static int cfg_seconds(double *dst, const cJSON *v, const char *path, const char *key)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || v->valuedouble > KS_UPLOAD_MAX_SECONDS)
		return ks_error_set(KS_EINVALID, "%s: \"%s\" must be a number of seconds in (0, %.0f]",
				    path, key, KS_UPLOAD_MAX_SECONDS);
	if (*dst <= 0)
		*dst = v->valuedouble;
	return 0;
}

/* A string value or null; returns 1 when a string was found. */
static int cfg_string(const char **dst, const cJSON *v, const char *path, const char *key)
{
	if (cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || !*v->valuestring)
		return ks_error_set(KS_EINVALID, "%s: \"%s\" must be a non-empty string or null", path,
				    key);
	*dst = v->valuestring;
	return 1;
}

/* Fills the unset fields of s->opts from the config file. */
static int config_apply(ks_upload_setup *s, const char *path)
{
	char *text = NULL;
	size_t len;
	const cJSON *v;
	int rc;

	if ((rc = ks_fs_read(&text, &len, path, CONFIG_MAX)) < 0)
		goto done;
	if ((rc = ks_json_parse(&s->config, text, len, 16, path)) < 0)
		goto done;
	if (!cJSON_IsObject(s->config)) {
		rc = ks_error_set(KS_EINVALID, "%s: the upload config must be a JSON object", path);
		goto done;
	}
	cJSON_ArrayForEach(v, s->config)
	{
		const char *k = v->string, *str = NULL;
		ks_upload_options *o = &s->opts;
		if (k[0] == '_')
			continue; /* "_comment" and friends */
		if (!strcmp(k, "schema")) {
			if (!cJSON_IsString(v) || strcmp(v->valuestring, CONFIG_SCHEMA))
				rc = ks_error_set(KS_EINVALID, "%s: \"schema\" must be \"%s\"", path,
						  CONFIG_SCHEMA);
		} else if (!strcmp(k, "endpoint")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->endpoint)
				o->endpoint = str;
		} else if (!strcmp(k, "mode")) {
			ks_upload_mode m;
			if (!cJSON_IsString(v) || ks_upload_mode_parse(&m, v->valuestring) < 0)
				rc = ks_error_set(KS_EINVALID,
						  "%s: \"mode\" must be \"native\" or \"gradio\"", path);
			else if (o->mode == KS_UPLOAD_MODE_UNSET)
				o->mode = m;
		} else if (!strcmp(k, "token_env")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->token_env)
				o->token_env = str;
		} else if (!strcmp(k, "token_file")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->token_file) {
				s->token_file = config_relative(path, str);
				o->token_file = s->token_file;
			}
		} else if (!strcmp(k, "ca_bundle")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->ca_bundle) {
				s->ca_bundle = config_relative(path, str);
				o->ca_bundle = s->ca_bundle;
			}
		} else if (!strcmp(k, "spool")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->spool_dir) {
				s->spool = config_relative(path, str);
				o->spool_dir = s->spool;
			}
		} else if (!strcmp(k, "connect_timeout")) {
			rc = cfg_seconds(&o->connect_timeout, v, path, k);
		} else if (!strcmp(k, "timeout")) {
			rc = cfg_seconds(&o->total_timeout, v, path, k);
		} else if (!strcmp(k, "backoff_initial")) {
			rc = cfg_seconds(&o->backoff_initial, v, path, k);
		} else if (!strcmp(k, "backoff_max")) {
			rc = cfg_seconds(&o->backoff_max, v, path, k);
		} else if (!strcmp(k, "retries")) {
			if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
			    v->valuedouble < 0 || v->valuedouble > KS_UPLOAD_MAX_RETRIES)
				rc = ks_error_set(KS_EINVALID,
						  "%s: \"retries\" must be an integer from 0 to %d", path,
						  KS_UPLOAD_MAX_RETRIES);
			else if (o->max_retries < 0)
				o->max_retries = (int)v->valuedouble;
		} else {
			rc = ks_error_set(KS_EINVALID,
					  "%s: unknown key \"%s\" (see docs/upload.md; keys starting "
					  "with _ are comments)",
					  path, k);
		}
		if (rc < 0)
			goto done;
		rc = 0;
	}
done:
	ks_free(text);
	return rc;
}

int ks_upload_setup_new(ks_upload_setup **out, const ks_upload_options *cli, const char *config_path,
			unsigned flags)
{
	ks_upload_setup *s = ks_calloc(1, sizeof(*s));
	int rc = 0, loose = 0;

	*out = NULL;
	s->opts = *cli;
	s->config_path = config_path ? ks_strdup(config_path) : find_default_config();
	if (s->config_path && (rc = config_apply(s, s->config_path)) < 0)
		goto done;
	if (!s->opts.token_env)
		s->opts.token_env = KS_UPLOAD_DEFAULT_TOKEN_ENV;
	if (!s->opts.token) {
		rc = ks_secret_load(&s->token, &loose, s->opts.token_file, s->opts.token_env);
		if (rc < 0)
			goto done;
		s->opts.token = s->token;
		if (loose)
			ks_upload_log(&s->opts,
			      "warning: token file %s can be read by group or others; chmod 600 it",
			      s->opts.token_file);
	} else {
		unsetenv(s->opts.token_env);
	}
	rc = ks_upload_options_check(&s->opts, (flags & KS_UPLOAD_NEED_ENDPOINT) != 0);
done:
	if (rc < 0) {
		ks_upload_setup_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

const ks_upload_options *ks_upload_setup_options(const ks_upload_setup *s)
{
	return &s->opts;
}

void ks_upload_setup_free(ks_upload_setup *s)
{
	if (!s)
		return;
	ks_secret_free(s->token);
	cJSON_Delete(s->config);
	ks_free(s->config_path);
	ks_free(s->token_file);
	ks_free(s->ca_bundle);
	ks_free(s->spool);
	ks_free(s);
}

