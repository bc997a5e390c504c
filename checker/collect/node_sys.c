/*
 * node_sys.c: the node's kernel and its settings as facts (node.h), each
 * read from the file the kernel documents it in:
 *
 *   node.kmod.<m>.state, .version: the modules that GPUs and RDMA need,
 *     "loaded" (a loadable module: /sys/module/<m>/initstate exists),
 *     "builtin" (the directory without initstate) or "absent", and the
 *     module's MODULE_VERSION where it has one (Documentation/ABI/stable/
 *     sysfs-module: /sys/module/<m> "will always show up if the module is
 *     loaded as a dynamic module", version "if the module source has
 *     MODULE_VERSION"; nvidia's is the driver's version).
 *   node.fabricmanager.version: where nv-fabricmanager is installed, its
 *     dpkg package's version (/var/lib/dpkg/status): read, never run.
 *     Elsewhere "not checked", and meta.unavailable.fabricmanager says
 *     why: on an RPM system the version is only in the RPM database
 *     (rpmdb.sqlite from RPM 4.16, Berkeley DB or NDB before; NVIDIA's
 *     package installs no file that carries it: fabricmanager.spec of
 *     NVIDIA/yum-packaging-fabric-manager), which envparity does not
 *     read; a tarball install records it nowhere.
 *   node.mem.total_mib (MemTotal, rounded: ep_node_round_mib),
 *     node.mem.hugepages, node.mem.hugepage_size_kb (HugePages_Total,
 *     Hugepagesize), node.mem.swap (SwapTotal above 0: "yes"), all of
 *     /proc/meminfo (Documentation/filesystems/proc.rst); node.mem.thp,
 *     the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled
 *     (Documentation/ABI/testing/sysfs-kernel-mm-transparent-hugepage,
 *     admin-guide/mm/transhuge.rst); node.shm.size_mib, statvfs of
 *     /dev/shm, rounded the same way (tmpfs defaults to half the RAM).
 *   node.numa.nodes: how many /sys/devices/system/node/online lists
 *     (Documentation/ABI/stable/sysfs-devices-node); node.cpu.smt:
 *     /sys/devices/system/cpu/smt/control (on, off, forceoff,
 *     notsupported, notimplemented), else smt/active
 *     (Documentation/ABI/testing/sysfs-devices-system-cpu);
 *     node.cpu.governor: the set of cpufreq/policy*\/scaling_governor
 *     over the CPUs (the same document), "none" without cpufreq.
 *   node.limits.memlock, .nofile, .stack: this process's soft limits
 *     (getrlimit), which under srun are the job's: RDMA wants memlock
 *     "unlimited".
 *   node.cmdline.<param>: the allowlisted parameters of /proc/cmdline
 *     (admin-guide/kernel-parameters.txt), never the whole line.
 */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "files.h"
#include "node.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* The modules that GPU and RDMA work needs, or that tell which stack is
 * there (nv_peer_mem is nvidia_peermem's predecessor). */
static const char *const kmods[] = {
	"gdrdrv", "ib_core", "ib_ipoib", "ib_umad", "ib_uverbs", "mlx5_core",
	"mlx5_ib", "nv_peer_mem", "nvidia", "nvidia_drm", "nvidia_fs",
	"nvidia_modeset", "nvidia_peermem", "nvidia_uvm", "rdma_cm",
	"rdma_ucm", NULL,
};

/* Kernel parameters that change I/O paths, memory, scheduling or CPU
 * behaviour under a training job (admin-guide/kernel-parameters.txt);
 * '-' is written '_', as the kernel treats them alike. */
static const char *const cmdline_allow[] = {
	"amd_iommu", "amd_pstate", "default_hugepagesz", "hugepages",
	"hugepagesz", "idle", "init_on_alloc", "init_on_free",
	"intel_idle.max_cstate", "intel_iommu", "intel_pstate", "iommu",
	"iommu.passthrough", "iommu.strict", "isolcpus", "mitigations",
	"nohz_full", "nosmt", "numa_balancing", "pci", "pcie_aspm",
	"processor.max_cstate", "rcu_nocbs", "transparent_hugepage", NULL,
};

void
ep_node_kmods(struct ep_node *n)
{
	for (size_t i = 0; kmods[i] != NULL; i++) {
		char *dir = xasprintf("/sys/module/%s", kmods[i]);
		char *full = ep_node_path(n, dir);
		char *init = xasprintf("%s/initstate", full);
		char *key = xasprintf("node.kmod.%s.state", kmods[i]);
		char *v;

		if (access(init, F_OK) == 0)
			ep_manifest_set(n->m, key, "loaded");
		else if (access(full, F_OK) == 0)
			ep_manifest_set(n->m, key, "builtin");
		else
			ep_manifest_set(n->m, key, "absent");
		if (ep_node_attr(&v, n, dir, "version") == 0) {
			free(key);
			key = xasprintf("node.kmod.%s.version", kmods[i]);
			ep_manifest_set(n->m, key, v);
			free(v);
		}
		free(key);
		free(init);
		free(full);
		free(dir);
	}
}

/* The value of "Field: value" in one dpkg stanza [s, e), or NULL. */
static char *
stanza_field(const char *s, const char *e, const char *field)
{
	size_t flen = strlen(field);

	for (const char *l = s; l < e; ) {
		const char *end = memchr(l, '\n', (size_t)(e - l));

		if (end == NULL)
			end = e;
		if ((size_t)(end - l) > flen && strncmp(l, field, flen) == 0 &&
		    l[flen] == ':')
			return ep_trim(xstrndup(l + flen + 1,
			    (size_t)(end - l) - flen - 1));
		l = end + 1;
	}
	return NULL;
}

static int
fm_package(const char *pkg, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(pkg, name, len) != 0)
		return 0;
	if (pkg[len] == '\0')
		return 1;
	return pkg[len] == '-' && pkg[len + 1] != '\0' &&
	    strspn(pkg + len + 1, "0123456789") == strlen(pkg + len + 1);
}

