#include "policy.h"

#include <string.h>

#include "globmatch.h"

/* --- matching ------------------------------------------------------------ */

/* "/proc/self" rules name the calling process's own /proc/<pid> tree. */
static bool procself_match(const struct sbp_query *q)
{
	char num[16];
	int n = 0;

	if (q->pid <= 0 || strncmp(q->path, "/proc/", 6) != 0)
		return false;
	for (int pid = q->pid; pid > 0 && n < 15; pid /= 10)
		num[n++] = (char)('0' + pid % 10);
	const char *s = q->path + 6;
	while (n > 0)
		if (*s++ != num[--n])
			return false;
	return *s == '\0' || *s == '/';
}

static bool protects(const struct sbp_rule *r)
{
	return r->kind == SBP_RULE_DENY || r->kind == SBP_RULE_DENY_WRITE ||
	       (r->kind == SBP_RULE_ROOT && r->root_mode != SBP_ROOT_RW);
}

/* PATH lies strictly inside the root PAT[0..LIT) of such a rule ("" = /). */
static bool inside_root(const char *pat, size_t lit, const char *path, size_t len)
{
	return lit == 0 || (len > lit && memcmp(pat, path, lit) == 0 && path[lit] == '/');
}

/* Rule R protects something strictly beneath PATH: moving or removing PATH
 * would carry it along, and moving a directory to PATH would put what it
 * holds where R forbids it.  A name-like rule whose root holds PATH is left
 * to sbp_move_crosses(): inside its root, a moved tree keeps its names. */
static bool rule_under(const struct sbp_policy *p, const struct sbp_rule *r, const struct sbp_query *q,
		       bool self);

static bool rule_beneath(const struct sbp_policy *p, const struct sbp_rule *r,
			 const struct sbp_query *q)
{
	return rule_under(p, r, q, false);
}

/* The same, or (SELF) PATH itself matches R. */
static bool rule_under(const struct sbp_policy *p, const struct sbp_rule *r, const struct sbp_query *q,
		       bool self)
{
	const char *pat = sbp_str(p, r->pat);

	if (r->match == SBP_M_PROCSELF)
		return false;
	if (q->len == 1)
		return true;
	if (r->match == SBP_M_LITERAL)
		return r->len > q->len && memcmp(pat, q->path, q->len) == 0 && pat[q->len] == '/';
	/* The literal part PAT[0..lit) ends at a '/' before the first
	 * metacharacter: a PATH above it or at it has the glob part beneath. */
	if (r->lit >= q->len)
		return memcmp(pat, q->path, q->len) == 0 && pat[q->len] == '/';
	if ((r->lit && memcmp(pat, q->path, r->lit) != 0) || q->path[r->lit] != '/')
		return false;
	if ((r->flags & SBP_RF_NAME_LIKE) && inside_root(pat, r->lit, q->path, q->len))
		return false;
	if (sbp_glob_match(pat, q->path))
		return self; /* PATH itself: the plain decision names the rule */
	return sbp_glob_match_beneath(pat, q->path);
}

bool sbp_beneath_clear(const struct sbp_policy *p, const char *dir, size_t len)
{
	struct sbp_query q = {.op = SBP_OP_WRITE, .path = dir, .len = len, .subtree = true};

	if (!p || p->mode == SBP_MODE_OFF)
		return true;
	/* What lies beneath an entry of DIR lies beneath DIR.  A rule that
	 * names DIR itself may name things beneath its entries too ("R/ ** /z"
	 * names R/z and R/z/x/z): not clear either. */
	for (uint32_t i = 0; i < p->nrules; i++)
		if (protects(&p->rules[i]) && rule_under(p, &p->rules[i], &q, true))
			return false;
	return true;
}

const struct sbp_rule *sbp_move_crosses(const struct sbp_policy *p, const char *src, const char *dst)
{
	size_t ls = strlen(src), ld = strlen(dst);

	if (!p || p->mode == SBP_MODE_OFF)
		return NULL;
	for (uint32_t i = 0; i < p->nrules; i++) {
		const struct sbp_rule *r = &p->rules[i];
		const char *pat = sbp_str(p, r->pat);
		if (!(r->flags & SBP_RF_NAME_LIKE) || !protects(r))
			continue;
		if (inside_root(pat, r->lit, src, ls) != inside_root(pat, r->lit, dst, ld))
			return r;
	}
	return NULL;
}

