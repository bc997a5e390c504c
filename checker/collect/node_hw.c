/*
 * node_hw.c: the node's fabric as facts (node.h).
 *
 * node.rdma.<hca>.{hca_type,fw_ver,board_id} and
 * node.rdma.<hca>.port<N>.{state,phys_state,rate,link_layer}: every
 * device of /sys/class/infiniband (InfiniBand HCAs, and RoCE ones, whose
 * link_layer is "Ethernet"), as Documentation/ABI/stable/
 * sysfs-class-infiniband documents them: fw_ver (v4.10), hca_type and
 * board_id (per driver: mthca, mlx4, cxgb4, qib there; mlx5's main.c has
 * the same files, "MT%d" of the PCI device id), ports/<port-num>/{state,
 * phys_state,rate,link_layer}.  The kernel writes them as
 * drivers/infiniband/core/sysfs.c prints them: state "%d: %s" ("4:
 * ACTIVE"), phys_state "%u: %s" ("5: LinkUp"), rate "%d%s Gb/sec
 * (%dX%s)" ("400 Gb/sec (4X NDR)"), kept whole, since a port trained
 * down differs in either part.  node_guid, sys_image_guid, lid, gids and
 * the counters are never read: the first are per host, the counters
 * change on a healthy node.
 *
 * node.net.<if>.{driver,mtu,speed}: the interfaces of /sys/class/net
 * that are hardware, told by <if>/device existing (Documentation/ABI/
 * testing/sysfs-class-net: "device": a link to the underlying device,
 * which veth, bridges, docker0, lo and tunnels lack); driver is the name
 * of <if>/device/driver's target, mtu and speed (Mb/s) the attributes of
 * the same names.  speed is "unknown" where the kernel says -1 or cannot
 * say (a link that is down answers EINVAL).  address (the MAC) is never
 * read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

static void
name_skipped(struct ep_manifest *m, const char *what, const char *name)
{
	ep_manifest_warn(m, "node: %s '%.64s' skipped: its name cannot be "
	    "part of a fact key", what, name);
}

/* The entries of a directory that may name a fact, sorted, into out
 * (empty when the directory cannot be read); what NULL: every entry but
 * "." and "..", for the caller to judge. */
static void
list_names(struct ep_strv *out, const char *dir, const char *what,
    struct ep_manifest *m)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (what != NULL && !ep_node_name_ok(e->d_name)) {
			name_skipped(m, what, e->d_name);
			continue;
		}
		ep_strv_push(out, e->d_name);
	}
	closedir(d);
	ep_strv_sort(out);
}

/* Set node.<prefix>.<name> from the attribute dir/name when it reads. */
static void
set_attr(struct ep_node *n, const char *dir, const char *name,
    const char *prefix, const char *keyname)
{
	char *v, *key;

	if (ep_node_attr(&v, n, dir, name) < 0)
		return;
	key = xasprintf("node.%s.%s", prefix, keyname);
	ep_manifest_set(n->m, key, v);
	free(key);
	free(v);
}

static void
rdma_ports(struct ep_node *n, const char *dev)
{
	static const char *const attrs[] = { "state", "phys_state", "rate",
	    "link_layer", NULL };
	char *rel = xasprintf("/sys/class/infiniband/%s/ports", dev);
	char *full = ep_node_path(n, rel);
	struct ep_strv ports = { 0 };

	list_names(&ports, full, NULL, n->m);
	for (size_t i = 0; i < ports.n; i++) {
		char *dir, *prefix;

		if (strspn(ports.v[i], "0123456789") != strlen(ports.v[i]))
			continue;
		dir = xasprintf("%s/%s", rel, ports.v[i]);
		prefix = xasprintf("rdma.%s.port%s", dev, ports.v[i]);
		for (size_t a = 0; attrs[a] != NULL; a++)
			set_attr(n, dir, attrs[a], prefix, attrs[a]);
		free(dir);
		free(prefix);
	}
	ep_strv_clear(&ports);
	free(full);
	free(rel);
}

void
ep_node_rdma(struct ep_node *n)
{
	static const char *const attrs[] = { "hca_type", "fw_ver", "board_id",
	    NULL };
	char *full = ep_node_path(n, "/sys/class/infiniband");
	struct ep_strv devs = { 0 };

	list_names(&devs, full, "RDMA device", n->m);
	for (size_t i = 0; i < devs.n; i++) {
		char *dir = xasprintf("/sys/class/infiniband/%s", devs.v[i]);
		char *prefix = xasprintf("rdma.%s", devs.v[i]);

		for (size_t a = 0; attrs[a] != NULL; a++)
			set_attr(n, dir, attrs[a], prefix, attrs[a]);
		rdma_ports(n, devs.v[i]);
		free(dir);
		free(prefix);
	}
	ep_strv_clear(&devs);
	free(full);
}

/* The name of the driver bound to the interface's device, a new string,
 * or NULL. */
static char *
net_driver(const struct ep_node *n, const char *ifname)
{
	char *link = xasprintf("%s/sys/class/net/%s/device/driver", n->root,
	    ifname);
	char buf[4096], *slash;
	ssize_t len = readlink(link, buf, sizeof buf - 1);

	free(link);
	if (len <= 0)
		return NULL;
	buf[len] = '\0';
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = '\0';
	slash = strrchr(buf, '/');
	return xstrdup(slash != NULL ? slash + 1 : buf);
}

void
ep_node_net(struct ep_node *n)
{
	char *full = ep_node_path(n, "/sys/class/net");
	struct ep_strv ifs = { 0 };

	/* Names judged after the device: a VLAN (eth0.100) is virtual, no
	 * fact and no warning. */
	list_names(&ifs, full, NULL, n->m);
	for (size_t i = 0; i < ifs.n; i++) {
		char *dev = xasprintf("%s/%s/device", full, ifs.v[i]);
		char *dir, *prefix, *key, *v;

		if (access(dev, F_OK) != 0) {
			free(dev);
			continue;	/* virtual: veth, bridge, lo, ... */
		}
		free(dev);
		if (!ep_node_name_ok(ifs.v[i])) {
			name_skipped(n->m, "network interface", ifs.v[i]);
			continue;
		}
		dir = xasprintf("/sys/class/net/%s", ifs.v[i]);
		prefix = xasprintf("net.%s", ifs.v[i]);
		if ((v = net_driver(n, ifs.v[i])) != NULL) {
			key = xasprintf("node.%s.driver", prefix);
			ep_manifest_set(n->m, key, v);
			free(key);
			free(v);
		}
		set_attr(n, dir, "mtu", prefix, "mtu");
		key = xasprintf("node.%s.speed", prefix);
		if (ep_node_attr(&v, n, dir, "speed") < 0 || v[0] == '-' ||
		    v[0] == '\0')
			ep_manifest_set(n->m, key, "unknown");
		else
			ep_manifest_set(n->m, key, v);
		free(v);
		free(key);
		free(dir);
		free(prefix);
	}
	ep_strv_clear(&ifs);
	free(full);
}
