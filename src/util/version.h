/* version: the scorer's version string. The build defines KS_VERSION (Makefile: VERSION); this is
 * the one fallback for a build without it, so every record and message agrees. */
#ifndef KS_VERSION_H
#define KS_VERSION_H

#ifndef KS_VERSION
#define KS_VERSION "0.0.0"
#endif

#endif
