/* The session's journal of moves: made by the launcher (see journal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "journal.h"

char *sbp_journal_make(void)
{
	struct sbp_journal *j;
	char id[33], *env = NULL;

	int fd = memfd_create("sbpreload-journal", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, sizeof(*j)) < 0 ||
	    (j = mmap(NULL, sizeof(*j), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	if (getrandom(j->id, sizeof(j->id), 0) != (ssize_t)sizeof(j->id)) {
		munmap(j, sizeof(*j));
		close(fd);
		return NULL;
	}
	j->magic = SBP_JOURNAL_MAGIC;
	sbp_journal_id_str(j, id);
	munmap(j, sizeof(*j));
	if (asprintf(&env, SBP_JOURNAL_ENV "=%ld:%d:%s", (long)getpid(), fd, id) < 0) {
		close(fd);
		return NULL;
	}
	return env; /* FD stays open for as long as this process runs */
}
