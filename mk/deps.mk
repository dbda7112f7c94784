# mk/deps.mk - `make deps`: find what the build needs; as root, install the
# Debian packages that are missing, otherwise print the command to do it.
.PHONY: deps
deps:
	$(Q)tools/deps.sh
