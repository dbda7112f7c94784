# mk/mathlib.mk - checks of include/ufn_math.h, the header every generated file
# includes.  Neither needs libufnc.a.
#
#   make check-mathlib        test_ufn_math.c under -fsanitize=address,undefined:
#                             the helpers exist to have no UB, so UBSan must stay quiet
#   make check-mathlib-nvcc   ufn_math_device.cu compiled as C11 (how the simulator
#                             builds generated .cu files), as C++17 (nvcc's dialect;
#                             the hexadecimal float constants need it), and by nvcc for
#                             the device with ptxas warnings as errors; without nvcc
#                             the nvcc part says "skipped: no nvcc" and passes
#   make check-math           tests/math: every function of ufn_libm.h against MPFR
#                             on sampled inputs and edge cases, within the bound of
#                             ufn(7) (accuracy.c); vectorised host loops bit-identical
#                             to the scalar functions on every ISA the CPU has (lanes.c);
#                             a module built by clang gives the gcc build's bits (clang.sh);
#                             division by an odd integer constant without the divider
#                             gives `/`'s bits (cdiv.c, gcc and clang)
#   make math-cdiv-exhaustive every float32 x divided by 255, 3, 2^22-1 and more (cdiv.c -x,
#                             minutes; not in make check): writes tests/math/RESULTS-cdiv.md
#   make math-exhaustive      every float32 input of every one-argument float32
#                             function (exhaustive.c, hours on two cores; not in
#                             make check): writes tests/math/RESULTS.md

CHECK_SUITES += mathlib mathlib-nvcc math

MATHLIB_DIR   := $(BUILD)/tests/mathlib
MATHLIB_TEST  := tests/unit/compiler/test_ufn_math.c
MATHLIB_DEV   := tests/unit/compiler/ufn_math_device.cu
MATHLIB_HDRS  := include/ufn_math.h include/ufn_complex.h $(wildcard include/ufn_libm*.h) compiler/math.def $(wildcard tests/unit/compiler/ufn_math_*.h)
MATHLIB_INC   := -Iinclude -Icompiler -Itests/unit/compiler
MATHLIB_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# ptxas: spills and local memory are errors, for every function.
MATHLIB_ARCH  ?= sm_90
MATHLIB_NVCC  := -arch=$(MATHLIB_ARCH) -Werror all-warnings $(MATHLIB_INC)

