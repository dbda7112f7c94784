# mk/asan.mk - the whole test suite under sanitizers, and some of it under valgrind.
#
#   make check-asan       every suite of make check (but fuzz, which always
#                         runs sanitized, and install) with everything rebuilt into
#                         $(BUILD)/asan by a C compiler with ASan and UBSan:
#                         ufnc, libufnrt, the tests, and the code ufnc itself
#                         compiles during the tests (cc and gcc are wrapper
#                         scripts first in PATH, so ufnc and every test that
#                         spells out cc use them too).  LeakSanitizer is on.
#                         CI runs it.
#   make check-valgrind   the runtime's unit tests, the robustness programs on
#                         host and sim, and ufnc on every sample, under
#                         valgrind's memcheck, with UFN_HOST_ISA=baseline
#                         (valgrind cannot execute AVX-512).  Not in make check:
#                         it takes minutes.

ASAN_DIR  := $(BUILD)/asan
ASAN_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# cc and gcc first in PATH: the tests that spell the compiler out (the
# manual's examples, the install test) build sanitized programs too
ASAN_BIN  := $(abspath $(BUILD))/asan-bin
ASAN_CC   := $(ASAN_BIN)/cc
# fuzz runs sanitized anyway; install checks the installed layout as its
# consumers see it (CMake and pkg-config link with their own compiler and
# flags), which a sanitized libufnrt cannot serve without them.
ASAN_SKIP := fuzz install
# Terabyte allocations are how the tests run out of memory: NULL, not an abort.
# (verify_asan_link_order=0: the manual's examples run programs whose link
# order the test does not choose)
ASAN_ENV  := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:detect_stack_use_after_return=1:verify_asan_link_order=0 \
             UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 PATH="$(ASAN_BIN):$$PATH"

$(ASAN_CC): mk/asan.mk
	@mkdir -p $(dir $@)
	$(Q)for tool in cc gcc; do real=$$(command -v $$tool) || continue; \
	  printf '#!/bin/sh\n# Written by mk/asan.mk: %s with ASan and UBSan.\nexec %s %s "$$@"\n' \
	    "$$tool" "$$real" '$(ASAN_SAN)' > $(ASAN_BIN)/$$tool.tmp && chmod +x $(ASAN_BIN)/$$tool.tmp && \
	  mv $(ASAN_BIN)/$$tool.tmp $(ASAN_BIN)/$$tool; done

.PHONY: check-asan check-valgrind
check-asan: $(ASAN_CC)
	$(Q)$(ASAN_ENV) $(MAKE) --no-print-directory BUILD=$(ASAN_DIR) CC=cc CFLAGS="-O1 -g" \
	    CHECK_SUITES="$(filter-out $(ASAN_SKIP),$(CHECK_SUITES))" check

# ---- valgrind --------------------------------------------------------------------------------

VALGRIND     ?= valgrind
VG_DIR       := $(BUILD)/valgrind
VG_FLAGS     := --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
                --show-leak-kinds=definite --track-origins=yes --quiet
VG_ENV       := UFN_HOST_ISA=baseline UFN_NUM_THREADS=2
# (= not :=: check.mk and robust.mk, included after this file, define them)
VG_UNIT       = $(filter-out %/test_cudrv,$(UNIT_R_BIN) $(RTC_TESTS))

check-valgrind:
	$(Q)$(MAKE) --no-print-directory $(VG_UNIT) $(ROBUST_PLAIN) $(UFNC)
	$(Q)if ! command -v $(VALGRIND) >/dev/null 2>&1; then \
	  echo "check-valgrind: skipped: no valgrind (apt-get install valgrind)"; exit 0; fi; \
	mkdir -p $(VG_DIR); pass=0; fail=0; \
	run() { name=$$1; shift; \
	  if $(VG_ENV) $(VALGRIND) $(VG_FLAGS) --log-file=$(VG_DIR)/$$name.vg "$$@" > $(VG_DIR)/$$name.log 2>&1; then \
	    pass=$$((pass + 1)); echo "ok    $$name"; \
	  else fail=$$((fail + 1)); echo "FAIL  $$name"; cat $(VG_DIR)/$$name.vg | head -30; \
	    tail -5 $(VG_DIR)/$$name.log; fi; }; \
	for t in $(VG_UNIT); do run $${t##*/} $$t; done; \
	for be in host sim; do \
	  run hostile-$$be env UFN_BACKEND=$$be $(ROBUST_DIR)/plain/hostile calls; \
	  run rules-$$be env UFN_BACKEND=$$be $(ROBUST_DIR)/plain/rules; \
	  run agree-$$be env UFN_BACKEND=$$be $(ROBUST_DIR)/plain/agree; done; \
	for s in samples/*.ufn; do n=$${s##*/}; \
	  run ufnc-$${n%.ufn} $(UFNC) $$s --target=host -o $(VG_DIR)/$${n%.ufn}.c; done; \
	echo "valgrind: $$pass passed, $$fail failed"; [ $$fail -eq 0 ]
