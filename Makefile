# envparity: GNU Makefile.
#
#   make                 build build/envparity (and build/envparity-probe)
#   make SAN=1           the same with ASan and UBSan, under build-san/
#   make COV=1           the same with gcov's counters, under build-cov/
#                        (tests/coverage.sh measures the suite with it)
#   make ARCH=arm64      cross-built for aarch64, under build-arm64/
#                        (tools/cross.sh makes its sysroot first)
#   make WERROR=1        warnings are errors (CI)
#   make test            every test; ends with "N passed, N failed"
#   make unit            build the cmocka unit tests (linked against
#                        $(B)/libenvparity.a, with lld or gold if present)
#   make bench           envparity against the tools a user would use instead
#   make install PREFIX=/usr/local DESTDIR=
#   make dist            envparity-VERSION.tar.gz of HEAD (git archive)
#   make deb             the Debian package, into build/deb/
#   make relocatable     a tarball for any glibc >= 2.31, into build/reloc/
#   make version         print the release (checker/util/version.h)
#   make release VERSION=X.Y.Z   bump the version (and what follows it),
#                        check CHANGELOG.md's entry, commit, tag vX.Y.Z
#   make release-prepare VERSION=X.Y.Z   the bump alone, not committed
#
# Dependencies come through pkg-config.  The NVIDIA libraries are never
# linked: they are loaded at run time with dlopen.

PKG_CONFIG ?= pkg-config
PKGS       := libgit2 libcurl jansson libcrypto libxml-2.0 yaml-0.1
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share/envparity
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

# The release: checker/util/version.h is its one source (tags are vVERSION).
VERSION    := $(shell sed -n 's/^\#define EP_VERSION "\(.*\)"$$/\1/p' checker/util/version.h)

ifeq ($(SAN),1)
B          := build-san
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT        ?= -O1 -g
else ifeq ($(COV),1)
# gcov's line counts (tests/coverage.sh), unoptimised so that a line is
# a line.
B          := build-cov
SANFLAGS   := --coverage
OPT        ?= -O0 -g
else
B          := build
SANFLAGS   :=
OPT        ?= -O2 -g
endif

# -- The cross build (tools/cross.sh) ---------------------------------
# `make ARCH=arm64` builds envparity, envparity-probe and (`make unit
# ARCH=arm64`) the unit tests for aarch64 under build-arm64/, never
# beside the native objects, with Debian's cross toolchain
# (crossbuild-essential-arm64) against SYSROOT: Debian's arm64 packages
# unpacked by tools/cross.sh (`tools/cross.sh arm64` makes it,
# once, and prints it).  pkg-config reads the sysroot's .pc files; no
# nvcc (the probe's cuda backend is built natively on a GPU host).
# qemu-aarch64 -L SYSROOT runs what it builds (tests/cli/arm64.bats).
# Only ARCH on make's command line counts: some shells export an ARCH of
# their own.
ifeq ($(origin ARCH),command line)
ifneq ($(ARCH),arm64)
$(error ARCH=$(ARCH): the cross build knows arm64 only (native builds need no ARCH))
endif
CROSS      ?= aarch64-linux-gnu
SYSROOT    ?= $(shell tools/cross.sh --path $(ARCH))
B          := $(B)-$(ARCH)
# override: debhelper's cross build (debian/rules) names its own CC and
# PKG_CONFIG, and its flags, on the command line.
override CC         := $(CROSS)-gcc
override AR         := $(CROSS)-ar
override PKG_CONFIG := PKG_CONFIG_LIBDIR=$(SYSROOT)/usr/lib/$(CROSS)/pkgconfig:$(SYSROOT)/usr/share/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$(SYSROOT) pkg-config
override CFLAGS     += --sysroot=$(SYSROOT)
override LDFLAGS    += --sysroot=$(SYSROOT)
override NVCC       :=
ifeq ($(wildcard $(SYSROOT)/.envparity-sysroot),)
$(error ARCH=$(ARCH): no sysroot at $(SYSROOT); make it with tools/cross.sh $(ARCH))
endif
endif
# -- end of the cross build -------------------------------------------

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
	-Wstrict-prototypes -Wpointer-arith -Wvla -Wundef
ifeq ($(WERROR),1)
WARN += -Werror
endif

# Evaluated when a rule runs, so `make help` works without the -dev packages.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   = $(shell $(PKG_CONFIG) --libs $(PKGS))

CPPFLAGS ?=
CFLAGS   ?=
LDFLAGS  ?=
ALL_CFLAGS  = -std=c17 $(OPT) $(WARN) $(SANFLAGS) -D_GNU_SOURCE \
	-D_FILE_OFFSET_BITS=64 $(INCS) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
# The quickest linker the toolchain has (lld, then gold, else the default
# bfd), asked once per make; LD_FUSE= on the command line keeps bfd.
ifeq ($(origin LD_FUSE),undefined)
LD_FUSE := $(shell for l in lld gold; do \
	$(CC) -fuse-ld=$$l -Wl,--version >/dev/null 2>&1 && \
	{ echo -fuse-ld=$$l; break; }; done)
endif
ALL_LDFLAGS = $(SANFLAGS) $(LD_FUSE) -Wl,--as-needed $(LDFLAGS)
LIBS        = $(PKG_LIBS) -lpthread -ldl

