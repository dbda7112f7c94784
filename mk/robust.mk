# mk/robust.mk - hostile conditions for the compiler and the runtime (tests/robust/).
#
#   make check-robust   (suite "robust") ufnc with tools that fail or hang,
#                       signals, odd paths and inputs, deep nesting
#                       (compiler.sh); a compiled module called with every
#                       misuse on host and sim, out of device memory, without
#                       a driver (hostile.c); the numeric rules on host and sim
#                       (rules.c) and in the CUDA code (rules-cuda.sh)

CHECK_SUITES += robust

ROBUST_DIR  := $(BUILD)/robust
ROBUST_BINS := $(ROBUST_DIR)/hostile $(ROBUST_DIR)/rules
# A libcuda.so that loads but has no GPU: the toolkit's stub, when installed.
ROBUST_STUB := $(firstword $(wildcard $(dir $(NVCC))../lib64/stubs/libcuda.so $(CUDA_HOME)/lib64/stubs/libcuda.so \
                 /usr/local/cuda/lib64/stubs/libcuda.so))

# The module of each test, compiled by the ufnc under test (host and sim code).
$(ROBUST_DIR)/%.o $(ROBUST_DIR)/%.h: tests/robust/%.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) $< --target=host,sim -o $(ROBUST_DIR)/$*.o

$(ROBUST_BINS): $(ROBUST_DIR)/%: tests/robust/%.c $(ROBUST_DIR)/%.o $(ROBUST_DIR)/%.h $(LIBUFNRT_A)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -I$(ROBUST_DIR) $(TEST_CFLAGS) -o $@ $< $(ROBUST_DIR)/$*.o $(LIBUFNRT_A) \
	    -lcmocka $(LDLIBS_RT)

.PHONY: check-robust
check-robust: $(ROBUST_BINS) $(UFNC)
	$(Q)tests/robust/run.sh $(ROBUST_DIR) $(UFNC) "$(ROBUST_STUB)"
