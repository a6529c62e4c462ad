/* assets: the site's stylesheet and script, embedded into the binary at build time from
 * web_export/assets/ (web_export/embed.sh writes build/gen/ks_assets.c), so an installed `score`
 * needs no data files to write a site. */
#ifndef KS_EXPORT_ASSETS_H
#define KS_EXPORT_ASSETS_H

#include <stddef.h>

extern const unsigned char ks_asset_site_css[];
extern const size_t ks_asset_site_css_len;
extern const unsigned char ks_asset_site_js[];
extern const size_t ks_asset_site_js_len;

#endif
