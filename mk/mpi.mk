# mk/mpi.mk - libufnmpi (mpi/: ufunc reductions across MPI ranks), built
# when an MPI is installed, and `make check-mpi`.
#
#   $(BUILD)/lib/libufnmpi.a, libufnmpi.so   with `make` when MPICC is found
#                       (default: mpicc on PATH; Debian's openmpi-bin and
#                       libopenmpi-dev, which `make deps` installs); compiled
#                       by $(CC) with the MPI's flags (mpicc --showme), so
#                       that check-asan's compiler builds it too
#   make check-mpi      (in make check) the tests of tests/mpi/run.sh under
#                       mpirun, and the MPI sample samples/mpi/hidden_layer
#                       against one process; "skipped" without an MPI
#   make install        also installs libufnmpi, ufn_mpi.h and ufn-mpi.pc

ifeq ($(origin MPICC),undefined)
MPICC := $(shell command -v mpicc 2>/dev/null)
endif
MPIRUN := $(if $(MPICC),$(or $(wildcard $(dir $(MPICC))mpirun),$(shell command -v mpirun 2>/dev/null)))

MPI_CFLAGS := $(if $(MPICC),$(shell $(MPICC) --showme:compile 2>/dev/null || pkg-config --cflags mpich 2>/dev/null))
MPI_LIBS   := $(if $(MPICC),$(shell $(MPICC) --showme:link 2>/dev/null || pkg-config --libs mpich 2>/dev/null))

