# mk/kernelsrt.mk - the runtime of @cuda.jit kernels: build rules of its
# tests (tests/unit/runtime), and `make check-kernelsrt`.
#
# check.mk runs every tests/unit/runtime/test_*.c in `make check-unit`; the
# ones here need more than their one file, so they get explicit rules:
#   kernel_kernels.cu     hand-written kernels in the form ufnc is to emit,
#                         compiled as C11 twice: for the simulator (checks
#                         on, -Werror: ufn_sim.h must keep generated code
#                         warning-free) and for the host backend's thread
#                         entries (-DUFN_HOST_ENTRY)
#   kernel_module.c       their host side: trampolines, block runners, tables
#   test_kernel_launch    ufn_launch_kernel on the host and sim backends
#   test_kernel_driver    the simulated driver's side of kernels
#   test_fiber_ucontext   test_fiber with fiber.c built for the ucontext
#                         fallback (-DUFN_FIBER_UCONTEXT) and linked in directly
#
# `make check-kernelsrt` (in make check) runs test_fiber_ucontext; when
# aarch64-linux-gnu-gcc and qemu-aarch64 are installed, the aarch64 switch
# (fiber_cross.c, static, under qemu-user); and when nvcc is found, builds
# kernel_kernels.cu into a fatbin for sm_75 and sm_90 (which proves the file
# is valid CUDA) and prints ptxas's register counts.

KRT_SRC := tests/unit/runtime
KRT_OUT := $(BUILD)/tests/runtime
KRT_UCONTEXT := $(KRT_OUT)/test_fiber_ucontext
KRT_OBJ := $(KRT_OUT)/kernel_kernels.sim.o $(KRT_OUT)/kernel_kernels.host.o \
           $(KRT_OUT)/kernel_module.o
KRT_FATBIN := $(if $(NVCC),$(KRT_OUT)/kernel_kernels.fatbin)
KRT_HDRS := include/ufn_kernel.h include/ufn_sim.h include/ufn_abi.h $(KRT_SRC)/kernel_module.h

$(KRT_OUT)/kernel_kernels.sim.o: $(KRT_SRC)/kernel_kernels.cu $(KRT_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -I$(KRT_SRC) $(CFLAGS) -std=c11 -Wall -Wextra -Werror $(DEPFLAGS) -x c -c -o $@ $<

$(KRT_OUT)/kernel_kernels.host.o: $(KRT_SRC)/kernel_kernels.cu $(KRT_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -I$(KRT_SRC) $(CFLAGS) -std=c11 -Wall -Wextra -Werror -DUFN_HOST_ENTRY \
	    $(DEPFLAGS) -x c -c -o $@ $<

$(KRT_OUT)/kernel_module.o: $(KRT_SRC)/kernel_module.c $(KRT_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) -Werror $(DEPFLAGS) -c -o $@ $<

KRT_TESTS := $(KRT_OUT)/test_kernel_launch $(KRT_OUT)/test_kernel_driver

$(KRT_TESTS): $(KRT_OUT)/%: $(KRT_SRC)/%.c $(KRT_OBJ) $(LIBUFNRT_A)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) $(DEPFLAGS) -o $@ $< $(KRT_OBJ) $(LIBUFNRT_A) \
	    -lcmocka $(LDLIBS_RT)

$(KRT_UCONTEXT): $(KRT_SRC)/test_fiber.c runtime/sim/fiber.c runtime/sim/simt.h
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) -DUFN_FIBER_UCONTEXT $(DEPFLAGS) -o $@ \
	    $(KRT_SRC)/test_fiber.c runtime/sim/fiber.c -lcmocka

# The fatbin, and ptxas's resource usage of each kernel beside it.
$(KRT_OUT)/kernel_kernels.fatbin: $(KRT_SRC)/kernel_kernels.cu $(KRT_HDRS)
	@mkdir -p $(dir $@)
	$(call say,NVCC,$<)
	$(Q)$(NVCC) --fatbin -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=sm_90 \
	    -Iinclude -I$(KRT_SRC) -Xptxas -v -Werror all-warnings -o $@ $< 2> $@.ptxas || \
	    { cat $@.ptxas; rm -f $@; exit 1; }

