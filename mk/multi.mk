# mk/multi.mk - `make check-multi`: several devices in one process, on four
# simulated GPUs (tests/multi/run.sh).
#
# The program is tests/e2e/multigpu (multigpu.ufn + multigpu.c), which
# make check-e2e also runs on host and sim and compares; here it runs with
# UFN_SIM_DEVICES=4 and UFN_TRACE=1, and the trace says which device did
# what: every device launches and receives its share, the reductions'
# partial results come to the first device by peer copies, and UFN_DEVICES
# picks the devices (or is refused, with the variable named).  The
# runtime's own tests of it are in test_multi (make check-unit).

CHECK_SUITES += multi

MULTI_PROG := $(BUILD)/tests/e2e/multigpu

.PHONY: check-multi
check-multi: $(MULTI_PROG)
	$(Q)tests/multi/run.sh $(MULTI_PROG) $(BUILD)/tests/multi
