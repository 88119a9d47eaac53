/* The compiled policy: one flat, pointer-free blob (versioned header, rules,
 * string pool) that the launcher builds once and every shim maps as is.
 *
 * sbp_decide() is the whole decision: pure, no allocation, no locks, no
 * syscalls, async-signal-safe. */
#ifndef SBP_POLICY_H
#define SBP_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBP_POLICY_MAGIC 0x31504253u /* "SBP1" */
#define SBP_POLICY_VERSION 3u

enum sbp_mode { SBP_MODE_ENFORCE, SBP_MODE_AUDIT, SBP_MODE_OFF };

enum sbp_op { SBP_OP_READ, SBP_OP_WRITE, SBP_OP_EXEC };

enum sbp_rule_kind {
	SBP_RULE_DENY,       /* neither readable nor writable */
	SBP_RULE_DENY_WRITE, /* readable, not writable */
	SBP_RULE_READ,       /* readable tree */
	SBP_RULE_WRITE,      /* writable (and readable) tree */
	SBP_RULE_ROOT,       /* [path:NAME]: mode in rule.root_mode */
};

enum sbp_root_mode { SBP_ROOT_RW, SBP_ROOT_RO, SBP_ROOT_NONE };

enum sbp_rule_flags {
	SBP_RF_GLOB = 1,     /* pattern has metacharacters */
	SBP_RF_IMPLICIT = 2, /* added by sbpreload itself, not by the config */
	SBP_RF_PROCSELF = 4, /* "/proc/self": matches /proc/<pid of the caller> */
	SBP_RF_NAME_LIKE = 8, /* "R/ ** /TAIL", TAIL one component: see sbp_move_crosses() */
};

/* How a rule is found for a path without scanning every rule: */
enum sbp_match {
	SBP_M_LITERAL,  /* prefix table, key = the whole pattern */
	SBP_M_ANCHORED, /* prefix table, key = its literal prefix; then a glob match */
	SBP_M_NAME,     /* "P/ ** /NAME": name table, key = NAME, path beneath P */
	SBP_M_PROCSELF, /* scanned only for /proc/<pid> paths */
};

struct sbp_rule {
	uint8_t kind;
	uint8_t flags;
	uint8_t root_mode;
	uint8_t match; /* enum sbp_match */
	uint32_t pat;  /* pool offset: absolute pattern */
	uint32_t len;  /* its length */
	uint32_t lit;  /* length of its literal prefix */
	uint32_t key;  /* LITERAL, ANCHORED: key length; NAME: offset of NAME */
	uint32_t src;  /* pool offset: the rule as written */
	uint32_t name; /* pool offset: root name ([path:NAME]) or 0 */
};

/* Open-addressing hash tables of rule indices (+1; 0 = empty slot). */
struct sbp_slot {
	uint32_t hash;
	uint32_t rule;
};

/* Keys are hashed a component at a time, eight bytes per step: a path
 * prefix hashes as the fold of its components' hashes, so one pass over a
 * path yields the hash of every prefix and of every component. */
#define SBP_HASH_ROOT 0x9e3779b97f4a7c15ull /* the prefix "/" */

