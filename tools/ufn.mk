# ufn.mk - GNU make rules for .ufn modules.  Installed with ufnc (as
# $(datadir)/ufnc/ufn.mk, which pkg-config's ufnmk variable names); include it:
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
# Variables (set them before or after the include; UFN_OUTDIR before):
#   UFNC        the compiler   (default: pkg-config's ufnc variable, else ufnc on PATH)
#   UFNFLAGS    options for ufnc, e.g. --arch=sm_90 or --target=host,sim
#   UFN_OUTDIR  where objects and headers go      (default: next to the .ufn)
#   UFN_CFLAGS  compile flags for code that includes generated headers
#   UFN_LIBS    link flags for libufnrt
#
# With UFN_OUTDIR set, $(UFN_OUTDIR)/polar.o is made from polar.ufn in the
# current directory; for modules kept elsewhere say where:  vpath %.ufn src

UFNC       ?= $(eval UFNC := $$(or $$(shell $$(PKG_CONFIG) --variable=ufnc ufn 2>/dev/null),ufnc))$(UFNC)
UFNFLAGS   ?=
UFN_OUTDIR ?=
PKG_CONFIG ?= pkg-config
# Asked of pkg-config once, on first use: a plain ?= would run it again at
# every expansion (every compile, since CPPFLAGS refers to it), and not at
# all when the variables are set by the user.
UFN_CFLAGS ?= $(eval UFN_CFLAGS := $$(shell $$(PKG_CONFIG) --cflags ufn))$(UFN_CFLAGS)
UFN_LIBS   ?= $(eval UFN_LIBS := $$(shell $$(PKG_CONFIG) --libs ufn))$(UFN_LIBS)

CPPFLAGS += $(UFN_CFLAGS) $(if $(UFN_OUTDIR),-I$(UFN_OUTDIR))

# One ufnc run makes both the object and the header (a grouped pattern rule).
# A new ufnc, when named by its path, rebuilds the modules.
ifeq ($(UFN_OUTDIR),)
%.o %.h: %.ufn $(filter /%,$(UFNC))
	$(UFNC) $(UFNFLAGS) -MD -MP -o $*.o -H $*.h $<
else
$(UFN_OUTDIR)/%.o $(UFN_OUTDIR)/%.h: %.ufn $(filter /%,$(UFNC))
	@mkdir -p $(UFN_OUTDIR)
	$(UFNC) $(UFNFLAGS) -MD -MP -o $(UFN_OUTDIR)/$*.o -H $(UFN_OUTDIR)/$*.h $<
endif

# The dependency files' rules must not become the default goal of a Makefile
# that includes this file before its own first rule.
ufn_default_goal := $(.DEFAULT_GOAL)
-include $(wildcard $(if $(UFN_OUTDIR),$(UFN_OUTDIR)/,)*.d)
.DEFAULT_GOAL := $(ufn_default_goal)