$(MATHLIB_DIR)/test_ufn_math: $(MATHLIB_TEST) $(MATHLIB_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror $(MATHLIB_SAN) $(MATHLIB_INC) -o $@ $< -lcmocka -lm

.PHONY: check-mathlib check-mathlib-nvcc
check-mathlib: $(MATHLIB_DIR)/test_ufn_math
	$(Q)UBSAN_OPTIONS=print_stacktrace=1 tests/run-unit.sh $<

# The three compiles are the test; their success is kept in a stamp, so a
# second `make check` with nothing changed (sources, headers, the compilers'
# paths) does not pay for nvcc again.
check-mathlib-nvcc: $(MATHLIB_DIR)/nvcc.ok
	@echo "check-mathlib-nvcc: ok$(if $(NVCC), ($(MATHLIB_ARCH)), (no nvcc: C and C++ only))"

$(MATHLIB_DIR)/nvcc.ok: $(MATHLIB_DEV) $(MATHLIB_HDRS) $(NVCC) mk/mathlib.mk \
                       tests/unit/compiler/check_mathlib_coverage.sh
	@mkdir -p $(MATHLIB_DIR)
	$(Q)tests/unit/compiler/check_mathlib_coverage.sh .
	$(call say,CC,$(MATHLIB_DEV))
	$(Q)$(CC) -std=c11 -Wall -Wextra -Werror $(MATHLIB_INC) -x c -c $(MATHLIB_DEV) -o $(MATHLIB_DIR)/device_as_c.o
	$(Q)if command -v $(CXX) >/dev/null 2>&1; then \
	  printf '  %-7s %s\n' CXX $(MATHLIB_DEV); \
	  $(CXX) -std=c++17 -Wall -Wextra -Werror $(MATHLIB_INC) -x c++ -c $(MATHLIB_DEV) -o $(MATHLIB_DIR)/device_as_cxx.o; \
	else echo "check-mathlib-nvcc: C++ skipped: no $(CXX)"; fi
	$(Q)if [ -z "$(NVCC)" ]; then echo "check-mathlib-nvcc: skipped: no nvcc"; else \
	  printf '  %-7s %s\n' NVCC $(MATHLIB_DEV); \
	  $(NVCC) $(MATHLIB_NVCC) -Xptxas -warn-spills,-warn-lmem-usage -c $(MATHLIB_DEV) -o $(MATHLIB_DIR)/device.o && \
	  echo "check-mathlib-nvcc: nvcc ok ($(MATHLIB_ARCH))"; fi
	@touch $@

# tests/math is compiled as ufnc compiles a host stub (compiler/build.c:
# -O3, no contraction, no errno, no trapping math).
MATH_DIR     := $(BUILD)/tests/math
MATH_CFLAGS  := -std=c11 -O3 -Wall -Wextra -Werror -ffp-contract=off -fno-math-errno -fno-trapping-math \
                -Iinclude -Itests/math
MATH_HDRS    := $(filter-out compiler/math.def,$(MATHLIB_HDRS)) $(wildcard tests/math/*.h)
# the samples per function in make check: seconds, every edge case included
MATH_SAMPLES ?= 2000
MATH_EXHAUSTIVE_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

$(MATH_DIR)/accuracy $(MATH_DIR)/exhaustive: $(MATH_DIR)/%: tests/math/%.c $(MATH_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(MATH_CFLAGS) -o $@ $< -lmpfr -lgmp -lm -lpthread

$(MATH_DIR)/lanes: tests/math/lanes.c $(MATH_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(MATH_CFLAGS) -o $@ $< -lm

$(MATH_DIR)/cdiv: tests/math/cdiv.c $(MATH_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(MATH_CFLAGS) -o $@ $< -lm -lpthread

.PHONY: check-math math-exhaustive math-cdiv-exhaustive
check-math: $(MATH_DIR)/accuracy $(MATH_DIR)/lanes $(MATH_DIR)/cdiv $(UFNC) $(LIBUFNRT_A) $(BUILD)/tests/e2e/cmpdump \
            $(BUILD)/tests/e2e/mathbits
	$(Q)$(MATH_DIR)/lanes
	$(Q)$(MATH_DIR)/cdiv
	$(Q)if command -v clang >/dev/null 2>&1; then \
	  clang $(MATH_CFLAGS) -o $(MATH_DIR)/cdiv-clang tests/math/cdiv.c -lm -lpthread && \
	  printf 'clang: ' && $(MATH_DIR)/cdiv-clang -n 2e4; else echo "check-math: cdiv with clang skipped: no clang"; fi
	$(Q)tests/math/clang.sh $(UFNC) $(LIBUFNRT_A) $(BUILD)/tests/e2e/cmpdump $(BUILD)/tests/e2e/mathbits \
	  $(MATH_DIR)/clang
	$(Q)$(MATH_DIR)/accuracy -n $(MATH_SAMPLES) > $(MATH_DIR)/accuracy.txt; status=$$?; \
	  grep -E 'OVER|WRONG' $(MATH_DIR)/accuracy.txt; \
	  echo "check-math: $$(($$(wc -l < $(MATH_DIR)/accuracy.txt) - 1)) function/format pairs against MPFR," \
	       "$$(grep -cE 'OVER|WRONG' $(MATH_DIR)/accuracy.txt) over their bound (table: $(MATH_DIR)/accuracy.txt)"; \
	  exit $$status

math-exhaustive: $(MATH_DIR)/exhaustive
	$(Q){ echo "# Exhaustive float32 accuracy"; echo; \
	  echo "\`make math-exhaustive\` (tests/math/exhaustive.c) on $$(date -u +%Y-%m-%dT%H:%MZ), $$(uname -m)," \
	       "$$($(CC) --version | head -1): every float32 input of each function, error in ulp against"; \
	  echo "the correctly rounded result (MPFR)."; echo; \
	  $(MATH_DIR)/exhaustive -j $(MATH_EXHAUSTIVE_JOBS) $(MATH_FUNCTIONS); } > tests/math/RESULTS.md.tmp
	$(Q)mv tests/math/RESULTS.md.tmp tests/math/RESULTS.md
	@cat tests/math/RESULTS.md

# every float32 x against the divisors of tests/math/cdiv.c's table (cdiv -x):
# about 20 s of CPU a divisor; not in make check
math-cdiv-exhaustive: $(MATH_DIR)/cdiv
	$(Q){ echo "# Exhaustive float32 division by an integer constant"; echo; \
	  echo "\`make math-cdiv-exhaustive\` (tests/math/cdiv.c -x) on $$(date -u +%Y-%m-%dT%H:%MZ), $$(uname -m)," \
	       "$$($(CC) --version | head -1): ufn_div_const_f32(x, |d|, RN(1/|d|)), negated for a negative d,"; \
	  echo "against IEEE \`x / d\` for every float32 x (bits; NaN as NaN)."; echo; \
	  $(MATH_DIR)/cdiv -x -j $(MATH_EXHAUSTIVE_JOBS); } > tests/math/RESULTS-cdiv.md.tmp
	$(Q)mv tests/math/RESULTS-cdiv.md.tmp tests/math/RESULTS-cdiv.md
	@cat tests/math/RESULTS-cdiv.md
