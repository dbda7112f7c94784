# mk/install.mk - make install / make uninstall.
#
#   make install PREFIX=/usr/local DESTDIR=/tmp/stage
#
# Directories (each may be set on the command line): PREFIX, BINDIR, LIBDIR,
# INCLUDEDIR, DATADIR, MANDIR, PKGCONFIGDIR, CMAKEDIR (see the Makefile).
# DESTDIR is put in front of every path written to, never into a file: ufn.pc
# and the CMake package hold the final paths, relative to where they are when
# they can be, so a staged or moved tree works too.
#
# What goes where:
#   BINDIR/ufnc
#   LIBDIR/libufnrt.a, libufnrt.so.X.Y.Z with the links libufnrt.so.X (the
#       soname) and libufnrt.so
#   INCLUDEDIR/ufn.h, ufn_dlpack.h
#   INCLUDEDIR/ufn/dlpack/dlpack.h: a copy of the DLPack header libufnrt was
#       built against, for ufn_dlpack.h to fall back on where the system has
#       none.  Never INCLUDEDIR/dlpack/dlpack.h: that would shadow, or clash
#       with, the system's own (Debian's libdlpack-dev).  Without dlpack.h at
#       build time the runtime has no DLPack functions and neither header is
#       installed.
#   PKGCONFIGDIR/ufn.pc                 (tools/ufn.pc.in)
#   DATADIR/ufnc/ufn.mk                 (tools/ufn.mk)
#   CMAKEDIR/ufnConfig.cmake, ufnConfigVersion.cmake  (tools/cmake/)
#   MANDIR/manN/*.N                     (whatever man/ holds)
# Installing into the live system (no DESTDIR) as root runs ldconfig, so that
# programs find the new libufnrt.so.X at once.

.PHONY: install install-files uninstall

INSTALL      ?= install
INSTALL_DIR   = $(INSTALL) -d -m 755
INSTALL_PROG  = $(INSTALL) -m 755
INSTALL_DATA  = $(INSTALL) -m 644

