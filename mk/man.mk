# mk/man.mk - `make check-man`: the manuals and README.md stay true.
#
#   lint-man.sh       mandoc -Tlint and groff -ww find nothing to say about
#                     man/*.[1-9] (what `man -l` renders)
#   check-options.sh  ufnc(1) describes exactly the options of ufnc --help
#   check-names.sh    ufn(7) lists exactly the functions, constants and type
#                     names of compiler/math.def and the compiler's tables
#   selftest.sh       the checks below can fail
#   run-examples.sh   every example of README.md and of the man pages runs as
#                     the document shows it; the marker before each example
#                     says how (tests/docs/extract.awk).  The examples use
#                     `make install PREFIX=<scratch>`, or the in-tree build
#                     laid out as an install while the Makefile has no install
#                     rule (tests/docs/prefix.sh)
#   ufnmk_goal.sh     README's Makefile relies on it: including ufn.mk first
#                     keeps the makefile's default goal

CHECK_SUITES += man

MAN_PAGES := $(wildcard man/*.[1-9])
DOC_FILES := $(wildcard README.md) $(MAN_PAGES)

.PHONY: check-man
check-man: $(UFNC) $(LIBUFNRT_A) $(LIBUFNRT_SO)
	$(Q)tests/docs/lint-man.sh $(MAN_PAGES)
	$(Q)tests/docs/check-options.sh $(UFNC) man/ufnc.1
	$(Q)tests/docs/check-names.sh .
	$(Q)tests/tools/ufnmk_goal.sh .
	$(Q)BUILD=$(BUILD) tests/docs/selftest.sh
	$(Q)BUILD=$(BUILD) tests/docs/run-examples.sh $(DOC_FILES)
