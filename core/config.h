/* The policy as people write it: layers (built-in default < config file <
 * SBPRELOAD_* environment < command line) merged into one sbp_config, then
 * compiled into the flat sbp_policy blob.  Allocates; never used inside a
 * hook (the launcher, and the shim's constructor when it runs alone). */
#ifndef SBP_CONFIG_H
#define SBP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

struct sbp_item {
	char *text;  /* as written */
	char *where; /* "FILE:LINE", "--deny", "SBPRELOAD_DENY", "built-in" */
};

struct sbp_list {
	struct sbp_item *v;
	size_t n, cap;
};

struct sbp_root {
	char *name;
	struct sbp_item root;
	int mode; /* enum sbp_root_mode */
	char *where;
};

enum sbp_list_id { SBP_L_READ, SBP_L_WRITE, SBP_L_DENY, SBP_L_DENY_WRITE, SBP_L_COUNT };

struct sbp_config {
	char *workspace;  /* as written ("." "auto" or a path); NULL = current directory */
	int mode;         /* enum sbp_mode */
	bool quiet;       /* messages = none */
	bool protect_git; /* .git/hooks and .git/config of an existing repository */
	char *log;
	struct sbp_list lists[SBP_L_COUNT];
	struct sbp_root *roots;
	size_t nroots;
	struct sbp_list files; /* policy files in use */
	char err[1024];
};

extern const char sbp_default_ini[];     /* conf/default.ini, built in */
extern const char sbp_list_keys[SBP_L_COUNT][12];

void sbp_config_init(struct sbp_config *c);
void sbp_config_free(struct sbp_config *c);

/* Layers, applied in order.  Each returns 0, or -1 with c->err set
 * ("FILE:LINE: ..."). */
int sbp_config_load_string(struct sbp_config *c, const char *text, const char *name);
int sbp_config_load_file(struct sbp_config *c, const char *path);
int sbp_config_load_env(struct sbp_config *c, char *const *envp);

/* Single settings, as the command line gives them. */
int sbp_config_set(struct sbp_config *c, const char *section, const char *key, const char *value,
		   const char *where, bool append);

/* Which config file applies: EXPLICIT (-c), else $SBPRELOAD_CONFIG, else
 * ./.sbpreload.ini when present, else NULL (built-in default). */
const char *sbp_config_pick_file(const char *explicit_path);

struct sbp_compiled {
	struct sbp_policy *blob; /* malloc'd */
	size_t size;
	char *workspace;         /* resolved */
};

/* Resolve the workspace, expand ~ and relative paths, canonicalise, add the
 * implicit rules, build the blob.  LOG_SOCKET may be NULL. */
int sbp_config_compile(struct sbp_config *c, const char *log_socket, struct sbp_compiled *out);

/* The effective policy as INI (re-readable by sbp_config_load_*). */
char *sbp_policy_to_ini(const struct sbp_policy *p);

/* Find the workspace for "auto": nearest ancestor of START holding a
 * project marker; START itself when none. malloc'd. */
char *sbp_workspace_auto(const char *start);

/* Base64 transport of the blob through the environment. */
char *sbp_blob_encode(const void *blob, size_t size);
void *sbp_blob_decode(const char *text, size_t *size);

#endif
