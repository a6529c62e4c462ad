/* version: the scorer's version string. The build defines KS_VERSION (Makefile: VERSION); this is
 * the one fallback for a build without it, so every record and message agrees. */
#ifndef KS_VERSION_H
#define KS_VERSION_H

#ifndef KS_VERSION
#define KS_VERSION "0.0.0"
#endif

/* Where `make install` puts the helpers and the data (Makefile: LIBEXECDIR, DATADIR). Programs
 * look beside their own binary first (a build tree, a relocated install); a program that embeds
 * libkscore (include/kscore.h) lies anywhere, so these are the last place looked. */
#ifndef KS_LIBEXECDIR
#define KS_LIBEXECDIR "/usr/local/libexec/kscore"
#endif
#ifndef KS_DATADIR
#define KS_DATADIR "/usr/local/share/kscore"
#endif

#endif
