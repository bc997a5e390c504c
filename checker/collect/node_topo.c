/*
 * node_topo.c: the PCIe topology between the node's GPUs and to its HCAs
 * as facts (node.h), read from sysfs alone, so that it is seen without a
 * GPU driver and, through the root prefix, in a fixture tree:
 *
 *   node.topo.gpus, node.topo.hcas: how many of each;
 *   node.topo.gpu<i>.numa, node.topo.hca<j>.numa: the NUMA node of each
 *     (numa_node, "none" where the kernel says -1);
 *   node.topo.hca<j>.rdma: the RDMA device's name (node.rdma.<name>.*);
 *   node.topo.gpu<i>.hca<j> for every pair, node.topo.gpu<i>.gpu<k> for
 *     i < k: the PCIe path between the two, in nvmlGpuTopologyLevel_t's
 *     words as gpu.<i>.topo.<k> uses them (nvidia-smi topo -m's legend
 *     in brackets): single (PIX, one PCIe switch), multiple (PXB,
 *     several switches, no host bridge), hostbridge (PHB, the same root
 *     complex), node (NODE, another root complex of the same NUMA node),
 *     system (SYS, across the CPUs' interconnect).
 *
 * GPUs are the PCI functions of /sys/bus/pci/devices with vendor 0x10de
 * and class 0x0300 or 0x0302 (VGA or 3D controller: not the NVSwitches,
 * which are bridges, nor a BMC's VGA of another vendor); HCAs the PCI
 * functions behind /sys/class/infiniband/<dev>/device, SR-IOV virtual
 * functions left out (they share their physical function's slot).  Both
 * are named
 * by their index in PCI address order, never by a serial or GUID (per
 * host), nor by the RDMA name alone (mlx5_10 sorts before mlx5_3).
 *
 * The path of a function is where its /sys/bus/pci/devices/<bdf> link
 * points, from its root complex ("pci0000:15/0000:15:01.0/0000:16:00.0/
 * 0000:17:03.0/0000:1b:00.0"): the link is read and never followed onto
 * "/" (the tree may be a fixture).  As NCCL's topology reader does
 * (src/graph/xml.cc), a PCIe switch is two levels of that path, its
 * upstream port and the downstream port below it: going up from a
 * function two levels at a time, each level reached under the root
 * complex is a switch.  Two functions under one root complex that share
 * no bridge meet at the host bridge; under two, their NUMA nodes say
 * node or system.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node.h"
#include "strv.h"
#include "xalloc.h"

#define PCI_DEVS	"/sys/bus/pci/devices"

const char *
ep_node_topo_name(int level)
{
	switch (level) {
	case EP_TOPO_SINGLE:
		return "single";
	case EP_TOPO_MULTIPLE:
		return "multiple";
	case EP_TOPO_HOSTBRIDGE:
		return "hostbridge";
	case EP_TOPO_NODE:
		return "node";
	case EP_TOPO_SYSTEM:
		return "system";
	default:
		return "unknown";
	}
}

char *
ep_node_pci_path(const char *link)
{
	const char *root = NULL;

	/* The last component that names a root complex ("pci0000:15",
	 * "pci10000:00" behind VMD): what follows is the PCI tree. */
	for (const char *c = link; c != NULL; c = strchr(c, '/')) {
		const char *end;

		c += c[0] == '/';
		end = strchr(c, '/');
		if (strncmp(c, "pci", 3) == 0 && c[3] != '/' && c[3] != '\0' &&
		    memchr(c, ':', end != NULL ? (size_t)(end - c) :
		    strlen(c)) != NULL)
			root = c;
	}
	if (root == NULL || strchr(root, '/') == NULL ||
	    strchr(root, '/')[1] == '\0')
		return NULL;
	return xstrdup(root);
}

/* The components of a path, split at '/', into out (its strings are
 * new). */
static void
split(struct ep_strv *out, const char *path)
{
	const char *p = path;

	while (*p != '\0') {
		const char *e = strchr(p, '/');
		size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
		char *c;

		if (len > 0) {
			c = xstrndup(p, len);
			ep_strv_push(out, c);
			free(c);
		}
		if (e == NULL)
			break;
		p = e + 1;
	}
}

