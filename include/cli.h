/* cli: what the commands (src/cmd_*.c) share: exit codes, usage errors, the options every
 * reference-problem command takes, and the colour decision. Only commands parse argv; a stage
 * module includes this only for the exit-code enum (ks_upload_status_exit). */
#ifndef KS_CLI_H
#define KS_CLI_H

#include "version.h"

/* Exit codes of every `score` command. 64 and up are sysexits.h's, so scripts can tell a usage
 * mistake from a bad input from a broken machine. */
enum {
	KS_EXIT_OK = 0,           /* everything succeeded */
	KS_EXIT_SOME = 1,         /* some kernels / uploads / problems failed */
	KS_EXIT_NONE = 2,         /* no kernel passed */
	KS_EXIT_NO_GPU = 3,       /* compiled only: no usable GPU */
	KS_EXIT_USAGE = 64,       /* a bad option or argument */
	KS_EXIT_DATAERR = 65,     /* an input is unreadable or invalid */
	KS_EXIT_UNAVAILABLE = 69, /* a needed resource (GPU, helper) is missing */
	KS_EXIT_SOFTWARE = 70,    /* an internal failure */
	KS_EXIT_CANTCREAT = 73,   /* an output exists and is not kscore's to replace */
	KS_EXIT_IOERR = 74,       /* an output cannot be written */
	KS_EXIT_CONFIG = 78       /* a configuration file or option is unusable */
};

#endif
