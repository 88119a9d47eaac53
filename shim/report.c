/* Telling the agent: one line on stderr written with a single write(2), and
 * one JSON record, sent to the launcher (which alone holds the log file, so
 * a sandboxed process can neither erase nor rewrite it) or, when the shim
 * runs alone, appended to the log file.  No malloc, no stdio, no locks. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"

static void send_record(const char *rec, size_t len)
{
	const char *sock = sbp_str(sbp_pol, sbp_pol->log_socket);

	if (sbp_pol->log_socket) {
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		size_t n = strlen(sock);
		if (n + 1 > sizeof(a.sun_path))
			return;
		memcpy(a.sun_path + 1, sock, n); /* abstract: sun_path[0] = 0 */
		int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return;
		sendto(fd, rec, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&a,
		       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
		sbp_sys_close(fd);
		return;
	}
	if (sbp_pol->log) {
		int fd = sbp_sys_openat(AT_FDCWD, sbp_str(sbp_pol, sbp_pol->log),
					O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return;
		char line[len + 1];
		memcpy(line, rec, len);
		line[len] = '\n';
		if (write(fd, line, len + 1) < 0) {
			/* nothing more to do: the message went to stderr */
		}
		sbp_sys_close(fd);
	}
}

void sbp_report(const char *call, const struct sbp_query *q, const struct sbp_verdict *v,
		const char *given, const char *resolved)
{
	char buf[2 * PATH_MAX + 1024]; /* hooks may run on a small signal stack */
	int saved = errno;

	if (!sbp_pol->quiet) {
		size_t n = sbp_format_denial(buf, sizeof(buf) - 1, sbp_pol, q, v, given, resolved);
		buf[n++] = '\n';
		if (write(2, buf, n) < 0) {
			/* stderr closed: the log still gets the record */
		}
	}
	if (sbp_pol->log_socket || sbp_pol->log) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		size_t n = sbp_format_record(buf, sizeof(buf), sbp_pol, q, v, call, given, resolved, ms,
					     getpid(), sbp_exe);
		send_record(buf, n);
	}
	errno = saved;
}

void sbp_refuse(const char *call, const char *what, const char *reason)
{
	char buf[1024];
	struct sbp_buf b = {buf, sizeof(buf), 0};
	int saved = errno;

	if (!sbp_pol->quiet) {
		sbp_buf_add(&b, "sbpreload: ");
		sbp_buf_add(&b, sbp_pol->mode == SBP_MODE_AUDIT ? "would deny " : "denied ");
		sbp_buf_add(&b, what);
		sbp_buf_add(&b, ": ");
		sbp_buf_add(&b, reason);
		sbp_buf_add(&b, "\n");
		if (write(2, buf, b.len) < 0) {
			/* stderr closed: the log still gets the record */
		}
	}
	if (sbp_pol->log_socket || sbp_pol->log) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		b.len = 0;
		sbp_buf_add(&b, "{\"ts\":");
		sbp_buf_num(&b, ms / 1000);
		char frac[5] = {'.', (char)('0' + ms % 1000 / 100), (char)('0' + ms % 100 / 10), (char)('0' + ms % 10), 0};
		sbp_buf_add(&b, frac);
		sbp_buf_add(&b, ",\"pid\":");
		sbp_buf_num(&b, getpid());
		sbp_buf_add(&b, ",\"exe\":");
		sbp_buf_json(&b, sbp_exe);
		sbp_buf_add(&b, ",\"op\":");
		sbp_buf_json(&b, what);
		sbp_buf_add(&b, ",\"call\":");
		sbp_buf_json(&b, call);
		sbp_buf_add(&b, ",\"target\":\"\",\"resolved\":\"\",\"decision\":");
		sbp_buf_json(&b, sbp_pol->mode == SBP_MODE_AUDIT ? "audit" : "deny");
		sbp_buf_add(&b, ",\"reason\":");
		sbp_buf_json(&b, reason);
		sbp_buf_add(&b, ",\"rule\":null}");
		send_record(buf, b.len);
	}
	errno = saved;
}
