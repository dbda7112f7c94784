# mk/demo.mk - `make demo`: build everything, compile samples/polar.ufn, link
# samples/demo/demo_polar.c with it the way a user would (samples/demo/Makefile
# includes tools/ufn.mk, found through pkg-config) and run it: 10 million
# correlated Gaussian points to polar coordinates, the backend, the time and a
# histogram of theta.  On a machine without nvcc the module carries the host and
# simulator code only; with nvcc, the GPU code too, used when a GPU is there.
#
#   make demo                       UFN_BACKEND, UFN_NUM_THREADS, ... apply
#   make demo DEMO_ARGS=1000000     fewer points
#
# $(BUILD)/pkgconfig/ufn.pc describes the build tree as pkg-config describes an
# installed ufn (ufnc, ufn.mk, headers), except that it links libufnrt.a, so
# programs built in the tree run without LD_LIBRARY_PATH.  Anything in the tree
# that builds like a user may use it: PKG_CONFIG_PATH=$(BUILD)/pkgconfig.

.PHONY: demo
DEMO_OUT  := $(abspath $(BUILD))/demo
DEMO_ARGS ?=
UFN_PC_UNINSTALLED := $(BUILD)/pkgconfig/ufn.pc

all: $(UFN_PC_UNINSTALLED)

$(UFN_PC_UNINSTALLED): Makefile mk/demo.mk
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)printf '%s\n' '# ufn.pc of the build tree (mk/demo.mk): not installed' \
	  'srcdir=$(abspath .)' 'builddir=$(abspath $(BUILD))' \
	  'ufnc=$${builddir}/bin/ufnc' 'ufnmk=$${srcdir}/tools/ufn.mk' '' \
	  'Name: ufn' 'Description: ufnc and libufnrt, uninstalled' 'Version: $(VERSION)' \
	  'Cflags: -I$${srcdir}/include' \
	  'Libs: $${builddir}/lib/libufnrt.a $(LDLIBS_RT)' > $@

demo:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory $(QUIET_MAKE) all
	$(Q)PKG_CONFIG_PATH=$(abspath $(BUILD))/pkgconfig$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH} \
	  $(MAKE) --no-print-directory -C samples/demo OUT=$(DEMO_OUT) \
	    $(if $(NVCC),,UFNFLAGS=--target=host,sim) $(DEMO_OUT)/demo_polar
	$(Q)echo && $(DEMO_OUT)/demo_polar $(DEMO_ARGS)
	$(Q)echo && echo "The GPU path on this CPU, every transfer and launch shown:" && \
	  echo "    UFN_BACKEND=sim UFN_TRACE=1 $(BUILD)/demo/demo_polar 100000"

# check-demo: the demo as `make demo` builds it, run on 300,000 points on the
# host backend and on the simulator.  demo_polar checks its own numbers
# (against libm, and the histogram's peaks) and fails when they are wrong.
CHECK_SUITES += demo
.PHONY: check-demo
check-demo:
	$(Q)$(MAKE) --no-print-directory demo DEMO_ARGS=300000 UFN_BACKEND=host >$(BUILD)/demo.log 2>&1 || \
	  { cat $(BUILD)/demo.log; exit 1; }
	$(Q)if grep -q '^ufn backend: host' $(BUILD)/demo.log; then echo "ok    demo on host"; \
	  else cat $(BUILD)/demo.log; echo "FAIL  demo: not on the host backend"; exit 1; fi
	$(Q)UFN_BACKEND=sim $(DEMO_OUT)/demo_polar 300000 >$(BUILD)/demo-sim.log 2>&1 || \
	  { cat $(BUILD)/demo-sim.log; exit 1; }
	$(Q)if grep -q '^ufn backend: sim' $(BUILD)/demo-sim.log; then echo "ok    demo on sim"; \
	  else cat $(BUILD)/demo-sim.log; echo "FAIL  demo: not on the simulator"; exit 1; fi