# checker/ (the commands), its subsystems (checker/<dir>/, each with a
# README.md: what lives there and what it may include) and reports/ (the
# report writers) make one program.  Objects mirror the tree under
# $(B)/obj/; headers are found by name in every folder.
SUBDIRS  := core collect image store probe fleet attest util
INCS     := -Ichecker $(SUBDIRS:%=-Ichecker/%) -Ireports
SRCS     := $(sort $(wildcard checker/*.c $(SUBDIRS:%=checker/%/*.c) \
	reports/*.c))
OBJS     := $(SRCS:%.c=$(B)/obj/%.o)
LIB_OBJS := $(filter-out $(B)/obj/checker/main.o,$(OBJS))
# Every object but main.o in one archive: a test links only the objects
# it reaches, and relinks only when one of those could have changed.
LIB_A    := $(B)/libenvparity.a
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNITS    := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)

# envparity-probe, the reference workload (gpu_probes/): its rules, and
# PROBE_ALL / PROBE_UNITS / PROBE_INSTALL for the targets below.
include gpu_probes/probe.mk

.PHONY: all unit test bench install uninstall clean help deps dist deb version release release-prepare
all: $(B)/envparity $(PROBE_ALL)

$(B)/envparity: $(OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(LIBS)

$(LIB_A): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

unit: $(UNITS) $(PROBE_UNITS)

$(B)/tests/test_%: tests/unit/test_%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(LIB_A) $(ALL_LDFLAGS) \
		$(LIBS) $$($(PKG_CONFIG) --libs cmocka)

-include $(OBJS:.o=.d)

# The whole suite: unit and CLI tests on the normal build, then again on
# the sanitizer build; one closing line "N passed, N failed".
test:
	tests/run.sh

bench: all
	bench/run.sh

install: all $(PROBE_INSTALL)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/schemas
	install -m 0755 $(B)/envparity $(DESTDIR)$(BINDIR)/envparity
	install -m 0644 manifests/*.schema.json manifests/junit.xsd \
		$(DESTDIR)$(DATADIR)/schemas/
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0644 man/envparity.1 $(DESTDIR)$(MANDIR)/man1/envparity.1
	install -m 0644 completions/envparity.bash \
		$(DESTDIR)$(BASHCOMPDIR)/envparity
	install -m 0644 completions/_envparity $(DESTDIR)$(ZSHCOMPDIR)/_envparity
	install -m 0644 completions/envparity.fish \
		$(DESTDIR)$(FISHCOMPDIR)/envparity.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/envparity $(DESTDIR)$(BINDIR)/envparity-probe
	rm -rf $(DESTDIR)$(DATADIR)
	rm -f $(DESTDIR)$(MANDIR)/man1/envparity.1 \
		$(DESTDIR)$(MANDIR)/man1/envparity-probe.1 \
		$(DESTDIR)$(BASHCOMPDIR)/envparity $(DESTDIR)$(ZSHCOMPDIR)/_envparity \
		$(DESTDIR)$(FISHCOMPDIR)/envparity.fish

version:
	@echo $(VERSION)

# A release (tools/release.sh; docs/install.md says how it is published):
# VERSION on the command line is the one wanted.
release:
	tools/release.sh $(VERSION)

release-prepare:
	tools/release.sh --prepare $(VERSION)

# The source tarball: HEAD as committed (what is not committed is not in
# it), under envparity-VERSION/; .gitattributes says what is left out.
DIST    := envparity-$(VERSION)
DISTDIR ?= build
dist:
	@mkdir -p $(DISTDIR)
	git archive --format=tar.gz --prefix=$(DIST)/ -o $(DISTDIR)/$(DIST).tar.gz HEAD
	@echo $(DISTDIR)/$(DIST).tar.gz

# The Debian package (debian/), built outside the tree in a copy from
# `make dist`'s tarball, so that the package is made of what is committed;
# the .deb and its .buildinfo and .changes land in build/deb/.
deb: dist
	tools/deb.sh build/$(DIST).tar.gz build/deb

# --- relocatable build -------------------------------------------------
# envparity and envparity-probe built in a Debian 11 root (debootstrap,
# made once per machine) with the libraries they link beside them, for
# any Linux with glibc 2.31 or newer (GitHub's Ubuntu runners):
# build/reloc/envparity-VERSION-linux-ARCH.tar.gz and its .sha256.  Root
# only; tools/reloc.sh says how, docs/install.md how it is published
# (a release: make relocatable EP_RELOC_FRESH=1, in a root made afresh).
.PHONY: relocatable
relocatable:
	tools/reloc.sh build/reloc
# --- end of the relocatable build ----------------------------------------

deps:
	tools/deps.sh build test

clean:
	rm -rf build build-san build-cov build-arm64 build-san-arm64

help:
	@sed -n '2,/^[^#]/s/^# \{0,1\}//p' Makefile

# libFuzzer harnesses (tests/fuzz/): `make fuzz FUZZ_SECONDS=N` runs each
# target N seconds on its corpus; `make unit` also builds them with a
# plain main() for tests/run.sh to replay their inputs.
include tests/fuzz/fuzz.mk
clean: fuzz-clean
