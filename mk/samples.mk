# mk/samples.mk - `make samples`: each samples/NAME.ufn and its program
# samples/NAME.c, built through tools/ufn.mk as a user's project builds its
# modules.  Only the in-tree ufnc and runtime stand in for installed ones.
#
#   build/samples/NAME.o, NAME.h, NAME.d   made by ufn.mk's rule (ufnc -MD)
#   build/samples/NAME                     the program; run it, or see tests/e2e

SAMPLES_NAMES := $(basename $(notdir $(wildcard samples/*.ufn)))
SAMPLES_DIR   := $(BUILD)/samples
SAMPLES_BIN   := $(SAMPLES_NAMES:%=$(SAMPLES_DIR)/%)
SAMPLES_OBJ   := $(SAMPLES_NAMES:%=$(SAMPLES_DIR)/%.o)

# What pkg-config would say for an installed ufnc; UFNC is the Makefile's.
UFN_OUTDIR := $(SAMPLES_DIR)
UFN_CFLAGS := -Iinclude
UFN_LIBS   := $(LIBUFNRT_A) $(LDLIBS_RT)
# Without nvcc, the code that needs no CUDA toolkit; with it, one GPU
# generation is enough here: check-e2e-nvcc builds every sample for one
# architecture of each GPU family once, and the arch list does not change
# the host or sim code.
comma      := ,
UFNFLAGS   := $(if $(NVCC),--arch=sm_80,--target=host$(comma)sim)

vpath %.ufn samples
include tools/ufn.mk

# ufn.mk cannot know that ufnc itself is built here.
$(SAMPLES_OBJ): $(UFNC)

SAMPLES_CFLAGS := $(CFLAGS) $(WARNFLAGS) -Werror

$(SAMPLES_BIN): $(SAMPLES_DIR)/%: samples/%.c samples/sample.h $(SAMPLES_DIR)/%.o $(SAMPLES_DIR)/%.h \
                $(LIBUFNRT_A)
	$(call say,CC,$<)
	$(Q)$(CC) $(UFN_CFLAGS) -I$(UFN_OUTDIR) $(SAMPLES_CFLAGS) -o $@ $< $(SAMPLES_DIR)/$*.o $(UFN_LIBS)

samples: $(SAMPLES_BIN)