static void verdict(const struct sbp_policy *p, struct sbp_verdict *v, enum sbp_reason why,
		    const struct sbp_rule *r)
{
	v->violation = why != SBP_ALLOWED && why != SBP_ALLOWED_NO_POLICY;
	v->allow = !v->violation || p->mode == SBP_MODE_AUDIT;
	v->reason = why;
	v->rule = r;
}

/* The rules that match a path, gathered through the tables. */
struct gather {
	const struct sbp_policy *p;
	const struct sbp_query *q;
	bool write;
	const struct sbp_rule *deny, *deny_write, *best;
};

static void consider(struct gather *g, const struct sbp_rule *r)
{
	switch (r->kind) {
	case SBP_RULE_DENY:
		if (!g->deny)
			g->deny = r;
		break;
	case SBP_RULE_DENY_WRITE:
		if (g->write && !g->deny_write)
			g->deny_write = r;
		break;
	case SBP_RULE_READ:
		if (g->write)
			break;
		/* fall through */
	default:
		/* Among allow-lists and named roots the most specific wins. */
		if (!g->best || r->len > g->best->len)
			g->best = r;
	}
}

static const struct sbp_slot *table(const struct sbp_policy *p, uint32_t off)
{
	return (const struct sbp_slot *)((const char *)p + off);
}

/* Rules keyed by the prefix PATH[0..LEN) (a component boundary). */
static void by_prefix(struct gather *g, uint32_t h, size_t len)
{
	const struct sbp_policy *p = g->p;
	const struct sbp_slot *t = table(p, p->prefixes);

	for (uint32_t i = h & p->prefix_mask; t[i].rule; i = (i + 1) & p->prefix_mask) {
		if (t[i].hash != h)
			continue;
		const struct sbp_rule *r = &p->rules[t[i].rule - 1];
		const char *pat = sbp_str(p, r->pat);
		if (r->key != len || memcmp(pat, g->q->path, len) != 0)
			continue;
		if (r->match == SBP_M_LITERAL || sbp_glob_match(pat, g->q->path))
			consider(g, r);
	}
}

/* Rules "P/ ** /NAME" for the component PATH[START..START+LEN). */
static void by_name(struct gather *g, uint32_t h, size_t start, size_t len)
{
	const struct sbp_policy *p = g->p;
	const struct sbp_slot *t = table(p, p->names);
	const char *s = g->q->path;

	for (uint32_t i = h & p->name_mask; t[i].rule; i = (i + 1) & p->name_mask) {
		if (t[i].hash != h)
			continue;
		const struct sbp_rule *r = &p->rules[t[i].rule - 1];
		const char *pat = sbp_str(p, r->pat);
		if (r->len - r->key != len || memcmp(pat + r->key, s + start, len) != 0)
			continue;
		if (start >= r->lit + 1 && memcmp(pat, s, r->lit) == 0 && (r->lit == 0 || s[r->lit] == '/'))
			consider(g, r);
	}
}

void sbp_decide(const struct sbp_policy *p, const struct sbp_query *q, struct sbp_verdict *v)
{
	bool write = q->op == SBP_OP_WRITE;
	struct gather g = {p, q, write, NULL, NULL, NULL};

	if (!p || p->mode == SBP_MODE_OFF) {
		v->allow = true;
		v->violation = false;
		v->reason = SBP_ALLOWED_NO_POLICY;
		v->rule = NULL;
		return;
	}
	if (q->subtree && write)
		for (uint32_t i = 0; i < p->nrules; i++) {
			const struct sbp_rule *r = &p->rules[i];
			if (protects(r) && rule_beneath(p, r, q))
				return verdict(p, v, SBP_CONTAINS_PROTECTED, r);
		}

	/* One pass over the path: at each component boundary look up the
	 * prefix so far and the component itself. */
	const char *s = q->path;
	size_t n = q->len, start = 1;
	uint64_t h = SBP_HASH_ROOT;
	by_prefix(&g, (uint32_t)h, 1);
	while (start < n) {
		size_t end = start;
		while (end < n && s[end] != '/')
			end++;
		uint32_t c = sbp_hash_component(s + start, end - start);
		h = sbp_hash_fold(h, c);
		by_prefix(&g, (uint32_t)h, end);
		by_name(&g, c, start, end - start);
		start = end + 1;
	}
	if (p->nprocself && q->pid > 0)
		for (uint32_t i = 0; i < p->nrules; i++)
			if (p->rules[i].match == SBP_M_PROCSELF && procself_match(q))
				consider(&g, &p->rules[i]);

	if (g.deny)
		return verdict(p, v, SBP_DENY_RULE, g.deny);
	const struct sbp_rule *best = g.best;
	if (write) {
		if (g.deny_write)
			return verdict(p, v, SBP_DENY_WRITE_RULE, g.deny_write);
		if (q->len == 1 || memchr(q->path + 1, '/', q->len - 1) == NULL)
			return verdict(p, v, SBP_FS_ROOT, NULL);
		if (!best)
			return verdict(p, v, SBP_OUTSIDE_WRITE, NULL);
		if (best->kind == SBP_RULE_ROOT && best->root_mode == SBP_ROOT_NONE)
			return verdict(p, v, SBP_IN_ROOT_NONE, best);
		if (best->kind == SBP_RULE_ROOT && best->root_mode == SBP_ROOT_RO)
			return verdict(p, v, SBP_IN_ROOT_READONLY, best);
		return verdict(p, v, SBP_ALLOWED, best);
	}
	if (best && best->kind == SBP_RULE_ROOT && best->root_mode == SBP_ROOT_NONE)
		return verdict(p, v, SBP_IN_ROOT_NONE, best);
	if (p->read_restricted && !best)
		return verdict(p, v, SBP_OUTSIDE_READ, NULL);
	return verdict(p, v, SBP_ALLOWED, best);
}

