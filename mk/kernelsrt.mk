# mk/kernelsrt.mk - the runtime of @cuda.jit kernels: build rules of its
# tests (tests/unit/runtime), and `make check-kernelsrt`.
#
# check.mk runs every tests/unit/runtime/test_*.c in `make check-unit`; the
# ones here need more than their one file, so they get explicit rules:
#   test_fiber            the context switch (fiber.c) of this machine
#   test_fiber_ucontext   the same test, with fiber.c built for the ucontext
#                         fallback (-DUFN_FIBER_UCONTEXT) and linked in directly
#   test_simt             the thread engine: barriers, warps, checks
#
# `make check-kernelsrt` (in make check) runs test_fiber_ucontext.

KRT_SRC := tests/unit/runtime
KRT_OUT := $(BUILD)/tests/runtime
KRT_UCONTEXT := $(KRT_OUT)/test_fiber_ucontext

$(KRT_UCONTEXT): $(KRT_SRC)/test_fiber.c runtime/sim/fiber.c runtime/sim/simt.h
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) -DUFN_FIBER_UCONTEXT $(DEPFLAGS) -o $@ \
	    $(KRT_SRC)/test_fiber.c runtime/sim/fiber.c -lcmocka

CHECK_SUITES += kernelsrt

.PHONY: check-kernelsrt
check-kernelsrt: $(KRT_UCONTEXT)
	$(Q)tests/run-unit.sh $(KRT_UCONTEXT)
