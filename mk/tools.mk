# mk/tools.mk - the programs under tools/ and the shared layers' library (included by the top-level Makefile).

# ---- The tools ----
# The tools use only the public header and their layers (tests/check_layers.sh): a folder compiles
# with the include path of its own layer and those below it, so an upward include does not compile.
# Objects go to $(BUILD)/tobj/<folder>/; one rule per folder and language:
# $(call tool_rule,FOLDER,COMPILER,FLAGS,SUFFIX,INCLUDES).
TOOLS_INC_LIB   = -Itools/lib
TOOLS_INC_MERGE = -Itools/merge $(TOOLS_INC_LIB)
TOOLS_HDRS      = $(wildcard tools/lib/*.h) $(wildcard tools/merge/*.h)
define tool_rule
$(BUILD)/tobj/$(1)/%.o: tools/$(1)/%.$(4) $(wildcard tools/$(1)/*.h) $(TOOLS_HDRS) include/clsort.h
	@mkdir -p $$(@D)
	$(2) $(3) $(5) -c -o $$@ $$<
endef
$(eval $(call tool_rule,lib,$$(CC),$$(ALL_CFLAGS),c,$(TOOLS_INC_LIB)))
$(eval $(call tool_rule,merge,$$(CC),$$(ALL_CFLAGS),c,$(TOOLS_INC_MERGE)))
$(foreach p,clsort clsort-tune clsort-bench,$(eval $(call tool_rule,$(p),$$(CC),$$(ALL_CFLAGS),c,-Itools/$(p) $(TOOLS_INC_MERGE))))
$(eval $(call tool_rule,clsort-bench,$$(CXX),$$(ALL_CXXFLAGS),cpp,-Itools/clsort-bench $(TOOLS_INC_MERGE)))
$(eval $(call tool_rule,clsort-mpi,$$(MPICC),$$(ALL_CFLAGS),c,-Itools/clsort-mpi $(TOOLS_INC_MERGE)))
$(BUILD)/tobj/clsort-bench/bench_vqsort.o: ALL_CXXFLAGS += $(if $(HAVE_HWY),-DCLSORT_HAVE_HWY=1)

# The entry points (tools/main/) stand above their program's folder: each compiles against it.
define main_rule
$(BUILD)/tobj/main/$(1).o: tools/main/$(1).c $(wildcard tools/$(2)/*.h) $(TOOLS_HDRS) include/clsort.h
	@mkdir -p $$(@D)
	$(3) $$(ALL_CFLAGS) -Itools/$(2) $(TOOLS_INC_MERGE) -c -o $$@ $$<
endef
$(eval $(call main_rule,clsort_main,clsort,$$(CC)))
$(eval $(call main_rule,tune_main,clsort-tune,$$(CC)))
$(eval $(call main_rule,bench_main,clsort-bench,$$(CC)))
$(eval $(call main_rule,mpi_main,clsort-mpi,$$(MPICC)))

$(TOOLS_LIB): $(TOOLS_LIB_SRCS:tools/%.c=$(BUILD)/tobj/%.o)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/clsort: $(CLI_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(TOOLS_LIB) $(BUILD)/libclsort.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-mpi: $(MPI_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(TOOLS_LIB) $(BUILD)/libclsort.a
	$(MPICC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-tune: $(TUNE_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(TOOLS_LIB) $(BUILD)/libclsort.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-bench: $(BENCH_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(BENCH_CXX:tools/%.cpp=$(BUILD)/tobj/%.o) $(TOOLS_LIB) $(BUILD)/libclsort.a
	$(CXX) $(SAN) -o $@ $^ $(LDLIBS)