char *
ep_node_dpkg_version(const char *status, const char *name)
{
	const char *s = status;

	while (s != NULL && *s != '\0') {
		const char *e = strstr(s, "\n\n");
		char *pkg, *st, *ver = NULL, *colon, *dash;

		e = e != NULL ? e + 1 : s + strlen(s);
		pkg = stanza_field(s, e, "Package");
		st = stanza_field(s, e, "Status");
		if (pkg != NULL && st != NULL && fm_package(pkg, name) &&
		    ep_endswith(st, " installed"))
			ver = stanza_field(s, e, "Version");
		free(pkg);
		free(st);
		if (ver != NULL) {
			/* [epoch:]upstream[-revision] (deb-version(7)) */
			colon = strchr(ver, ':');
			if (colon != NULL)
				memmove(ver, colon + 1, strlen(colon + 1) + 1);
			if ((dash = strrchr(ver, '-')) != NULL)
				*dash = '\0';
			if (ver[0] != '\0')
				return ver;
			free(ver);
		}
		s = *e != '\0' ? e + 1 : NULL;
	}
	return NULL;
}

/* The RPM database of the tree, "" when there is none (a new string). */
static char *
rpmdb(const struct ep_node *n)
{
	static const char *const paths[] = {
		"/var/lib/rpm/rpmdb.sqlite", "/usr/lib/sysimage/rpm/rpmdb.sqlite",
		"/var/lib/rpm/Packages", "/var/lib/rpm/Packages.db",
		"/usr/lib/sysimage/rpm/Packages.db", NULL,
	};

	for (size_t i = 0; paths[i] != NULL; i++) {
		char *full = ep_node_path(n, paths[i]);
		int there = access(full, F_OK) == 0;

		free(full);
		if (there)
			return xstrdup(paths[i]);
	}
	return xstrdup("");
}

void
ep_node_fabricmanager(struct ep_node *n)
{
	char *bin = ep_node_path(n, "/usr/bin/nv-fabricmanager");
	char *status = ep_node_path(n, "/var/lib/dpkg/status");
	char *text = NULL, *v = NULL, *rpm = NULL;
	struct ep_err err = { 0 };

	if (access(bin, F_OK) != 0)
		goto done;
	if (ep_read_regular(&text, NULL, status, 256 << 20, &err) == 0)
		v = ep_node_dpkg_version(text, "nvidia-fabricmanager");
	if (v != NULL) {
		ep_manifest_set(n->m, "node.fabricmanager.version", v);
		goto done;
	}
	/* Installed, its version unknown: said, in the fact too, so that
	 * stack.node.fabricmanager says what it could not check. */
	ep_manifest_set(n->m, "node.fabricmanager.version", "not checked");
	if ((rpm = rpmdb(n))[0] != '\0')
		ep_manifest_unavailable(n->m, "fabricmanager", "%s is "
		    "installed on an RPM system: its version is only in the "
		    "RPM database %s, which envparity does not read; compare "
		    "`nv-fabricmanager --version` with the driver's", bin, rpm);
	else
		ep_manifest_unavailable(n->m, "fabricmanager", "%s is "
		    "installed, but no dpkg package nvidia-fabricmanager "
		    "records its version%s%s", bin, err.msg[0] ? ": " : "",
		    err.msg);
done:
	free(rpm);
	free(v);
	free(text);
	free(status);
	free(bin);
}