static bool table_valid(const struct sbp_policy *p, size_t size, uint32_t off, uint32_t mask)
{
	if ((mask & (mask + 1)) != 0 || off % 4 || off < sizeof(*p) + (size_t)p->nrules * sizeof(struct sbp_rule) ||
	    (size_t)off + ((size_t)mask + 1) * sizeof(struct sbp_slot) > p->pool || p->pool > size)
		return false;
	const struct sbp_slot *t = table(p, off);
	bool empty = false;
	for (uint32_t i = 0; i <= mask; i++) {
		if (t[i].rule > p->nrules)
			return false;
		empty |= t[i].rule == 0;
	}
	return empty; /* a full table would make lookups loop forever */
}

bool sbp_policy_valid(const void *blob, size_t size)
{
	const struct sbp_policy *p = blob;

	if (size < sizeof(*p) || p->magic != SBP_POLICY_MAGIC || p->version != SBP_POLICY_VERSION ||
	    p->size != size || p->mode > SBP_MODE_OFF)
		return false;
	if (p->nrules > (size - sizeof(*p)) / sizeof(struct sbp_rule))
		return false;
	size_t pool = p->pool;
	if (pool < sizeof(*p) + (size_t)p->nrules * sizeof(struct sbp_rule) || pool >= size ||
	    ((const char *)blob)[size - 1] != '\0')
		return false;
	if (!table_valid(p, size, p->prefixes, p->prefix_mask) || !table_valid(p, size, p->names, p->name_mask))
		return false;
	size_t plen = size - pool;
	uint32_t offs[] = {p->workspace, p->log, p->log_socket};
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (offs[i] >= plen)
			return false;
	for (uint32_t i = 0; i < p->nrules; i++) {
		const struct sbp_rule *r = &p->rules[i];
		if (r->pat == 0 || r->pat >= plen || r->src >= plen || r->name >= plen ||
		    r->kind > SBP_RULE_ROOT || r->root_mode > SBP_ROOT_NONE)
			return false;
		if (r->len != strlen(sbp_str(p, r->pat)) || r->lit > r->len || r->key > r->len ||
		    r->match > SBP_M_PROCSELF)
			return false;
	}
	return true;
}

/* --- messages ------------------------------------------------------------ */

const char *sbp_op_name(enum sbp_op op)
{
	switch (op) {
	case SBP_OP_READ:
		return "read";
	case SBP_OP_WRITE:
		return "write";
	case SBP_OP_EXEC:
		return "exec";
	}
	return "?";
}

const char *sbp_reason_text(enum sbp_reason r)
{
	switch (r) {
	case SBP_ALLOWED:
		return "allowed";
	case SBP_ALLOWED_NO_POLICY:
		return "no policy in force";
	case SBP_DENY_RULE:
		return "matches deny rule";
	case SBP_DENY_WRITE_RULE:
		return "matches deny_write rule";
	case SBP_IN_ROOT_READONLY:
		return "read-only root";
	case SBP_IN_ROOT_NONE:
		return "root with mode none";
	case SBP_FS_ROOT:
		return "the filesystem root is never writable";
	case SBP_OUTSIDE_WRITE:
		return "outside the writable paths";
	case SBP_OUTSIDE_READ:
		return "outside the readable paths";
	case SBP_CONTAINS_PROTECTED:
		return "it contains a protected path";
	case SBP_MOVE_PROTECTED:
		return "a directory moved there would carry paths into or out of a protected place";
	case SBP_UNRESOLVED:
		return "its real path cannot be determined";
	}
	return "?";
}

