# mk/gpu.mk - `make check-gpu`: the end-to-end suites on a real GPU.  Not
# part of `make check`: it needs a GPU, and fails at once, saying so, without
# one ("check-gpu: no CUDA device: ...").
#
#   samples    every samples/NAME program, its module built for ufnc's default
#              architecture list (as a user builds it), run on UFN_BACKEND=cuda
#              and on the host, the results compared (tests/e2e/run.sh with
#              E2E_DEVICE=cuda: bit for bit, or within the program's tolerance)
#   features   the same for every tests/e2e/NAME.ufn + NAME.c
#   seeds      every seed module built for the default architecture list
#              (tests/seeds/run.sh with SEEDS_ARCH=default)
#
# On a GPU machine without flex, bison or cmocka, it builds from a tree built
# elsewhere (make all there; the README says how): the generated scanner and
# parser in $(BUILD)/gen are taken as they are (make -o), and nothing else it
# builds needs more than cc and nvcc.

GPU_DIR      := $(BUILD)/gpu
GPU_SAMPLES  := $(patsubst samples/%.ufn,$(GPU_DIR)/samples/%,$(sort $(wildcard samples/*.ufn)))
GPU_FEATURES := $(patsubst tests/e2e/%.ufn,$(GPU_DIR)/e2e/%,$(sort $(wildcard tests/e2e/*.ufn)))
GPU_PROBE    := $(GPU_DIR)/probe
GPU_CFLAGS   := $(CFLAGS) $(WARNFLAGS) -Wno-missing-prototypes
# The generated front end, as copied: never remade (no bison or flex there).
GPU_PREBUILT := -o $(BUILD)/gen/ufn.tab.c -o $(BUILD)/gen/ufn.tab.h \
                -o $(BUILD)/gen/lex.yy.c -o $(BUILD)/gen/lex.yy.h

# ufnc's default architectures: no --arch.
$(GPU_DIR)/samples/%.o $(GPU_DIR)/samples/%.h: samples/%.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) -o $(GPU_DIR)/samples/$*.o -H $(GPU_DIR)/samples/$*.h $<

$(GPU_DIR)/e2e/%.o $(GPU_DIR)/e2e/%.h: tests/e2e/%.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) -o $(GPU_DIR)/e2e/$*.o -H $(GPU_DIR)/e2e/$*.h $<

$(GPU_SAMPLES): $(GPU_DIR)/samples/%: samples/%.c samples/sample.h $(GPU_DIR)/samples/%.o \
                $(GPU_DIR)/samples/%.h $(LIBUFNRT_A)
	$(call say,CC,$@)
	$(Q)$(CC) -Iinclude -Isamples -I$(GPU_DIR)/samples $(GPU_CFLAGS) -o $@ $< \
	    $(GPU_DIR)/samples/$*.o $(LIBUFNRT_A) $(LDLIBS_RT)

$(GPU_FEATURES): $(GPU_DIR)/e2e/%: tests/e2e/%.c $(E2E_HDRS) $(GPU_DIR)/e2e/%.o $(GPU_DIR)/e2e/%.h \
                 $(LIBUFNRT_A)
	$(call say,CC,$@)
	$(Q)$(CC) -Iinclude -Isamples -Itests/e2e -I$(GPU_DIR)/e2e $(GPU_CFLAGS) -o $@ $< \
	    $(GPU_DIR)/e2e/$*.o $(LIBUFNRT_A) $(LDLIBS_RT)

$(GPU_PROBE): tests/gpu/probe.c include/ufn.h $(LIBUFNRT_A)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) -Iinclude $(GPU_CFLAGS) -o $@ $< $(LIBUFNRT_A) $(LDLIBS_RT)

.PHONY: check-gpu gpu-programs
gpu-programs: $(GPU_SAMPLES) $(GPU_FEATURES) $(E2E_CMPDUMP)

# The probe first: without a device, fail before building anything for it.
check-gpu:
	$(Q)$(MAKE) --no-print-directory $(QUIET_MAKE) $(GPU_PREBUILT) $(GPU_PROBE)
	$(Q)$(GPU_PROBE)
	$(Q)if [ -z "$(NVCC)" ]; then echo "check-gpu: no nvcc: the modules' GPU code cannot be built" >&2; exit 1; fi
	$(Q)failed=; \
	$(MAKE) --no-print-directory -k $(GPU_PREBUILT) gpu-programs || failed=" building"; \
	E2E_DEVICE=cuda tests/e2e/run.sh "gpu samples" $(GPU_DIR)/run-samples $(E2E_CMPDUMP) $(GPU_SAMPLES) \
	  || failed="$$failed samples"; \
	E2E_DEVICE=cuda tests/e2e/run.sh "gpu features" $(GPU_DIR)/run-features $(E2E_CMPDUMP) $(GPU_FEATURES) \
	  || failed="$$failed features"; \
	SEEDS_ARCH=default tests/seeds/run.sh $(UFNC) || failed="$$failed seeds"; \
	if [ -n "$$failed" ]; then echo "check-gpu: FAILED:$$failed"; exit 1; fi; \
	echo "check-gpu: all parts passed"
