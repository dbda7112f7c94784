# mk/deps.mk - `make deps`: find what the build needs; as root, install the
# Debian packages that are missing, otherwise print the command to do it
# (tools/deps.sh; `tools/deps.sh -n` only tells).
#
#   make check-deps   deps.sh on pretend machines (fake PATH, file tree and
#                     apt-get): what it would install, and that it asks nothing
.PHONY: deps check-deps
deps:
	$(Q)tools/deps.sh

CHECK_SUITES += deps

check-deps:
	$(Q)tests/deps/run.sh $(abspath $(BUILD))/tests/deps