char *
ep_node_choice(const char *text)
{
	const char *a = strchr(text, '['), *b;

	if (a == NULL || (b = strchr(a, ']')) == NULL || b == a + 1)
		return NULL;
	return xstrndup(a + 1, (size_t)(b - a - 1));
}

long
ep_node_list_count(const char *list)
{
	const char *p = list;
	long count = 0;

	while (*p != '\0') {
		char *end;
		unsigned long a, b;

		if (!ep_ascii_digit((unsigned char)*p))
			return -1;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (!ep_ascii_digit((unsigned char)end[1]))
				return -1;
			b = strtoul(end + 1, &end, 10);
			if (b < a || b - a > 1UL << 20)
				return -1;
		}
		count += (long)(b - a + 1);
		if (*end == ',' && end[1] != '\0')
			end++;
		else if (*end != '\0')
			return -1;
		p = end;
	}
	return count;
}

uint64_t
ep_node_round_mib(uint64_t bytes)
{
	uint64_t mib = bytes >> 20, step = 1;
	int log2 = 0;

	if (bytes - (mib << 20) >= 1 << 19)
		mib++;		/* to the nearest MiB */
	for (uint64_t v = mib; v > 1; v >>= 1)
		log2++;
	if (log2 > 5)
		step = (uint64_t)1 << (log2 - 5);
	return (mib + step / 2) / step * step;
}

char *
ep_node_rlim(rlim_t v)
{
	if (v == RLIM_INFINITY)
		return xstrdup("unlimited");
	return xasprintf("%llu", (unsigned long long)v);
}

/* The value of "Name: N kB" (or "Name: N") in /proc/meminfo, or -1. */
static long long
meminfo(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *l = text; l != NULL && *l != '\0'; ) {
		if (strncmp(l, name, len) == 0 && l[len] == ':')
			return strtoll(l + len + 1, NULL, 10);
		l = strchr(l, '\n');
		l = l != NULL ? l + 1 : NULL;
	}
	return -1;
}

void
ep_node_memory(struct ep_node *n)
{
	char *v = NULL, *full = ep_node_path(n, "/proc/meminfo"), *word;
	struct statvfs sv;
	long long kb;

	if (ep_node_read(&v, full) == 0) {
		if ((kb = meminfo(v, "MemTotal")) > 0)
			ep_manifest_setf(n->m, "node.mem.total_mib", "%llu",
			    (unsigned long long)ep_node_round_mib(
			    (uint64_t)kb << 10));
		if ((kb = meminfo(v, "HugePages_Total")) >= 0)
			ep_manifest_setf(n->m, "node.mem.hugepages", "%lld", kb);
		if ((kb = meminfo(v, "Hugepagesize")) >= 0)
			ep_manifest_setf(n->m, "node.mem.hugepage_size_kb",
			    "%lld", kb);
		if ((kb = meminfo(v, "SwapTotal")) >= 0)
			ep_manifest_set(n->m, "node.mem.swap", kb > 0 ? "yes" :
			    "no");
	} else
		ep_manifest_unavailable(n->m, "node", "%s: %s", full,
		    strerror(errno));
	free(v);
	free(full);
	if (ep_node_attr(&v, n, "/sys/kernel/mm/transparent_hugepage",
	    "enabled") == 0 && (word = ep_node_choice(v)) != NULL) {
		ep_manifest_set(n->m, "node.mem.thp", word);
		free(word);
	}
	free(v);
	full = ep_node_path(n, "/dev/shm");
	if (statvfs(full, &sv) == 0)
		ep_manifest_setf(n->m, "node.shm.size_mib", "%llu",
		    (unsigned long long)ep_node_round_mib((uint64_t)sv.f_blocks *
		    sv.f_frsize));
	else if (errno == ENOENT)
		ep_manifest_set(n->m, "node.shm.size_mib", "none");
	free(full);
}

/* node.cpu.governor: the governors of every cpufreq policy, sorted and
 * each once. */
