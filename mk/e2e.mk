# mk/e2e.mk - `make check-e2e`: programs that compile .ufn modules with the
# in-tree ufnc, link them with libufnrt and run them (tests/e2e/).
#
#   check-e2e-samples   every samples/NAME program on host (each ISA, one
#                       thread and several) and sim; the results compared
#                       bit for bit (run.sh)
#   check-e2e-features  tests/e2e/NAME.ufn + NAME.c: integer semantics,
#                       typing, tuples, gufunc layouts, dispatch,
#                       broadcasting and views, complex, stdlib imports,
#                       device pipelines, several devices (multigpu), math
#                       functions bit for bit (mathbits); the same runs and
#                       comparisons
#   check-e2e-trace     the seeds' device pipelines on sim: the exact
#                       allocations, copies and launches (trace.sh)
#   check-e2e-nodriver  no GPU, no driver: host by default, UFN_BACKEND=cuda
#                       refused with UFN_ERR_NO_DRIVER (nodriver.sh)
#   check-e2e-nvcc      every sample and the other test modules (the seeds,
#                       tests/golden/codegen, tests/driver, tests/robust) for
#                       the CI's architectures (E2E_ARCHS, below), ptxas
#                       register counts in build/tests/e2e/nvcc/registers.log,
#                       spills listed ("skipped: no nvcc" without the toolkit)
#
# check-e2e runs all five and fails if any did.

CHECK_SUITES += e2e

