# mk/driver.mk - `make check-driver`: ufnc's command line as a build system
# sees it (tests/driver/run.sh): exit statuses, output kinds, dependency
# files against gcc's, -v, -d, --prefix, and byte-identical outputs.  The
# nvcc parts say "skipped: no nvcc" without the CUDA toolkit.

CHECK_SUITES += driver

.PHONY: check-driver
check-driver: $(UFNC)
	$(Q)tests/driver/run.sh $(UFNC)
