# perfstudy: a hand-written Makefile.
#   make                 build ./perfstudy
#   make check           unit tests and end-to-end tests
#   make example         build the bundled example into out/
#   make SANITIZE=address,undefined check
#   make install PREFIX=/usr/local DESTDIR=

PKG_CONFIG ?= pkg-config
CC ?= cc
CXX ?= c++
PREFIX ?= /usr/local
VERSION := 0.1.0

PKGS := yaml-0.1 sqlite3 cairo libxml-2.0 zlib simdjson libctemplate_nothreads
DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
DEP_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS)) -lm

WARN := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wwrite-strings
CFLAGS ?= -O2 -g
CXXFLAGS ?= -O2 -g
ifdef DEVELOPER
WARN += -Werror
endif
ifdef SANITIZE
SAN := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

ALL_CFLAGS := -Isrc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) $(SAN) \
	-DPERFSTUDY_VERSION='"$(VERSION)"' $(DEP_CFLAGS) -MMD -MP
ALL_CXXFLAGS := -Isrc -std=c++17 -Wall -Wextra $(CXXFLAGS) $(SAN) $(DEP_CFLAGS) -MMD -MP
LDLIBS := $(DEP_LIBS)

B := build
C_SRCS := $(sort $(wildcard src/*.c src/*/*.c))
CXX_SRCS := $(sort $(wildcard src/*/*.cpp))
OBJS := $(C_SRCS:%.c=$(B)/%.o) $(CXX_SRCS:%.cpp=$(B)/%.o) $(B)/gen/embedded.o
LIB_OBJS := $(filter-out $(B)/src/main.o,$(OBJS))
EMBED_FILES := $(sort $(wildcard templates/*.tpl assets/*))

TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(B)/tests/%)

.PHONY: all check unit e2e example clean install bench deps test-deps perfstudy

all: perfstudy

# The binary is linked inside the build directory (B=build-san keeps a
# sanitizer build apart) and copied to ./perfstudy whenever it differs.
$(B)/perfstudy: $(OBJS)
	$(CXX) $(SAN) -o $@ $(OBJS) $(LDLIBS)

perfstudy: $(B)/perfstudy
	@cmp -s $< $@ || cp $< $@

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

$(B)/tests/%: tests/unit/%.c $(LIB_OBJS) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) -x c -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) $(DEP_CFLAGS) -DPERFSTUDY_VERSION='"$(VERSION)"' -Isrc -c -o $@.o $<
	$(CXX) $(SAN) -o $@ $@.o $(LIB_OBJS) $(LDLIBS)

unit: $(TEST_BINS)
	@set -e; for t in $(TEST_BINS); do echo "  UNIT $$t"; ./$$t; done

e2e: perfstudy
	@bash tests/e2e/run.sh

check: unit e2e

example: perfstudy
	./perfstudy build experiments/h200/study.yaml -o out

bench: perfstudy
	@$(MAKE) -C bench

install: perfstudy
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 perfstudy $(DESTDIR)$(PREFIX)/bin/perfstudy
	install -m 644 perfstudy.1 $(DESTDIR)$(PREFIX)/share/man/man1/perfstudy.1

deps:
	@sh tools/install-deps.sh build

test-deps:
	@sh tools/install-deps.sh test

clean:
	rm -rf build build-san perfstudy

-include $(OBJS:.o=.d)
