/* secret: see src/util/secret.h. */
#include "util/secret.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECRET_FILE_MAX (16u << 10)

void ks_secret_wipe(void *p, size_t n)
{
	/* a volatile pointer keeps the compiler from dropping stores to memory about to be freed */
	volatile unsigned char *v = p;
	while (n--)
		*v++ = 0;
}

void ks_secret_free(char *s)
{
	if (!s)
		return;
	ks_secret_wipe(s, strlen(s));
	ks_free(s);
}

char *ks_secret_scrub(char *msg, const char *secret)
{
	ks_buf b = KS_BUF_INIT(KS_SECRET_MSG_MAX);
	const char *p, *hit;
	size_t n;

	/* messages quote servers' replies and libgit2's errors, and either may echo a credential */
	if (!msg || !secret || !*secret || !strstr(msg, secret))
		return msg;
	n = strlen(secret);
	for (p = msg; (hit = strstr(p, secret)) != NULL; p = hit + n) {
		ks_buf_put_truncated(&b, p, (size_t)(hit - p));
		ks_buf_put_truncated(&b, KS_SECRET_MARKER, strlen(KS_SECRET_MARKER));
	}
	ks_buf_put_truncated(&b, p, strlen(p));
	ks_secret_free(msg);
	return ks_buf_take(&b, NULL);
}

static int header_chars_ok(const char *t)
{
	/* visible ASCII only: a CR or LF would let the secret inject headers */
	for (; *t; t++)
		if ((unsigned char)*t <= 0x20 || (unsigned char)*t >= 0x7f)
			return 0;
	return 1;
}

/* The first line of text, trimmed; NULL when it is empty. */
static char *first_line(const char *text)
{
	const char *b = text, *e;
	while (*b == ' ' || *b == '\t' || *b == '\r' || *b == '\n')
		b++;
	e = b;
	while (*e && *e != '\n' && *e != '\r')
		e++;
	while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e == b ? NULL : ks_strndup(b, (size_t)(e - b));
}

int ks_secret_load(char **out, int *loose, const char *file, const char *env_name)
{
	char *text = NULL, *tok = NULL;
	size_t len = 0;
	int rc = 0, fd = -1;
	struct stat st;

	*out = NULL;
	*loose = 0;
	if (file) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = ks_error_set(errno == ENOENT ? KS_ENOTFOUND : KS_EIO, "token file %s: %s",
					  file, strerror(errno));
			goto done;
		}
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			rc = ks_error_set(KS_EINVALID, "token file %s: not a regular file", file);
			goto done;
		}
		*loose = (st.st_mode & 077) != 0;
		if ((rc = ks_fs_read_fd(&text, &len, fd, SECRET_FILE_MAX)) < 0) {
			rc = ks_error_set(rc, "token file %s: unreadable or over %u bytes", file,
					  SECRET_FILE_MAX);
			goto done;
		}
		if (!(tok = first_line(text))) {
			rc = ks_error_set(KS_EINVALID, "token file %s is empty", file);
			goto done;
		}
		if (!header_chars_ok(tok)) {
			rc = ks_error_set(KS_EINVALID,
					  "token file %s: the token holds spaces or control "
					  "characters and cannot go in an HTTP header",
					  file);
			goto done;
		}
	} else if (env_name && *env_name) {
		const char *v = getenv(env_name);
		if (v && *v) {
			tok = ks_strdup(v);
			if (!header_chars_ok(tok)) {
				rc = ks_error_set(KS_EINVALID,
						  "$%s: the token holds spaces or control characters "
						  "and cannot go in an HTTP header",
						  env_name);
				goto done;
			}
		}
	}
done:
	/* whatever happened, no child process started later inherits the variable */
	if (env_name && *env_name)
		unsetenv(env_name);
	if (fd >= 0)
		close(fd);
	if (text) {
		ks_secret_wipe(text, len);
		ks_free(text);
	}
	if (rc < 0)
		ks_secret_free(tok);
	else
		*out = tok;
	return rc;
}
