# perfstudy: a hand-written Makefile.
#   make                 build ./perfstudy
#   make check           unit tests and end-to-end tests
#   make example         build the bundled example into out/
#   make unpack          unpack the traces kept as .tar.xz (example and e2e do)
#   make SANITIZE=address,undefined check
#   make B=build-san SANITIZE=address,undefined check-san   (CI's subset)
#   make install PREFIX=/usr/local DESTDIR=

PKG_CONFIG ?= pkg-config
CC ?= cc
CXX ?= c++
PREFIX ?= /usr/local
VERSION := 0.1.0

PKGS := yaml-0.1 sqlite3 cairo libxml-2.0 zlib simdjson libctemplate_nothreads libisal libprotobuf-c
PROTOC_C ?= protoc-c
DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
DEP_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS)) -lm -pthread

WARN := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wwrite-strings
CFLAGS ?= -O2 -g
CXXFLAGS ?= -O2 -g
ifdef DEVELOPER
WARN += -Werror
endif
ifdef SANITIZE
SAN := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

B := build
ALL_CFLAGS := -Isrc -I$(B)/gen -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) $(SAN) \
	-DPERFSTUDY_VERSION='"$(VERSION)"' $(DEP_CFLAGS) -MMD -MP
ALL_CXXFLAGS := -Isrc -std=c++17 -Wall -Wextra $(CXXFLAGS) $(SAN) $(DEP_CFLAGS) -MMD -MP
LDLIBS := $(DEP_LIBS)

