/* exitcode: the exit statuses of every `score` command, shared by the commands and by the engines
 * that return one (batch, upload). 64 and up are sysexits.h's, so scripts can tell a usage mistake
 * from a bad input from a broken machine. Data only. */
#ifndef KS_EXITCODE_H
#define KS_EXITCODE_H

enum {
	KS_EXIT_OK = 0,           /* everything succeeded */
	KS_EXIT_SOME = 1,         /* some kernels / uploads / problems failed */
	KS_EXIT_NONE = 2,         /* no kernel passed */
	KS_EXIT_NO_GPU = 3,       /* compiled only: no usable GPU */
	KS_EXIT_USAGE = 64,       /* a bad option or argument */
	KS_EXIT_DATAERR = 65,     /* an input is unreadable or invalid */
	KS_EXIT_UNAVAILABLE = 69, /* a needed resource (GPU, helper) is missing */
	KS_EXIT_SOFTWARE = 70,    /* an internal failure */
	KS_EXIT_CANTCREAT = 73,   /* an output path is refused: not kscore's, or an input (outdir.h) */
	KS_EXIT_IOERR = 74,       /* an output cannot be written */
	KS_EXIT_CONFIG = 78       /* a configuration file or option is unusable */
};

#endif
