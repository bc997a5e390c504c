# gpu_probes/probe.mk: build rules for envparity-probe, included by the
# Makefile.  Sets PROBE_ALL (the binary), PROBE_UNITS (its cmocka tests,
# $(B)/tests/test_probe_*, from tests/probe/test_*.c) and PROBE_INSTALL
# (the target that installs it).
#
# The probe links only libc, libdl, libpthread, libm and libcrypto, so
# that one binary runs on any GPU host: every NVIDIA library is loaded at
# run time (loader.c).  Its kernels (kernels.cu) are compiled by nvcc,
# when there is one, into a fatbin embedded in the binary; without nvcc
# (or with NVCC= on the command line) the cuda backend reports itself not
# built and everything else still builds.

# Included before the Makefile's first target: keep `make` meaning all.
ifeq ($(.DEFAULT_GOAL),)
.DEFAULT_GOAL := all
endif

ifeq ($(origin NVCC),undefined)
NVCC := $(shell command -v nvcc 2>/dev/null || \
	{ test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
endif
# SASS for Ampere and Hopper, PTX for compute_80 that newer GPUs' drivers
# compile; no fused multiply-add, so that gemm follows spec.h's order.
NVCC_FLAGS ?= -std=c++17 --fmad=false \
	-gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_80,code=compute_80

# The Makefile's flags without pkg-config's, and with floating point kept
# exact: no contraction into FMA, no fast-math reassociation (after
# CFLAGS, so that a user's -ffast-math cannot change the hashes).
PROBE_CFLAGS = -std=c17 $(OPT) $(WARN) $(SANFLAGS) -D_GNU_SOURCE \
	-D_FILE_OFFSET_BITS=64 -pthread -Igpu_probes -Ichecker/util \
	$(shell $(PKG_CONFIG) --cflags libcrypto) $(CPPFLAGS) $(CFLAGS) \
	-fno-fast-math -ffp-contract=off $(PROBE_DEFS)
PROBE_LIBS = $(shell $(PKG_CONFIG) --libs libcrypto) -lpthread -ldl -lm

PROBE_SRCS := $(sort $(wildcard gpu_probes/*.c))
PROBE_OBJS := $(PROBE_SRCS:gpu_probes/%.c=$(B)/probe/%.o) \
	$(B)/probe/util/util.o $(B)/probe/util/files.o \
	$(B)/probe/util/outfile.o
PROBE_DEFS :=
ifneq ($(NVCC),)
PROBE_DEFS += -DPROBE_HAVE_FATBIN=1
PROBE_OBJS += $(B)/probe/fatbin.o
endif
PROBE_LIB_OBJS := $(filter-out $(B)/probe/main.o,$(PROBE_OBJS))

PROBE_TEST_SRCS := $(sort $(wildcard tests/probe/test_*.c))
PROBE_UNITS := $(PROBE_TEST_SRCS:tests/probe/test_%.c=$(B)/tests/test_probe_%)
# TEST DOUBLES of libcuda.so.1 (tests/probe/fake_cuda.c) and of
# libnvidia-ml.so.1 (tests/doubles/fake_nvml.c) for the tests, side by
# side so that one LD_LIBRARY_PATH finds both by soname.
PROBE_FAKE_CUDA := $(B)/probe/doubles/libcuda.so.1
PROBE_FAKE_NVML := $(B)/probe/doubles/libnvidia-ml.so.1

PROBE_ALL := $(B)/envparity-probe
PROBE_INSTALL := probe-install

$(B)/envparity-probe: $(PROBE_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $(PROBE_OBJS) $(PROBE_LIBS)

$(B)/probe/%.o: gpu_probes/%.c
	@mkdir -p $(@D)
	$(CC) $(PROBE_CFLAGS) -MMD -MP -c -o $@ $<

# checker/util/'s util.c (x* allocators, UTF-8 repair, the clock),
# files.c (the file helpers outfile.c uses) and outfile.c (the output
# rule) need only libc.
$(B)/probe/util/%.o: checker/util/%.c
	@mkdir -p $(@D)
	$(CC) $(PROBE_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/probe/kernels.fatbin: gpu_probes/kernels.cu gpu_probes/rng.h \
    gpu_probes/spec.h
	@mkdir -p $(@D)
	$(NVCC) -fatbin $(NVCC_FLAGS) -Igpu_probes -o $@ $<

$(B)/probe/fatbin.o: gpu_probes/fatbin.S $(B)/probe/kernels.fatbin
	$(CC) -c -Wa,-I$(B)/probe -o $@ $<

$(PROBE_UNITS): $(B)/tests/test_probe_%: tests/probe/test_%.c \
    $(PROBE_LIB_OBJS) $(B)/envparity-probe $(PROBE_FAKE_CUDA) \
    $(PROBE_FAKE_NVML)
	@mkdir -p $(@D)
	$(CC) $(PROBE_CFLAGS) -Itests/probe -DPU_SRCDIR='"$(CURDIR)"' \
		-o $@ $< $(PROBE_LIB_OBJS) \
		$(ALL_LDFLAGS) $(PROBE_LIBS) $$($(PKG_CONFIG) --libs cmocka)

# Built without the sanitizers: it is loaded into the probe like a
# driver would be, and a driver is not instrumented either.
$(PROBE_FAKE_CUDA): tests/probe/fake_cuda.c
	@mkdir -p $(@D)
	$(CC) -std=c17 -O1 $(WARN) -Wno-unused-parameter -shared -fPIC \
		-Wl,-soname,libcuda.so.1 -o $@ $<

# The same double the CLI tests build for capture (tests/cli/*.bats).
$(PROBE_FAKE_NVML): tests/doubles/fake_nvml.c tests/doubles/fake_nvml_health.c \
    tests/doubles/fake_nvml.h
	@mkdir -p $(@D)
	$(CC) -std=c17 -O1 -D_GNU_SOURCE $(WARN) -Wno-unused-parameter \
		-shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o $@ \
		tests/doubles/fake_nvml.c tests/doubles/fake_nvml_health.c

.PHONY: probe-install
probe-install: $(B)/envparity-probe
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(B)/envparity-probe $(DESTDIR)$(BINDIR)/envparity-probe
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 0644 man/envparity-probe.1 $(DESTDIR)$(MANDIR)/man1/envparity-probe.1

-include $(PROBE_OBJS:.o=.d)
