# ufn.mk - GNU make rules for .ufn modules.  Installed with ufnc (in
# $(datadir)/ufnc/ufn.mk); include it:
#
#     include $(shell pkg-config --variable=ufnmk ufn)
#
#     app: main.o polar.o
#             $(CC) -o $@ $^ $(UFN_LIBS)
#     main.o: polar.h              # main.c includes the generated header
#
# `make` then runs `ufnc polar.ufn -o polar.o -H polar.h` with a dependency
# file, so editing polar.ufn (or a module it imports) rebuilds what needs it.
#
# Variables (set them before the include; UFN_OUTDIR must be):
#   UFNC        the compiler        (default: pkg-config's `ufnc` variable, else ufnc on PATH)
#   UFNFLAGS    options for ufnc, e.g. --arch=sm_90 or --target=host,sim
#   UFN_OUTDIR  where objects and headers go      (default: next to the .ufn)
#   UFN_CFLAGS  compile flags for code that includes generated headers
#               (default: pkg-config --cflags ufn; added to CPPFLAGS)
#   UFN_LIBS    link flags for libufnrt           (default: pkg-config --libs ufn)
#   PKG_CONFIG  the pkg-config to ask             (default: pkg-config)

PKG_CONFIG ?= pkg-config

# Asked once, when this file is read (ifndef, not ?=, which would ask again at
# every use).  The UFNC question stays quiet: the UFN_CFLAGS one says it when
# pkg-config does not know ufn.
ifndef UFNC
UFNC := $(or $(shell $(PKG_CONFIG) --variable=ufnc ufn 2>/dev/null),ufnc)
endif
ifndef UFN_CFLAGS
UFN_CFLAGS := $(shell $(PKG_CONFIG) --cflags ufn)
endif
ifndef UFN_LIBS
UFN_LIBS := $(shell $(PKG_CONFIG) --libs ufn)
endif
UFNFLAGS   ?=
UFN_OUTDIR ?=

CPPFLAGS += $(UFN_CFLAGS) $(if $(UFN_OUTDIR),-I$(UFN_OUTDIR))

# One ufnc run makes both the object and the header (a pattern rule with two
# targets is one rule: make runs it once for both).  A new ufnc (named by its
# path) rebuilds the modules, as a new compiler should.
UFN_COMPILER_DEP := $(filter /%,$(UFNC))
ifeq ($(UFN_OUTDIR),)
%.o %.h: %.ufn $(UFN_COMPILER_DEP)
	$(UFNC) $(UFNFLAGS) -MD -MP -o $*.o -H $*.h $<
else
$(UFN_OUTDIR)/%.o $(UFN_OUTDIR)/%.h: %.ufn $(UFN_COMPILER_DEP)
	@mkdir -p $(UFN_OUTDIR)
	$(UFNC) $(UFNFLAGS) -MD -MP -o $(UFN_OUTDIR)/$*.o -H $(UFN_OUTDIR)/$*.h $<
endif

-include $(wildcard $(if $(UFN_OUTDIR),$(UFN_OUTDIR)/,)*.d)
