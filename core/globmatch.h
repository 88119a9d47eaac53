/* Path globs: '*' '?' '[...]' within a component, '**' across components.
 *
 * Matching is "tree" matching: a pattern matches a path when it matches the
 * path itself or one of its ancestors, so a rule names a file or a whole tree
 * and also applies to files that do not exist yet.  Pure functions: no
 * allocation, no syscalls, async-signal-safe. */
#ifndef SBP_GLOB_H
#define SBP_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* NULL when PAT is a valid glob, else a static description of the problem. */
const char *sbp_glob_check(const char *pat);

/* True when PAT contains an unescaped glob metacharacter. */
bool sbp_glob_is_glob(const char *pat);

/* Length of PAT's literal leading part, cut back to the last '/' before the
 * first metacharacter (the whole length for a literal pattern). */
size_t sbp_glob_literal_prefix(const char *pat);

/* Tree match of the absolute, normalised PATH against PAT. */
bool sbp_glob_match(const char *pat, const char *path);

/* Whether PAT matches some path strictly beneath the directory DIR
 * (absolute, normalised): whether DIR may hold what PAT names.  True too
 * when PAT matches DIR itself or an ancestor. */
bool sbp_glob_match_beneath(const char *pat, const char *dir);

#endif