KRT_CROSS_CC := $(shell command -v aarch64-linux-gnu-gcc 2>/dev/null)
KRT_QEMU := $(shell command -v qemu-aarch64 2>/dev/null)
KRT_CROSS := $(if $(and $(KRT_CROSS_CC),$(KRT_QEMU)),$(KRT_OUT)/fiber_cross_aarch64)

$(KRT_OUT)/fiber_cross_aarch64: $(KRT_SRC)/fiber_cross.c runtime/sim/fiber.c runtime/sim/simt.h
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(KRT_CROSS_CC) -O2 -std=c11 -Wall -Wextra -D_GNU_SOURCE -Iinclude -Iruntime -static \
	    -o $@ $(KRT_SRC)/fiber_cross.c runtime/sim/fiber.c

CHECK_SUITES += kernelsrt

.PHONY: check-kernelsrt
check-kernelsrt: $(KRT_UCONTEXT) $(KRT_FATBIN) $(KRT_CROSS)
	$(Q)tests/run-unit.sh $(KRT_UCONTEXT)
	$(Q)if [ -n "$(KRT_CROSS)" ]; then $(KRT_QEMU) $(KRT_CROSS); \
	else echo "aarch64: skipped (no aarch64-linux-gnu-gcc or qemu-aarch64)"; fi
	$(Q)if [ -n "$(KRT_FATBIN)" ]; then \
	  echo "nvcc: kernel_kernels.cu built for sm_75 and sm_90; ptxas:"; \
	  awk '/Compiling entry function/ { k = $$7; a = $$9; gsub(/\047/, "", k); gsub(/\047/, "", a) } \
	       /Used [0-9]+ registers/ { sub(/.*Used /, ""); printf "  %-6s %-24s %s\n", a, k, $$0 }' \
	      $(KRT_FATBIN).ptxas; \
	else echo "nvcc: skipped (no CUDA toolkit): kernel_kernels.cu not built for the GPU"; fi

# ---- make bench-engine: the thread engine's costs, into bench/engine.md -----------------
# (part of make bench; report.py puts bench/engine.md into bench/RESULTS.md)

KRT_BENCH := $(BUILD)/bench/engine

$(KRT_BENCH)/engine: bench/engine/engine.c $(KRT_OBJ) $(LIBUFNRT_A)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -I$(KRT_SRC) -O2 -g -std=c11 -Wall -Wextra -o $@ $< $(KRT_OBJ) \
	    $(LIBUFNRT_A) $(LDLIBS_RT)

$(KRT_BENCH)/engine-ucontext: bench/engine/engine.c runtime/sim/fiber.c runtime/sim/simt.h
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=c11 -Wall -Wextra -DSWITCH_ONLY -DUFN_FIBER_UCONTEXT \
	    -o $@ bench/engine/engine.c runtime/sim/fiber.c

.PHONY: bench-engine
bench-engine: $(KRT_BENCH)/engine $(KRT_BENCH)/engine-ucontext
	$(Q)numba=$$(/usr/bin/python3 bench/engine/numba_sim.py 10000 2>/dev/null || echo 0); \
	uc=$$($(KRT_BENCH)/engine-ucontext); \
	{ echo "## The thread engine of @cuda.jit kernels"; echo; \
	  echo "\`make bench-engine\` (bench/engine/engine.c) on $$(date -u +%Y-%m-%d), $$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $$(nproc) CPUs; one CPU thread, best of 5. Costs per simulated thread unless said otherwise; a barrier's and a shuffle's are what they add to a fiber's."; \
	  echo; $(KRT_BENCH)/engine $$numba $$uc; echo; \
	  echo "A barrier costs a context switch plus the engine's bookkeeping (states, the release of the block, the warps' bits); a kernel without barriers or warp functions never pays it. The host backend runs the reduction as loops split at its barriers (its block runner) wherever the compiler can split a kernel, and as fibers only where it cannot. reference/kernels.md 2.4 measured Numba's simulator at 192-202 µs per thread on the same kind of kernel."; \
	} > bench/engine.md.tmp && mv bench/engine.md.tmp bench/engine.md
	$(Q)cat bench/engine.md

bench: bench-engine