void sbp_buf_addn(struct sbp_buf *b, const char *s, size_t n)
{
	if (b->size == 0)
		return;
	size_t room = b->size - 1 - b->len;
	if (n > room)
		n = room;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sbp_buf_add(struct sbp_buf *b, const char *s)
{
	sbp_buf_addn(b, s, strlen(s));
}

void sbp_buf_num(struct sbp_buf *b, long long n)
{
	char tmp[24];
	int i = (int)sizeof(tmp);
	unsigned long long u = n < 0 ? -(unsigned long long)n : (unsigned long long)n;

	do
		tmp[--i] = (char)('0' + u % 10);
	while ((u /= 10) && i > 1);
	if (n < 0)
		tmp[--i] = '-';
	sbp_buf_addn(b, tmp + i, sizeof(tmp) - (size_t)i);
}

void sbp_buf_json(struct sbp_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	sbp_buf_add(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			sbp_buf_addn(b, e, 2);
		} else if (c == '\n' || c == '\t' || c == '\r') {
			char e[2] = {'\\', c == '\n' ? 'n' : c == '\t' ? 't' : 'r'};
			sbp_buf_addn(b, e, 2);
		} else if (c < 0x20 || c == 0x7f) {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			sbp_buf_addn(b, e, 6);
		} else {
			sbp_buf_addn(b, s, 1);
		}
	}
	sbp_buf_add(b, "\"");
}

/* Quote a path for a one-line message: control characters would let a
 * hostile file name forge extra lines, so they are shown as '?'. */
static void add_quoted(struct sbp_buf *b, const char *s)
{
	sbp_buf_add(b, "'");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		sbp_buf_addn(b, c < 0x20 || c == 0x7f ? "?" : s, 1);
	}
	sbp_buf_add(b, "'");
}

static bool grants(const struct sbp_rule *r, bool write)
{
	bool w = r->kind == SBP_RULE_WRITE || (r->kind == SBP_RULE_ROOT && r->root_mode == SBP_ROOT_RW);
	bool rd = w || r->kind == SBP_RULE_READ || (r->kind == SBP_RULE_ROOT && r->root_mode == SBP_ROOT_RO);
	return !(r->flags & SBP_RF_IMPLICIT) && (write ? w : rd);
}

/* The same path granted by an earlier rule (read and write lists both
 * naming the workspace): list it once. */
static bool listed_before(const struct sbp_policy *p, uint32_t i, bool write)
{
	for (uint32_t j = 0; j < i; j++)
		if (grants(&p->rules[j], write) && !strcmp(sbp_str(p, p->rules[j].pat), sbp_str(p, p->rules[i].pat)))
			return true;
	return false;
}

/* "(writable: a, b)" — the allow-list that applies to OP. */
static void add_allowed(struct sbp_buf *b, const struct sbp_policy *p, enum sbp_op op)
{
	bool write = op == SBP_OP_WRITE;
	int n = 0;

	if (!write && !p->read_restricted)
		return;
	sbp_buf_add(b, write ? " (writable: " : " (readable: ");
	for (uint32_t i = 0; i < p->nrules; i++) {
		const struct sbp_rule *r = &p->rules[i];
		bool w = r->kind == SBP_RULE_WRITE || (r->kind == SBP_RULE_ROOT && r->root_mode == SBP_ROOT_RW);
		bool rd = w || r->kind == SBP_RULE_READ || (r->kind == SBP_RULE_ROOT && r->root_mode == SBP_ROOT_RO);
		if ((r->flags & SBP_RF_IMPLICIT) || !(write ? w : rd) || listed_before(p, i, write))
			continue;
		if (n++)
			sbp_buf_add(b, ", ");
		sbp_buf_add(b, sbp_str(p, r->pat));
	}
	if (!n)
		sbp_buf_add(b, "none");
	if (!write)
		sbp_buf_add(b, n ? ", and what programs need to run" : " only what programs need to run");
	sbp_buf_add(b, ")");
}

