# mk/seeds.mk - `make check-seeds`: every kernel and helper of the seed
# documents compiles (tests/seeds/run.sh), for host and sim; their GPU code,
# for the default architecture list, is check-e2e-nvcc's (mk/e2e.mk).

CHECK_SUITES += seeds

.PHONY: check-seeds
check-seeds: $(UFNC)
	$(Q)tests/seeds/run.sh $(UFNC)
