# ufnc - an ahead-of-time compiler for Numba-style ufuncs, and libufnrt.
#
#   make            build ufnc, libufnrt.a and libufnrt.so into build/
#   make demo       build, compile samples/polar.ufn, link it and run it
#   make check      run every test and print a summary
#   make bench      run the benchmarks (results in bench/RESULTS.md)
#   make install    PREFIX=/usr/local DESTDIR=... (see README.md); make uninstall
#   make deps       find (and, as root, install) flex, bison, cmocka, ...
#   make clean      remove $(BUILD)
#
# GNU make 4.3 or later (grouped targets); objects go to $(BUILD), never next
# to the sources.  V=1 shows the commands.

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR    ?= $(LIBDIR)/cmake/ufn

BUILD       ?= build
CC          ?= cc
FLEX        ?= flex
BISON       ?= bison
CFLAGS      ?= -O2 -g
WARNFLAGS   := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS    += -D_GNU_SOURCE -Iinclude -Icompiler -Iruntime -I$(BUILD)/gen
DEPFLAGS     = -MMD -MP
LDLIBS_RT   := -ldl -lpthread -lm

# One version for the runtime's soname, ufn.pc and the CMake package: ufn.h's.
VERSION     := $(shell sed -n 's/^.define UFN_VERSION_STRING "\(.*\)"/\1/p' include/ufn.h)
SOMAJOR     := $(firstword $(subst ., ,$(VERSION)))

