# mk/robust.mk - hostile conditions for the compiler and the runtime (tests/robust/).
#
#   make check-robust   (suite "robust") ufnc with tools that fail or hang,
#                       signals, odd paths and inputs, deep nesting
#                       (compiler.sh); a compiled module called with every
#                       misuse on host and sim, out of device memory, without
#                       a driver, fork() while other threads are inside calls
#                       (hostile.c); the numeric rules on host and sim
#                       (rules.c) and in the CUDA code (rules-cuda.sh); where
#                       ufnc once disagreed with Numba (agree.c)
#
# hostile and rules link a libufnrt built again with ASan and UBSan, so that
# the misuse they try is checked for memory errors and undefined behaviour
# in every make check; $(ROBUST_DIR)/plain/ has them without, for valgrind.

CHECK_SUITES += robust

ROBUST_DIR   := $(BUILD)/robust
ROBUST_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ROBUST_BINS  := $(ROBUST_DIR)/hostile $(ROBUST_DIR)/rules $(ROBUST_DIR)/agree
ROBUST_PLAIN := $(ROBUST_DIR)/plain/hostile $(ROBUST_DIR)/plain/rules $(ROBUST_DIR)/plain/agree
ROBUST_RT    := $(ROBUST_DIR)/libufnrt-san.a
ROBUST_RT_OBJ := $(RUNTIME_SRC:runtime/%.c=$(ROBUST_DIR)/rt/%.o)
# A libcuda.so that loads but has no GPU: the toolkit's stub, when installed.
ROBUST_STUB  := $(firstword $(wildcard $(dir $(NVCC))../lib64/stubs/libcuda.so $(CUDA_HOME)/lib64/stubs/libcuda.so \
                  /usr/local/cuda/lib64/stubs/libcuda.so))

$(ROBUST_DIR)/rt/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -O1 -g $(ROBUST_SAN) $(WARNFLAGS) -fPIC $(DEPFLAGS) -c -o $@ $<

$(ROBUST_RT): $(ROBUST_RT_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

-include $(wildcard $(ROBUST_DIR)/rt/*.d $(ROBUST_DIR)/rt/*/*.d)

# The module of each test, compiled by the ufnc under test (host and sim code).
$(ROBUST_DIR)/%.o $(ROBUST_DIR)/%.h: tests/robust/%.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) $< --target=host,sim -o $(ROBUST_DIR)/$*.o

$(ROBUST_BINS): $(ROBUST_DIR)/%: tests/robust/%.c $(ROBUST_DIR)/%.o $(ROBUST_DIR)/%.h $(ROBUST_RT)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -I$(ROBUST_DIR) $(TEST_CFLAGS) $(ROBUST_SAN) -o $@ $< $(ROBUST_DIR)/$*.o \
	    $(ROBUST_RT) -lcmocka $(LDLIBS_RT)

$(ROBUST_PLAIN): $(ROBUST_DIR)/plain/%: tests/robust/%.c $(ROBUST_DIR)/%.o $(ROBUST_DIR)/%.h $(LIBUFNRT_A)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -I$(ROBUST_DIR) $(TEST_CFLAGS) -o $@ $< $(ROBUST_DIR)/$*.o $(LIBUFNRT_A) \
	    -lcmocka $(LDLIBS_RT)

.PHONY: check-robust
check-robust: $(ROBUST_BINS) $(UFNC)
	$(Q)tests/robust/run.sh $(ROBUST_DIR) $(UFNC) "$(ROBUST_STUB)"
