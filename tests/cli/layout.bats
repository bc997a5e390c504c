#!/usr/bin/env bats
# layout.bats: checker/ shows its architecture (tests/cli/layout.py): each
# folder opens with a README.md, arrows point down (commands, then the
# subsystems, then core/ and util/), no circle between objects, and each
# external library has one owner.  Read from the sources and, with nm,
# from the objects the build made.

load setup

EP_BUILD_DIR=${EP_BUILD:-$REPO_ROOT/build}

@test "the tree and the objects follow the layout: READMEs, arrows down, no circle, one owner per library" {
	run python3 "$REPO_ROOT/tests/cli/layout.py" "$REPO_ROOT" "$EP_BUILD_DIR"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# The folder graph it checked is the documented one.
	run python3 "$REPO_ROOT/tests/cli/layout.py" "$REPO_ROOT" "$EP_BUILD_DIR" --graph
	[ "$status" -eq 0 ]
	[[ "$output" == *"core/ -> util"* ]]
	[[ "$output" == *"image/ -> util"* ]]
	[[ "$output" != *"util/ ->"* ]]
}

# A small tree that breaks each rule once: the check must say so.
@test "the layout check finds a missing README, an arrow up, a circle, a second libcurl user, a header hiding <glob.h> and the probe using more than util/" {
	mkdir -p r/checker/core r/checker/store r/reports r/gpu_probes b/obj/checker/core b/obj/checker/store
	echo "# store" >r/checker/store/README.md
	printf '#include "store.h"\n#include <curl/curl.h>\nint core_a(void);\nint store_b(void);\nint core_a(void) { return store_b(); }\n' >r/checker/core/a.c
	printf 'int store_b(void);\nint core_a(void);\n' >r/checker/store/store.h
	: >r/checker/store/glob.h
	printf '#include "store.h"\nint store_b(void) { return core_a(); }\n' >r/checker/store/b.c
	printf '#include "store.h"\n#include <dlfcn.h>\n' >r/gpu_probes/x.c
	# (its object without the includes, which need not exist here)
	cc -c -o b/obj/checker/core/a.o -x c - <<<'int store_b(void); int core_a(void) { return store_b(); }'
	cc -c -o b/obj/checker/store/b.o -Ir/checker/store r/checker/store/b.c
	run python3 "$REPO_ROOT/tests/cli/layout.py" r b
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"checker/core/ has no README.md"* ]]
	[[ "$output" == *"gpu_probes/ has no README.md"* ]]
	[[ "$output" == *"checker/store/glob.h: hides <glob.h> of /usr/include"* ]]
	[[ "$output" == *"gpu_probes/x.c:1: includes checker/store/store.h: gpu_probes/ may use only util/"* ]]
	[[ "$output" == *"gpu_probes/x.c:2: includes <dlfcn.h>, which only gpu_probes/loader.c may"* ]]
	[[ "$output" == *"checker/core/a.c:1: includes checker/store/store.h: core/ may not use store/"* ]]
	[[ "$output" == *"includes <curl/curl.h>, which only"* ]]
	[[ "$output" == *"checker/core/a calls checker/store/b (store_b): core/ may not use store/"* ]]
	[[ "$output" == *"a circle: checker/core/a -> checker/store/b (store_b); checker/store/b -> checker/core/a (core_a)"* ]]
}
