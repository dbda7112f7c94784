# mk/benchgpu.mk - `make bench-gpu`: the cuda backend against the GPU's own
# limits (bench/gpu/bench_gpu.c says what it measures), written to
# bench/RESULTS-gpu.md.  Not part of `make check`; it needs a GPU and fails at
# once without one.  BENCH_GPU_BACKEND=sim runs the harness on the simulator
# (small sizes) into $(BUILD)/bench-gpu/RESULTS-sim.md: a test, not a result.
# Builds on a GPU machine as make check-gpu does (mk/gpu.mk).

BENCH_GPU_DIR     := $(BUILD)/bench-gpu
BENCH_GPU_BIN     := $(BENCH_GPU_DIR)/bench-gpu
BENCH_GPU_BACKEND ?= cuda
BENCH_GPU_OUT     := $(if $(filter sim,$(BENCH_GPU_BACKEND)),$(BENCH_GPU_DIR)/RESULTS-sim.md,bench/RESULTS-gpu.md)

# The module as a user builds it: ufnc's default architecture list.
$(BENCH_GPU_DIR)/gpu.o $(BENCH_GPU_DIR)/gpu.h: bench/gpu/gpu.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) -o $(BENCH_GPU_DIR)/gpu.o -H $(BENCH_GPU_DIR)/gpu.h $<

$(BENCH_GPU_BIN): bench/gpu/bench_gpu.c $(BENCH_GPU_DIR)/gpu.o $(BENCH_GPU_DIR)/gpu.h $(LIBUFNRT_A)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -I$(BENCH_GPU_DIR) -O2 -g -std=c11 -Wall -Wextra -o $@ $< \
	    $(BENCH_GPU_DIR)/gpu.o $(LIBUFNRT_A) $(LDLIBS_RT)

.PHONY: bench-gpu
bench-gpu:
	$(Q)if [ "$(BENCH_GPU_BACKEND)" = cuda ]; then \
	  $(MAKE) --no-print-directory $(QUIET_MAKE) $(GPU_PREBUILT) $(GPU_PROBE) && $(GPU_PROBE) bench-gpu || exit 1; fi
	$(Q)if [ -z "$(NVCC)" ]; then echo "bench-gpu: no nvcc: the kernel's GPU code cannot be built" >&2; exit 1; fi
	$(Q)$(MAKE) --no-print-directory $(GPU_PREBUILT) $(BENCH_GPU_BIN)
	$(Q)BENCH_GPU_BACKEND=$(BENCH_GPU_BACKEND) $(BENCH_GPU_BIN) > $(BENCH_GPU_OUT).tmp && \
	  mv $(BENCH_GPU_OUT).tmp $(BENCH_GPU_OUT) && cat $(BENCH_GPU_OUT)
