# mk/interop.mk - `make check-interop`: C interop (tests/interop/run.sh).
#
#   openmp    ufn_set_num_threads; calls from inside an OpenMP parallel
#             region (built with -fopenmp) run on their callers alone
#   devices   ufn_set_device on two simulated GPUs, and on the host
#   view      ufn_device_view, ufn_stream_wrap: a CUDA program's memory and
#             stream (the simulated driver's), ordered with its own copies
#   trace     ufn_set_trace_callback, UFN_TRACE=time,summary, and NVTX
#             ranges through a fake libnvToolsExt (fake_nvtx.c)
#
# Each program compiles tests/interop/interop.ufn and checks its own
# numbers; run.sh runs each on the backends it is for.

CHECK_SUITES += interop

INTEROP_DIR   := $(BUILD)/tests/interop
INTEROP_NAMES := openmp devices view trace
INTEROP_BIN   := $(INTEROP_NAMES:%=$(INTEROP_DIR)/%)
INTEROP_FLAGS_openmp := -fopenmp

$(INTEROP_DIR)/%.o $(INTEROP_DIR)/%.h: tests/interop/%.ufn $(UFNC)
	@mkdir -p $(INTEROP_DIR)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) --target=host,sim -o $(INTEROP_DIR)/$*.o -H $(INTEROP_DIR)/$*.h $<

$(INTEROP_BIN): $(INTEROP_DIR)/%: tests/interop/%.c tests/interop/check.h $(INTEROP_DIR)/interop.o \
                $(INTEROP_DIR)/interop.h $(LIBUFNRT_A)
	$(call say,CC,$<)
	$(Q)$(CC) -Iinclude -Iruntime -Iruntime/cuda -I$(INTEROP_DIR) $(CFLAGS) $(WARNFLAGS) -Werror \
	  -Wno-missing-prototypes $(INTEROP_FLAGS_$*) -o $@ $< $(INTEROP_DIR)/interop.o \
	  $(LIBUFNRT_A) $(LDLIBS_RT)

INTEROP_NVTX := $(INTEROP_DIR)/libfakenvtx.so

$(INTEROP_NVTX): tests/interop/fake_nvtx.c
	@mkdir -p $(INTEROP_DIR)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(WARNFLAGS) -Werror -Wno-missing-prototypes -fPIC -shared -o $@ $< -lpthread

.PHONY: check-interop
check-interop: $(INTEROP_BIN) $(INTEROP_NVTX)
	$(Q)tests/interop/run.sh $(INTEROP_DIR)
