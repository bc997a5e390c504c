/*
 * childfilter.c: the seccomp filter a helper runs under (child_int.h):
 * no socket but the kernel's own (netlink), and no io_uring, which could
 * open one behind the filter's back.
 *
 * Landlock fences files, TCP (ABI 4) and abstract Unix sockets (ABI 6),
 * but not a Unix socket reached by its path: connect(2) to one asks only
 * for write permission on the socket file.  A helper that stays root
 * without capabilities still owns every socket root owns (a container
 * runtime's, an agent's), and any helper owns its user's (an ssh agent's,
 * which signs with that user's keys); UDP, raw and other families are no
 * rule of Landlock's at all.  None of the helpers' work needs a socket: an
 * interpreter asked for its paths, a library asked for its version, NVML,
 * the reference workload.  The one exception is a GPU shared through MPS,
 * whose clients speak to its daemon over Unix sockets: the probe keeps
 * them where MPS is in use (ep_child_filter_unix).
 *
 * Written for the architectures envparity is built for (x86-64, arm64):
 * a system call of another ABI (a 32-bit program, x32) kills the helper,
 * since its numbers are not the ones checked.  Elsewhere no filter is
 * installed, and the report says so.
 */
#include "child_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define FILTER_ARCH	AUDIT_ARCH_X86_64
#define X32_BIT		0x40000000u
#elif defined(__aarch64__)
#define FILTER_ARCH	AUDIT_ARCH_AARCH64
#endif

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS	SECCOMP_RET_KILL
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup	425	/* the same on x86-64 and arm64 */
#endif

#define DENY(e)	(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

/* args[0]'s low 32 bits: the socket's family (an int). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LO	offsetof(struct seccomp_data, args[0])
#else
#define ARG0_LO	(offsetof(struct seccomp_data, args[0]) + 4)
#endif

int
ep_child_filter_available(void)
{
#ifdef FILTER_ARCH
	return 1;
#else
	return 0;
#endif
}

int
ep_child_filter_unix(enum ep_child_kind kind)
{
	const char *pipe = getenv("CUDA_MPS_PIPE_DIRECTORY");

	if (kind != EP_CHILD_PROBE)
		return 0;
	return (pipe != NULL && *pipe != '\0') ||
	    access("/tmp/nvidia-mps", F_OK) == 0;
}

int
ep_child_filter_enter(int allow_unix)
{
#ifdef FILTER_ARCH
	/* Jump offsets count the instructions skipped. */
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH, 1, 0),
		/* 2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		/* 3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
#ifdef X32_BIT
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 0, 1),
		/* 5 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#else
		BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0),
		BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0),
#endif
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup,
		    0, 1),
		/* 7 */ BPF_STMT(BPF_RET | BPF_K, DENY(ENOSYS)),
		/* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0),
		/* 9 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 10 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
		/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 2, 0),
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX,
		    allow_unix ? 1 : 0, 0),
		/* 13 */ BPF_STMT(BPF_RET | BPF_K, DENY(EACCES)),
		/* 14 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = (unsigned short)(sizeof f / sizeof f[0]),
		.filter = f,
	};

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return -errno;
	return 0;
#else
	(void)allow_unix;
	return 0;
#endif
}
