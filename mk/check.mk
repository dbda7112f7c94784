# mk/check.mk - `make check`: every test suite, one line per case, a summary.
#
# Each suite is a target check-NAME listed in CHECK_SUITES (other mk/*.mk
# files add theirs).  `make check` runs them all, even after a failure, and
# prints which passed; it fails if any did.  `make check CHECK_SUITES="unit
# install"` runs only those; `make check-NAME` one, without deps or summary.

CHECK_SUITES += unit

# ufnc's device-code cache (ufnc(1)): the suites' modules go into the
# build tree, not the user's ~/.cache/ufnc.  tests/driver uses its own.
export UFN_CACHE_DIR ?= $(abspath $(BUILD))/cache

UNIT_C_SRC := $(wildcard tests/unit/compiler/test_*.c)
UNIT_R_SRC := $(wildcard tests/unit/runtime/test_*.c)
UNIT_C_BIN := $(UNIT_C_SRC:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_R_BIN := $(UNIT_R_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TEST_CFLAGS := $(CFLAGS) -std=c11 -Wall -Wextra -Itests/unit

$(BUILD)/tests/compiler/%: tests/unit/compiler/%.c $(LIBUFNC)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBUFNC) -lcmocka -lm

$(BUILD)/tests/runtime/%: tests/unit/runtime/%.c $(LIBUFNRT_A)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBUFNRT_A) -lcmocka $(LDLIBS_RT)

-include $(wildcard $(BUILD)/tests/*/*.d)

.PHONY: check-unit
check-unit: $(UNIT_C_BIN) $(UNIT_R_BIN)
	$(Q)tests/run-unit.sh $^

# deps, then the build, then the suites, each in its own make so that none
# starts before the one before it is done, even under -j: a suite's
# prerequisites may build in parallel, two suites never run at once (their
# output would interleave and some share files).  A suite's time is printed,
# never judged.
.PHONY: check
check:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory $(QUIET_MAKE) all
	$(Q)rm -f $(BUILD)/check.log
	$(Q)for s in $(CHECK_SUITES); do \
	  t0=$$(date +%s); \
	  if $(MAKE) --no-print-directory check-$$s; then r=PASS; else r=FAIL; fi; \
	  echo "$$r $$s ($$(( $$(date +%s) - t0 )) s)" >> $(BUILD)/check.log; done
	$(Q)tests/summary.sh $(BUILD)/check.log
