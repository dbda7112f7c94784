# mk/errors.mk - `make check-errors`: the bad programs of tests/errors/, each
# with the diagnostics ufnc must print for it (tests/errors/run.sh explains
# the format).  UFN_UPDATE_GOLDEN=1 rewrites the expected files.

CHECK_SUITES += errors

.PHONY: check-errors
check-errors: $(UFNC)
	$(Q)tests/errors/run.sh $(UFNC)