/* Whether the first n components of a and b are equal. */
static int
same_prefix(const struct ep_strv *a, const struct ep_strv *b, size_t n)
{
	if (a->n < n || b->n < n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return 0;
	return 1;
}

/* How many switches of c's path (the levels last-2, last-4, ... above
 * the root complex: the upstream ports) are not also above o. */
static size_t
own_switches(const struct ep_strv *c, const struct ep_strv *o)
{
	size_t own = 0;

	for (long s = (long)c->n - 3; s >= 1; s -= 2)
		if (!(o->n > (size_t)s + 1 && same_prefix(c, o, (size_t)s + 1)))
			own++;
	return own;
}

int
ep_node_topo_level(const char *a, const char *b, int numa_a, int numa_b)
{
	struct ep_strv ca = { 0 }, cb = { 0 };
	size_t own;
	int level;

	split(&ca, a);
	split(&cb, b);
	if (ca.n < 2 || cb.n < 2)
		level = -1;
	else if (strcmp(ca.v[0], cb.v[0]) != 0)
		level = numa_a == numa_b ? EP_TOPO_NODE : EP_TOPO_SYSTEM;
	else if (!same_prefix(&ca, &cb, 2))
		level = EP_TOPO_HOSTBRIDGE;	/* no bridge in common */
	else {
		own = own_switches(&ca, &cb) + own_switches(&cb, &ca);
		/* The bridges they share (a root port at least) are one
		 * switch on the way; each one of their own is another. */
		level = own == 0 ? EP_TOPO_SINGLE : EP_TOPO_MULTIPLE;
	}
	ep_strv_clear(&ca);
	ep_strv_clear(&cb);
	return level;
}

/* Whether a name is a PCI address ("0000:1b:00.0"), which may be part
 * of a path (never of a key). */
static int
bdf_ok(const char *name)
{
	size_t len = strlen(name);

	return len >= 7 && len <= 32 &&
	    strspn(name, "0123456789abcdefABCDEF:.") == len;
}

struct pcidev {
	char *bdf;		/* 0000:1b:00.0 */
	char *path;		/* from the root complex */
	char *rdma;		/* the RDMA device's name (HCAs) */
	int numa;		/* -1: none */
};

static int
pcidev_cmp(const void *x, const void *y)
{
	const struct pcidev *a = x, *b = y;
	int c = strcmp(a->bdf, b->bdf);

	if (c != 0 || a->rdma == NULL || b->rdma == NULL)
		return c;
	return strcmp(a->rdma, b->rdma);
}

/* The path and NUMA node of the PCI function bdf, or -1; -1 too for an
 * SR-IOV virtual function (its physfn link: Documentation/ABI/testing/
 * sysfs-bus-pci), which sits in its physical function's slot: sixteen
 * VFs of an HCA are not sixteen more HCAs. */
static int
pci_locate(struct pcidev *d, const struct ep_node *n, const char *bdf)
{
	char *link = xasprintf("%s" PCI_DEVS "/%s", n->root, bdf);
	char *dir = xasprintf(PCI_DEVS "/%s", bdf), *v = NULL;
	char *physfn = xasprintf("%s/physfn", link);
	char buf[4096];
	ssize_t len = readlink(link, buf, sizeof buf - 1);

	if (access(physfn, F_OK) == 0)
		len = -1;
	free(physfn);
	free(link);
	d->path = NULL;
	if (len > 0) {
		buf[len] = '\0';
		d->path = ep_node_pci_path(buf);
	}
	d->numa = -1;
	if (d->path != NULL && ep_node_attr(&v, n, dir, "numa_node") == 0) {
		char *end;
		long x = strtol(v, &end, 10);

		if (*end == '\0' && end != v && x >= 0 && x < 1 << 16)
			d->numa = (int)x;
	}
	free(v);
	free(dir);
	if (d->path == NULL)
		return -1;
	d->bdf = xstrdup(bdf);
	d->rdma = NULL;
	return 0;
}

/* Whether the function is an NVIDIA GPU: vendor 0x10de, class 0x0300xx
 * (VGA) or 0x0302xx (3D controller). */
static int
is_gpu(const struct ep_node *n, const char *bdf)
{
	char *dir = xasprintf(PCI_DEVS "/%s", bdf), *v = NULL;
	int yes = 0;

	if (ep_node_attr(&v, n, dir, "vendor") == 0 &&
	    strcmp(v, "0x10de") == 0) {
		free(v);
		if (ep_node_attr(&v, n, dir, "class") == 0)
			yes = strncmp(v, "0x0300", 6) == 0 ||
			    strncmp(v, "0x0302", 6) == 0;
	}
	free(v);
	free(dir);
	return yes;
}

static void
pcidevs_free(struct pcidev *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].bdf);
		free(v[i].path);
		free(v[i].rdma);
	}
	free(v);
}

