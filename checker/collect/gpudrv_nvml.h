/*
 * gpudrv_nvml.h: what the child that loaded NVML asks it (gpudrv_nvml.c),
 * apart from how the library is loaded and its symbols resolved
 * (dynload.c, the only dlopen and dlsym caller).
 *
 * The prototypes are our own, checked against NVIDIA's nvml.h (NVML API
 * 13, as published in NVIDIA/go-nvml gen/nvml/nvml.h); README.md lists
 * each call, the symbol resolved and the enum values used.
 */
#ifndef EP_GPUDRV_NVML_H
#define EP_GPUDRV_NVML_H

#include <stddef.h>

typedef void *ep_nvml_dev;

struct ep_nvml_mem {		/* nvmlMemory_t */
	unsigned long long total, free, used;
};

struct ep_nvml_mem2 {		/* nvmlMemory_v2_t */
	unsigned version;
	unsigned long long total, reserved, free, used;
};

/* The functions, each NULL where the library lacks the symbol (only the
 * required ones are sure to be set). */
struct ep_nvml {
	int (*init)(void);
	int (*shutdown)(void);
	const char *(*error_string)(int);
	int (*driver_version)(char *, unsigned);
	int (*cuda_version)(int *);
	int (*count)(unsigned *);
	int (*handle)(unsigned, ep_nvml_dev *);
	int (*name)(ep_nvml_dev, char *, unsigned);
	int (*cc)(ep_nvml_dev, int *, int *);
	int (*vbios)(ep_nvml_dev, char *, unsigned);
	int (*ecc)(ep_nvml_dev, int *, int *);
	int (*persistence)(ep_nvml_dev, int *);
	int (*mig)(ep_nvml_dev, unsigned *, unsigned *);
	int (*memory)(ep_nvml_dev, struct ep_nvml_mem *);
	int (*remapped)(ep_nvml_dev, unsigned *, unsigned *, unsigned *,
	    unsigned *);
	/* Compared with the golden. */
	int (*pcie_gen_max)(ep_nvml_dev, unsigned *);
	int (*pcie_width_max)(ep_nvml_dev, unsigned *);
	int (*compute_mode)(ep_nvml_dev, int *);
	int (*power_limit)(ep_nvml_dev, unsigned *);
	int (*app_clock)(ep_nvml_dev, int, unsigned *);
	int (*nvlink_state)(ep_nvml_dev, unsigned, int *);
	int (*nvlink_version)(ep_nvml_dev, unsigned, unsigned *);
	int (*topo)(ep_nvml_dev, ep_nvml_dev, int *);
	/* Health: the state now, never compared. */
	int (*pcie_gen_cur)(ep_nvml_dev, unsigned *);
	int (*pcie_width_cur)(ep_nvml_dev, unsigned *);
	int (*power_enforced)(ep_nvml_dev, unsigned *);
	int (*memory_v2)(ep_nvml_dev, struct ep_nvml_mem2 *);
	int (*processes)(ep_nvml_dev, unsigned *, void *);
	int (*ecc_total)(ep_nvml_dev, int, int, unsigned long long *);
	int (*retired_pending)(ep_nvml_dev, int *);
	int (*clocks_event)(ep_nvml_dev, unsigned long long *);
	int (*clocks_throttle)(ep_nvml_dev, unsigned long long *);
};

/* One symbol to resolve into the table: its name as dlsym wants it (the
 * versioned one where nvml.h #defines the plain name to it), where its
 * pointer goes, and whether NVML is unusable without it. */
struct ep_nvml_sym {
	const char *sym;
	size_t off;
	int required;
};

/* The table's symbols (*n of them). */
const struct ep_nvml_sym *ep_nvml_syms(size_t *n);

/* Writes one line "gpu\tfield\tvalue" of the child's output. */
typedef void (*ep_nvml_emit)(const char *field, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Initialize NVML through t (every required function set), write what it
 * says through emit (the fields dynload.h lists under "gpu") and shut it
 * down. */
void ep_nvml_query(const struct ep_nvml *t, ep_nvml_emit emit);

#endif