MPI_SRC      := $(wildcard mpi/*.c)
MPI_OBJ      := $(MPI_SRC:%.c=$(BUILD)/%.o)
LIBUFNMPI_A  := $(BUILD)/lib/libufnmpi.a
LIBUFNMPI_SOV := $(BUILD)/lib/libufnmpi.so.$(VERSION)
LIBUFNMPI_SO := $(BUILD)/lib/libufnmpi.so

ifneq ($(MPICC),)
all: $(LIBUFNMPI_A) $(LIBUFNMPI_SO)
endif

$(BUILD)/mpi/%.o: mpi/%.c mpi/ufn_mpi.h mpi/mpi_int.h include/ufn.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -Impi $(MPI_CFLAGS) $(CFLAGS) $(WARNFLAGS) -fPIC -fvisibility=hidden \
	    $(DEPFLAGS) -c -o $@ $<

$(LIBUFNMPI_A): $(MPI_OBJ) | $(BUILD)/lib
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Linked with libufnrt.so and the MPI, as the soname says.
$(LIBUFNMPI_SOV): $(MPI_OBJ) $(LIBUFNRT_SO) | $(BUILD)/lib
	$(call say,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libufnmpi.so.$(SOMAJOR) -Wl,--no-undefined -o $@ $(MPI_OBJ) \
	    -L$(BUILD)/lib -lufnrt $(MPI_LIBS) $(LDFLAGS)

$(LIBUFNMPI_SO): $(LIBUFNMPI_SOV)
	$(Q)ln -sf $(notdir $<) $(BUILD)/lib/libufnmpi.so.$(SOMAJOR)
	$(Q)ln -sf libufnmpi.so.$(SOMAJOR) $@

-include $(wildcard $(BUILD)/mpi/*.d)

# ---- tests and the sample ------------------------------------------------------------

CHECK_SUITES += mpi

MPI_TDIR     := $(BUILD)/tests/mpi
MPI_TEST     := $(MPI_TDIR)/test_mpi
MPI_SAMPLE   := $(BUILD)/samples/mpi/hidden_layer
MPI_UFNFLAGS := --target=host,sim
MPI_PROG_CFLAGS := $(CFLAGS) $(WARNFLAGS) -Werror -Wno-missing-prototypes

# The test's ufuncs twice: with host code, and without (an operator that
# cannot run on the host).
$(MPI_TDIR)/mpi_ops.o $(MPI_TDIR)/mpi_ops.h: tests/mpi/mpi_ops.ufn $(UFNC)
	@mkdir -p $(MPI_TDIR)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) $(MPI_UFNFLAGS) -o $(MPI_TDIR)/mpi_ops.o -H $(MPI_TDIR)/mpi_ops.h $<

$(MPI_TDIR)/mpi_nohost.o $(MPI_TDIR)/mpi_nohost.h: tests/mpi/mpi_ops.ufn $(UFNC)
	@mkdir -p $(MPI_TDIR)
	$(call say,UFNC,$<)
	$(Q)$(UFNC) --target=sim --module-name=mpi_nohost --prefix=nohost_ \
	    -o $(MPI_TDIR)/mpi_nohost.o -H $(MPI_TDIR)/mpi_nohost.h $<

$(MPI_TEST): tests/mpi/test_mpi.c $(MPI_TDIR)/mpi_ops.o $(MPI_TDIR)/mpi_nohost.o \
             $(LIBUFNMPI_A) $(LIBUFNRT_A)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -Impi -I$(MPI_TDIR) $(MPI_CFLAGS) $(MPI_PROG_CFLAGS) -o $@ $< \
	    $(MPI_TDIR)/mpi_ops.o $(MPI_TDIR)/mpi_nohost.o $(LIBUFNMPI_A) $(LIBUFNRT_A) \
	    $(MPI_LIBS) $(LDLIBS_RT)

$(BUILD)/samples/mpi/reduce.o $(BUILD)/samples/mpi/reduce.h: samples/mpi/reduce.ufn $(UFNC)
	@mkdir -p $(BUILD)/samples/mpi
	$(call say,UFNC,$<)
	$(Q)$(UFNC) $(UFNFLAGS) -o $(BUILD)/samples/mpi/reduce.o -H $(BUILD)/samples/mpi/reduce.h $<

$(MPI_SAMPLE): samples/mpi/hidden_layer.c samples/sample.h $(BUILD)/samples/mpi/reduce.o \
               $(BUILD)/samples/hidden_layer.o $(LIBUFNMPI_A) $(LIBUFNRT_A)
	$(call say,CC,$<)
	$(Q)$(CC) -Iinclude -Impi -Isamples -I$(BUILD)/samples -I$(BUILD)/samples/mpi $(MPI_CFLAGS) \
	    $(MPI_PROG_CFLAGS) -o $@ $< $(BUILD)/samples/mpi/reduce.o $(BUILD)/samples/hidden_layer.o \
	    $(LIBUFNMPI_A) $(LIBUFNRT_A) $(MPI_LIBS) $(LDLIBS_RT)

.PHONY: check-mpi
ifneq ($(MPICC),)
check-mpi: $(MPI_TEST) $(MPI_SAMPLE)
	$(Q)tests/mpi/run.sh "$(MPIRUN)" $(MPI_TDIR) $(MPI_TEST) $(MPI_SAMPLE)
else
check-mpi:
	@echo "check-mpi: skipped: no MPI (no mpicc; apt-get install openmpi-bin libopenmpi-dev)"
endif

# ---- install ------------------------------------------------------------------------------

ifneq ($(MPICC),)
install: install-mpi
uninstall: uninstall-mpi
endif

.PHONY: install-mpi uninstall-mpi
install-mpi: install-files $(LIBUFNMPI_A) $(LIBUFNMPI_SO)
	$(Q)sed -e 's|@prefix@|$(PREFIX)|' \
	    -e 's|@libdir@|$(call rel_prefix,$(LIBDIR))|' \
	    -e 's|@includedir@|$(call rel_prefix,$(INCLUDEDIR))|' \
	    -e 's|@version@|$(VERSION)|' \
	    -e 's|@mpi_cflags@|$(MPI_CFLAGS)|' -e 's|@mpi_libs@|$(MPI_LIBS)|' \
	    tools/ufn-mpi.pc.in > $(INSTALL_GEN)/ufn-mpi.pc
	$(Q)$(INSTALL_DIR) '$(DESTDIR)$(LIBDIR)' '$(DESTDIR)$(INCLUDEDIR)' '$(DESTDIR)$(PKGCONFIGDIR)'
	$(Q)$(INSTALL_DATA) $(LIBUFNMPI_A) '$(DESTDIR)$(LIBDIR)/libufnmpi.a'
	$(Q)$(INSTALL_PROG) $(LIBUFNMPI_SOV) '$(DESTDIR)$(LIBDIR)/libufnmpi.so.$(VERSION)'
	$(Q)ln -sf libufnmpi.so.$(VERSION) '$(DESTDIR)$(LIBDIR)/libufnmpi.so.$(SOMAJOR)'
	$(Q)ln -sf libufnmpi.so.$(SOMAJOR) '$(DESTDIR)$(LIBDIR)/libufnmpi.so'
	$(Q)$(INSTALL_DATA) mpi/ufn_mpi.h '$(DESTDIR)$(INCLUDEDIR)/ufn_mpi.h'
	$(Q)$(INSTALL_DATA) $(INSTALL_GEN)/ufn-mpi.pc '$(DESTDIR)$(PKGCONFIGDIR)/ufn-mpi.pc'

uninstall-mpi:
	$(Q)rm -f '$(DESTDIR)$(LIBDIR)/libufnmpi.a' '$(DESTDIR)$(LIBDIR)/libufnmpi.so' \
	    '$(DESTDIR)$(LIBDIR)/libufnmpi.so.$(SOMAJOR)' '$(DESTDIR)$(LIBDIR)/libufnmpi.so.$(VERSION)' \
	    '$(DESTDIR)$(INCLUDEDIR)/ufn_mpi.h' '$(DESTDIR)$(PKGCONFIGDIR)/ufn-mpi.pc'
