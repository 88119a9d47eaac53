/* The session's journal of moves: shared memory in which every shimmed
 * process notes, before making it, each rename and directory removal it is
 * about to make (a hash of the path, in order).
 *
 * A process keeps the directories it pinned open for later calls (the pin
 * cache, shim/pincache.c).  A kept descriptor names the directory that was
 * at a path; the journal says whether anything in the session moved that
 * path, or one of its parents, since.  The launcher creates the journal
 * (a memfd it holds open for the session) and tells the command where it is
 * through the environment:
 *
 *     SBPRELOAD_JOURNAL=PID:FD:ID     /proc/PID/fd/FD, whose header holds ID
 *
 * Nothing in it is a secret or a permission: a process that scribbles on it
 * can only make other processes' kept directories go stale (see
 * docs/performance.md), never let a call through that the policy refuses. */
#ifndef SBP_JOURNAL_H
#define SBP_JOURNAL_H

#include <stdint.h>

#define SBP_JOURNAL_MAGIC 0x314c4e524a504253ULL /* "SBPJRNL1" */
#define SBP_JOURNAL_SLOTS 4096                  /* a power of two */
#define SBP_JOURNAL_ENV "SBPRELOAD_JOURNAL"

struct sbp_journal {
	uint64_t magic;
	uint64_t id[2];   /* random, also in the environment variable */
	uint64_t seq;     /* notes ever made (atomic) */
	/* Note number S is in slot[S % SLOTS]: the low 32 bits of S in the
	 * high half, the path's hash in the low half (0 = any path). */
	uint64_t slot[SBP_JOURNAL_SLOTS];
};

/* Make a journal (a memfd this process holds open from now on) and return
 * the "SBPRELOAD_JOURNAL=..." environment string for processes that are to
 * share it (malloc'd), or NULL when it cannot be made: they then keep no
 * pins, which costs only speed. */
char *sbp_journal_make(void);

/* The hash of the path P[0..LEN) as notes and the cache use it: 32-bit
 * FNV-1a, never 0. */
static inline uint32_t sbp_journal_hash_step(uint32_t h, unsigned char c)
{
	return (h ^ c) * 16777619u;
}
#define SBP_JOURNAL_HASH_INIT 2166136261u

static inline uint32_t sbp_journal_hash(const char *p, unsigned long len)
{
	uint32_t h = SBP_JOURNAL_HASH_INIT;
	for (unsigned long i = 0; i < len; i++)
		h = sbp_journal_hash_step(h, (unsigned char)p[i]);
	return h ? h : 1;
}

/* The journal's ID as the environment variable spells it: 32 hex digits. */
static inline void sbp_journal_id_str(const struct sbp_journal *j, char out[33])
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++)
		out[i] = hex[(j->id[i / 16] >> (60 - 4 * (i % 16))) & 15];
	out[32] = '\0';
}

#endif
