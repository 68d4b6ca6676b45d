// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats TID...: the kernel's delay accounting of each thread, read over
 * generic netlink (TASKSTATS_CMD_GET, as Documentation/accounting/getdelays.c
 * does), for tests/integration/time_delayacct.t's ground truth. One line
 * per thread:
 *   tid=N cpu_count=N cpu_delay_ns=N blkio_count=N blkio_delay_ns=N
 *   swapin_delay_ns=N freepages_delay_ns=N thrashing_delay_ns=N
 *   run_real_ns=N
 * The delays count only while kernel.task_delayacct is 1 (a thread that
 * started before keeps 0 for what it did then). Exit 1 on any error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#define BUF 8192

struct msg {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[BUF];
};

#define GENL_DATA(m) ((void *)((char *)NLMSG_DATA(m) + GENL_HDRLEN))
#define NLA_DATA(na) ((void *)((char *)(na) + NLA_HDRLEN))

static int send_cmd(int fd, __u16 type, __u8 cmd, __u16 attr, const void *data, int len)
{
	struct msg m = { 0 };
	struct nlattr *na;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	char *p;
	int left, r;

	m.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m.n.nlmsg_type = type;
	m.n.nlmsg_flags = NLM_F_REQUEST;
	m.n.nlmsg_pid = (__u32)getpid();
	m.g.cmd = cmd;
	m.g.version = 1;
	na = (struct nlattr *)GENL_DATA(&m);
	na->nla_type = attr;
	na->nla_len = (__u16)(NLA_HDRLEN + len);
	memcpy(NLA_DATA(na), data, (size_t)len);
	m.n.nlmsg_len += NLMSG_ALIGN(na->nla_len);
	p = (char *)&m;
	left = (int)m.n.nlmsg_len;
	while (left > 0) {
		r = (int)sendto(fd, p, (size_t)left, 0, (struct sockaddr *)&to, sizeof(to));
		if (r < 0 && errno != EAGAIN)
			return -errno;
		if (r > 0) {
			p += r;
			left -= r;
		}
	}
	return 0;
}

/* the generic netlink family id of TASKSTATS */
static int family_id(int fd)
{
	struct msg m;
	struct nlattr *na;
	int r;

	if (send_cmd(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		     TASKSTATS_GENL_NAME, (int)strlen(TASKSTATS_GENL_NAME) + 1))
		return -1;
	r = (int)recv(fd, &m, sizeof(m), 0);
	if (r < 0 || m.n.nlmsg_type == NLMSG_ERROR || !NLMSG_OK(&m.n, (unsigned)r))
		return -1;
	na = (struct nlattr *)GENL_DATA(&m);
	na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
	if (na->nla_type != CTRL_ATTR_FAMILY_ID)
		return -1;
	return *(__u16 *)NLA_DATA(na);
}

static int one(int fd, int id, __u32 tid)
{
	struct msg m;
	struct nlattr *na, *nested;
	struct taskstats *t;
	int r, len, nlen;

	if (send_cmd(fd, (__u16)id, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID, &tid, sizeof(tid)))
		return -1;
	r = (int)recv(fd, &m, sizeof(m), 0);
	if (r < 0 || !NLMSG_OK(&m.n, (unsigned)r))
		return -1;
	if (m.n.nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(&m.n);

		fprintf(stderr, "taskstats: tid %u: %s\n", tid, strerror(-e->error));
		return -1;
	}
	len = (int)(m.n.nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	na = (struct nlattr *)GENL_DATA(&m);
	for (; len > 0; len -= NLA_ALIGN(na->nla_len),
	     na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len))) {
		if (na->nla_type != TASKSTATS_TYPE_AGGR_PID)
			continue;
		nlen = na->nla_len - NLA_HDRLEN;
		nested = NLA_DATA(na);
		for (; nlen > 0; nlen -= NLA_ALIGN(nested->nla_len),
		     nested = (struct nlattr *)((char *)nested + NLA_ALIGN(nested->nla_len))) {
			if (nested->nla_type != TASKSTATS_TYPE_STATS)
				continue;
			t = NLA_DATA(nested);
			printf("tid=%u cpu_count=%llu cpu_delay_ns=%llu blkio_count=%llu "
			       "blkio_delay_ns=%llu swapin_delay_ns=%llu freepages_delay_ns=%llu "
			       "thrashing_delay_ns=%llu run_real_ns=%llu\n", tid,
			       (unsigned long long)t->cpu_count,
			       (unsigned long long)t->cpu_delay_total,
			       (unsigned long long)t->blkio_count,
			       (unsigned long long)t->blkio_delay_total,
			       (unsigned long long)t->swapin_delay_total,
			       (unsigned long long)t->freepages_delay_total,
			       (unsigned long long)t->thrashing_delay_total,
			       (unsigned long long)t->cpu_run_real_total);
			return 0;
		}
	}
	fprintf(stderr, "taskstats: tid %u: no statistics in the answer\n", tid);
	return -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	int fd, id, i, err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: taskstats TID...\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		perror("taskstats: netlink socket");
		return 1;
	}
	id = family_id(fd);
	if (id < 0) {
		fprintf(stderr, "taskstats: no TASKSTATS generic netlink family "
			"(CONFIG_TASKSTATS)\n");
		return 1;
	}
	for (i = 1; i < argc; i++)
		err |= one(fd, id, (__u32)strtoul(argv[i], NULL, 10));
	close(fd);
	return err ? 1 : 0;
}
