# mk/tsan.mk - `make check-tsan`: the runtime's threaded tests under
# ThreadSanitizer (CI runs it; not part of make check).
#
#   make check-tsan   libufnrt, the CUDA backend's test kernels and the tests
#                     that run threads, rebuilt into $(TSAN_DIR) with
#                     -fsanitize=thread: the host backend's pool (test_host,
#                     test_backend, test_reduce: reduce's threads), the cuda backend over the simulator,
#                     whose streams are threads (test_cuda_backend,
#                     test_cuda_hardening, test_sim_driver), calls split
#                     over several devices, a thread each (test_multi), @cuda.jit
#                     kernels on the host pool and on the simulator's stream
#                     threads, both running fibers (test_kernel_launch,
#                     test_kernel_driver, with the hand-written kernels of
#                     kernel_kernels.cu), and a compiled module called from
#                     eight threads at once on host and on sim (hostile
#                     calls).
#                     Any report fails the run.
#
# The modules ufnc compiles for these tests are not instrumented (the
# runtime is what shares memory between threads); fork() tests stay out,
# as TSan does not follow a multi-threaded fork.

TSAN_DIR     := $(BUILD)/tsan
TSAN_SAN     := -fsanitize=thread -fno-omit-frame-pointer
TSAN_RT_OBJ  := $(RUNTIME_SRC:runtime/%.c=$(TSAN_DIR)/rt/%.o)
TSAN_RT      := $(TSAN_DIR)/libufnrt-tsan.a
TSAN_UNIT    := test_host test_backend test_reduce test_cuda_backend test_cuda_hardening \
                test_sim_driver test_sim_graph test_pipeline_graph test_pipeline test_multi
TSAN_KUNIT   := test_kernel_launch test_kernel_driver
TSAN_BINS    := $(TSAN_UNIT:%=$(TSAN_DIR)/%) $(TSAN_KUNIT:%=$(TSAN_DIR)/%) $(TSAN_DIR)/hostile
TSAN_SIM     := $(TSAN_DIR)/sim_kernels.o $(TSAN_DIR)/sim_module.o
TSAN_ENV     := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:exitcode=66:allocator_may_return_null=1

$(TSAN_DIR)/rt/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -O1 -g $(TSAN_SAN) $(WARNFLAGS) -fPIC $(DEPFLAGS) -c -o $@ $<

$(TSAN_RT): $(TSAN_RT_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

-include $(wildcard $(TSAN_DIR)/rt/*.d $(TSAN_DIR)/rt/*/*.d $(TSAN_DIR)/*.d)

$(TSAN_DIR)/sim_kernels.o: tests/unit/runtime/sim_kernels.cu
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(RTC_CPPFLAGS) -O1 -g $(TSAN_SAN) -std=c11 $(DEPFLAGS) -x c -c -o $@ $<

$(TSAN_DIR)/sim_module.o: tests/unit/runtime/sim_module.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(RTC_CPPFLAGS) -O1 -g $(TSAN_SAN) -std=c11 $(DEPFLAGS) -c -o $@ $<

# (the fatbin and the fake drivers are files the tests open by path: made
# here too, for a check-tsan that runs before any make check)
$(TSAN_UNIT:%=$(TSAN_DIR)/%): $(TSAN_DIR)/%: tests/unit/runtime/%.c tests/unit/runtime/cuda_test.h \
                               $(TSAN_SIM) $(TSAN_RT) | $(RTC_FATBIN) $(RTC_FAKE)
	$(call say,CC,$@)
	$(Q)$(CC) $(RTC_CPPFLAGS) $(TEST_CFLAGS) -O1 $(TSAN_SAN) -o $@ $< $(TSAN_SIM) $(TSAN_RT) \
	    -lcmocka $(LDLIBS_RT)

# The kernels of kernel_kernels.cu as mk/kernelsrt.mk builds them, instrumented
# (-Wno-tsan: TSan does not model the device API's fences, and the threads of
# a simulated block never run at the same time anyway).
TSAN_KRT := $(TSAN_DIR)/kernel_kernels.sim.o $(TSAN_DIR)/kernel_kernels.host.o \
            $(TSAN_DIR)/kernel_module.o

$(TSAN_DIR)/kernel_kernels.sim.o: $(KRT_SRC)/kernel_kernels.cu $(KRT_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -I$(KRT_SRC) -O1 -g $(TSAN_SAN) -Wno-tsan -std=c11 $(DEPFLAGS) -x c -c -o $@ $<

$(TSAN_DIR)/kernel_kernels.host.o: $(KRT_SRC)/kernel_kernels.cu $(KRT_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -I$(KRT_SRC) -O1 -g $(TSAN_SAN) -Wno-tsan -std=c11 -DUFN_HOST_ENTRY $(DEPFLAGS) \
	    -x c -c -o $@ $<

$(TSAN_DIR)/kernel_module.o: $(KRT_SRC)/kernel_module.c $(KRT_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) -O1 $(TSAN_SAN) $(DEPFLAGS) -c -o $@ $<

$(TSAN_KUNIT:%=$(TSAN_DIR)/%): $(TSAN_DIR)/%: $(KRT_SRC)/%.c $(TSAN_KRT) $(TSAN_RT)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) -O1 $(TSAN_SAN) -o $@ $< $(TSAN_KRT) $(TSAN_RT) \
	    -lcmocka $(LDLIBS_RT)

$(TSAN_DIR)/hostile: tests/robust/hostile.c $(ROBUST_DIR)/hostile.o $(ROBUST_DIR)/hostile.h $(TSAN_RT)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -I$(ROBUST_DIR) $(TEST_CFLAGS) -O1 $(TSAN_SAN) -o $@ $< \
	    $(ROBUST_DIR)/hostile.o $(TSAN_RT) -lcmocka $(LDLIBS_RT)

.PHONY: check-tsan
check-tsan: $(TSAN_BINS)
	$(Q)pass=0; fail=0; \
	run() { name=$$1; shift; \
	  if env $(TSAN_ENV) "$$@" > $(TSAN_DIR)/$$name.log 2>&1; then \
	    pass=$$((pass + 1)); echo "ok    $$name"; \
	  else fail=$$((fail + 1)); echo "FAIL  $$name"; \
	    grep -v '^\[ RUN\|^\[       OK' $(TSAN_DIR)/$$name.log | head -40 | sed 's/^/      /'; fi; }; \
	for t in $(TSAN_UNIT) $(TSAN_KUNIT); do run $$t $(TSAN_DIR)/$$t; done; \
	run hostile-host env UFN_BACKEND=host $(TSAN_DIR)/hostile calls; \
	run hostile-sim env UFN_BACKEND=sim $(TSAN_DIR)/hostile calls; \
	echo "tsan: $$pass passed, $$fail failed"; [ $$fail -eq 0 ]
