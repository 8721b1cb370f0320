# mk/library.mk - libclsort: the embedded kernels, the objects, the static and shared libraries (included by the top-level Makefile).

# ---- The library ----
# Kernels are real .cl files, embedded as byte arrays by a tiny build-time program in mk/ (no xxd
# needed).
$(BUILD)/embed: mk/embed.c | $(BUILD)
	$(CC) -std=c11 -O2 -o $@ $<
$(BUILD)/kernels_embedded.c: $(KERNELS) $(BUILD)/embed
	$(BUILD)/embed $@ $(KERNELS)

$(BUILD) $(BUILD)/obj $(BUILD)/pic $(BUILD)/tests:
	mkdir -p $@

$(BUILD)/obj/%.o: %.c $(HOST_HDRS) include/clsort.h kernels/manifest.h kernels/key_types.h | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -c -o $@ $<
$(BUILD)/pic/%.o: %.c $(HOST_HDRS) include/clsort.h kernels/manifest.h kernels/key_types.h | $(BUILD)/pic
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -fPIC -fvisibility=hidden -c -o $@ $<
# The data directory compiled in is the last place the runtime looks for shipped configs.
$(BUILD)/obj/config.o $(BUILD)/pic/config.o: ALL_CFLAGS += -DCLSORT_DATADIR='"$(CONFIGDIR)"'
$(BUILD)/obj/hostsort.o $(BUILD)/pic/hostsort.o: ALL_CFLAGS += $(if $(HAVE_HWY),-DCLSORT_HAVE_HWY=1)
$(BUILD)/obj/hostsort_hwy.o: hostsort_hwy.cc | $(BUILD)/obj
	$(CXX) $(ALL_CXXFLAGS) -c -o $@ $<
$(BUILD)/pic/hostsort_hwy.o: hostsort_hwy.cc | $(BUILD)/pic
	$(CXX) $(ALL_CXXFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
$(BUILD)/obj/kernels_embedded.o: $(BUILD)/kernels_embedded.c | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -c -o $@ $<
$(BUILD)/pic/kernels_embedded.o: $(BUILD)/kernels_embedded.c | $(BUILD)/pic
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -fPIC -fvisibility=hidden -c -o $@ $<

$(BUILD)/libclsort.a: $(LIB_OBJS) $(BUILD)/obj/kernels_embedded.o
	rm -f $@ && ar rcs $@ $^
$(BUILD)/$(SO_REAL): $(PIC_OBJS) $(BUILD)/pic/kernels_embedded.o
	$(CC) -shared $(SAN) -Wl,-soname,$(SO_NAME) -o $@ $^ $(LDLIBS)
$(BUILD)/$(SO_NAME): $(BUILD)/$(SO_REAL)
	ln -sf $(SO_REAL) $@
$(BUILD)/$(SO_DEV): $(BUILD)/$(SO_NAME)
	ln -sf $(SO_NAME) $@
