# mk/tools.mk - the programs under tools/ and the tools' common library (included by the top-level Makefile).

# ---- The tools ----
# Tools use only the public header, tools/common/ and their own folder, and link the static
# library. Each program's objects go to $(BUILD)/tobj/<program>/; one rule per program and
# language: $(call tool_rule,PROGRAM,COMPILER,FLAGS,SUFFIX[,MORE_INCLUDES]).
define tool_rule
$(BUILD)/tobj/$(1)/%.o: tools/$(1)/%.$(4) $(wildcard tools/$(1)/*.h) $(wildcard tools/common/*.h) include/clsort.h
	@mkdir -p $$(@D)
	$(2) $(3) -Itools/$(1) -Itools/common $(5) -c -o $$@ $$<
endef
$(foreach p,common clsort clsort-tune clsort-bench,$(eval $(call tool_rule,$(p),$$(CC),$$(ALL_CFLAGS),c)))
$(eval $(call tool_rule,clsort-bench,$$(CXX),$$(ALL_CXXFLAGS),cpp))
$(eval $(call tool_rule,clsort-mpi,$$(MPICC),$$(ALL_CFLAGS),c,-Itools/clsort))
$(MPI_SRCS:tools/%.c=$(BUILD)/tobj/%.o): $(wildcard tools/clsort/*.h)
$(BUILD)/tobj/clsort-bench/bench_vqsort.o: ALL_CXXFLAGS += $(if $(HAVE_HWY),-DCLSORT_HAVE_HWY=1)

$(TOOLS_LIB): $(COMMON_SRCS:tools/%.c=$(BUILD)/tobj/%.o)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/clsort: $(CLI_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(TOOLS_LIB) $(BUILD)/libclsort.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-mpi: $(MPI_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(MPI_CLI_OBJS) $(TOOLS_LIB) $(BUILD)/libclsort.a
	$(MPICC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-tune: $(TUNE_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(BUILD)/libclsort.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-bench: $(BENCH_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(BENCH_CXX:tools/%.cpp=$(BUILD)/tobj/%.o) $(BUILD)/libclsort.a
	$(CXX) $(SAN) -o $@ $^ $(LDLIBS)
