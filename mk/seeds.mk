# mk/seeds.mk - `make check-seeds`: every kernel and helper of the seed
# documents compiles (tests/seeds/run.sh), for host and sim and, when nvcc is
# installed, for one GPU.

CHECK_SUITES += seeds

.PHONY: check-seeds
check-seeds: $(UFNC)
	$(Q)tests/seeds/run.sh $(UFNC)
