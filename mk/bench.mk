# mk/bench.mk - `make bench`: ufnc against NumPy, Numba and the memory floor
# (issue 5).  Not part of `make check`: it takes minutes and its numbers are
# measurements, not pass/fail.  bench/run.sh does the work; see bench/README.md.
#
#   make bench                    sizes 1e3 .. 1e7, BENCH_ROUNDS rounds (default 3)
#   make bench BENCH_LONG=1       also 1e8 (and the hidden layer at 1e8)
#   make bench BENCH_ONLY=sqrt,arctan2    some workloads only
#
# Results: bench/RESULTS.md, bench/throughput.png, bench/results/*.json.

BENCH_DIR   := $(BUILD)/bench
BENCH_MODS  := sqrt polar gaussian l2_norm hidden_layer pulses zero_suppress
BENCH_MODO  := $(BENCH_MODS:%=$(BENCH_DIR)/mod/%.o) $(BENCH_DIR)/mod/gaussian_lit.o
BENCH_HSRC  := $(wildcard bench/harness/*.c)
BENCH_BIN   := $(BENCH_DIR)/bench-ufnc
BENCH_XFER  := $(BENCH_DIR)/bench-transfers
BENCH_CFLAGS := -O2 -g -std=c11 -Wall -Wextra -D_GNU_SOURCE -Iinclude -I$(BENCH_DIR)/mod -Ibench/harness
BENCH_ROUNDS ?= 3
BENCH_LONG  ?=
BENCH_ONLY  ?=

# The modules as a user builds them for the CPU: host loops and the simulator.
$(BENCH_DIR)/mod/%.o: samples/%.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) -w --target=host,sim $< -o $@

# The float32 Gaussian: the seed's source with --literals=numpy when this ufnc
# has it, else the source with float32 constants; how is recorded.
$(BENCH_DIR)/mod/gaussian_lit.o $(BENCH_DIR)/mod/gauss_how.c: samples/gaussian.ufn bench/kernels/gaussian_f32.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,gaussian_lit)
	$(Q)if $(UFNC) -w --literals=numpy --target=host,sim --prefix=lit_ --module-name=gaussian_lit \
	      samples/gaussian.ufn -o $(BENCH_DIR)/mod/gaussian_lit.o 2>/dev/null; then \
	  how='ufnc --literals=numpy samples/gaussian.ufn'; \
	else \
	  $(UFNC) -w --target=host,sim --prefix=lit_ --module-name=gaussian_lit \
	      bench/kernels/gaussian_f32.ufn -o $(BENCH_DIR)/mod/gaussian_lit.o || exit 1; \
	  how='bench/kernels/gaussian_f32.ufn (np.float32 constants; this ufnc has no --literals=numpy)'; \
	fi; \
	printf 'const char bench_gauss_f32_how[] = "%s";\n' "$$how" > $(BENCH_DIR)/mod/gauss_how.c

$(BENCH_BIN): $(BENCH_HSRC) bench/harness/bench.h $(BENCH_MODO) $(BENCH_DIR)/mod/gauss_how.c $(LIBUFNRT_A)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(BENCH_CFLAGS) -o $@ $(filter-out bench/harness/transfers.c,$(BENCH_HSRC)) \
	    $(BENCH_DIR)/mod/gauss_how.c $(BENCH_MODO) $(LIBUFNRT_A) $(LDLIBS_RT)

$(BENCH_XFER): bench/harness/transfers.c $(BENCH_MODO) $(LIBUFNRT_A)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(BENCH_CFLAGS) -o $@ $< $(BENCH_MODO) $(LIBUFNRT_A) $(LDLIBS_RT)

.PHONY: bench bench-build
bench-build: $(UFNC) $(LIBUFNRT_A) $(BENCH_BIN) $(BENCH_XFER)

bench: bench-build
	$(Q)BUILD=$(BUILD) UFNC=$(UFNC) NVCC=$(NVCC) BENCH_ROUNDS=$(BENCH_ROUNDS) \
	    BENCH_LONG=$(BENCH_LONG) BENCH_ONLY=$(BENCH_ONLY) bench/run.sh
	$(Q)$(MAKE) --no-print-directory bench-kernels

# ---- make bench-methods: add.reduce against the floor and NumPy, into bench/methods.md ------
# (run by make bench; report.py puts bench/methods.md into bench/RESULTS.md)
BENCH_METHODS := $(BENCH_DIR)/bench-methods

$(BENCH_METHODS): bench/methods/methods.c bench/harness/floor.c bench/harness/timing.c \
                  bench/harness/data.c bench/harness/bench.h $(BENCH_DIR)/mod/pulses.o \
                  $(BENCH_DIR)/mod/l2_norm.o $(LIBUFNRT_A)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(BENCH_CFLAGS) -o $@ bench/methods/methods.c bench/harness/floor.c \
	    bench/harness/timing.c bench/harness/data.c $(BENCH_DIR)/mod/pulses.o \
	    $(BENCH_DIR)/mod/l2_norm.o $(LIBUFNRT_A) $(LDLIBS_RT)

.PHONY: bench-methods
bench-methods: $(BENCH_METHODS)
	$(Q)bench/methods/report.sh $(BENCH_METHODS) $(BENCH_METHODS_N)

bench: bench-methods

# @cuda.jit kernels on the host and sim backends (bench/jit/): seed 002's
# grid-stride add against the same ufunc, the tiled matmul against OpenBLAS
# sgemm (Debian's libopenblas-dev), and the sim backend against Numba's CUDA
# simulator (when Python has numba).  Numbers go to bench/RESULTS.md by hand.
JIT_BENCH     := $(BENCH_DIR)/jit_bench
JIT_BENCH_SIM ?= 10000

$(BENCH_DIR)/jit/jit_bench.o: bench/jit/jit_bench.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) --target=host,sim $< -o $@

$(JIT_BENCH): bench/jit/jit_bench.c bench/harness/timing.c $(BENCH_DIR)/jit/jit_bench.o $(LIBUFNRT_A)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(BENCH_CFLAGS) -I$(BENCH_DIR)/jit -o $@ $< bench/harness/timing.c $(BENCH_DIR)/jit/jit_bench.o \
	    $(LIBUFNRT_A) $(LDLIBS_RT) -lopenblas

.PHONY: bench-kernels
bench-kernels: $(JIT_BENCH)
	$(Q)UFN_BACKEND=host $(JIT_BENCH) host
	$(Q)UFN_BACKEND=sim $(JIT_BENCH) sim $(JIT_BENCH_SIM)
	$(Q)if python3 -c 'import numba' 2>/dev/null; then python3 bench/jit/numba_sim.py $(JIT_BENCH_SIM); \
	  else echo "numba-sim: skipped (no numba in python3)"; fi

# `make bench-pipeline`: the hidden layer as three calls, composed, and as a
# deferred pipeline on the host, against NumPy and the one-pass floor (issue
# 19); writes bench/pipeline.md, which RESULTS.md includes.  Sizes:
# BENCH_PIPELINE_SIZES, rounds: BENCH_ROUNDS (default 5).
BENCH_PIPELINE_SIZES ?= 1e7 1e8
BENCH_PIPE_BIN := $(BENCH_DIR)/bench-pipeline

$(BENCH_DIR)/pipeline/hidden.o $(BENCH_DIR)/pipeline/hidden.h: bench/pipeline/hidden.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) -w --target=host,sim $< -o $(BENCH_DIR)/pipeline/hidden.o

$(BENCH_PIPE_BIN): bench/pipeline/main.c bench/harness/floor.c bench/harness/timing.c $(BENCH_DIR)/pipeline/hidden.o $(BENCH_DIR)/pipeline/hidden.h $(LIBUFNRT_A)
	$(call say,CC,$@)
	$(Q)$(CC) $(BENCH_CFLAGS) -I$(BENCH_DIR)/pipeline -o $@ bench/pipeline/main.c bench/harness/floor.c bench/harness/timing.c \
	  $(BENCH_DIR)/pipeline/hidden.o $(LIBUFNRT_A) $(LDLIBS_RT)

.PHONY: bench-pipeline
bench-pipeline: $(BENCH_PIPE_BIN)
	$(Q)bench/pipeline/run.sh $(BENCH_PIPE_BIN) $(BENCH_PIPELINE_SIZES) | tee $(BENCH_DIR)/pipeline.jsonl
	$(Q)python3 bench/pipeline/report.py < $(BENCH_DIR)/pipeline.jsonl > bench/pipeline.md

# The warp reduction on the host: its shuffles in lock-step on the split
# runner against the same shuffles as fibers (bench/jit/warp_bench.c); the
# numbers go to bench/RESULTS.md by hand, with the load.
WARP_BENCH := $(BENCH_DIR)/warp_bench

$(BENCH_DIR)/jit/warp_bench.o: bench/jit/warp_bench.ufn $(UFNC)
	@mkdir -p $(dir $@)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) --target=host $< -o $@

$(WARP_BENCH): bench/jit/warp_bench.c bench/harness/timing.c $(BENCH_DIR)/jit/warp_bench.o $(LIBUFNRT_A)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(BENCH_CFLAGS) -I$(BENCH_DIR)/jit -o $@ $< bench/harness/timing.c $(BENCH_DIR)/jit/warp_bench.o \
	    $(LIBUFNRT_A) $(LDLIBS_RT)

.PHONY: bench-warps
bench-warps: $(WARP_BENCH)
	$(Q)UFN_BACKEND=host $(WARP_BENCH)