# The CUDA toolkit is optional: without nvcc everything builds for the host
# and the tests that need nvcc say they were skipped.  Found as ufnc finds it:
# $NVCC, $CUDA_HOME/bin, PATH, /usr/local/cuda/bin.
# Looked for once (:=): NVCC is exported, so a recursive variable would run
# the shell again for every recipe.
ifeq ($(origin NVCC),undefined)
NVCC        := $(or $(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/bin/nvcc)),$(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
endif
export NVCC

V ?= 0
ifeq ($(V),0)
Q = @
say = @printf '  %-7s %s\n' $(1) $(2)
# for sub-makes of targets that are often up to date: no "Nothing to be done"
QUIET_MAKE = -s
else
Q =
say = @true
endif

# ---- sources --------------------------------------------------------------------

COMPILER_SRC := $(filter-out compiler/main.c,$(wildcard compiler/*.c))
# The runtime: its core in runtime/, one folder per backend (cuda/, host/, sim/).
RUNTIME_SRC  := $(wildcard runtime/*.c runtime/*/*.c)
GEN_SRC      := $(BUILD)/gen/ufn.tab.c $(BUILD)/gen/lex.yy.c $(BUILD)/gen/embedded.c

# Files ufnc carries inside itself (see compiler/embedded.h).
# The headers generated code includes (include/, but the DLPack bridge) and
# the importable standard modules (stdlib/).
EMBED_FILES  := $(foreach f,$(filter-out include/ufn_dlpack.h,$(wildcard include/*.h)),$(notdir $(f))=$(f)) \
                $(foreach f,$(wildcard stdlib/*.ufn),stdlib/$(notdir $(f))=$(f))
EMBED_DEPS   := $(foreach f,$(EMBED_FILES),$(lastword $(subst =, ,$(f))))

COMPILER_OBJ := $(COMPILER_SRC:%.c=$(BUILD)/%.o) $(GEN_SRC:$(BUILD)/gen/%.c=$(BUILD)/gen/%.o)
RUNTIME_OBJ  := $(RUNTIME_SRC:%.c=$(BUILD)/%.o)

UFNC         := $(BUILD)/bin/ufnc
LIBUFNC      := $(BUILD)/lib/libufnc.a
LIBUFNRT_A   := $(BUILD)/lib/libufnrt.a
LIBUFNRT_SO  := $(BUILD)/lib/libufnrt.so
# The real file carries the full version; libufnrt.so.MAJOR (the soname) and
# libufnrt.so are symbolic links to it, as they will be once installed.
LIBUFNRT_SOV := $(BUILD)/lib/libufnrt.so.$(VERSION)

.PHONY: all clean
all: $(UFNC) $(LIBUFNRT_A) $(LIBUFNRT_SO)

# ---- generated front end ------------------------------------------------------------

# Grouped targets (&:): one bison or flex run makes both files, also under -j.
$(BUILD)/gen/ufn.tab.c $(BUILD)/gen/ufn.tab.h &: grammar/ufn.y | $(BUILD)/gen
	$(call say,BISON,$<)
	$(Q)$(BISON) -Wall -Werror --defines=$(BUILD)/gen/ufn.tab.h -o $(BUILD)/gen/ufn.tab.c $<

$(BUILD)/gen/lex.yy.c $(BUILD)/gen/lex.yy.h &: grammar/ufn.l $(BUILD)/gen/ufn.tab.h | $(BUILD)/gen
	$(call say,FLEX,$<)
	$(Q)$(FLEX) --header-file=$(BUILD)/gen/lex.yy.h -o $(BUILD)/gen/lex.yy.c $<

$(BUILD)/tools/embed: tools/embed.c | $(BUILD)/tools
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(WARNFLAGS) -o $@ $<

$(BUILD)/gen/embedded.c: $(BUILD)/tools/embed $(EMBED_DEPS) Makefile | $(BUILD)/gen
	$(call say,EMBED,$@)
	$(Q)$(BUILD)/tools/embed $@ $(EMBED_FILES)

# Generated C is not ours to keep warning-free in every detail.
$(BUILD)/gen/%.o: $(BUILD)/gen/%.c | $(BUILD)/gen
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -std=c11 -Wall -Wno-unused-function -Wno-sign-compare $(DEPFLAGS) -c -o $@ $<

# Scanner and parser objects need each other's headers.
$(COMPILER_SRC:%.c=$(BUILD)/%.o) $(BUILD)/compiler/main.o: $(BUILD)/gen/ufn.tab.h $(BUILD)/gen/lex.yy.h
$(BUILD)/gen/lex.yy.o: $(BUILD)/gen/ufn.tab.h

# ---- compiler ------------------------------------------------------------------------

$(BUILD)/compiler/%.o: compiler/%.c | $(BUILD)/compiler
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNFLAGS) $(DEPFLAGS) -c -o $@ $<

$(LIBUFNC): $(COMPILER_OBJ) | $(BUILD)/lib
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(UFNC): $(BUILD)/compiler/main.o $(LIBUFNC) | $(BUILD)/bin
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) -lm

# ---- runtime -------------------------------------------------------------------------

$(BUILD)/runtime/%.o: runtime/%.c | $(BUILD)/runtime
	$(call say,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNFLAGS) -fPIC -fvisibility=hidden $(DEPFLAGS) -c -o $@ $<

$(LIBUFNRT_A): $(RUNTIME_OBJ) | $(BUILD)/lib
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBUFNRT_SOV): $(RUNTIME_OBJ) | $(BUILD)/lib
	$(call say,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libufnrt.so.$(SOMAJOR) -Wl,--no-undefined -o $@ $^ $(LDFLAGS) $(LDLIBS_RT)

# make compares the links' targets' times (stat, not lstat), so the links are
# up to date whenever the library is.
$(LIBUFNRT_SO): $(LIBUFNRT_SOV)
	$(Q)ln -sf $(notdir $<) $(BUILD)/lib/libufnrt.so.$(SOMAJOR)
	$(Q)ln -sf libufnrt.so.$(SOMAJOR) $@

# ---- directories ---------------------------------------------------------------------

$(BUILD)/gen $(BUILD)/tools $(BUILD)/compiler $(BUILD)/runtime $(BUILD)/lib $(BUILD)/bin:
	$(Q)mkdir -p $@

# Only this file's own objects: other directories of $(BUILD) hold the
# dependency files of other builds (the demo's, a user-style project's).
-include $(wildcard $(BUILD)/gen/*.d $(BUILD)/compiler/*.d $(BUILD)/runtime/*.d $(BUILD)/runtime/*/*.d)

# ---- tests, demo, benchmarks: see mk/ ----------------------------------------------------

include $(wildcard mk/*.mk)

clean:
	rm -rf $(BUILD)