static void
governors(struct ep_node *n)
{
	char *pat = ep_node_path(n,
	    "/sys/devices/system/cpu/cpufreq/policy*/scaling_governor");
	struct ep_strv set = { 0 };
	glob_t g;
	char *v, *all;
	size_t len = 1;

	if (glob(pat, GLOB_NOSORT, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (ep_node_read(&v, g.gl_pathv[i]) == 0) {
				if (!ep_strv_contains(&set, v) && v[0] != '\0')
					ep_strv_push(&set, v);
				free(v);
			}
		globfree(&g);
	}
	free(pat);
	ep_strv_sort(&set);
	for (size_t i = 0; i < set.n; i++)
		len += strlen(set.v[i]) + 1;
	all = xcalloc(1, len);
	for (size_t i = 0; i < set.n; i++) {
		if (i > 0)
			strcat(all, " ");
		strcat(all, set.v[i]);
	}
	ep_manifest_set(n->m, "node.cpu.governor", set.n ? all : "none");
	free(all);
	ep_strv_clear(&set);
}

void
ep_node_cpu(struct ep_node *n)
{
	char *v;
	long count;

	if (ep_node_attr(&v, n, "/sys/devices/system/node", "online") == 0 &&
	    (count = ep_node_list_count(v)) > 0)
		ep_manifest_setf(n->m, "node.numa.nodes", "%ld", count);
	free(v);
	if (ep_node_attr(&v, n, "/sys/devices/system/cpu/smt", "control") ==
	    0 && v[0] != '\0')
		ep_manifest_set(n->m, "node.cpu.smt", v);
	else {
		free(v);
		if (ep_node_attr(&v, n, "/sys/devices/system/cpu/smt",
		    "active") == 0)
			ep_manifest_set(n->m, "node.cpu.smt", strcmp(v, "1") == 0 ?
			    "on" : "off");
	}
	free(v);
	governors(n);
}

void
ep_node_limits(struct ep_node *n)
{
	static const struct {
		int res;
		const char *key;
	} lims[] = {
		{ RLIMIT_MEMLOCK, "node.limits.memlock" },
		{ RLIMIT_NOFILE, "node.limits.nofile" },
		{ RLIMIT_STACK, "node.limits.stack" },
	};
	struct rlimit rl;
	char *v;

	for (size_t i = 0; i < sizeof lims / sizeof lims[0]; i++) {
		if (getrlimit(lims[i].res, &rl) != 0)
			continue;
		v = ep_node_rlim(rl.rlim_cur);
		ep_manifest_set(n->m, lims[i].key, v);
		free(v);
	}
}

/* One "name[=value]" token: a fact when name is allowlisted. */
static void
cmdline_param(struct ep_manifest *m, char *tok)
{
	char *eq = strchr(tok, '='), *val = "on", *key;
	const char *old;

	if (eq != NULL) {
		*eq = '\0';
		val = eq + 1;
	}
	for (char *p = tok; *p != '\0'; p++)
		if (*p == '-')
			*p = '_';
	for (size_t i = 0; cmdline_allow[i] != NULL; i++) {
		if (strcmp(tok, cmdline_allow[i]) != 0)
			continue;
		key = xasprintf("node.cmdline.%s", tok);
		if ((old = ep_manifest_get(m, key)) != NULL) {
			char *both = xasprintf("%s %s", old, val);

			ep_manifest_set(m, key, both);
			free(both);
		} else
			ep_manifest_set(m, key, val);
		free(key);
		return;
	}
}

void
ep_node_cmdline_facts(struct ep_manifest *m, const char *cmdline)
{
	char *copy = xstrdup(cmdline), *p = copy;

	for (;;) {
		char *tok, *o;
		int quoted = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		/* The kernel's next_arg(): quotes group, and are dropped. */
		tok = o = p;
		for (; *p != '\0'; p++) {
			if (*p == '"') {
				quoted = !quoted;
				continue;
			}
			if (!quoted && (*p == ' ' || *p == '\t' || *p == '\n'))
				break;
			*o++ = *p;
		}
		if (*p != '\0')
			p++;
		*o = '\0';
		if (strcmp(tok, "--") == 0)
			break;	/* the rest is init's */
		cmdline_param(m, tok);
	}
	free(copy);
}

void
ep_node_cmdline(struct ep_node *n)
{
	char *v, *full = ep_node_path(n, "/proc/cmdline");

	if (ep_node_read(&v, full) == 0)
		ep_node_cmdline_facts(n->m, v);
	free(v);
	free(full);
}
