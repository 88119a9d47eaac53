/* The pin cache: directories a process pinned, kept open for its next calls.
 *
 * Calls that change a directory entry act through a descriptor of the parent
 * directory, opened with RESOLVE_NO_SYMLINKS, so that a symlink swapped in
 * between the check and the call cannot redirect them (resolve.c).  Opening
 * it costs a path walk and a file object each time; most calls act in the
 * directory the previous call acted in.  So a few pinned directories are
 * kept, each with the path it was pinned at, and used again while nothing
 * says that path may now name another directory:
 *
 *  - the session's journal (core/journal.h) has no note, since the pin, of
 *    a rename or removal of the path or of one of its parents (every
 *    shimmed process notes those before making them);
 *  - the pin is younger than MAX_AGE_MS, which bounds how long a directory
 *    moved by a process outside the session (which notes nothing) is used
 *    where it now stands;
 *  - the descriptor is still ours: the kept descriptors sit at high numbers
 *    (from BASE up) and the close, close_range, closefrom, dup2 and dup3
 *    hooks forget an entry before its number is closed or replaced.  A call
 *    on a kept descriptor that fails as one on a closed or removed
 *    directory would (EBADF, ENOTDIR, ENOENT with no links left) is made
 *    again through a fresh pin.
 *
 * What a kept descriptor does is what the per-call pin does when the
 * directory moves just after its check: the call lands in the directory
 * where it now stands, as if it had been made just before the move; and a
 * move of a directory inside the session is itself judged (a directory is
 * never moved where the policy would judge what it holds otherwise).
 *
 * Without a journal (the shim loaded without the launcher, or the variable
 * scrubbed) nothing is kept.  Entries are shared by the process's threads,
 * lock-free: a reference count in the state word keeps an entry from being
 * replaced while a call uses it; a call that finds no free entry pins as
 * before.  Everything here is async-signal-safe. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "shim.h"

#define NENT 8
#define MAX_DEPTH 32
#define MAX_LEN 256
#define MAX_AGE_MS 10
#define BASE 512    /* the lowest number a kept descriptor takes */
#define SPREAD 64   /* ... and the highest it may take is BASE + SPREAD */

/* The state word: a reference count and three flags. */
#define REFS 0x0fffffffu
#define READY 0x10000000u /* filled in: may be used */
#define DEAD 0x20000000u  /* stale: not to be used, to be replaced */
#define BUSY 0x40000000u  /* being filled in by one thread */

struct entry {
	unsigned state;
	int fd;                  /* -1 when the number is no longer ours */
	uint32_t hash;           /* of path[0..len) */
	unsigned len, depth;
	bool clear;              /* sbp_beneath_clear() of the path */
	uint32_t prefix[MAX_DEPTH]; /* hashes of the path and of each parent */
	uint64_t seq;            /* journal notes checked up to here */
	int64_t born;            /* ms, CLOCK_MONOTONIC_COARSE */
	char path[MAX_LEN];
};

static struct entry cache[NENT];
static struct sbp_journal *journal;
static int base; /* 0 = no cache */
static unsigned hand;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* DIR[0..LEN) without trailing slashes ("/" stays). */
static size_t trim(const char *dir, size_t len)
{
	while (len > 1 && dir[len - 1] == '/')
		len--;
	return len;
}

/* A fork keeps only the forking thread: references held by the others
 * would never be given back, and an entry being filled in is half made. */
static void after_fork_child(void)
{
	for (int i = 0; i < NENT; i++) {
		unsigned s = __atomic_load_n(&cache[i].state, __ATOMIC_RELAXED);
		__atomic_store_n(&cache[i].state, (s & BUSY) ? DEAD : (s & (READY | DEAD)), __ATOMIC_RELAXED);
		if (s & BUSY)
			cache[i].fd = -1;
	}
}

