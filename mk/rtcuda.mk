# mk/rtcuda.mk - build rules of the CUDA backend's tests (tests/unit/runtime).
#
# check.mk builds each tests/unit/runtime/test_*.c from that one file; the
# CUDA backend's tests need more, so they get explicit rules here:
#   sim_kernels.cu   hand-written kernels in the generated style, compiled as
#                    C11 against ufn_sim.h (with -Werror: the header must keep
#                    ufn_kernel.h warning-free) and, when nvcc is found, into a
#                    fatbin, which proves the same file is valid CUDA
#   sim_module.c     its host side: trampolines, kernel table, ufunc tables
#   fake libcuda     two fake libcuda.so.1 for the driver loader's failure modes

RTC_SRC := tests/unit/runtime
RTC_OUT := $(BUILD)/tests/runtime
RTC_TESTS := $(RTC_OUT)/test_sim_driver $(RTC_OUT)/test_cuda_backend $(RTC_OUT)/test_multi \
             $(RTC_OUT)/test_cuda_hardening $(RTC_OUT)/test_cudrv $(RTC_OUT)/test_sim_graph \
             $(RTC_OUT)/test_pipeline_graph

RTC_SIM := $(RTC_OUT)/sim_kernels.o $(RTC_OUT)/sim_module.o
RTC_FAKE := $(RTC_OUT)/fakecuda/libcuda.so.1 $(RTC_OUT)/fakecuda-nogpa/libcuda.so.1
RTC_FATBIN := $(if $(NVCC),$(RTC_OUT)/sim_kernels.fatbin)
# The toolkit's own stub driver, when it is installed.
RTC_STUB := $(firstword $(wildcard $(dir $(NVCC))../lib64/stubs/libcuda.so $(CUDA_HOME)/lib64/stubs/libcuda.so))

RTC_CPPFLAGS := $(CPPFLAGS) \
    -DFAKE_CUDA_DIR='"$(abspath $(RTC_OUT))"' \
    -DSIM_KERNELS_FATBIN='"$(if $(RTC_FATBIN),$(abspath $(RTC_FATBIN)))"' \
    -DCUDA_STUB_LIBRARY='"$(RTC_STUB)"'

$(RTC_OUT)/sim_kernels.o: $(RTC_SRC)/sim_kernels.cu include/ufn_kernel.h include/ufn_sim.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(RTC_CPPFLAGS) $(CFLAGS) -std=c11 -Wall -Wextra -Werror $(DEPFLAGS) -x c -c -o $@ $<

$(RTC_OUT)/sim_kernels.fatbin: $(RTC_SRC)/sim_kernels.cu include/ufn_kernel.h include/ufn_abi.h
	@mkdir -p $(dir $@)
	$(call say,NVCC,$<)
	$(Q)$(NVCC) --fatbin -gencode arch=compute_75,code=sm_75 -Iinclude \
	    -Werror all-warnings -o $@ $<

$(RTC_OUT)/%.o: $(RTC_SRC)/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(RTC_CPPFLAGS) $(TEST_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(RTC_OUT)/fakecuda/libcuda.so.1: $(RTC_SRC)/fake_cuda.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) -std=c11 -Wall -Wextra -O1 -g -fPIC -shared -o $@ $<

$(RTC_OUT)/fakecuda-nogpa/libcuda.so.1: $(RTC_SRC)/fake_cuda.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) -std=c11 -Wall -Wextra -O1 -g -fPIC -shared -DFAKE_NO_GET_PROC -o $@ $<

$(RTC_TESTS): $(RTC_OUT)/%: $(RTC_SRC)/%.c $(RTC_SRC)/cuda_test.h $(RTC_SIM) $(LIBUFNRT_A) $(RTC_FAKE) $(RTC_FATBIN)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(RTC_CPPFLAGS) $(TEST_CFLAGS) $(DEPFLAGS) -o $@ $< $(RTC_SIM) \
	    $(LIBUFNRT_A) -lcmocka $(LDLIBS_RT)
