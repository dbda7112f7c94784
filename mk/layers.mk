# mk/layers.mk - `make check-layers`: calls between the files of the compiler,
# and between those of the runtime, go one way (tools/check-cycles.sh reads
# the objects' symbols with nm and fails on any cycle, naming its arrows).
#
#   make check-layers-compiler  (suite "layers-compiler") the compiler's files:
#                               no file calls into a later pass (README)
#   make check-layers-runtime   (suite "layers-runtime") the runtime's files:
#                               API -> plan -> backend, and inside runtime/cuda
#                               each file below the ones that call it

CHECK_SUITES += layers-compiler layers-runtime

.PHONY: check-layers check-layers-compiler check-layers-runtime
check-layers: check-layers-compiler check-layers-runtime

check-layers-compiler: $(COMPILER_OBJ)
	$(Q)tools/check-cycles.sh $(COMPILER_OBJ)

check-layers-runtime: $(RUNTIME_OBJ)
	$(Q)tools/check-cycles.sh $(RUNTIME_OBJ)