static void map_journal(const char *spec)
{
	char *end;
	long pid = strtol(spec, &end, 10);
	if (pid <= 0 || *end != ':')
		return;
	long fd = strtol(end + 1, &end, 10);
	if (fd < 0 || *end != ':')
		return;
	const char *id = end + 1;
	char path[64];
	struct sbp_buf b = {path, sizeof(path), 0};
	sbp_buf_add(&b, "/proc/");
	sbp_buf_num(&b, pid);
	sbp_buf_add(&b, "/fd/");
	sbp_buf_num(&b, fd);
	int jfd = sbp_sys_openat(AT_FDCWD, path, O_RDWR | O_CLOEXEC, 0);
	if (jfd < 0)
		return;
	struct stat st;
	void *m = MAP_FAILED;
	if (fstat(jfd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == (off_t)sizeof(struct sbp_journal))
		m = mmap(NULL, sizeof(struct sbp_journal), PROT_READ | PROT_WRITE, MAP_SHARED, jfd, 0);
	sbp_sys_close(jfd);
	if (m == MAP_FAILED)
		return;
	struct sbp_journal *j = m;
	char want[33];
	sbp_journal_id_str(j, want);
	/* Only the launcher's own journal: a stale PID:FD may name any file. */
	if (j->magic != SBP_JOURNAL_MAGIC || strcmp(want, id) != 0) {
		munmap(m, sizeof(struct sbp_journal));
		return;
	}
	journal = j;
}

void sbp_cache_init(void)
{
	const char *spec = getenv(SBP_JOURNAL_ENV);
	struct rlimit rl;

	if (!spec || getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < 2 * BASE)
		return;
	map_journal(spec);
	if (!journal)
		return;
	pthread_atfork(NULL, NULL, after_fork_child);
	__atomic_store_n(&base, BASE, __ATOMIC_RELEASE);
}

uint64_t sbp_cache_seq(void)
{
	return journal ? __atomic_load_n(&journal->seq, __ATOMIC_ACQUIRE) : 0;
}

void sbp_cache_note(const char *abs)
{
	if (!journal)
		return;
	uint32_t h = abs && abs[0] ? sbp_journal_hash(abs, strlen(abs)) : 0;
	uint64_t s = __atomic_fetch_add(&journal->seq, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&journal->slot[s % SBP_JOURNAL_SLOTS], (s << 32) | h, __ATOMIC_RELEASE);
	/* The move itself comes after this, so whoever reads the journal
	 * after the move sees the note. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static bool acquire(struct entry *e)
{
	unsigned s = __atomic_load_n(&e->state, __ATOMIC_RELAXED);
	do {
		if ((s & (READY | DEAD | BUSY)) != READY || (s & REFS) == REFS)
			return false;
	} while (!__atomic_compare_exchange_n(&e->state, &s, s + 1, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

bool sbp_cache_clear(int slot)
{
	return slot >= 0 && cache[slot].clear;
}

void sbp_cache_release(int slot)
{
	__atomic_fetch_sub(&cache[slot].state, 1, __ATOMIC_RELEASE);
}

/* No note since the entry's pin names its path or a parent of it, and it
 * is young enough.  Called holding a reference. */
static bool fresh(struct entry *e)
{
	if (now_ms() - e->born >= MAX_AGE_MS)
		return false;
	uint64_t now = __atomic_load_n(&journal->seq, __ATOMIC_ACQUIRE);
	uint64_t from = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	if (now == from)
		return true;
	if (now - from > SBP_JOURNAL_SLOTS / 2)
		return false;
	for (uint64_t s = from; s != now; s++) {
		uint64_t v = __atomic_load_n(&journal->slot[s % SBP_JOURNAL_SLOTS], __ATOMIC_ACQUIRE);
		/* Not written yet, or already overwritten: assume the worst. */
		if ((uint32_t)(v >> 32) != (uint32_t)s)
			return false;
		uint32_t h = (uint32_t)v;
		if (h == 0)
			return false;
		for (unsigned d = 0; d < e->depth; d++)
			if (e->prefix[d] == h)
				return false;
	}
	/* Checked up to NOW: the next call starts there. */
	__atomic_compare_exchange_n(&e->seq, &from, now, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return true;
}

int sbp_cache_get(const char *dir, size_t len, int *slot)
{
	*slot = -1;
	if (!__atomic_load_n(&base, __ATOMIC_ACQUIRE))
		return -1;
	len = trim(dir, len);
	uint32_t h = sbp_journal_hash(dir, len);
	for (int i = 0; i < NENT; i++) {
		struct entry *e = &cache[i];
		if (__atomic_load_n(&e->hash, __ATOMIC_RELAXED) != h || !acquire(e))
			continue;
		int fd = __atomic_load_n(&e->fd, __ATOMIC_RELAXED);
		if (e->hash == h && e->len == len && !memcmp(e->path, dir, len) && fd >= 0) {
			if (fresh(e)) {
				*slot = i;
				return fd;
			}
			__atomic_fetch_or(&e->state, DEAD, __ATOMIC_RELAXED);
		}
		sbp_cache_release(i);
	}
	return -1;
}

/* Take an entry nobody uses (an empty or stale one first) for filling in;
 * *PREV = its state before. */
static struct entry *claim(unsigned *prev)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < NENT; k++) {
			unsigned i = (__atomic_fetch_add(&hand, 1, __ATOMIC_RELAXED)) % NENT;
			struct entry *e = &cache[i];
			unsigned s = __atomic_load_n(&e->state, __ATOMIC_RELAXED);
			if ((s & (REFS | BUSY)) || (pass == 0 && (s & READY) && !(s & DEAD)))
				continue;
			if (__atomic_compare_exchange_n(&e->state, &s, BUSY, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				*prev = s;
				return e;
			}
		}
	}
	return NULL;
}

void sbp_cache_put(const char *dir, size_t len, int pfd, uint64_t seq)
{
	if (!__atomic_load_n(&base, __ATOMIC_ACQUIRE))
		return;
	len = trim(dir, len);
	if (len >= MAX_LEN || dir[0] != '/')
		return;
	unsigned prev;
	struct entry *e = claim(&prev);
	if (!e)
		return;
	/* Never filled in: its FD is no descriptor of ours (0 at start). */
	int old = __atomic_exchange_n(&e->fd, -1, __ATOMIC_ACQ_REL);
	if (old >= 0 && (prev & READY))
		sbp_sys_close(old);
	unsigned depth = 0;
	uint32_t h = SBP_JOURNAL_HASH_INIT;
	for (size_t i = 0; i < len; i++) {
		if (dir[i] == '/' && i > 0) {
			if (depth == MAX_DEPTH)
				goto empty;
			e->prefix[depth++] = h ? h : 1;
		}
		h = sbp_journal_hash_step(h, (unsigned char)dir[i]);
	}
	if (depth == MAX_DEPTH)
		goto empty;
	e->prefix[depth++] = h ? h : 1;
	/* A number of our own, above those a program gets by default. */
	int fd = (int)sbp_raw(SYS_fcntl, pfd, F_DUPFD_CLOEXEC, base, 0, 0);
	if (fd < 0)
		goto empty;
	if (fd > base + SPREAD) {
		sbp_sys_close(fd);
		goto empty;
	}
	e->depth = depth;
	e->len = (unsigned)len;
	memcpy(e->path, dir, len);
	e->path[len] = '\0';
	e->clear = sbp_beneath_clear(sbp_pol, e->path, len);
	e->seq = seq;
	e->born = now_ms();
	__atomic_store_n(&e->fd, fd, __ATOMIC_RELAXED);
	__atomic_store_n(&e->hash, h ? h : 1, __ATOMIC_RELAXED);
	__atomic_store_n(&e->state, READY, __ATOMIC_RELEASE);
	return;
empty:
	__atomic_store_n(&e->hash, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->state, 0, __ATOMIC_RELEASE);
}

/* The program closes or replaces descriptors LO..HI: forget the entries
 * kept there, so that a number it reuses is never taken for ours. */
void sbp_cache_forget(unsigned lo, unsigned hi)
{
	int b = __atomic_load_n(&base, __ATOMIC_ACQUIRE);
	if (!b || hi < (unsigned)b || lo > (unsigned)(b + SPREAD))
		return;
	for (int i = 0; i < NENT; i++) {
		int fd = __atomic_load_n(&cache[i].fd, __ATOMIC_RELAXED);
		if (fd >= 0 && (unsigned)fd >= lo && (unsigned)fd <= hi &&
		    __atomic_compare_exchange_n(&cache[i].fd, &fd, -1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			__atomic_fetch_or(&cache[i].state, DEAD, __ATOMIC_RELEASE);
	}
}

bool sbp_cache_stale_fd(int slot, int fd)
{
	struct stat st;

	/* ENOENT is left alone: a directory removed inside the session was
	 * noted, and the call is as good as any made in the directory just
	 * before its removal. */
	if (slot < 0 || (errno != EBADF && errno != ENOTDIR))
		return false;
	int e = errno;
	/* Closed behind our back (a raw close), or the number is not a
	 * directory any more: not ours. */
	bool stale = fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode);
	if (stale)
		__atomic_fetch_or(&cache[slot].state, DEAD, __ATOMIC_RELAXED);
	errno = e;
	return stale;
}

bool sbp_cache_stale(struct sbp_target *t)
{
	return sbp_cache_stale_fd(t->cached, t->dirfd);
}

/* Directories where opens missed lately: the second miss in one of them
 * pins it (see sbp_cache_wanted()). */
static uint32_t missed[4];
static unsigned missed_next;

bool sbp_cache_wanted(const char *dir, size_t len)
{
	if (!__atomic_load_n(&base, __ATOMIC_ACQUIRE))
		return false;
	len = trim(dir, len);
	uint32_t h = sbp_journal_hash(dir, len);
	for (int i = 0; i < 4; i++)
		if (__atomic_load_n(&missed[i], __ATOMIC_RELAXED) == h) {
			__atomic_store_n(&missed[i], 0, __ATOMIC_RELAXED);
			return true;
		}
	__atomic_store_n(&missed[__atomic_fetch_add(&missed_next, 1, __ATOMIC_RELAXED) % 4], h, __ATOMIC_RELAXED);
	return false;
}