E2E_DIR      := $(BUILD)/tests/e2e
E2E_NAMES    := $(basename $(notdir $(wildcard tests/e2e/*.ufn)))
E2E_BIN      := $(E2E_NAMES:%=$(E2E_DIR)/%)
E2E_OBJ      := $(E2E_NAMES:%=$(E2E_DIR)/%.o)
E2E_CMPDUMP  := $(E2E_DIR)/cmpdump
# mk/samples.mk is read after this file: name its outputs here.
E2E_SAMPLES  := $(patsubst samples/%.ufn,$(BUILD)/samples/%,$(sort $(wildcard samples/*.ufn)))
E2E_SQRT     := $(BUILD)/samples/sqrt
E2E_NODRIVER := $(E2E_DIR)/nodriver
# The GPU architectures every test module is built for: one per family
# since CUDA 13's oldest, Turing (sm_75), Ampere (sm_80), Hopper (sm_90),
# Blackwell for data centres (sm_100) and for the rest (sm_120), as far as
# the installed nvcc builds them.  ptxas generates code per family (issue
# 13: float64 code that built for sm_80 spilled on sm_90 and failed); the
# other members of the default list (sm_86..89, sm_103, sm_110, sm_121) are
# variants of these, and building all twelve would cost make check 2.4
# times the nvcc time for what the family already shows.  The default list
# itself is built by tests/driver (the spill case, two deterministic
# builds).
comma        := ,
# (evaluated once, when first used)
E2E_ARCHS     = $(eval E2E_ARCHS := $$(if $$(NVCC),$$(shell $$(NVCC) --list-gpu-code 2>/dev/null \
                  | grep -xE 'sm_(75|80|90|100|120)' | paste -sd, -)))$(E2E_ARCHS)
# Host and sim code is what these programs run; with nvcc, the GPU code for
# those families as well, so that a GPU runs SASS built for it.
E2E_UFNFLAGS  = $(if $(NVCC),--arch=$(E2E_ARCHS),--target=host$(comma)sim)
E2E_CFLAGS   := $(CFLAGS) $(WARNFLAGS) -Werror -Wno-missing-prototypes
E2E_INC      := -Iinclude -Isamples -Itests/e2e -I$(E2E_DIR)
E2E_HDRS     := tests/e2e/e2e.h tests/e2e/reference.h samples/sample.h

# These modules are clean code: any diagnostic, ufnc's or a tool's (nvcc
# warning about generated code), fails the build, except ptxas's register
# spills on some architectures (-Wspill: a warning by design, ufnc(1)),
# which go to NAME.spills and are shown.
$(E2E_DIR)/%.o $(E2E_DIR)/%.h: tests/e2e/%.ufn $(UFNC)
	@mkdir -p $(E2E_DIR)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) $(E2E_UFNFLAGS) -MD -MP -o $(E2E_DIR)/$*.o -H $(E2E_DIR)/$*.h $< 2> $(E2E_DIR)/$*.ufnc.log; \
	  status=$$?; cat $(E2E_DIR)/$*.ufnc.log >&2; \
	  rm -f $(E2E_DIR)/$*.spills; \
	  tests/e2e/spills.awk -v spills=$(E2E_DIR)/$*.spills $(E2E_DIR)/$*.ufnc.log > $(E2E_DIR)/$*.other.log; \
	  if [ $$status -eq 0 ] && [ -s $(E2E_DIR)/$*.other.log ]; then \
	    echo "$<: ufnc printed diagnostics for a clean module" >&2; rm -f $(E2E_DIR)/$*.o; exit 1; fi; \
	  exit $$status

$(E2E_BIN): $(E2E_DIR)/%: tests/e2e/%.c $(E2E_DIR)/%.o $(E2E_DIR)/%.h $(E2E_HDRS) $(LIBUFNRT_A)
	$(call say,CC,$<)
	$(Q)$(CC) $(E2E_INC) $(E2E_CFLAGS) -o $@ $< $(E2E_DIR)/$*.o $(LIBUFNRT_A) $(LDLIBS_RT)

# A sample's module in a program of the test's own.
$(E2E_NODRIVER): tests/e2e/nodriver.c $(E2E_SQRT).o $(E2E_SQRT).h $(E2E_HDRS) $(LIBUFNRT_A)
	@mkdir -p $(E2E_DIR)
	$(call say,CC,$<)
	$(Q)$(CC) $(E2E_INC) -I$(BUILD)/samples $(E2E_CFLAGS) -o $@ $< $(E2E_SQRT).o $(LIBUFNRT_A) $(LDLIBS_RT)

# add.reduce's launches on the device, traced (methods.ufn's module).
$(E2E_DIR)/reduce_trace: tests/e2e/trace/reduce_trace.c $(E2E_DIR)/methods.o $(E2E_DIR)/methods.h $(LIBUFNRT_A)
	$(call say,CC,$<)
	$(Q)$(CC) $(E2E_INC) $(E2E_CFLAGS) -o $@ $< $(E2E_DIR)/methods.o $(LIBUFNRT_A) $(LDLIBS_RT)

$(E2E_CMPDUMP): tests/e2e/cmpdump.c
	@mkdir -p $(E2E_DIR)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(WARNFLAGS) -Werror -o $@ $< -lm

-include $(wildcard $(E2E_DIR)/*.d)

.PHONY: check-e2e check-e2e-samples check-e2e-features check-e2e-trace check-e2e-nodriver check-e2e-nvcc
check-e2e-samples: $(E2E_SAMPLES) $(E2E_CMPDUMP)
	$(Q)tests/e2e/run.sh "e2e samples" $(E2E_DIR)/samples $(E2E_CMPDUMP) $(E2E_SAMPLES)

check-e2e-features: $(E2E_BIN) $(E2E_CMPDUMP)
	$(Q)tests/e2e/run.sh "e2e features" $(E2E_DIR)/features $(E2E_CMPDUMP) $(E2E_BIN)

check-e2e-trace: $(BUILD)/samples/pulses $(BUILD)/samples/hidden_layer $(E2E_DIR)/reduce_trace
	$(Q)tests/e2e/trace.sh $(E2E_DIR)/trace $^

check-e2e-nodriver: $(E2E_NODRIVER) $(E2E_SQRT)
	$(Q)tests/e2e/nodriver.sh $^

# Every module of the tests but tests/e2e's (built above) and those that
# only hold device functions or errors.
E2E_NVCC_MODULES := $(sort $(wildcard samples/*.ufn)) $(sort $(wildcard tests/golden/codegen/*.ufn)) \
                    $(sort $(wildcard tests/golden/ast/seed_00[01234]_*.ufn)) tests/driver/mod.ufn \
                    $(sort $(wildcard tests/robust/*.ufn))

check-e2e-nvcc: $(UFNC)
	$(Q)tests/e2e/nvcc-modules.sh $(UFNC) $(E2E_DIR)/nvcc "$(NVCC)" "$(E2E_ARCHS)" $(E2E_NVCC_MODULES)

# Every part runs even when an earlier one failed.
check-e2e: $(E2E_SAMPLES) $(E2E_BIN) $(E2E_CMPDUMP) $(E2E_NODRIVER) $(UFNC)
	$(Q)failed=; for part in samples features trace nodriver nvcc; do \
	  $(MAKE) --no-print-directory check-e2e-$$part || failed="$$failed $$part"; done; \
	  if [ -n "$$failed" ]; then echo "e2e: FAILED:$$failed"; exit 1; fi; echo "e2e: all parts passed"