static void add_reason(struct sbp_buf *b, const struct sbp_policy *p, const struct sbp_query *q,
		       const struct sbp_verdict *v)
{
	const struct sbp_rule *r = v->rule;

	switch (v->reason) {
	case SBP_DENY_RULE:
	case SBP_DENY_WRITE_RULE:
		sbp_buf_add(b, v->reason == SBP_DENY_RULE ? "matches deny rule " : "matches deny_write rule ");
		add_quoted(b, sbp_str(p, r->src));
		break;
	case SBP_CONTAINS_PROTECTED:
		sbp_buf_add(b, "it contains ");
		add_quoted(b, sbp_str(p, r->src));
		sbp_buf_add(b, ", which is protected");
		break;
	case SBP_MOVE_PROTECTED:
		sbp_buf_add(b, "moving a directory there would carry paths into or out of what ");
		add_quoted(b, sbp_str(p, r->src));
		sbp_buf_add(b, " protects");
		break;
	case SBP_IN_ROOT_READONLY:
	case SBP_IN_ROOT_NONE:
		sbp_buf_add(b, "root ");
		add_quoted(b, sbp_str(p, r->name));
		sbp_buf_add(b, v->reason == SBP_IN_ROOT_NONE ? " is neither readable nor writable" : " is read-only");
		break;
	case SBP_OUTSIDE_WRITE:
	case SBP_OUTSIDE_READ:
		sbp_buf_add(b, sbp_reason_text(v->reason));
		add_allowed(b, p, q->op);
		break;
	case SBP_FS_ROOT:
		sbp_buf_add(b, q->len > 1 ? "entries directly in / are never writable" : sbp_reason_text(v->reason));
		break;
	default:
		sbp_buf_add(b, sbp_reason_text(v->reason));
	}
}

size_t sbp_format_denial(char *buf, size_t size, const struct sbp_policy *p,
			 const struct sbp_query *q, const struct sbp_verdict *v,
			 const char *given, const char *resolved)
{
	struct sbp_buf b = {buf, size, 0};

	if (size)
		buf[0] = '\0';
	sbp_buf_add(&b, "sbpreload: ");
	sbp_buf_add(&b, p->mode == SBP_MODE_AUDIT ? "would deny " : "denied ");
	sbp_buf_add(&b, sbp_op_name(q->op));
	sbp_buf_add(&b, " ");
	add_quoted(&b, given);
	if (resolved && strcmp(resolved, given) != 0) {
		sbp_buf_add(&b, " (resolved ");
		add_quoted(&b, resolved);
		sbp_buf_add(&b, ")");
	}
	sbp_buf_add(&b, ": ");
	add_reason(&b, p, q, v);
	return b.len;
}

size_t sbp_format_record(char *buf, size_t size, const struct sbp_policy *p,
			 const struct sbp_query *q, const struct sbp_verdict *v,
			 const char *call, const char *given, const char *resolved,
			 long long ts_ms, int pid, const char *exe)
{
	struct sbp_buf b = {buf, size, 0};
	char reason[1024];
	struct sbp_buf rb = {reason, sizeof(reason), 0};

	if (size)
		buf[0] = '\0';
	reason[0] = '\0';
	add_reason(&rb, p, q, v);
	sbp_buf_add(&b, "{\"ts\":");
	sbp_buf_num(&b, ts_ms / 1000);
	sbp_buf_add(&b, ".");
	char ms[4] = {(char)('0' + ts_ms % 1000 / 100), (char)('0' + ts_ms % 100 / 10),
		      (char)('0' + ts_ms % 10), 0};
	sbp_buf_add(&b, ms);
	sbp_buf_add(&b, ",\"pid\":");
	sbp_buf_num(&b, pid);
	sbp_buf_add(&b, ",\"exe\":");
	sbp_buf_json(&b, exe ? exe : "");
	sbp_buf_add(&b, ",\"op\":");
	sbp_buf_json(&b, sbp_op_name(q->op));
	sbp_buf_add(&b, ",\"call\":");
	sbp_buf_json(&b, call);
	sbp_buf_add(&b, ",\"target\":");
	sbp_buf_json(&b, given);
	sbp_buf_add(&b, ",\"resolved\":");
	sbp_buf_json(&b, resolved ? resolved : given);
	sbp_buf_add(&b, ",\"decision\":");
	sbp_buf_json(&b, p->mode == SBP_MODE_AUDIT ? "audit" : "deny");
	sbp_buf_add(&b, ",\"reason\":");
	sbp_buf_json(&b, reason);
	sbp_buf_add(&b, ",\"rule\":");
	if (v->rule)
		sbp_buf_json(&b, sbp_str(p, v->rule->src));
	else
		sbp_buf_add(&b, "null");
	sbp_buf_add(&b, "}");
	return b.len;
}