INSTALL_MAN  := $(wildcard man/*.[1-8])
INSTALL_GEN  := $(BUILD)/install

# $(call rel_prefix,DIR): DIR as ${prefix}/... when it lies under PREFIX (for ufn.pc)
rel_prefix = $(if $(filter $(PREFIX),$(1)),$${prefix},$(if $(filter $(PREFIX)/%,$(1)),$${prefix}/$(patsubst $(PREFIX)/%,%,$(1)),$(1)))

# The header the runtime's dlpack.c saw, if any (cc -M lists it).
dlpack_h = $(shell $(CC) $(CPPFLAGS) -M -include dlpack/dlpack.h -x c /dev/null 2>/dev/null | \
             tr ' \\' '\n\n' | grep '/dlpack/dlpack\.h$$' | head -1)

# Written afresh by every install: they depend on the directories asked for.
install-files: all
	$(Q)mkdir -p $(INSTALL_GEN)
	$(Q)sed -e 's|@prefix@|$(PREFIX)|' \
	    -e 's|@bindir@|$(call rel_prefix,$(BINDIR))|' \
	    -e 's|@libdir@|$(call rel_prefix,$(LIBDIR))|' \
	    -e 's|@includedir@|$(call rel_prefix,$(INCLUDEDIR))|' \
	    -e 's|@datadir@|$(call rel_prefix,$(DATADIR))|' \
	    -e 's|@version@|$(VERSION)|' tools/ufn.pc.in > $(INSTALL_GEN)/ufn.pc
	$(Q)rel() { realpath -m --relative-to='$(CMAKEDIR)' "$$1"; }; \
	  sed -e "s|@rel_bindir@|$$(rel '$(BINDIR)')|" \
	      -e "s|@rel_libdir@|$$(rel '$(LIBDIR)')|" \
	      -e "s|@rel_includedir@|$$(rel '$(INCLUDEDIR)')|" \
	      -e 's|@version@|$(VERSION)|; s|@somajor@|$(SOMAJOR)|' \
	      tools/cmake/ufnConfig.cmake.in > $(INSTALL_GEN)/ufnConfig.cmake
	$(Q)sed -e 's|@version@|$(VERSION)|' tools/cmake/ufnConfigVersion.cmake.in \
	    > $(INSTALL_GEN)/ufnConfigVersion.cmake

install: install-files
	$(call say,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL_DIR) '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(LIBDIR)' '$(DESTDIR)$(INCLUDEDIR)' \
	    '$(DESTDIR)$(PKGCONFIGDIR)' '$(DESTDIR)$(DATADIR)/ufnc' '$(DESTDIR)$(CMAKEDIR)'
	$(Q)$(INSTALL_PROG) $(UFNC) '$(DESTDIR)$(BINDIR)/ufnc'
	$(Q)$(INSTALL_DATA) $(LIBUFNRT_A) '$(DESTDIR)$(LIBDIR)/libufnrt.a'
	$(Q)$(INSTALL_PROG) $(LIBUFNRT_SOV) '$(DESTDIR)$(LIBDIR)/libufnrt.so.$(VERSION)'
	$(Q)ln -sf libufnrt.so.$(VERSION) '$(DESTDIR)$(LIBDIR)/libufnrt.so.$(SOMAJOR)'
	$(Q)ln -sf libufnrt.so.$(SOMAJOR) '$(DESTDIR)$(LIBDIR)/libufnrt.so'
	$(Q)$(INSTALL_DATA) include/ufn.h '$(DESTDIR)$(INCLUDEDIR)/ufn.h'
	$(Q)d='$(dlpack_h)'; if [ -n "$$d" ]; then \
	  $(INSTALL_DATA) include/ufn_dlpack.h '$(DESTDIR)$(INCLUDEDIR)/ufn_dlpack.h' && \
	  $(INSTALL_DIR) '$(DESTDIR)$(INCLUDEDIR)/ufn/dlpack' && \
	  $(INSTALL_DATA) "$$d" '$(DESTDIR)$(INCLUDEDIR)/ufn/dlpack/dlpack.h'; \
	else echo "install: no dlpack.h: libufnrt has no DLPack functions, ufn_dlpack.h not installed"; fi
	$(Q)$(INSTALL_DATA) $(INSTALL_GEN)/ufn.pc '$(DESTDIR)$(PKGCONFIGDIR)/ufn.pc'
	$(Q)$(INSTALL_DATA) tools/ufn.mk '$(DESTDIR)$(DATADIR)/ufnc/ufn.mk'
	$(Q)$(INSTALL_DATA) $(INSTALL_GEN)/ufnConfig.cmake $(INSTALL_GEN)/ufnConfigVersion.cmake \
	    '$(DESTDIR)$(CMAKEDIR)'
	$(Q)for m in $(INSTALL_MAN); do s=$${m##*.}; \
	  $(INSTALL_DIR) "$(DESTDIR)$(MANDIR)/man$$s" && \
	  $(INSTALL_DATA) "$$m" "$(DESTDIR)$(MANDIR)/man$$s/" || exit 1; done
	$(Q)if [ -z '$(DESTDIR)' ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then \
	  ldconfig; fi

# Removes what install wrote (man pages: those man/ holds now) and the
# directories that are ufn's alone.
uninstall:
	$(call say,RM,$(DESTDIR)$(PREFIX))
	$(Q)rm -f '$(DESTDIR)$(BINDIR)/ufnc' \
	    '$(DESTDIR)$(LIBDIR)/libufnrt.a' '$(DESTDIR)$(LIBDIR)/libufnrt.so' \
	    '$(DESTDIR)$(LIBDIR)/libufnrt.so.$(SOMAJOR)' '$(DESTDIR)$(LIBDIR)/libufnrt.so.$(VERSION)' \
	    '$(DESTDIR)$(INCLUDEDIR)/ufn.h' '$(DESTDIR)$(INCLUDEDIR)/ufn_dlpack.h' \
	    '$(DESTDIR)$(INCLUDEDIR)/ufn/dlpack/dlpack.h' \
	    '$(DESTDIR)$(PKGCONFIGDIR)/ufn.pc' '$(DESTDIR)$(DATADIR)/ufnc/ufn.mk' \
	    '$(DESTDIR)$(CMAKEDIR)/ufnConfig.cmake' '$(DESTDIR)$(CMAKEDIR)/ufnConfigVersion.cmake'
	$(Q)for m in $(INSTALL_MAN); do rm -f "$(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/}"; done
	$(Q)for d in '$(INCLUDEDIR)/ufn/dlpack' '$(INCLUDEDIR)/ufn' '$(DATADIR)/ufnc' '$(CMAKEDIR)'; do \
	  rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done

# check-install: install into $(BUILD)/tests/install/stage and build a user's
# program from the staged tree alone (tests/install/run.sh).
CHECK_SUITES += install
.PHONY: check-install
check-install: all
	$(Q)tests/install/run.sh $(abspath $(BUILD))/tests/install