/* The GPUs of /sys/bus/pci/devices, in PCI order; -1 when there is no
 * such directory (no PCI, or not this tree's). */
static int
find_gpus(struct pcidev **out, size_t *count, const struct ep_node *n)
{
	char *full = ep_node_path(n, PCI_DEVS);
	DIR *d = opendir(full);
	struct dirent *e;
	size_t cap = 0;

	free(full);
	*out = NULL;
	*count = 0;
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		struct pcidev g;

		if (!bdf_ok(e->d_name) ||
		    !is_gpu(n, e->d_name) || pci_locate(&g, n, e->d_name) < 0)
			continue;
		if (*count == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xreallocarray(*out, cap, sizeof **out);
		}
		(*out)[(*count)++] = g;
	}
	closedir(d);
	if (*count > 1)
		qsort(*out, *count, sizeof **out, pcidev_cmp);
	return 0;
}

/* The HCAs of /sys/class/infiniband whose PCI function is found, in PCI
 * order. */
static void
find_hcas(struct pcidev **out, size_t *count, const struct ep_node *n)
{
	char *full = ep_node_path(n, "/sys/class/infiniband");
	DIR *d = opendir(full);
	struct dirent *e;
	size_t cap = 0;

	*out = NULL;
	*count = 0;
	while (d != NULL && (e = readdir(d)) != NULL) {
		char *link, buf[4096], *bdf;
		struct pcidev h;
		ssize_t len;

		if (e->d_name[0] == '.' || !ep_node_name_ok(e->d_name))
			continue;	/* node_hw.c says so */
		link = xasprintf("%s/%s/device", full, e->d_name);
		len = readlink(link, buf, sizeof buf - 1);
		free(link);
		if (len <= 0)
			continue;	/* rxe, siw: no PCI function */
		buf[len] = '\0';
		while (len > 1 && buf[len - 1] == '/')
			buf[--len] = '\0';
		bdf = strrchr(buf, '/') != NULL ? strrchr(buf, '/') + 1 : buf;
		if (!bdf_ok(bdf) || pci_locate(&h, n, bdf) < 0)
			continue;
		h.rdma = xstrdup(e->d_name);
		if (*count == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xreallocarray(*out, cap, sizeof **out);
		}
		(*out)[(*count)++] = h;
	}
	if (d != NULL)
		closedir(d);
	free(full);
	if (*count > 1)
		qsort(*out, *count, sizeof **out, pcidev_cmp);
}

static void
set_numa(struct ep_manifest *m, const char *key, int numa)
{
	if (numa < 0)
		ep_manifest_set(m, key, "none");
	else
		ep_manifest_setf(m, key, "%d", numa);
}

void
ep_node_topo(struct ep_node *n)
{
	struct pcidev *gpus, *hcas;
	size_t ng, nh;
	char key[96];

	if (find_gpus(&gpus, &ng, n) < 0)
		return;
	find_hcas(&hcas, &nh, n);
	ep_manifest_setf(n->m, "node.topo.gpus", "%zu", ng);
	ep_manifest_setf(n->m, "node.topo.hcas", "%zu", nh);
	for (size_t j = 0; j < nh; j++) {
		snprintf(key, sizeof key, "node.topo.hca%zu.numa", j);
		set_numa(n->m, key, hcas[j].numa);
		snprintf(key, sizeof key, "node.topo.hca%zu.rdma", j);
		ep_manifest_set(n->m, key, hcas[j].rdma);
	}
	for (size_t i = 0; i < ng; i++) {
		snprintf(key, sizeof key, "node.topo.gpu%zu.numa", i);
		set_numa(n->m, key, gpus[i].numa);
		for (size_t k = i + 1; k < ng; k++) {
			snprintf(key, sizeof key, "node.topo.gpu%zu.gpu%zu", i, k);
			ep_manifest_set(n->m, key, ep_node_topo_name(
			    ep_node_topo_level(gpus[i].path, gpus[k].path,
			    gpus[i].numa, gpus[k].numa)));
		}
		for (size_t j = 0; j < nh; j++) {
			snprintf(key, sizeof key, "node.topo.gpu%zu.hca%zu", i, j);
			ep_manifest_set(n->m, key, ep_node_topo_name(
			    ep_node_topo_level(gpus[i].path, hcas[j].path,
			    gpus[i].numa, hcas[j].numa)));
		}
	}
	pcidevs_free(gpus, ng);
	pcidevs_free(hcas, nh);
}
