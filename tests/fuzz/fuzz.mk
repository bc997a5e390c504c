# tests/fuzz/fuzz.mk: the fuzz harnesses' build rules, included by the
# Makefile.  Sets FUZZ_TARGETS (the names: fuzz_<name>.c) and
# FUZZ_REPLAY (the harnesses built with the project's compiler, under
# $(B)/fuzz/, for `make unit` and `make fuzz-replay`).
#
#   make fuzz-build          every target, clang + libFuzzer + ASan/UBSan,
#                            in build-fuzz/ (CC does not matter)
#   make fuzz FUZZ_SECONDS=N each target N seconds on its corpus
#                            (tests/fuzz/run.sh; default 10)
#
# The checker's objects are compiled again for build-fuzz/, with coverage
# instrumentation, into an archive the harnesses link against.

FUZZ_CC      ?= clang
FUZZ_B       := build-fuzz
FUZZ_SECONDS ?= 10
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_CFLAGS   = -std=c17 -O1 -g $(WARN) -D_GNU_SOURCE \
	-D_FILE_OFFSET_BITS=64 $(INCS) $(PKG_CFLAGS) $(FUZZ_SAN)

FUZZ_SRCS    := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS := $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_B)/fuzz_%)
FUZZ_OBJS    := $(patsubst %.c,$(FUZZ_B)/obj/%.o,$(filter-out \
	checker/main.c,$(SRCS)))
FUZZ_HDRS    := tests/fuzz/fuzz.h tests/fuzz/lock.h
FUZZ_REPLAY  := $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-clean fuzz-replay
fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	tests/fuzz/run.sh --seconds $(FUZZ_SECONDS)

$(FUZZ_B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c \
		-o $@ $<

$(FUZZ_B)/libenvparity.a: $(FUZZ_OBJS)
	rm -f $@
	ar rcs $@ $(FUZZ_OBJS)

$(FUZZ_B)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_HDRS) $(FUZZ_B)/libenvparity.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz -o $@ $< \
		$(FUZZ_B)/libenvparity.a $(LIBS)

# The same harnesses with a plain main() (driver.c), built with the
# project's compiler and flags: `make unit` builds them, tests/run.sh
# replays the corpora and regression inputs through them.
unit: $(FUZZ_REPLAY)
fuzz-replay: $(FUZZ_REPLAY)

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(FUZZ_HDRS) \
    $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/fuzz -o $@ $< tests/fuzz/driver.c \
		$(LIB_A) $(ALL_LDFLAGS) $(LIBS)

fuzz-clean:
	rm -rf $(FUZZ_B)

-include $(FUZZ_OBJS:.o=.d)
