#include "util/errors.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char g_msg[2048];

int ks_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g_msg, sizeof(g_msg), fmt, ap);
	va_end(ap);
	return code;
}

int ks_error_wrap(int code, const char *fmt, ...)
{
	char prefix[512], old[sizeof(g_msg)];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);

	memcpy(old, g_msg, sizeof(old));
	n = strlen(prefix);
	if (n > sizeof(g_msg) - 3)
		n = sizeof(g_msg) - 3;
	memcpy(g_msg, prefix, n);
	memcpy(g_msg + n, ": ", 2);
	n += 2;
	strncpy(g_msg + n, old, sizeof(g_msg) - n - 1);
	g_msg[sizeof(g_msg) - 1] = '\0';
	return code;
}

const char *ks_error_msg(void)
{
	return g_msg;
}

void ks_error_clear(void)
{
	g_msg[0] = '\0';
}
