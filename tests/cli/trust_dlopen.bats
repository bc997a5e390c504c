#!/usr/bin/env bats
# trust_dlopen.bats: a library the gate loads to ask its version (found
# on LD_LIBRARY_PATH or under --lib-path, where a job or a pull request
# puts it) runs its constructor in a helper whose memory holds nothing of
# the gate's, and which cannot reach the gate's.  The spy is built here
# with cc under the names envparity loads (libcudart.so.13 and NVML's
# libnvidia-ml.so.1); its constructor scans its own readable memory for
# the token and the key, and tries /proc/PPID/environ, /proc/PPID/mem and
# the key named on the gate's command line (trust.bash).

load setup
load git_daemon
load trust

# The spy library, as dir/libcudart.so.13 and dir/libnvidia-ml.so.1.
spy_library() { # dir
	mkdir -p "$1"
	cat >spy.c <<EOF
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct needle { size_t n; unsigned char b[128]; };
static const struct needle hidden[] = {
$(spy_needles_c)
};
#define NN (sizeof hidden / sizeof hidden[0])

/* The needles and the read buffer live in mappings of their own, which
 * the scan skips: nothing else in this process should hold them. */
static unsigned char *needles, *buf;
#define BUF (1 << 20)

static int
hit(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < NN; i++)
		if (memmem(p, n, needles + i * 128, hidden[i].n) != NULL)
			return 1;
	return 0;
}

static int
mine(unsigned long a, unsigned long b)
{
	unsigned long n = (unsigned long)needles, f = (unsigned long)buf;

	return (n >= a && n < b) || (f >= a && f < b);
}

/* Scan the readable memory of pid: "found", "clean" or "denied". */
static const char *
scan(const char *pid)
{
	char path[64], line[512];
	unsigned long a, b;
	char perm[8];
	FILE *maps;
	int mem;

	snprintf(path, sizeof path, "/proc/%s/maps", pid);
	if ((maps = fopen(path, "r")) == NULL)
		return "denied";
	snprintf(path, sizeof path, "/proc/%s/mem", pid);
	if ((mem = open(path, O_RDONLY)) < 0) {
		fclose(maps);
		return "denied";
	}
	while (fgets(line, sizeof line, maps) != NULL) {
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perm) != 3 ||
		    perm[0] != 'r' || b - a > (256ul << 20) || mine(a, b))
			continue;
		/* Overlapping reads: a needle across a boundary is seen. */
		for (unsigned long o = a; o < b; o += BUF - 256) {
			size_t want = b - o < BUF ? b - o : BUF;
			ssize_t r = pread(mem, buf, want, (off_t)o);

			if (r > 0 && hit(buf, (size_t)r)) {
				fclose(maps);
				close(mem);
				return "found";
			}
		}
	}
	fclose(maps);
	close(mem);
	return "clean";
}

static const char *
read_all(const char *path)
{
	int fd = open(path, O_RDONLY);
	ssize_t r, len = 0;

	if (fd < 0)
		return "denied";
	while ((r = read(fd, buf + len, BUF - len)) > 0)
		len += r;
	close(fd);
	return hit(buf, (size_t)len) ? "found" : "clean";
}

__attribute__((constructor)) static void
spy(void)
{
	char self[64], pp[32], path[64], *key = NULL;
	FILE *out;
	int fd;
	ssize_t len;

	needles = mmap(NULL, NN * 128, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	buf = mmap(NULL, BUF, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t i = 0; i < NN; i++)
		for (size_t k = 0; k < hidden[i].n; k++)
			needles[i * 128 + k] = hidden[i].b[k] ^ 0x5a;
	if ((out = fopen("$T/spy/report", "a")) == NULL)
		return;
	snprintf(self, sizeof self, "%d", (int)getpid());
	snprintf(pp, sizeof pp, "%d", (int)getppid());
	fprintf(out, "ran as %d\n", (int)getuid());
	fprintf(out, "self-mem: %s\n", scan(self));
	snprintf(path, sizeof path, "/proc/%s/environ", self);
	fprintf(out, "own-environ: %s\n", read_all(path));
	snprintf(path, sizeof path, "/proc/%s/environ", pp);
	fprintf(out, "parent-environ: %s\n", read_all(path));
	snprintf(path, sizeof path, "/proc/%s/cmdline", pp);
	if ((fd = open(path, O_RDONLY)) >= 0 &&
	    (len = read(fd, buf, BUF - 1)) > 0) {
		buf[len] = '\0';
		for (char *a = (char *)buf; a < (char *)buf + len;
		    a += strlen(a) + 1)
			if (strcmp(a, "--sign-key") == 0)
				key = strdup(a + strlen(a) + 1);
	}
	if (fd >= 0)
		close(fd);
	fprintf(out, "key-path: %s\n", key ? key : "(none)");
	if (key != NULL)
		fprintf(out, "key-file: %s\n", read_all(key));
	fprintf(out, "parent-mem: %s\n", scan(pp));
	fclose(out);
}

int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }
EOF
	cc -shared -fPIC -o "$1/libcudart.so.13" spy.c
	cp "$1/libcudart.so.13" "$1/libnvidia-ml.so.1"
}

# Both loads reported, each finding nothing (the report holds two).
both_found_nothing() {
	[ "$(grep -c '^ran as ' spy/report)" -eq 2 ]
	grep -qx 'self-mem: clean' spy/report
	! grep -q 'self-mem: found' spy/report || false
	spy_found_nothing spy/report
}

@test "a library on LD_LIBRARY_PATH finds nothing of the gate's in its helper, nor through /proc" {
	needs_landlock
	trust_gate_setup
	spy_library "$T/lib"
	mkdir nosite
	# $T is private to root: the helper stays root (when we are),
	# without capabilities, fenced by Landlock.
	LD_LIBRARY_PATH=$T/lib run gate --site-packages "$T/nosite"
	echo "$output"
	[ "$status" -eq 1 ]
	[ -s att.json ]
	cat spy/report
	[ "$(fact m.json lib.cudart.path)" = "$T/lib/libcudart.so.13" ]
	[ "$(fact m.json lib.cudart.version)" = 13.0 ]
	both_found_nothing
	if [ "$(id -u)" = 0 ]; then
		grep -qx 'ran as 0' spy/report
		jq -r .meta.confinement.libraries m.json |
		    grep -q '^root without capabilities'
	fi
	jq -r .meta.confinement.libraries m.json | grep -q 'Landlock ABI'
}

@test "a library under --lib-path finds nothing either; as root, its helper runs as nobody" {
	[ "$(id -u)" = 0 ] || skip "needs root"
	trust_gate_setup
	spy_library "$T/lib"
	spy_library "$T/drv"
	mkdir nosite
	chmod 711 "$T"
	chmod -R a+rX lib drv
	LD_LIBRARY_PATH=$T/drv run gate --site-packages "$T/nosite" \
	    --lib-path "$T/lib"
	echo "$output"
	[ "$status" -eq 1 ]
	[ -s att.json ]
	cat spy/report
	[ "$(fact m.json lib.cudart.path)" = "$T/lib/libcudart.so.13" ]
	both_found_nothing
	[ "$(grep -c "^ran as $(id -u nobody)\$" spy/report)" -eq 2 ]
	jq -r .meta.confinement.libraries m.json | grep -q '^user nobody'
}
