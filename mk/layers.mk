# mk/layers.mk - `make check-layers`: calls between the files of the compiler,
# and between those of the runtime, go one way (tools/check-cycles.sh reads
# the objects' symbols with nm and fails on any cycle, naming its arrows).

# make check runs the compiler's half (the runtime's joins it once it has
# no cycle left).
CHECK_SUITES += layers-compiler

.PHONY: check-layers check-layers-compiler check-layers-runtime
check-layers: check-layers-compiler check-layers-runtime

check-layers-compiler: $(COMPILER_OBJ)
	$(Q)tools/check-cycles.sh $(COMPILER_OBJ)

check-layers-runtime: $(RUNTIME_OBJ)
	$(Q)tools/check-cycles.sh $(RUNTIME_OBJ)