static inline uint32_t sbp_hash_component(const char *s, size_t n)
{
	uint64_t h = (uint64_t)n * 0xc2b2ae3d27d4eb4full;
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		__builtin_memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (n) {
		uint64_t w = 0;
		for (size_t i = 0; i < n; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (uint32_t)h;
}

static inline uint64_t sbp_hash_fold(uint64_t prefix, uint32_t component)
{
	uint64_t h = (prefix ^ component) * 0x9e6c63d0676a9a99ull;
	return h ^ (h >> 29);
}

struct sbp_policy {
	uint32_t magic;
	uint32_t version;
	uint32_t size; /* of the whole blob */
	uint8_t mode;
	uint8_t quiet;
	uint8_t read_restricted;
	uint8_t flags; /* SBP_PF_* */
	uint32_t nrules;
	uint32_t workspace; /* pool offsets; 0 = none */
	uint32_t log;
	uint32_t log_socket; /* abstract unix socket name of the launcher */
	uint32_t prefixes;   /* offset of the prefix table (mask + 1 slots) */
	uint32_t prefix_mask;
	uint32_t names;      /* offset of the name table */
	uint32_t name_mask;
	uint32_t nprocself;  /* rules with SBP_M_PROCSELF */
	uint32_t pool;       /* offset of the pool from the blob start */
	struct sbp_rule rules[];
};

enum sbp_policy_flags {
	SBP_PF_PROTECT_GIT = 1, /* [filesystem] protect_git */
};

static inline const char *sbp_str(const struct sbp_policy *p, uint32_t off)
{
	return off ? (const char *)p + p->pool + off : "";
}

/* Why a decision came out as it did. */
enum sbp_reason {
	SBP_ALLOWED,
	SBP_ALLOWED_NO_POLICY,
	SBP_DENY_RULE,
	SBP_DENY_WRITE_RULE,
	SBP_IN_ROOT_READONLY,
	SBP_IN_ROOT_NONE,
	SBP_FS_ROOT,
	SBP_OUTSIDE_WRITE,
	SBP_OUTSIDE_READ,
	SBP_CONTAINS_PROTECTED,
	SBP_MOVE_PROTECTED,     /* a directory moved there would carry protected paths */
	SBP_UNRESOLVED,
};

struct sbp_verdict {
	bool allow;              /* what the caller should do (audit: true) */
	bool violation;          /* the policy says no (also in audit mode) */
	enum sbp_reason reason;
	const struct sbp_rule *rule; /* the rule that decided, if any */
};

struct sbp_query {
	enum sbp_op op;
	const char *path; /* absolute, normalised */
	size_t len;
	int pid;          /* for /proc/self rules; 0 = unknown */
	bool subtree;     /* the op moves or removes PATH with all it holds */
};

void sbp_decide(const struct sbp_policy *p, const struct sbp_query *q, struct sbp_verdict *v);

/* No rule protects DIR[0..LEN) (NUL-terminated) or anything beneath it:
 * then a move of or into an entry of DIR is judged by the entry's path
 * alone (its SUBTREE query decides as the plain one). */
bool sbp_beneath_clear(const struct sbp_policy *p, const char *dir, size_t len);

/* Moving the directory SRC to DST (both absolute, normalised; each already
 * judged with subtree set) also moves everything it holds: the rule that
 * would see protected entries appear or vanish, because its root ("R" of
 * "R/ ** /NAME") holds one of the two paths and not the other; NULL when
 * there is none. */
const struct sbp_rule *sbp_move_crosses(const struct sbp_policy *p, const char *src, const char *dst);

/* Validate a blob received from elsewhere (size, magic, offsets). */
bool sbp_policy_valid(const void *blob, size_t size);

const char *sbp_op_name(enum sbp_op op);
const char *sbp_reason_text(enum sbp_reason r);

/* The one-line message (no trailing newline) for a refusal, into BUF.
 * CALL is the libc function, GIVEN the path as the program gave it,
 * RESOLVED the path it was judged on.  Returns the length (truncated to
 * fit).  Pure: usable inside hooks. */
size_t sbp_format_denial(char *buf, size_t size, const struct sbp_policy *p,
			 const struct sbp_query *q, const struct sbp_verdict *v,
			 const char *given, const char *resolved);

/* One JSON object (no trailing newline) with the same facts. */
size_t sbp_format_record(char *buf, size_t size, const struct sbp_policy *p,
			 const struct sbp_query *q, const struct sbp_verdict *v,
			 const char *call, const char *given, const char *resolved,
			 long long ts_ms, int pid, const char *exe);

/* Small, allocation-free string builder used by the formatters. */
struct sbp_buf {
	char *s;
	size_t size, len;
};
void sbp_buf_add(struct sbp_buf *b, const char *s);
void sbp_buf_addn(struct sbp_buf *b, const char *s, size_t n);
void sbp_buf_num(struct sbp_buf *b, long long n);
void sbp_buf_json(struct sbp_buf *b, const char *s); /* quoted, escaped */

#endif