C_SRCS := $(sort $(wildcard src/*.c src/*/*.c src/*/*/*.c))
CXX_SRCS := $(sort $(wildcard src/*/*.cpp src/*/*/*.cpp))
OBJS := $(C_SRCS:%.c=$(B)/%.o) $(CXX_SRCS:%.cpp=$(B)/%.o) $(B)/gen/embedded.o $(B)/gen/ingest/jax/xplane.pb-c.o
LIB_OBJS := $(filter-out $(B)/src/main.o,$(OBJS))
EMBED_FILES := $(sort $(wildcard templates/*.tpl assets/*))

TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(B)/tests/%)

.PHONY: all check unit e2e e2e-example example unpack clean install bench deps test-deps perfstudy fuzz fuzz-regress fuzz-targets valgrind-check

all: perfstudy

# The binary is linked inside the build directory (B=build-san keeps a
# sanitizer build apart) and copied to ./perfstudy whenever it differs.
$(B)/perfstudy: $(OBJS)
	$(CXX) $(SAN) -o $@ $(OBJS) $(LDLIBS)

perfstudy: $(B)/perfstudy
	@cmp -s $< $@ || { cp $< $@.tmp && mv -f $@.tmp $@; }

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) -c -o $@ $<


# Templates and CSS are compiled into the binary, so perfstudy runs from anywhere.
$(B)/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -o $@ $<

$(B)/gen/embedded.c: $(B)/embed $(EMBED_FILES)
	@mkdir -p $(dir $@)
	$(B)/embed $(EMBED_FILES) > $@.tmp && mv $@.tmp $@

$(B)/gen/embedded.o: $(B)/gen/embedded.c
	$(CC) $(ALL_CFLAGS) -Isrc -c -o $@ $<

# The XSpace messages (src/ingest/jax/xplane.proto) in C, made by protoc-c at
# build time (one run makes both files: a grouped target, GNU make 4.3); its
# code is the generator's, so compiled without our warnings.
$(B)/gen/ingest/jax/xplane.pb-c.c $(B)/gen/ingest/jax/xplane.pb-c.h &: src/ingest/jax/xplane.proto
	@mkdir -p $(B)/gen
	$(PROTOC_C) --c_out=$(B)/gen -Isrc src/ingest/jax/xplane.proto

$(B)/gen/ingest/jax/xplane.pb-c.o: $(B)/gen/ingest/jax/xplane.pb-c.c $(B)/gen/ingest/jax/xplane.pb-c.h
	$(CC) -I$(B)/gen -std=c11 $(CFLAGS) $(SAN) $(DEP_CFLAGS) -c -o $@ $<

$(B)/src/ingest/jax/xplane.o: $(B)/gen/ingest/jax/xplane.pb-c.h

$(B)/tests/%: tests/unit/%.c $(LIB_OBJS) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) -x c -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) $(DEP_CFLAGS) -DPERFSTUDY_VERSION='"$(VERSION)"' -Isrc -c -o $@.o $<
	$(CXX) $(SAN) -o $@ $@.o $(LIB_OBJS) $(LDLIBS)

# One target per unit test (unit-test_chart, ...), run side by side under -j.
UNIT_TARGETS := $(TEST_BINS:$(B)/tests/%=unit-%)
.PHONY: $(UNIT_TARGETS)
unit: $(UNIT_TARGETS)

$(UNIT_TARGETS): unit-%: $(B)/tests/%
	@echo "  UNIT $<"; ./$<

# One target per end-to-end script (e2e-t_core, ...), so that `make -j2
# check` runs them side by side; each prints its own tally. Each script
# waits only for what it reads, so that `make e2e-t_layout` builds nothing
# but perfstudy: the scripts that read the bundled h200 example
# (tests/e2e/lib.sh's example_h200) get it built once (e2e-example) and
# share it; those that name a packed trace folder, one of its experiment's
# manifests or the example's manifests (the Makefile's example target) get
# `make unpack` first (E2E_READ_PACKED, below PACKED). Both lists are read
# from the scripts. tests/e2e/run.sh runs them all one after another without make.
E2E_NAMES := $(patsubst tests/e2e/%.sh,%,$(sort $(wildcard tests/e2e/t_*.sh)))
E2E_TARGETS := $(E2E_NAMES:%=e2e-%)
E2E_EXAMPLE := $(B)/e2e/h200
E2E_READ_EXAMPLE := $(patsubst tests/e2e/%.sh,%,$(shell grep -l 'example_h200 ' tests/e2e/t_*.sh))

.PHONY: $(E2E_TARGETS) e2e-lists
e2e: $(E2E_TARGETS)

e2e-example: perfstudy unpack
	@rm -rf $(E2E_EXAMPLE) && mkdir -p $(dir $(E2E_EXAMPLE)) && ./perfstudy build -q experiments/h200/study.yaml -o $(E2E_EXAMPLE)

# `make e2e-lists`: which scripts wait for the example, which for `make unpack`.
e2e-lists:
	@echo "example: $(E2E_READ_EXAMPLE)"; echo "unpack: $(E2E_READ_PACKED)"

$(E2E_READ_EXAMPLE:%=e2e-%): e2e-example
$(E2E_TARGETS): e2e-%: perfstudy
	@t0=$$(date +%s); $(if $(filter $*,$(E2E_READ_EXAMPLE)),E2E_EXAMPLE=$(abspath $(E2E_EXAMPLE)) )bash tests/e2e/$*.sh; rc=$$?; \
		echo "  TIME e2e-$*: $$(( $$(date +%s) - t0 )) s wall"; exit $$rc

# Fuzz harnesses. fuzz/fuzz_<name>.c holds a harness of its own; a reader
# that needs nothing more than fuzz_read() gets fuzz/reader_harness.c,
# compiled per entry of FUZZ_READERS (harness name=reader name in the
# ingest table, src/ingest/ingest.c) into $(B)/fuzz/reader_<name>.o. Both
# kinds link the same way. `make check` replays the inputs in
# tests/fuzz-regress/<name>/ through each harness built as a normal program
# (fuzz/regress_main.c); `make fuzz FUZZ_SECONDS=N` builds them with clang's
# libFuzzer in build-fuzz/ and runs each for N seconds (fuzz/run.sh).
FUZZ_READERS := jax_trace=jax-trace kineto=kineto lightning=lightning-profiler megatron=megatron-log \
	memory_timeline=memory-timeline nccl_log=nccl-log ncu=ncu nsys=nsys nvprof=nvprof nvsmi=nvidia-smi \
	nvsmi_topo=nvidia-smi-topo nvtx_csv=nsys-nvtx-csv nvvp=nvvp pytorch_et=pytorch-et rocpd=rocpd xplane=xplane
FUZZ_READER_NAMES := $(foreach p,$(FUZZ_READERS),$(firstword $(subst =, ,$(p))))
FUZZ_OWN_NAMES := $(patsubst fuzz/fuzz_%.c,%,$(sort $(wildcard fuzz/fuzz_*.c)))
FUZZ_NAMES := $(sort $(FUZZ_OWN_NAMES) $(FUZZ_READER_NAMES))
REGRESS_BINS := $(FUZZ_NAMES:%=$(B)/fuzz/regress_%)
FUZZ_BINS := $(FUZZ_NAMES:%=$(B)/fuzz/fuzz_%)
FUZZ_SECONDS ?= 60
FUZZ_LINK := $(B)/fuzz/common.o $(LIB_OBJS)

$(FUZZ_READER_NAMES:%=$(B)/fuzz/reader_%.o): $(B)/fuzz/reader_%.o: fuzz/reader_harness.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DREADER='"$(patsubst $*=%,%,$(filter $*=%,$(FUZZ_READERS)))"' -c -o $@ $<

$(FUZZ_OWN_NAMES:%=$(B)/fuzz/regress_%): $(B)/fuzz/regress_%: $(B)/fuzz/fuzz_%.o $(B)/fuzz/regress_main.o $(FUZZ_LINK)
	$(CXX) $(SAN) -o $@ $^ $(LDLIBS)

$(FUZZ_READER_NAMES:%=$(B)/fuzz/regress_%): $(B)/fuzz/regress_%: $(B)/fuzz/reader_%.o $(B)/fuzz/regress_main.o $(FUZZ_LINK)
	$(CXX) $(SAN) -o $@ $^ $(LDLIBS)

$(FUZZ_OWN_NAMES:%=$(B)/fuzz/fuzz_%): $(B)/fuzz/fuzz_%: $(B)/fuzz/fuzz_%.o $(FUZZ_LINK)
	$(CXX) $(SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

$(FUZZ_READER_NAMES:%=$(B)/fuzz/fuzz_%): $(B)/fuzz/fuzz_%: $(B)/fuzz/reader_%.o $(FUZZ_LINK)
	$(CXX) $(SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# One target per harness (fuzz-regress-kineto, ...); a harness without seed inputs fails.
FUZZ_REGRESS_TARGETS := $(FUZZ_NAMES:%=fuzz-regress-%)
.PHONY: $(FUZZ_REGRESS_TARGETS)
fuzz-regress: $(FUZZ_REGRESS_TARGETS)

$(FUZZ_REGRESS_TARGETS): fuzz-regress-%: $(B)/fuzz/regress_%
	@echo "  FUZZ-REGRESS $*"; \
	[ -n "$$(ls -A tests/fuzz-regress/$* 2>/dev/null)" ] || { echo "tests/fuzz-regress/$*: no seed inputs for the fuzz harness $*" >&2; exit 1; }; \
	./$(B)/fuzz/regress_$* tests/fuzz-regress/$*

fuzz-targets: $(FUZZ_BINS)

fuzz:
	$(MAKE) B=build-fuzz CC=clang CXX=clang++ SANITIZE=fuzzer-no-link,address,undefined fuzz-targets
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh build-fuzz $(FUZZ_NAMES)

check: unit fuzz-regress e2e

# CI's sanitizer pass (.ci/run): the unit tests, the fuzz regression inputs
# and every e2e script but SAN_SKIP. Under -fsanitize=address,undefined a
# build of the bundled h200 example takes 2.2x as long (251 s against 114 s
# here), and these scripts build it, the whole example or the shared corpus
# again and again: timed on 2 busy cores on 2026-12-06 (the TIME lines),
# they took 7,216 of the 8,919 s of the 49 scripts timed (t_core 1,737 s,
# t_parallel 1,326 s), and CI's 90 minutes for its three passes ran out.
# With these left out the three passes took 1,720 + 792 + 1,455 s here,
# t_time 443 of the last (the example with --jobs, again): out too. The first pass runs them unsanitized; valgrind's pass builds the
# example, the small studies and every bad input. A new script that builds
# the example more than once belongs here (TIME lines give its cost).
SAN_SKIP := t_core t_parallel t_interrupt t_example_figs t_report t_output_doc t_findings \
	t_papers t_causes t_recorded_parallel t_perf t_page_minute t_time
.PHONY: check-san
check-san: unit fuzz-regress $(filter-out $(SAN_SKIP:%=e2e-%),$(E2E_TARGETS))

# memcheck with no leaks over the unit tests, the fuzz regression inputs and
# a set of perfstudy runs (tests/valgrind.sh); CI runs it.
valgrind-check: perfstudy $(TEST_BINS) $(REGRESS_BINS) unpack
	@bash tests/valgrind.sh $(B)

# Traces kept as one .tar.xz of JSON beside the logs they belong to, to keep
# the tree under the 64 MiB it may weigh (xz over many similar traces takes
# 3-5 % of the JSON, gzip per file 6-8 %): unpacked in place, ignored by git,
# before anything builds the manifests that read them (the example, the e2e
# scripts, valgrind, the benchmark). Those in REGZIP were recorded as
# .pt.trace.json.gz and are gzipped again after unpacking (gzip -n: the
# bytes differ from the recorded files, the JSON does not), so that every
# path naming them still holds. The stamp is written last, so an
# interrupted unpack is done again.
PACKED := experiments/h200x4/traces.tar.xz experiments/h200/traces.tar.xz \
	experiments/h200x4-parallel/par.tar.xz experiments/h200x4-parallel/zero.tar.xz \
	experiments/h200x4-parallel/p2p.tar.xz experiments/gpu1-causes/traces.tar.xz \
	experiments/h100x4-papers/traces.tar.xz
REGZIP := experiments/h200/traces.tar.xz experiments/h100x4-papers/traces.tar.xz
UNPACKED := $(PACKED:%.tar.xz=%/.unpacked)
unpack: $(UNPACKED)
$(UNPACKED): %/.unpacked: %.tar.xz
	@echo "  UNPACK $<"
	@mkdir -p $* && xz -dc $< | tar -x --no-same-owner -C $* && \
		$(if $(filter $<,$(REGZIP)),find $* -name '*.pt.trace.json' -print0 | xargs -0 -r -P2 -n4 gzip -nf &&) touch $@

# The e2e scripts that read what `make unpack` inflates: those naming a
# packed folder, a manifest of its experiment, the example's manifests or
# tests/golden/h200-runs.sh, outside comments and lines that unpack for
# themselves (tests/e2e/lib.sh's `unpacked`). A script that reads them
# another way belongs in E2E_READ_PACKED_MORE.
E2E_READ_PACKED_MORE := t_nccl_path
E2E_PACKED_RE := $(subst $(eval ) ,|,$(strip $(PACKED:%.tar.xz=%) \
	$(patsubst %/,%/[^/ ]*\.yaml,$(sort $(dir $(PACKED:%.tar.xz=%)))))) |/\^example:|h200-runs\.sh
E2E_READ_PACKED := $(filter-out $(E2E_READ_EXAMPLE),$(E2E_READ_PACKED_MORE) $(patsubst tests/e2e/%.sh,%,$(shell \
	grep -HE '$(E2E_PACKED_RE)' tests/e2e/t_*.sh | grep -vE '^[^:]*:[[:space:]]*\#|unpacked' | cut -d: -f1 | sort -u)))
$(E2E_READ_PACKED:%=e2e-%): unpack

example: perfstudy unpack
	./perfstudy build experiments/h200/study.yaml experiments/ncu-encoder/study.yaml \
		experiments/megatron-004/study.yaml experiments/megatron-004/bert-dgx2.yaml \
		experiments/megatron-004/pcie.yaml experiments/cheng-002/study.yaml experiments/cheng-002/polaris.yaml \
		experiments/cheng-002/tg40.yaml experiments/cheng-002/tg80.yaml experiments/begoli-003/idk.yaml \
		experiments/begoli-003/blueridge.yaml experiments/begoli-003/azure.yaml experiments/begoli-003/h200-loaders.yaml \
		experiments/nvprof-000/study.yaml experiments/nvprof-000/roberta.yaml experiments/ncu-encoder/paper-model.yaml \
		experiments/h100x4-papers/zero.yaml experiments/h100x4-papers/sockets.yaml experiments/h100x4-papers/fig1.yaml \
		experiments/h100x4/jax.yaml experiments/h200x4/causes.yaml experiments/gpu1-causes/causes.yaml \
		experiments/h200x4-parallel/parallel.yaml \
		experiments/h200x4-parallel/zero.yaml experiments/h200x4-parallel/p2p.yaml experiments/h200/get-ins-group.yaml -o out

# bench/floor.c times parts of perfstudy (its SHA-256, its walk) alone, so it links its objects.
$(B)/bench/floor: bench/floor.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CXX) -x c -std=c11 -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) $(DEP_CFLAGS) -Isrc -c -o $@.o $<
	$(CXX) -o $@ $@.o $(LIB_OBJS) $(LDLIBS)

bench: perfstudy $(B)/bench/floor unpack
	@$(MAKE) -C bench FLOOR=$(abspath $(B)/bench/floor)

install: perfstudy
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 perfstudy $(DESTDIR)$(PREFIX)/bin/perfstudy
	install -m 644 perfstudy.1 $(DESTDIR)$(PREFIX)/share/man/man1/perfstudy.1

deps:
	@sh tools/install-deps.sh build

test-deps:
	@sh tools/install-deps.sh test

clean:
	rm -rf build build-san build-fuzz perfstudy
	rm -f $(UNPACKED) $(foreach d,$(PACKED:%.tar.xz=%),$(wildcard $(d)/*/*.pt.trace.json))

-include $(OBJS:.o=.d) $(wildcard $(B)/fuzz/*.d)
